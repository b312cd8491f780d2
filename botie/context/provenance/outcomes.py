"""What evidence selection decides: a status and a reason per candidate, and the verdict."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import NamedTuple

from botie._enum import ShortName
from botie.context.provenance.trust import AUTHORITY, Trust
from botie.context.selection import Coverage

__all__ = [
    "CHECKS",
    "DEFAULT_FLOOR",
    "Conflict",
    "EvidenceBranch",
    "EvidenceOutcome",
    "EvidenceSelection",
    "EvidenceStatus",
]

#: The checks, in the order they run.
CHECKS = ("permission", "freshness", "duplicates", "relevance_floor", "ranking", "completeness", "packing")

#: The lesson's relevance floor.
DEFAULT_FLOOR = 0.35


class EvidenceStatus(ShortName):
    """What happened to one candidate. Values that exist in :class:`botie.Status` spell the same."""

    SELECTED = "selected"
    NOT_PERMITTED = "not_permitted"
    # Not in force yet: a future revision. Its own word, because "stale" would suggest an old one.
    NOT_YET_EFFECTIVE = "not_yet_effective"
    SUPERSEDED = "superseded"
    DUPLICATE = "duplicate"
    BELOW_FLOOR = "below_floor"
    INCOMPLETE = "incomplete"
    # Left out because a source it disagrees with, and may not be sent without, cannot be sent.
    CONTRADICTED = "contradicted"
    OVER_BUDGET = "over_budget"
    NOT_CONSIDERED = "not_considered"


class EvidenceBranch(ShortName):
    """Which way the selection went."""

    ANSWER = "answer"  # some evidence cleared every check: a model may be called
    REFUSE = "refuse"  # nothing relevant survived: say so, and call no model


class EvidenceOutcome(NamedTuple):
    """One candidate's fate: the status, the check that decided it, and why."""

    record_id: str
    status: EvidenceStatus
    check: str
    reason: str
    rank: int | None = None


@dataclass(frozen=True)
class Conflict:
    """Two eligible sources that ingestion marked as disagreeing: every one met is listed, none is silent.

    Both sides are permitted, in force and distinct (above the floor, or brought along as a dependency), so a
    conflict never names a source the caller may not read; such a rival appears, unnamed, only in the other
    side's reason.

    ``kept_together`` is true for two high-authority sources, or two of one
    tier: the selector sends both or neither, and never picks a winner.
    Otherwise the higher tier outranks the lower, and the lower one is sent
    only alongside it, so the budget can never leave the lower one alone.
    """

    ids: tuple[str, str]
    tiers: tuple[Trust, Trust]
    kept_together: bool
    in_context: bool
    sent: tuple[str, ...] = ()  # which of the two entered the context (both when in_context)
    company: bool = False  # met only because one side travels as another record's dependency: never paired

    def explain(self) -> str:
        a, b = self.ids
        ta, tb = self.tiers
        if self.company:
            pair = f"{a} ({ta}) and {b} ({tb}) disagree, one of them brought along as a dependency"
            if self.in_context:
                return f"{pair}: both are in the context, noted, and the answer must present both sides"
            where = f"only {self.sent[0]} is" if self.sent else "neither is"
            return f"{pair}: {where} in the context, so the request holds no disagreement to note"
        if self.kept_together:
            pair = f"{a} ({ta}) and {b} ({tb}) disagree"
            if self.in_context:
                return f"{pair}: both are in the context, and the answer must present both sides"
            # an answer can present only what it was sent
            return f"{pair}: neither fitted, so both were left out; the answer cannot rest on either"
        (low, tl), (high, th) = sorted(((a, ta), (b, tb)), key=lambda side: AUTHORITY[side[1]])
        rule = f"{low} ({tl}) disagrees with {high} ({th}): {high} outranks it, so {low} is sent only alongside {high}"
        if self.in_context:
            return f"{rule}; both are in the context, and the answer must say which source says what"
        return f"{rule}; " + (f"only {high} is in the context" if high in self.sent else "neither is in the context")


@dataclass(frozen=True)
class EvidenceSelection:
    """The result of :func:`select_evidence`.

    ``checks`` are the checks that ran, in order (a refusal stops after the
    relevance floor). ``selected_ids`` is the context in reading order: each
    ranked record preceded by what it depends on. ``outcomes`` has one entry
    per candidate in input order, and ``coverage`` adds up to the candidates.
    """

    branch: EvidenceBranch
    checks: tuple[str, ...]
    selected_ids: tuple[str, ...]
    used: int
    allowance: int
    outcomes: tuple[EvidenceOutcome, ...]
    ranking: tuple[str, ...]
    conflicts: tuple[Conflict, ...]
    observed_on: _dt.date
    floor: float
    best_score: float | None
    refusal: str | None
    coverage: Coverage = field(repr=False)

    @property
    def refused(self) -> bool:
        return self.branch is EvidenceBranch.REFUSE

    def outcome(self, record_id: str) -> EvidenceOutcome:
        for o in self.outcomes:
            if o.record_id == record_id:
                return o
        raise KeyError(record_id)

    def explain(self) -> str:
        """Every candidate's status and reason, one line each, then the verdict."""
        lines = [f"{o.record_id}: {o.status} ({o.check}): {o.reason}" for o in self.outcomes]
        lines += [f"conflict: {c.explain()}" for c in self.conflicts]
        verdict = f"selected {len(self.selected_ids)} ({self.used}/{self.allowance} tokens)"
        lines.append(self.refusal or verdict)
        return "\n".join(lines)
