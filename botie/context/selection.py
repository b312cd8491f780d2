"""Which permitted records fit in the evidence allowance.

Permission is applied before any budget decision: a record the caller may not
read never competes for room, so a restricted manual can neither be selected
nor crowd anything out. Then a *packing policy* decides what fits.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

from botie._checks import allowed_set, whole_number
from botie._enum import ShortName
from botie.context.budget import Budget
from botie.context.records import Record, unique_records
from botie.errors import BudgetError, PolicyError, RecordError

__all__ = ["Status", "Outcome", "Coverage", "Selection", "select", "permitted_only", "POLICIES"]

POLICIES = ("prefix", "skip")


class Status(ShortName):
    """What happened to one candidate."""

    SELECTED = "selected"
    NOT_PERMITTED = "not_permitted"
    OVER_BUDGET = "over_budget"
    NOT_CONSIDERED = "not_considered"


class Outcome(NamedTuple):
    """The fate of one candidate and the numbers behind it.

    ``reason`` is written from those numbers, so the sentence and the
    arithmetic a panel shows can never disagree.
    """

    record_id: str
    status: Status
    asset: str
    cost: int
    used_before: int
    allowance: int
    stopped_at: str | None = None  # on not_considered outcomes: where the prefix rule stopped
    policy: str = "prefix"

    @property
    def reason(self) -> str:
        s = self.status
        if s is Status.NOT_PERMITTED:
            return f"{self.asset} is not in your allowed assets"
        after = self.used_before + self.cost
        sum_text = f"{self.used_before} + {self.cost} = {after}"
        if s is Status.SELECTED:
            if after == self.allowance:
                return f"{sum_text} fills the {self.allowance}-token allowance exactly"
            return f"{sum_text} fits within the {self.allowance}-token allowance"
        if s is Status.OVER_BUDGET:
            tail = "stopped here" if self.policy == "prefix" else "skipped; kept looking"
            return f"{sum_text} exceeds the {self.allowance}-token allowance; {tail}"
        return f"not considered: the prefix rule stopped at {self.stopped_at}"


@dataclass(frozen=True)
class Coverage:
    """Where every candidate went. The counts always add up to ``total``."""

    counts: Mapping[str, int]
    excluded_ids: tuple[str, ...]
    total: int

    @classmethod
    def of(cls, outcomes: Iterable[Sequence[Any]], statuses: Iterable[str], kept: str = "selected") -> Coverage:
        counts = dict.fromkeys((str(s) for s in statuses), 0)
        excluded = []
        n = 0
        for o in outcomes:
            status = str(o[1])
            counts[status] += 1
            n += 1
            if status != kept:
                excluded.append(o[0])
        return cls(MappingProxyType(counts), tuple(excluded), n)

    def summary(self) -> str:
        parts = " + ".join(f"{n} {status}" for status, n in self.counts.items())
        return f"{parts} = {self.total} candidates"


@dataclass(frozen=True)
class Selection:
    """The result of :func:`select`: what was kept, what it used, and why for each."""

    selected_ids: tuple[str, ...]
    used: int
    allowance: int
    outcomes: tuple[Outcome, ...]  # one per candidate, in input order
    policy: str

    @property
    def coverage(self) -> Coverage:
        """Counts per status and the excluded ids; the counts add up to the candidates."""
        return Coverage.of(self.outcomes, Status)

    def outcome(self, record_id: str) -> Outcome:
        for o in self.outcomes:
            if o.record_id == record_id:
                return o
        raise KeyError(record_id)


def _allowance(budget: Budget | int) -> int:
    if isinstance(budget, Budget):
        return budget.evidence
    return whole_number(budget, field="budget", what="a Budget or a whole number of tokens", error=BudgetError)


def select(
    records: Iterable[Record],
    allowed_assets: Iterable[str],
    budget: Budget | int,
    *,
    policy: str = "prefix",
) -> Selection:
    """Keep the permitted records that fit the evidence allowance, in ranked order.

    Two packing policies, each a deliberate trade-off:

    ``"prefix"`` (the lesson's rule)
        Walk the permitted records in ranked order and keep each whole record
        until the next would exceed the allowance; stop there. A record that
        fills the remaining room exactly is kept. The result is a prefix of the
        permitted ranking, so every kept record outranks every permitted record
        left out. The cost: one large record early on can waste room that a
        smaller record further down would have used.

    ``"skip"``
        Skip a permitted record that does not fit and keep going. Uses at least
        as much room as ``"prefix"``, but the kept set is no longer a prefix of
        the ranking: a lower-ranked record can be kept while a higher-ranked
        one is left out.

    ``budget`` is a :class:`Budget` (its evidence allowance is used) or a bare
    int allowance. ``allowed_assets`` is matched by exact string membership.
    """
    if policy not in POLICIES:
        raise PolicyError(f"policy must be one of {', '.join(POLICIES)}; got {policy!r}", field="policy")
    allowed = allowed_set(allowed_assets)
    allowance = _allowance(budget)
    records = unique_records(records)
    outcomes = _pack(records, allowed, allowance, policy)
    kept = tuple(o.record_id for o in outcomes if o.status is Status.SELECTED)
    used = sum(o.cost for o in outcomes if o.status is Status.SELECTED)
    return Selection(kept, used, allowance, outcomes, policy)


def _pack(records: tuple[Record, ...], allowed: frozenset[str], allowance: int, policy: str) -> tuple[Outcome, ...]:
    """Walk the ranked records once and give each its outcome.

    Permission first: a record the caller may not read never competes for room.
    """
    outcomes: list[Outcome] = []
    used = 0
    stopped_at: str | None = None  # under "prefix": the record that did not fit; nothing after it is considered
    for r in records:
        if r.asset not in allowed:
            status = Status.NOT_PERMITTED
        elif stopped_at is not None:
            status = Status.NOT_CONSIDERED
        elif used + r.cost > allowance:
            status = Status.OVER_BUDGET
        else:
            status = Status.SELECTED
        stop = stopped_at if status is Status.NOT_CONSIDERED else None
        outcomes.append(Outcome(r.id, status, r.asset, r.cost, used, allowance, stop, policy))
        if status is Status.SELECTED:
            used += r.cost
        if status is Status.OVER_BUDGET and policy == "prefix":
            stopped_at = r.id
    return tuple(outcomes)


def permitted_only(records: Iterable[Record], allowed_assets: Iterable[str]) -> tuple[Record, ...]:
    """The last gate: every record about to reach a model request or a log must be permitted, or nothing goes.

    Selection already filtered by permission, before any budget decision. This
    checks again at the boundary, because the records may have come a long way
    since (a cache, a conversation, someone else's code). A restricted record
    here is a bug upstream, so it raises, naming the record but never its text.
    """
    allowed = allowed_set(allowed_assets)
    records = unique_records(records)
    for r in records:
        if r.asset not in allowed:
            raise RecordError(
                f"record {r.id}: its asset is not among the caller's allowed assets, so it may not reach "
                "the model or a log",
                field="asset",
                record=r.id,
            )
    return records
