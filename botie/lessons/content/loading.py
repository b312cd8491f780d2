"""Preloading against just-in-time loading: two ways to get documents in front of the model.

*Preloading* selects the evidence up front and sends it in one request.
*Just-in-time* loading sends only stable identifiers (an id, where the
passage lives, its size) and lets the model load a document when it decides
it needs one, through a read-only tool. That keeps unneeded text out of the
request, but every load is another tool call, another model call, more
waiting and one more thing that can fail. Which is better is a measurement,
not a belief, so this module measures both on the same questions.

Everything is simulated and deterministic: token counts come from the
records (and the tokenizer, for the identifier lines), latency from an
injected :class:`LatencyModel`, and tool failures from a seeded
:class:`FailureInjector`. The loading "model" is scripted: it walks the list
of identifiers in rank order and loads each one until it holds every
document the question needs (the fixture's ``answered_by``).

The tool itself, :class:`DocumentTool`, checks on every call, whatever the
list of identifiers said, what the selector checks before any score:
permission, freshness on the day (the selector's own rule, from the document
register) and copies, then a size limit. An identifier is a pointer, not a
permission.
"""

from __future__ import annotations

import datetime as _dt
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from botie._checks import allowed_set, as_date, unit_interval, whole_number
from botie._enum import ShortName
from botie.context.provenance import freshness_of
from botie.context.provenance.rules import copy_chain
from botie.context.records import Record, unique_records
from botie.context.register import DocumentRegister
from botie.lessons.content.scenarios import EvidenceScenario, load_evidence_scenario

__all__ = [
    "STRATEGIES",
    "DocumentTool",
    "FailureInjector",
    "Handle",
    "LatencyModel",
    "LoadResult",
    "LoadStatus",
    "LoadingComparison",
    "StrategyRun",
    "compare_loading",
    "handles",
    "just_in_time",
    "preload",
]

STRATEGIES = ("preload", "just_in_time")
_UNLIMITED = 10**12  # an evidence allowance nothing reaches: the list of identifiers is not packed


class Handle(NamedTuple):
    """A stable identifier the model can ask for, without the document's text."""

    id: str
    location: str
    tokens: int

    def line(self) -> str:
        return f"{self.id} | {self.location} | {self.tokens} tokens"


def handles(records: Iterable[Record]) -> tuple[Handle, ...]:
    return tuple(Handle(r.id, r.location or r.source_uri or "-", r.cost) for r in records)


class LoadStatus(ShortName):
    OK = "ok"
    UNKNOWN_ID = "unknown_id"
    NOT_PERMITTED = "not_permitted"
    NOT_IN_FORCE = "not_in_force"  # superseded, or not yet effective, on the day
    DUPLICATE = "duplicate"  # a copy of a record the tool serves itself
    TOO_LARGE = "too_large"
    FAILED = "failed"  # the call did not come back (an injected failure)


class LoadResult(NamedTuple):
    """What one call of the read-only tool returned."""

    doc_id: str
    status: LoadStatus
    record: Record | None
    reason: str


@dataclass(frozen=True)
class LatencyModel:
    """Simulated time, in whole milliseconds: a fixed cost per model call plus a cost per input token,
    and a fixed cost per tool round trip. Invented numbers, stated once, used everywhere."""

    model_call_ms: int = 600
    per_100_tokens_ms: int = 20
    tool_call_ms: int = 250

    def model_ms(self, input_tokens: int) -> int:
        return self.model_call_ms + input_tokens * self.per_100_tokens_ms // 100


class FailureInjector:
    """Decides which tool calls fail: each call fails with probability ``rate``, drawn from a seeded RNG.

    The same seed gives the same failures in the same order, every run.
    """

    def __init__(self, rate: float = 0.0, seed: int = 0) -> None:
        self.rate = unit_interval(rate, field="failure_rate")
        self._rng = random.Random(seed)

    def __call__(self, doc_id: str) -> bool:
        return self._rng.random() < self.rate


class DocumentTool:
    """``read_document(doc_id)``: a read-only tool that returns one document or says why it will not.

    Every call checks, in order: that the call came back (an injected failure
    may say it did not), that the id exists, that the caller may read its
    asset, that it is in force on ``observed_on`` (the selector's freshness
    rule, :func:`~botie.context.provenance.freshness_of`, with ``register``
    deciding the revision in force when given), that it is not a copy of a
    record the tool would serve (send the original once, as the selector
    does; a copy still serves when its original may not be read), and that it
    is within ``max_tokens``. It has no way to change a document: the records
    sit behind a read-only mapping.
    """

    name = "read_document"

    def __init__(
        self,
        records: Iterable[Record],
        *,
        allowed_assets: Iterable[str],
        observed_on: _dt.date | _dt.datetime | str,
        max_tokens: int,
        register: DocumentRegister | None = None,
        fail: Callable[[str], bool] | None = None,
    ) -> None:
        allowed = allowed_set(allowed_assets)
        whole_number(max_tokens, field="max_tokens", what="a whole number of tokens")
        self._records: Mapping[str, Record] = MappingProxyType({r.id: r for r in unique_records(records)})
        self.allowed_assets = allowed
        self.observed_on = as_date(observed_on, field="observed_on")
        self.register = register
        self.max_tokens = max_tokens
        self._fail = fail

    def _stale(self, record: Record) -> str | None:
        verdict = freshness_of(
            record,
            self._records.values(),
            allowed_assets=self.allowed_assets,
            observed_on=self.observed_on,
            register=self.register,
        )
        return None if verdict is None else verdict[1]  # the selector's reason, naming nothing the caller may not read

    def _original(self, record: Record) -> str | None:
        """The nearest original ``record`` copies that this tool would serve, if any: one the caller may read,
        in force, and within the size limit (a copy of an original too large to serve is still served)."""
        for rid in copy_chain(record.id, self._records):  # the selector's chain of copies, nearest first
            current = self._records.get(rid)
            if current is None:
                return None  # the chain ends in an original that was not retrieved
            served = current.asset in self.allowed_assets and current.cost <= self.max_tokens
            if served and self._stale(current) is None:
                return current.id
        return None

    def __call__(self, doc_id: str) -> LoadResult:
        if self._fail is not None and self._fail(doc_id):
            return LoadResult(doc_id, LoadStatus.FAILED, None, "the call timed out (injected failure)")
        record = self._records.get(doc_id)
        if record is None:
            return LoadResult(doc_id, LoadStatus.UNKNOWN_ID, None, f"no document has the id {doc_id!r}")
        if record.asset not in self.allowed_assets:
            return LoadResult(doc_id, LoadStatus.NOT_PERMITTED, None, f"{record.asset} is not in your allowed assets")
        stale = self._stale(record)
        if stale is not None:
            return LoadResult(doc_id, LoadStatus.NOT_IN_FORCE, None, stale)
        original = self._original(record)
        if original is not None:
            why = f"a copy of {original}, which this tool serves: read the original, so the text arrives once"
            return LoadResult(doc_id, LoadStatus.DUPLICATE, None, why)
        if record.cost > self.max_tokens:
            return LoadResult(
                doc_id,
                LoadStatus.TOO_LARGE,
                None,
                f"{record.cost} tokens is over the tool's {self.max_tokens}-token limit",
            )
        return LoadResult(doc_id, LoadStatus.OK, record, f"{record.cost} tokens")


@dataclass(frozen=True)
class StrategyRun:
    """One question answered one way: what it cost and whether the model saw what it needed."""

    strategy: str
    question: str
    tokens_sent: int  # input tokens over every model call of the turn
    model_calls: int
    tool_calls: int
    latency_ms: int
    seen: tuple[str, ...]  # documents whose text reached the model
    unneeded_tokens: int  # tokens of documents the question did not need
    complete: bool  # every needed document reached the model
    failed: bool  # a tool call failed for good, so the turn could not finish
    refused: bool  # nothing relevant survived the gate: no model call at all

    @property
    def result(self) -> str:
        if self.refused:
            return "refused"
        if self.failed:
            return "failed"
        return "complete" if self.complete else "incomplete"


def _needed(scenario: EvidenceScenario, index: int) -> tuple[str, ...]:
    return tuple(scenario.questions[index].answered_by)


def preload(
    scenario: EvidenceScenario, index: int, *, latency: LatencyModel = LatencyModel(), overhead_tokens: int = 200
) -> StrategyRun:
    """Select the evidence with the scenario's budget and send it all in one request."""
    question, needed = scenario.questions[index].question, _needed(scenario, index)
    selection = scenario.select(index)
    if selection.refused:
        return StrategyRun("preload", question, 0, 0, 0, 0, (), 0, not needed, False, True)
    cost = {r.id: r.cost for r in scenario.records}
    sent = overhead_tokens + selection.used
    seen = selection.selected_ids
    unneeded = sum(cost[i] for i in seen if i not in needed)
    return StrategyRun(
        "preload", question, sent, 1, 0, latency.model_ms(sent), seen, unneeded, set(needed) <= set(seen), False, False
    )


def just_in_time(
    scenario: EvidenceScenario,
    index: int,
    *,
    latency: LatencyModel = LatencyModel(),
    overhead_tokens: int = 200,
    call_tokens: int = 20,
    max_tokens: int = 60,
    fail: Callable[[str], bool] | None = None,
    retries: int = 0,
    count: Callable[[str], int] | None = None,
) -> StrategyRun:
    """Send identifiers only; load documents one tool call at a time, in rank order, until the needed ones are in.

    The same gates as preloading decide which identifiers are listed
    (permission, freshness, duplicates, the relevance floor), but nothing is
    packed. Each tool call is followed by a model call that re-reads
    everything so far plus ``call_tokens`` for the call and its result
    wrapper. A failed call is retried up to ``retries`` times; after that the
    turn fails. ``count`` counts the identifier lines (default: the tokenizer).
    """
    if count is None:
        from botie.context.tokens import count_tokens

        count = count_tokens
    question, needed = scenario.questions[index].question, _needed(scenario, index)
    listed = scenario.select(index, budget=_UNLIMITED)
    if listed.refused:
        return StrategyRun("just_in_time", question, 0, 0, 0, 0, (), 0, not needed, False, True)
    by_id = {r.id: r for r in scenario.records}
    catalogue = handles(by_id[i] for i in listed.selected_ids)
    context = overhead_tokens + sum(count(h.line()) for h in catalogue)
    inputs = [context]  # one entry per model call
    tool = DocumentTool(
        scenario.records,
        allowed_assets=scenario.allowed_assets,
        observed_on=scenario.observed_on,
        register=scenario.register,
        max_tokens=max_tokens,
        fail=fail,
    )
    seen: list[str] = []
    tool_calls = 0
    failed = False
    missing = set(needed)
    for handle in catalogue:
        if not missing:
            break
        for _attempt in range(retries + 1):
            result = tool(handle.id)
            tool_calls += 1
            context += call_tokens + (result.record.cost if result.record is not None else 0)
            inputs.append(context)
            if result.status is not LoadStatus.FAILED:
                break
        if result.status is LoadStatus.FAILED:
            failed = True
            break
        if result.record is not None:
            seen.append(handle.id)
            missing.discard(handle.id)
    ms = sum(latency.model_ms(n) for n in inputs) + tool_calls * latency.tool_call_ms
    unneeded = sum(by_id[i].cost for i in seen if i not in needed)
    return StrategyRun(
        "just_in_time",
        question,
        sum(inputs),
        len(inputs),
        tool_calls,
        ms,
        tuple(seen),
        unneeded,
        not missing,
        failed,
        False,
    )


@dataclass(frozen=True)
class LoadingComparison:
    """Both strategies on every fixture question, plus failure rates under injected tool failures."""

    runs: tuple[StrategyRun, ...]
    failure_rate: float
    trials: int
    seed: int
    retries: int
    failures: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # strategy -> (failed turns, turns)

    def of(self, strategy: str) -> tuple[StrategyRun, ...]:
        return tuple(r for r in self.runs if r.strategy == strategy)

    def totals(self, strategy: str) -> dict[str, int]:
        runs = self.of(strategy)
        return {
            "tokens_sent": sum(r.tokens_sent for r in runs),
            "tool_calls": sum(r.tool_calls for r in runs),
            "latency_ms": sum(r.latency_ms for r in runs),
            "unneeded_tokens": sum(r.unneeded_tokens for r in runs),
            "complete": sum(r.result in ("complete", "refused") for r in runs),
        }

    def table(self) -> str:
        """Per question and strategy, then totals, then the failure rates."""
        head = (
            f"{'question':<40} {'strategy':<13} {'tokens sent':>11} {'tool calls':>10} {'ms':>6} "
            f"{'unneeded':>8}  result"
        )
        lines = [head, "-" * len(head)]
        for r in self.runs:
            q = r.question if len(r.question) <= 40 else r.question[:39] + "…"
            lines.append(
                f"{q:<40} {r.strategy:<13} {r.tokens_sent:>11} {r.tool_calls:>10} {r.latency_ms:>6} "
                f"{r.unneeded_tokens:>8}  {r.result}"
            )
        lines.append("-" * len(head))
        for s in STRATEGIES:
            t = self.totals(s)
            lines.append(
                f"{'total':<40} {s:<13} {t['tokens_sent']:>11} {t['tool_calls']:>10} {t['latency_ms']:>6} "
                f"{t['unneeded_tokens']:>8}  {t['complete']}/{len(self.of(s))} right"
            )
        lines.append("")
        retry = "no retry" if self.retries == 0 else f"{self.retries} retr{'y' if self.retries == 1 else 'ies'}"
        refused = sum(1 for r in self.of(STRATEGIES[0]) if r.refused)
        asked = len(self.of(STRATEGIES[0])) - refused
        # A refused question calls neither the model nor the tool, so it cannot fail: say it is left out.
        left_out = f"; {refused} refused question{'s' if refused != 1 else ''} left out" if refused else ""
        lines.append(
            f"with {self.failure_rate:.0%} of tool calls failing (seed {self.seed}, {self.trials} runs of "
            f"each of the {asked} questions that reach the model{left_out}, {retry}):"
        )
        for s in STRATEGIES:
            bad, n = self.failures[s]
            lines.append(f"  {s:<13} {bad} of {n} turns failed ({bad / n:.1%})" if n else f"  {s:<13} no turns")
        return "\n".join(lines)


def compare_loading(
    scenario: EvidenceScenario | None = None,
    *,
    latency: LatencyModel = LatencyModel(),
    failure_rate: float = 0.1,
    trials: int = 100,
    seed: int = 2026,
    retries: int = 0,
    max_tokens: int = 60,
    overhead_tokens: int = 200,
    questions: Sequence[int] | None = None,
) -> LoadingComparison:
    """Run both strategies on the scenario's questions (default: ``manual_revisions.json``, all of them).

    The main table has no failures. The failure rates come from ``trials``
    further runs of every question with ``failure_rate`` of tool calls
    failing, drawn from one RNG seeded with ``seed``.
    """
    whole_number(trials, field="trials")
    scenario = scenario if scenario is not None else load_evidence_scenario()
    indexes = tuple(range(len(scenario.questions))) if questions is None else tuple(questions)
    from botie.context.tokens import TokenCache

    count = TokenCache().count
    jit: dict[str, Any] = {
        "latency": latency,
        "overhead_tokens": overhead_tokens,
        "max_tokens": max_tokens,
        "count": count,
        "retries": retries,
    }
    runs = []
    for i in indexes:
        runs.append(preload(scenario, i, latency=latency, overhead_tokens=overhead_tokens))
        runs.append(just_in_time(scenario, i, **jit))
    inject = FailureInjector(failure_rate, seed)
    failed = {s: 0 for s in STRATEGIES}
    turns = {s: 0 for s in STRATEGIES}
    for _trial in range(trials):
        for i in indexes:
            pre = preload(scenario, i, latency=latency, overhead_tokens=overhead_tokens)
            late = just_in_time(scenario, i, fail=inject, **jit)
            for run in (pre, late):
                if not run.refused:
                    turns[run.strategy] += 1
                    failed[run.strategy] += run.failed
    failures = MappingProxyType({s: (failed[s], turns[s]) for s in STRATEGIES})
    return LoadingComparison(tuple(runs), float(failure_rate), trials, seed, retries, failures)
