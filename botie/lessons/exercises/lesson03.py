"""Lesson 03's exercises: choose a route, write the coverage record that adds up, design a rule for what to read."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from botie.lessons.exercises._shared import record
from botie.lessons.exercises.engine import Case, Exercise, Raises, show

__all__ = ["EXERCISES", "INVARIANTS", "Attached", "design_problems"]


def _docs(sizes: Iterable[int]):
    return [record(f"d{i}", "contracts", int(size)) for i, size in enumerate(sizes)]


def _oracle_route(sizes, soft_budget) -> str:
    from botie.context.routing import plan_context

    return str(plan_context(_docs(sizes), ceiling=soft_budget, soft_fraction=1).strategy)


def _agreements():
    from botie.lessons.content.fixtures import fixture_path, load_records

    return load_records(fixture_path("agreements_41.json"))


class _RouteRow(NamedTuple):
    """One case of route: the attachments' sizes in tokens and the soft budget they are routed against."""

    label: str
    sizes: list[int]
    soft_budget: int
    shown: bool = False


def _route_cases() -> tuple[Case, ...]:
    soft = 540_000
    forty_one = [d.cost for d in _agreements()]
    plan = [
        _RouteRow("the 41 agreements (1,440,000 tokens)", sizes=forty_one, soft_budget=soft, shown=True),
        _RouteRow("one agreement of 1,440,000 tokens", sizes=[1_440_000], soft_budget=soft),
        _RouteRow(
            "600,000 beside three of 20,000: a modest total",
            sizes=[600_000, 20_000, 20_000, 20_000],
            soft_budget=soft,
            shown=True,
        ),
        _RouteRow("one document of exactly the soft budget", sizes=[540_000], soft_budget=soft),
        _RouteRow("one document a single token over", sizes=[540_001], soft_budget=soft),
        _RouteRow("two documents adding up to the soft budget exactly", sizes=[300_000, 240_000], soft_budget=soft),
        _RouteRow("one token over the soft budget in total", sizes=[300_000, 240_001], soft_budget=soft),
        _RouteRow("exactly four soft budgets", sizes=[540_000] * 4, soft_budget=soft),
        _RouteRow("four soft budgets and one token", sizes=[540_000] * 4 + [1], soft_budget=soft),
        _RouteRow("nothing attached", sizes=[], soft_budget=soft),
        _RouteRow("a hundred documents of 30,000", sizes=[30_000] * 100, soft_budget=soft),
        _RouteRow("one too big among a hundred", sizes=[600_000] + [30_000] * 100, soft_budget=soft),
        _RouteRow("a small soft budget of 100: 50 + 60", sizes=[50, 60], soft_budget=100),
    ]
    return tuple(
        Case(row.label, (row.sizes, row.soft_budget), _oracle_route(row.sizes, row.soft_budget), shown=row.shown)
        for row in plan
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


class _CoverageRow(NamedTuple):
    """One case of coverage_record: the strategy, what was attached and the ids read in full."""

    label: str
    strategy: str
    attached: list[Any]
    read_ids: list[str]
    shown: bool = False


def _coverage_cases() -> tuple[Case, ...]:
    from botie.context.routing import execute_plan, plan_context

    agreements = list(_agreements())
    read12 = list(execute_plan(plan_context(agreements, ceiling=900_000)).included_ids)
    three = _docs([100, 200, 300])
    plan = [
        _CoverageRow(
            "the 41 agreements, 12 read in full",
            strategy="select_documents",
            attached=agreements,
            read_ids=read12,
            shown=True,
        ),
        _CoverageRow("everything read: stuff_all", strategy="stuff_all", attached=three, read_ids=["d0", "d1", "d2"]),
        _CoverageRow("nothing read whole: retrieve_chunks", strategy="retrieve_chunks", attached=three, read_ids=[]),
        _CoverageRow("read ids given out of order", strategy="select_documents", attached=three, read_ids=["d2", "d0"]),
        _CoverageRow("the same id read twice", strategy="select_documents", attached=three, read_ids=["d1", "d1"]),
        _CoverageRow(
            "the 41 agreements, the last one read",
            strategy="select_documents",
            attached=agreements,
            read_ids=[agreements[-1].id],
        ),
        _CoverageRow("nothing attached", strategy="stuff_all", attached=[], read_ids=[]),
    ]
    cases = [
        Case(
            row.label,
            (row.strategy, row.attached, row.read_ids),
            _oracle_coverage(row.strategy, row.attached, row.read_ids),
            shown=row.shown,
        )
        for row in plan
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


# --- the design exercise: the learner's own rule for which documents to read whole ----------------------------------

#: What the design check holds every answer to, by the name its messages use.
INVARIANTS = ("adds up", "fits", "relevance", "no early stop", "any order")


@dataclass(frozen=True)
class Attached:
    """One design case: the attachments and the soft budget, and (for a set shown in two orders) its twin.

    ``pair`` is shared by the two cases that attach the same set in different orders: the first
    stores the ids it got, the second compares. :class:`_DesignExercise` empties it at the start of
    every run, so one run never compares with another's answer.
    """

    docs: tuple[Any, ...]
    soft_budget: int
    pair: dict[str, Any] | None = field(default=None, compare=False)
    first_of_pair: bool = False


def _ids_of(got: Any) -> tuple[list[str] | None, str | None]:
    if isinstance(got, (str, bytes, Mapping)) or not isinstance(got, Iterable):
        return None, f"expected a list of document ids, got {show(got)}"
    ids = list(got)
    for item in ids:
        if not isinstance(item, str):
            named = getattr(item, "id", None)
            if isinstance(named, str):
                return None, f"expected ids, found a record ({named!r}): return doc.id, not the document"
            return None, f"expected ids such as 'd0', found {show(item)}"
    return ids, None


def _adds_up(ids: Sequence[str], docs: Sequence[Any]) -> str | None:
    attached = {d.id for d in docs}
    seen: set[str] = set()
    for doc_id in ids:
        if doc_id not in attached:
            return f"adds up: {doc_id!r} is not one of the attached documents"
        if doc_id in seen:
            return f"adds up: {doc_id!r} is named twice, so read + not read would not equal attached"
        seen.add(doc_id)
    return None


def _relevance(read: Sequence[Any], left_out: Sequence[Any], room: int) -> str | None:
    # A swap is possible when the left-out document fits in the read one's place plus the room still free.
    for doc in read:
        for better in left_out:
            if better.score > doc.score and better.cost <= doc.cost + room:
                return (
                    f"relevance: you read {doc.id!r} (score {doc.score}) and left out {better.id!r} "
                    f"(score {better.score}), which would fit in its place"
                )
    return None


def _no_early_stop(left_out: Sequence[Any], room: int) -> str | None:
    if not left_out:
        return None
    best = max(d.score for d in left_out)
    top = [d for d in left_out if d.score == best]
    if all(d.cost <= room for d in top):  # with a tie, stopping at one that does not fit is still a stop
        doc = min(top, key=lambda d: d.id)
        return (
            f"no early stop: {doc.id!r} (score {doc.score}, {doc.cost:,} tokens) is the best-scored document "
            f"left out, and it fits in the {room:,} tokens still free"
        )
    return None


def design_problems(ids: Sequence[str], docs: Sequence[Any], soft_budget: int) -> dict[str, str]:
    """Every invariant one answer breaks on its own (all but "any order", which needs two runs), by name."""
    problems: dict[str, str] = {}
    broken = _adds_up(ids, docs)
    if broken:
        problems["adds up"] = broken
    chosen = set(ids)
    read = [d for d in docs if d.id in chosen]
    left_out = [d for d in docs if d.id not in chosen]
    used = sum(d.cost for d in read)
    if used > soft_budget:
        problems["fits"] = f"fits: the documents you read come to {used:,} tokens, over the {soft_budget:,} soft budget"
    room = soft_budget - used
    for name, problem in (
        ("relevance", _relevance(read, left_out, room)),
        ("no early stop", _no_early_stop(left_out, room)),
    ):
        if problem:
            problems[name] = problem
    return problems


def _any_order(ids: Sequence[str], pair: Mapping[str, Any]) -> str | None:
    before = pair.get("first")
    if before is None:
        return "any order: the same set in the other order gave no list of ids to compare with (see that case)"
    now = frozenset(ids)
    if now == before:
        return None
    gained, lost = sorted(now - before), sorted(before - now)
    return (
        f"any order: the same set attached in another order gives a different choice: now read {gained}, "
        f"no longer read {lost}"
    )


def _judge_choice(got: Any, expected: Attached) -> str | None:
    ids, problem = _ids_of(got)
    if expected.pair is not None and expected.first_of_pair:
        expected.pair["first"] = None if ids is None else frozenset(ids)
    if ids is None:
        return problem
    problems = design_problems(ids, expected.docs, expected.soft_budget)
    if expected.pair is not None and not expected.first_of_pair:
        order = _any_order(ids, expected.pair)
        if order:
            problems["any order"] = order
    return "\n".join(problems.values()) or None


class _DesignExercise(Exercise):
    """An exercise whose paired cases compare two answers of the same run (see :class:`Attached`)."""

    def cases(self) -> tuple[Case, ...]:
        cases = super().cases()
        for case in cases:  # run_exercise asks for the cases once per run, before the first call
            if isinstance(case.expected, Attached) and case.expected.pair is not None:
                case.expected.pair.clear()
        return cases


def _scored(rid: str, score: float, cost: int):
    return record(rid, "contracts", cost, score=score)


def _generated(seed: int) -> tuple[list[Any], int]:
    """Attachments over their soft budget but within four of it, none alone above it, two tied at the edge.

    The two tied documents sit where the budget runs out, with room for one of them only, so a rule
    that lets the attachment order settle the tie reads a different set when the order changes.
    """
    rng = random.Random(seed)
    n = rng.randint(7, 13)
    costs = [rng.randrange(5_000, 60_000, 100) for _ in range(n)]
    scores = sorted(rng.sample(range(30, 99), n), reverse=True)  # position i in the ranking has scores[i]
    # The edge sits where at least a quarter of the total is read: within four soft budgets, as select_documents is.
    quarter = next(i for i in range(n) if 4 * sum(costs[: i + 1]) >= sum(costs))
    edge = rng.randint(max(1, quarter), n - 3)
    scores[edge + 1], costs[edge + 1] = scores[edge], costs[edge]
    budget = max(max(costs), sum(costs[: edge + 1]) + rng.randrange(0, costs[edge], 100))
    names = rng.sample(range(n), n)  # ids in no particular relation to the ranking
    docs = [_scored(f"doc-{names[i]:02d}", scores[i] / 100, costs[i]) for i in range(n)]
    rng.shuffle(docs)
    return docs, budget


def _paired(label: str, docs: Sequence[Any], budget: int, other: Sequence[Any], other_label: str, shown: bool):
    pair: dict[str, Any] = {}
    first = Case(label, (list(docs), budget), Attached(tuple(docs), budget, pair, True), shown=shown)
    second = Case(other_label, (list(other), budget), Attached(tuple(other), budget, pair), shown=shown)
    return [first, second]


def _design_cases() -> tuple[Case, ...]:
    agreements = list(_agreements())
    edge = [_scored("d0", 0.9, 40), _scored("d2", 0.5, 30), _scored("d1", 0.5, 30), _scored("d3", 0.2, 10)]
    cases = _paired(
        "the 41 agreements, soft budget 540,000", agreements, 540_000,
        agreements[::-1], "the 41 agreements attached in reverse", True,
    )  # fmt: skip
    cases += _paired(
        "two of equal score at the edge, room for one", edge, 75,
        edge[::-1], "the same four attached in reverse", False,
    )  # fmt: skip
    single = [
        ("the best one fits only in place of a smaller one",
         [_scored("a", 0.9, 40), _scored("b", 0.5, 30), _scored("c", 0.4, 30), _scored("d", 0.3, 35)], 100),
        ("the next in line does not fit, a later one does",
         [_scored("a", 0.9, 50), _scored("b", 0.8, 60), _scored("c", 0.7, 30)], 100),
        ("the best one fills the soft budget exactly", [_scored("a", 0.9, 100), _scored("b", 0.3, 5)], 100),
        # A rule that stops once the budget is nearly used (95%, 99%) leaves out a document that still fits.
        ("a small, low-scored one fits in the last 1% of the room",
         [_scored("a", 0.9, 990), _scored("b", 0.2, 10), _scored("c", 0.1, 40)], 1_000),
    ]  # fmt: skip
    cases += [Case(label, (docs, budget), Attached(tuple(docs), budget)) for label, docs, budget in single]
    for number, seed in enumerate((1, 13, 19, 42), start=1):
        docs, budget = _generated(seed)
        label = f"generated set {number}: {len(docs)} attachments, soft budget {budget:,}"
        cases += _paired(label, docs, budget, docs[::-1], f"generated set {number}, attached in reverse", False)
    return tuple(cases)


_CHOOSE = _DesignExercise(
    "choose_documents",
    "Design exercise: your own rule for which documents to read whole",
    _design_cases,
    _judge_choice,
    (
        "Start where section 3 did: take the documents by score, highest first, and read each whole one while "
        "it fits. The invariants leave one thing open: what to do at the first document that does not fit. "
        "Stop there, or keep looking for a smaller one further down.",
        "Two edges to watch. Equal scores: sort on (-score, id), so the attachment order cannot settle a tie. "
        "The budget: a document that fills the room left exactly still fits (<=). Return ids, each once.",
        "chosen, used = [], 0; for doc in sorted(docs, key=lambda d: (-d.score, d.id)): if used + doc.cost <= "
        "soft_budget: chosen.append(doc.id); used += doc.cost. That keeps looking past a misfit; add "
        "'else: break' to stop there instead. Both pass. Then return chosen.",
    ),
)


#: This lesson's exercises, in the order the notebook asks them.
EXERCISES = (
    _ROUTE,
    _CHOOSE,
    _COVERAGE,  # the lesson's homework, after section 6
)
