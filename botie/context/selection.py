"""Which permitted records fit in the evidence allowance.

Permission is applied before any budget decision: a record the caller may not
read never competes for room, so a restricted manual can neither be selected
nor crowd anything out. Then a *packing policy* decides what fits.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import NamedTuple

from botie._checks import allowed_set, whole_number
from botie._enum import ShortName
from botie.context.budget import Budget
from botie.context.records import Record, unique_records
from botie.errors import BudgetError, PolicyError

__all__ = ["Status", "Outcome", "Outcomes", "Coverage", "Selection", "select", "POLICIES"]

POLICIES = ("prefix", "skip")


class Status(ShortName):
    """What happened to one candidate."""

    SELECTED = "selected"
    NOT_PERMITTED = "not_permitted"
    OVER_BUDGET = "over_budget"
    NOT_CONSIDERED = "not_considered"


class Outcome(NamedTuple):
    """The fate of one candidate and the numbers behind it.

    ``reason`` is built from the numbers when it is read: a panel reads a few,
    a million-record benchmark reads none.
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


class Outcomes(Sequence):
    """Every candidate's :class:`Outcome`, in input order, each built when it is read.

    :func:`select` records only a status per candidate (a column of shared
    enum members), so a million candidates cost a million list slots rather
    than a million tuples for the garbage collector to walk. Reading an
    outcome assembles it from the record, its status and the tokens used
    before it. Compares equal to any sequence of the same outcomes.
    """

    def __init__(
        self, records: tuple[Record, ...], statuses: list[Status], allowance: int, policy: str, stopped_at: str | None
    ) -> None:
        self._records = records
        self._statuses = statuses
        self._allowance = allowance
        self._policy = policy
        self._stopped_at = stopped_at

    def __len__(self) -> int:
        return len(self._records)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        r, status = self._records[index], self._statuses[index]
        stopped_at = self._stopped_at if status is Status.NOT_CONSIDERED else None
        return Outcome(
            r.id, status, r.asset, r.cost, self._used_before[index], self._allowance, stopped_at, self._policy
        )

    @cached_property
    def _used_before(self) -> list[int]:
        """Tokens already kept when each candidate was reached (one pass, on the first read)."""
        totals, used = [], 0
        for r, status in zip(self._records, self._statuses):
            totals.append(used)
            if status is Status.SELECTED:
                used += r.cost
        return totals

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # like a list: equal to sequences of the same outcomes, so not hashable

    def __repr__(self) -> str:
        return f"Outcomes({list(self)!r})"


@dataclass(frozen=True)
class Selection:
    """The result of :func:`select`: what was kept, what it used, and why for each."""

    selected_ids: tuple[str, ...]
    used: int
    allowance: int
    outcomes: Outcomes
    policy: str

    @cached_property
    def coverage(self) -> Coverage:
        """Counts per status and the excluded ids, from the status column (no outcome is built)."""
        statuses = self.outcomes._statuses
        counts = dict.fromkeys(Status, 0)
        for status in statuses:
            counts[status] += 1
        excluded = tuple(r.id for r, s in zip(self.outcomes._records, statuses) if s is not Status.SELECTED)
        return Coverage(MappingProxyType({str(s): n for s, n in counts.items()}), excluded, len(statuses))

    def outcome(self, record_id: str) -> Outcome:
        for index, r in enumerate(self.outcomes._records):
            if r.id == record_id:
                return self.outcomes[index]
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
    statuses, kept, used, stopped_at = _pack(records, allowed, allowance, stop=policy == "prefix")
    outcomes = Outcomes(records, statuses, allowance, policy, stopped_at)
    return Selection(tuple(kept), used, allowance, outcomes, policy)


def _pack(records: tuple[Record, ...], allowed: frozenset[str], allowance: int, *, stop: bool):
    """Walk the ranked records once: a status for each, the kept ids, the tokens used, where it stopped.

    Permission first: a record the caller may not read never competes for room.
    """
    statuses: list[Status] = []
    kept: list[str] = []
    used = 0
    stopped_at = None
    for r in records:
        if r.asset not in allowed:
            statuses.append(NOT_PERMITTED)
        elif stopped_at is not None:
            statuses.append(NOT_CONSIDERED)
        elif used + r.cost > allowance:
            statuses.append(OVER_BUDGET)
            if stop:
                stopped_at = r.id
        else:
            statuses.append(SELECTED)
            kept.append(r.id)
            used += r.cost
    return statuses, kept, used, stopped_at


# Module-level names for the four statuses: the packing loop runs once per candidate, and a module
# global is read faster than an enum member through its class.
SELECTED, NOT_PERMITTED, OVER_BUDGET, NOT_CONSIDERED = (
    Status.SELECTED,
    Status.NOT_PERMITTED,
    Status.OVER_BUDGET,
    Status.NOT_CONSIDERED,
)
