"""Lesson 03's exercises: choose a route, write the coverage record that adds up."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from botie.lessons.exercises._shared import record
from botie.lessons.exercises.engine import Case, Exercise, Raises, show

__all__ = ["EXERCISES"]


def _docs(sizes: Iterable[int]):
    return [record(f"d{i}", "contracts", int(size)) for i, size in enumerate(sizes)]


def _oracle_route(sizes, soft_budget) -> str:
    from botie.context.routing import plan_context

    return str(plan_context(_docs(sizes), ceiling=soft_budget, soft_fraction=1).strategy)


def _agreements():
    from botie.lessons.content.fixtures import fixture_path, load_records

    return load_records(fixture_path("agreements_41.json"))


def _route_cases() -> tuple[Case, ...]:
    soft = 540_000
    forty_one = [d.cost for d in _agreements()]
    plan = [
        ("the 41 agreements (1,440,000 tokens)", forty_one, soft, True),
        ("one agreement of 1,440,000 tokens", [1_440_000], soft, True),
        ("600,000 beside three of 20,000: a modest total", [600_000, 20_000, 20_000, 20_000], soft, True),
        ("one document of exactly the soft budget", [540_000], soft, False),
        ("one document a single token over", [540_001], soft, False),
        ("two documents adding up to the soft budget exactly", [300_000, 240_000], soft, False),
        ("one token over the soft budget in total", [300_000, 240_001], soft, False),
        ("exactly four soft budgets", [540_000] * 4, soft, False),
        ("four soft budgets and one token", [540_000] * 4 + [1], soft, False),
        ("nothing attached", [], soft, False),
        ("a hundred documents of 30,000", [30_000] * 100, soft, False),
        ("one too big among a hundred", [600_000] + [30_000] * 100, soft, False),
        ("a small soft budget of 100: 50 + 60", [50, 60], 100, False),
    ]
    return tuple(
        Case(label, (sizes, budget), _oracle_route(sizes, budget), shown=shown) for label, sizes, budget, shown in plan
    )


def _same_strategy(got: Any, expected: str) -> str | None:
    if not isinstance(got, str):
        return f"expected a strategy name such as {expected!r}, got {show(got)}"
    return None if str(got) == expected else f"expected {expected!r}, got {str(got)!r}"


_ROUTE = Exercise(
    "route",
    "Choose the strategy, with the oversized check first",
    _route_cases,
    _same_strategy,
    (
        "Four outcomes: retrieve_within_document, stuff_all, select_documents, retrieve_chunks. The order "
        "you test them in is the whole exercise: a single document above the soft budget decides before "
        "any total is looked at.",
        "Oversized means one size > soft_budget (strictly: a document of exactly the soft budget fits). "
        "Then: total <= soft_budget is stuff_all; total <= 4 * soft_budget is select_documents; anything "
        "bigger is retrieve_chunks.",
        "if any(size > soft_budget for size in sizes): return 'retrieve_within_document'; total = sum(sizes); "
        "if total <= soft_budget: return 'stuff_all'; if total <= 4 * soft_budget: return "
        "'select_documents'; return 'retrieve_chunks'",
    ),
)

_COVERAGE_KEYS = (
    "strategy",
    "documents_attached",
    "documents_in_context",
    "documents_not_read",
    "excluded_ids",
    "token_budget_used",
)


def _oracle_coverage(strategy, attached, read_ids) -> dict[str, Any]:
    ids = [d.id for d in attached]
    unknown = [i for i in read_ids if i not in ids]
    if unknown:
        raise ValueError(f"{unknown[0]} was read but never attached")
    read = set(read_ids)
    excluded = [i for i in ids if i not in read]
    return {
        "strategy": strategy,
        "documents_attached": len(ids),
        "documents_in_context": len(ids) - len(excluded),
        "documents_not_read": len(excluded),
        "excluded_ids": excluded,
        "token_budget_used": sum(d.cost for d in attached if d.id in read),
    }


def _coverage_cases() -> tuple[Case, ...]:
    from botie.context.routing import execute_plan, plan_context

    agreements = list(_agreements())
    read12 = list(execute_plan(plan_context(agreements, ceiling=900_000)).included_ids)
    three = _docs([100, 200, 300])
    plan = [
        ("the 41 agreements, 12 read in full", "select_documents", agreements, read12, True),
        ("everything read: stuff_all", "stuff_all", three, ["d0", "d1", "d2"], False),
        ("nothing read whole: retrieve_chunks", "retrieve_chunks", three, [], False),
        ("read ids given out of order", "select_documents", three, ["d2", "d0"], False),
        ("the same id read twice", "select_documents", three, ["d1", "d1"], False),
        ("the 41 agreements, the last one read", "select_documents", agreements, [agreements[-1].id], False),
        ("nothing attached", "stuff_all", [], [], False),
    ]
    cases = [
        Case(label, (strategy, docs, read), _oracle_coverage(strategy, docs, read), shown=shown)
        for label, strategy, docs, read, shown in plan
    ]
    cases.append(
        Case(
            "a read id that was never attached",
            ("select_documents", three, ["d1", "d9"]),
            Raises(ValueError, "the record would no longer add up"),
        )
    )
    return tuple(cases)


def _same_coverage(got: Any, expected: Mapping[str, Any]) -> str | None:
    if not isinstance(got, Mapping):
        return f"expected a dict with {', '.join(_COVERAGE_KEYS)}, got {show(got)}"
    missing = [k for k in _COVERAGE_KEYS if k not in got]
    if missing:
        return f"the record has no {missing[0]!r}"
    for key in _COVERAGE_KEYS:
        value = got[key]
        if key == "excluded_ids" and isinstance(value, tuple):
            value = list(value)
        if type(value) is bool or value != expected[key]:
            return f"{key}: expected {expected[key]!r}, got {show(value)}"
    return None


_COVERAGE = Exercise(
    "coverage_record",
    "A coverage record that adds up",
    _coverage_cases,
    _same_coverage,
    (
        "Every attached document lands in exactly one bucket: read in full (its id is in read_ids) or "
        "not read (named in excluded_ids). The two counts must add up to the number attached.",
        "excluded_ids lists the documents not read, in the order they were attached. token_budget_used adds "
        "the cost of the documents read, each once. A read id that was never attached means the accounting "
        "is broken: raise ValueError instead of returning a record.",
        "ids = [d.id for d in attached]; if any(i not in ids for i in read_ids): raise ValueError(...); "
        "excluded = [i for i in ids if i not in read_ids]; return {'strategy': strategy, "
        "'documents_attached': len(ids), 'documents_in_context': len(ids) - len(excluded), ...}",
    ),
)


#: This lesson's exercises, in the order the notebook asks them.
EXERCISES = (
    _ROUTE,
    _COVERAGE,
)
