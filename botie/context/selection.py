"""Which permitted records fit in the evidence allowance.

Permission is applied before any budget decision: a record the caller may not
read never competes for room, so a restricted manual can neither be selected
nor crowd anything out. Then a *packing policy* decides what fits.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from types import MappingProxyType
from typing import NamedTuple

from botie._checks import allowed_set, unique_records
from botie._enum import ShortName
from botie.context.budget import Budget
from botie.context.records import Record
from botie.errors import BudgetError, PolicyError

__all__ = ["Status", "Outcome", "Coverage", "Selection", "select", "POLICIES"]

POLICIES = ("prefix", "skip")


class Status(ShortName):
    """What happened to one candidate."""

    SELECTED = "selected"
    NOT_PERMITTED = "not_permitted"
    OVER_BUDGET = "over_budget"
    NOT_CONSIDERED = "not_considered"


class Outcome(NamedTuple):
    """The fate of one candidate and the numbers behind it.

    ``reason`` is built from the numbers on demand, so a million outcomes cost
    a million small tuples rather than a million formatted strings.
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
    def of(cls, outcomes: Iterable[tuple], statuses: Iterable[str], kept: str = "selected") -> Coverage:
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
    outcomes: tuple[Outcome, ...]
    policy: str
    _coverage: list = field(default_factory=list, repr=False, compare=False)

    @property
    def coverage(self) -> Coverage:
        if not self._coverage:
            self._coverage.append(Coverage.of(self.outcomes, Status))
        return self._coverage[0]

    def outcome(self, record_id: str) -> Outcome:
        for o in self.outcomes:
            if o.record_id == record_id:
                return o
        raise KeyError(record_id)


def _allowance(budget: Budget | int) -> int:
    if isinstance(budget, Budget):
        return budget.evidence
    if type(budget) is not int or budget < 0:
        raise BudgetError(
            f"budget must be a Budget or a whole number of tokens (an int >= 0), got {budget!r}",
            field="budget",
        )
    return budget


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
        permitted ranking, so nothing ranked lower ever displaces something
        ranked higher. The cost: one large record early on can waste room that
        a smaller record further down would have used.

    ``"skip"``
        Skip a permitted record that does not fit and keep going. Uses at least
        as much room as ``"prefix"``, but the kept set is no longer a prefix of
        the ranking: a low-ranked scrap can ride along while a more relevant
        record is left out.

    ``budget`` is a :class:`Budget` (its evidence allowance is used) or a bare
    int allowance. ``allowed_assets`` is matched by exact string membership.
    """
    if policy not in POLICIES:
        raise PolicyError(f"policy must be one of {', '.join(POLICIES)}; got {policy!r}", field="policy")
    allowed = allowed_set(allowed_assets)
    allowance = _allowance(budget)
    records = unique_records(records)
    outcomes, kept, used = _pack(records, allowed, allowance, policy)
    return Selection(tuple(kept), used, allowance, tuple(outcomes), policy)


_record_id = attrgetter("id")
_new = tuple.__new__


def _pack(records: list[Record], allowed: frozenset[str], allowance: int, policy: str):
    """Walk the ranked records once: an outcome for each, the kept ids, the tokens used."""
    # The benchmark's hot loop: locals only, and outcomes built with tuple.__new__
    # (NamedTuple's own __new__ is a Python function, several times slower).
    SEL, DENY, OVER, LATER = Status.SELECTED, Status.NOT_PERMITTED, Status.OVER_BUDGET, Status.NOT_CONSIDERED
    skip = policy == "skip"
    used = 0
    stopped_at = None
    kept: list[str] = []
    outcomes: list[Outcome] = []
    add = outcomes.append
    for r in records:
        rid, asset, cost = r.id, r.asset, r.cost
        if asset not in allowed:
            add(_new(Outcome, (rid, DENY, asset, cost, used, allowance, None, policy)))
        elif stopped_at is not None:
            add(_new(Outcome, (rid, LATER, asset, cost, used, allowance, stopped_at, policy)))
        elif used + cost > allowance:
            add(_new(Outcome, (rid, OVER, asset, cost, used, allowance, None, policy)))
            if not skip:
                stopped_at = rid
        else:
            add(_new(Outcome, (rid, SEL, asset, cost, used, allowance, None, policy)))
            kept.append(rid)
            used += cost
    return outcomes, kept, used
