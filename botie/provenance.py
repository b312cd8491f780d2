"""Which candidates are usable evidence: permitted, current, distinct, relevant and complete.

A relevance score says a chunk is *about* the question. It cannot say whether
the caller may read it, whether it is still in force, whether it repeats
another chunk, or whether it can be understood without the table heading it
belongs to. Those answers come from control-plane metadata on each
:class:`~botie.records.Record` (assigned by controlled ingestion, never read
from the text) and from the caller's authorisation.

:func:`select_evidence` applies the checks in a fixed order, and the order is
the point: permission and freshness run before anything looks at a score, so
a relevance of 1.0 can never buy a restricted or outdated chunk into the
context. Every candidate leaves with one outcome and a reason, and when
nothing relevant survives, the result is a refusal decided before any model is
called.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from ._enum import ShortName
from .budget import Budget
from .errors import FixtureError, RecordError, SettingError
from .fixtures import fixture_path, load_records
from .records import Record
from .selection import Coverage, Selection, Status, select

__all__ = [
    "AUTHORITY",
    "CHECKS",
    "DEFAULT_FLOOR",
    "HIGH_AUTHORITY",
    "Conflict",
    "EvidenceBranch",
    "EvidenceOutcome",
    "EvidenceScenario",
    "EvidenceSelection",
    "EvidenceStatus",
    "FixtureQuestion",
    "Trust",
    "authority",
    "load_evidence_scenario",
    "rescored",
    "select_evidence",
    "trust_of",
    "version_hash",
]


# --- trust tiers ---------------------------------------------------------------


class Trust(ShortName):
    """Source tiers, highest authority first. Assigned at ingestion, never by the text."""

    APPROVED = "approved"  # released through document control: manuals, site policy
    REVIEWED = "reviewed"  # checked by engineering: bulletins, reviewed procedures
    INTERNAL = "internal"  # our own records nobody reviewed: service tickets, shift notes
    COMMUNITY = "community"  # forum and community posts
    UNVERIFIED = "unverified"  # anonymous, or no tier assigned at all


#: Authority order: a larger number outranks a smaller one at similar relevance.
AUTHORITY: Mapping[Trust, int] = MappingProxyType(
    {Trust.APPROVED: 4, Trust.REVIEWED: 3, Trust.INTERNAL: 2, Trust.COMMUNITY: 1, Trust.UNVERIFIED: 0}
)

#: Tiers whose disagreements are never settled by the selector: both sides go in together, flagged.
HIGH_AUTHORITY = frozenset({Trust.APPROVED, Trust.REVIEWED})


def trust_of(record: Record) -> Trust:
    """The record's assigned tier. No tier is :attr:`Trust.UNVERIFIED`: missing metadata earns nothing.

    The text is never consulted, so a body announcing that it is the official
    policy keeps whatever tier ingestion gave it.
    """
    if record.trust is None:
        return Trust.UNVERIFIED
    try:
        return Trust(record.trust)
    except ValueError:
        known = ", ".join(t.value for t in Trust)
        raise RecordError(
            f"record {record.id}: trust must be one of {known}; got {record.trust!r}",
            field="trust",
            record=record.id,
        ) from None


def authority(record: Record) -> int:
    """The record's place in the authority order (see :data:`AUTHORITY`)."""
    return AUTHORITY[trust_of(record)]


def version_hash(record: Record) -> str:
    """A short hash of the record's version label and text: it changes whenever either does.

    Used to pin a document for the length of a conversation and to label it in
    the evidence region when ingestion assigned no version.
    """
    digest = hashlib.sha256()
    digest.update((record.version or "").encode("utf-8", "surrogatepass"))
    digest.update(b"\x00")
    digest.update(record.text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]


# --- outcomes ------------------------------------------------------------------

#: The checks, in the order they run.
CHECKS = ("permission", "freshness", "duplicates", "relevance_floor", "ranking", "completeness", "packing")

#: The lesson's relevance floor.
DEFAULT_FLOOR = 0.35


class EvidenceStatus(ShortName):
    """What happened to one candidate. Values that exist in :class:`botie.Status` spell the same."""

    SELECTED = "selected"
    NOT_PERMITTED = "not_permitted"
    STALE = "stale"
    SUPERSEDED = "superseded"
    DUPLICATE = "duplicate"
    BELOW_FLOOR = "below_floor"
    INCOMPLETE = "incomplete"
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
    """Two eligible sources that ingestion marked as disagreeing.

    ``kept_together`` is true for two high-authority sources: the selector
    sends both or neither, and never picks a winner.
    """

    ids: tuple[str, str]
    tiers: tuple[Trust, Trust]
    kept_together: bool
    in_context: bool

    def explain(self) -> str:
        a, b = self.ids
        ta, tb = self.tiers
        if not self.kept_together:
            return f"{a} ({ta}) disagrees with {b} ({tb}); authority orders them, both may be cited"
        where = "both are in the context" if self.in_context else "neither fitted, so both were left out"
        return f"{a} ({ta}) and {b} ({tb}) disagree: {where}, and the answer must present both sides"


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


# --- input checks --------------------------------------------------------------


def _candidates(records: Iterable[Record]) -> list[Record]:
    records = list(records)
    seen: set[str] = set()
    for index, r in enumerate(records):
        if not isinstance(r, Record):
            raise RecordError(
                f"candidate {index} is not a Record: {r!r:.80}", field="record", record=str(index)
            )
        if r.id in seen:
            raise RecordError(f"record {r.id}: duplicate id (ids must be unique)", field="id", record=r.id)
        seen.add(r.id)
        trust_of(r)  # an unknown tier is bad input: fail before deciding anything
    return records


def _allowed(allowed_assets: Iterable[str]) -> frozenset[str]:
    if isinstance(allowed_assets, (str, bytes)):
        raise TypeError(
            f"allowed_assets must be a collection of asset ids such as ['P-2'], not {allowed_assets!r}"
        )
    return frozenset(allowed_assets)


def _observation_date(observed_on: Any) -> _dt.date:
    # A datetime is read as the calendar date it carries: effective dates are days.
    if isinstance(observed_on, _dt.datetime):
        return observed_on.date()
    if isinstance(observed_on, _dt.date):
        return observed_on
    if isinstance(observed_on, str):
        try:
            return _dt.date.fromisoformat(observed_on)
        except ValueError:
            pass
    raise SettingError(f"observed_on must be a date (YYYY-MM-DD), got {observed_on!r}", field="observed_on")


def _unit_interval(value: Any, name: str, *, allow_zero: bool = True) -> float:
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
    if not ok or value < 0 or value > 1 or (value == 0 and not allow_zero):
        lower = "0" if allow_zero else "above 0"
        raise SettingError(f"{name} must be a number from {lower} to 1, got {value!r}", field=name)
    return float(value)


# --- the ordered checks ----------------------------------------------------------


def _freshness(r: Record, by_id: Mapping[str, Record], today: _dt.date) -> tuple[EvidenceStatus, str] | None:
    """Stale (not yet effective) or superseded (its successor is in force), else None."""
    if r.effective_date is not None and r.effective_date > today:
        return EvidenceStatus.STALE, f"effective from {r.effective_date}, after the observation date {today}"
    successor_id = r.superseded_by
    if successor_id is None:
        return None
    successor = by_id.get(successor_id)
    if successor is None:
        return EvidenceStatus.SUPERSEDED, f"superseded by {successor_id} (marked at ingestion)"
    when = successor.effective_date
    if when is not None and when > today:
        return None  # the new revision is not in force yet, so this one still applies
    since = f", in force since {when}" if when is not None else ""
    return EvidenceStatus.SUPERSEDED, f"superseded by {successor_id}{since}"


def _freshness_of_copy(
    r: Record, by_id: Mapping[str, Record], today: _dt.date
) -> tuple[EvidenceStatus, str] | None:
    """A copy is exactly as fresh as what it copies: ingestion marks the original, not every mirror of it."""
    seen = {r.id}
    current = r.duplicate_of
    while current is not None and current in by_id and current not in seen:
        seen.add(current)
        verdict = _freshness(by_id[current], by_id, today)
        if verdict is not None:
            return verdict[0], f"copy of {current}, which is {verdict[0]}: {verdict[1]}"
        current = by_id[current].duplicate_of
    return None


def _stand_in(rid: str, by_id: Mapping[str, Record], live: set[str]) -> str | None:
    """The live record that carries ``rid``'s content, following duplicate_of links, or None."""
    seen = {rid}
    current = by_id[rid].duplicate_of
    found = None
    while current is not None and current in live and current not in seen:
        found = current
        seen.add(current)
        current = by_id[current].duplicate_of
    return found


def _band(score: float, width: float) -> int:
    # round() first so 0.3 / 0.1 = 2.9999999999999996 lands in band 3, not 2.
    return math.floor(round(score / width, 9))


def _rank_key(r: Record, index: int, width: float) -> tuple:
    """Relevance band first; within a band, authority, then the newer effective date, then the score."""
    newest = r.effective_date or _dt.date.min
    return (-_band(r.score or 0.0, width), -authority(r), -newest.toordinal(), -(r.score or 0.0), index)


def _score_text(r: Record) -> str:
    return f"score {r.score:.2f}, {trust_of(r)}"


# --- completeness: dependencies and conflict partners travel with a record --------


class _Unit(NamedTuple):
    lead: Record
    members: tuple[Record, ...]  # reading order: dependencies before what needs them
    dependencies: tuple[str, ...]
    partners: tuple[str, ...]


def _missing_dependency(
    r: Record,
    by_id: Mapping[str, Record],
    usable: Mapping[str, str],
    excluded: Mapping[str, EvidenceOutcome],
    trail: frozenset[str] = frozenset(),
) -> str | None:
    """Why one of ``r``'s dependencies (transitively) cannot come along, or None if all can."""
    for dep in r.depends_on:
        target = usable.get(dep)
        if dep not in by_id:
            return f"needs {dep}, which was not retrieved"
        if target is None:
            return f"needs {dep}, which is {excluded[dep].status.value.replace('_', ' ')}"
        if target in trail:
            continue  # a cycle: already on the way
        problem = _missing_dependency(by_id[target], by_id, usable, excluded, trail | {r.id})
        if problem is not None:
            return problem
    return None


def _reading_order(
    r: Record, by_id: Mapping[str, Record], usable: Mapping[str, str], out: list[Record]
) -> None:
    """Append r's dependencies depth first, then r: a table heading comes before its row."""
    placed = {m.id for m in out}
    visiting: set[str] = set()

    def visit(x: Record) -> None:
        if x.id in placed or x.id in visiting:
            return  # already placed, or a cycle of dependencies
        visiting.add(x.id)
        for dep in x.depends_on:
            visit(by_id[usable[dep]])
        out.append(x)
        placed.add(x.id)

    visit(r)


# --- the selector ----------------------------------------------------------------


def select_evidence(
    candidates: Iterable[Record],
    allowed_assets: Iterable[str],
    budget: Budget | int,
    *,
    observed_on: _dt.date | _dt.datetime | str,
    floor: float = DEFAULT_FLOOR,
    band: float = 0.1,
) -> EvidenceSelection:
    """Decide which candidates may enter the context, in the lesson's order.

    1. **permission**: ``record.asset`` must be in ``allowed_assets``.
    2. **freshness**: not effective after ``observed_on`` (``stale``), and not
       replaced by a revision that is already in force (``superseded``).
    3. **duplicates**: a record ingestion marked as a copy of a live record
       gives way to it, so copies cannot crowd out anything else.
    4. **relevance_floor**: a score below ``floor`` is not evidence. When
       nothing clears it, the result is a refusal and no model is needed.
    5. **ranking**: by relevance band (``band`` wide, 0.8 to 0.9 and so on),
       then authority, then the newer effective date, then the exact score.
    6. **completeness**: a record travels with everything it ``depends_on``
       (a table heading, a definition, an exception), even below the floor,
       but never past permission or freshness; if one cannot come, the record
       is ``incomplete``. Two high-authority records that conflict travel
       together too, so the selector never settles their disagreement.
    7. **packing**: :func:`botie.select` with the prefix policy keeps whole
       groups in rank order while they fit the allowance.
    """
    records = _candidates(candidates)
    allowed = _allowed(allowed_assets)
    today = _observation_date(observed_on)
    floor = _unit_interval(floor, "floor")
    band = _unit_interval(band, "band", allow_zero=False)
    by_id = {r.id: r for r in records}
    decided: dict[str, EvidenceOutcome] = {}

    def exclude(r: Record, status: EvidenceStatus, check: str, reason: str) -> None:
        decided[r.id] = EvidenceOutcome(r.id, status, check, reason)

    # 1-2. permission, then freshness: before any score is looked at.
    live: list[Record] = []
    for r in records:
        if r.asset not in allowed:
            exclude(r, EvidenceStatus.NOT_PERMITTED, "permission", f"{r.asset} is not in your allowed assets")
        elif (stale := _freshness(r, by_id, today) or _freshness_of_copy(r, by_id, today)) is not None:
            exclude(r, stale[0], "freshness", stale[1])
        else:
            live.append(r)

    # 3. duplicates: a copy gives way to the live record it duplicates.
    live_ids = {r.id for r in live}
    distinct: list[Record] = []
    usable: dict[str, str] = {}  # any id a dependency may name -> the live record that stands for it
    for r in live:
        kept = _stand_in(r.id, by_id, live_ids) if r.duplicate_of else None
        if kept is not None:
            why = f"duplicate of {kept}, which stays in its place"
            exclude(r, EvidenceStatus.DUPLICATE, "duplicates", why)
            usable[r.id] = kept
        else:
            distinct.append(r)
            usable[r.id] = r.id

    # 4. relevance floor, and the refusal when nothing clears it.
    scores = [r.score for r in distinct if r.score is not None]
    best = max(scores) if scores else None
    eligible: list[Record] = []
    for r in distinct:
        if r.score is None:
            exclude(r, EvidenceStatus.BELOW_FLOOR, "relevance_floor",
                    f"has no relevance score, so it cannot clear the {floor:.2f} floor")
        elif r.score < floor:
            exclude(r, EvidenceStatus.BELOW_FLOOR, "relevance_floor",
                    f"score {r.score:.2f} is below the {floor:.2f} floor")
        else:
            eligible.append(r)
    if not eligible:
        return _refusal(records, decided, budget, today, floor, best)

    # 5. ranking.
    position = {r.id: i for i, r in enumerate(records)}
    ranked = sorted(eligible, key=lambda r: _rank_key(r, position[r.id], band))
    rank = {r.id: n for n, r in enumerate(ranked, start=1)}

    # 6. completeness: build groups that are packed as one.
    units, conflicts = _units(ranked, by_id, usable, rank, decided)

    # 7. packing, by the same rule lesson 1 uses.
    selection = select(
        [Record(u.lead.id, _UNIT, "", sum(m.cost for m in u.members)) for u in units], (_UNIT,), budget
    )
    selected = _settle(units, selection, rank, decided)
    in_context = set(selected)
    conflicts = tuple(
        replace(c, in_context=c.ids[0] in in_context and c.ids[1] in in_context) for c in conflicts
    )
    outcomes = tuple(decided[r.id] for r in records)
    return EvidenceSelection(
        EvidenceBranch.ANSWER, CHECKS, tuple(selected), selection.used, selection.allowance, outcomes,
        tuple(r.id for r in ranked), conflicts, today, floor, best, None,
        Coverage.of(outcomes, EvidenceStatus),
    )


_UNIT = "unit"  # the single "asset" of the synthetic records handed to select()


def _refusal(
    records: list[Record],
    decided: dict[str, EvidenceOutcome],
    budget: Budget | int,
    today: _dt.date,
    floor: float,
    best: float | None,
) -> EvidenceSelection:
    """Nothing cleared the floor: say the documents do not answer, before any model is involved."""
    allowance = select((), (), budget).allowance  # still validates the budget
    if best is None:
        why = "no permitted, current, scored candidate remains: there is no evidence to answer from"
    else:
        why = (f"best score {best:.2f} is below the {floor:.2f} floor: "
               "the documents do not appear to contain an answer")
    outcomes = tuple(decided[r.id] for r in records)
    return EvidenceSelection(
        EvidenceBranch.REFUSE, CHECKS[: CHECKS.index("relevance_floor") + 1], (), 0, allowance, outcomes, (), (),
        today, floor, best, why, Coverage.of(outcomes, EvidenceStatus),
    )


def _units(
    ranked: list[Record],
    by_id: Mapping[str, Record],
    usable: Mapping[str, str],
    rank: Mapping[str, int],
    decided: dict[str, EvidenceOutcome],
) -> tuple[list[_Unit], list[Conflict]]:
    """Group each ranked record with its dependencies and high-authority conflict partners.

    A record is claimed by the first (highest-ranked) group that needs it, so
    a table heading shared by two rows is counted once.
    """
    eligible = {r.id for r in ranked}
    blocked: set[str] = set()
    for r in ranked:
        problem = _missing_dependency(r, by_id, usable, decided)
        if problem is not None:
            blocked.add(r.id)
            why = f"{problem}; alone it would be misread"
            decided[r.id] = EvidenceOutcome(r.id, EvidenceStatus.INCOMPLETE, "completeness", why, rank[r.id])

    conflicts: list[Conflict] = []
    seen_pairs: set[frozenset[str]] = set()
    claimed: set[str] = set()
    units: list[_Unit] = []
    for r in ranked:
        if r.id in claimed or r.id in blocked:
            continue
        partners = []
        for other_id in _conflict_partners(r, by_id):
            if other_id not in eligible or other_id in blocked:
                continue
            other = by_id[other_id]
            together = trust_of(r) in HIGH_AUTHORITY and trust_of(other) in HIGH_AUTHORITY
            pair = frozenset((r.id, other_id))
            if pair not in seen_pairs:
                seen_pairs.add(pair)
                conflicts.append(Conflict((r.id, other_id), (trust_of(r), trust_of(other)), together, False))
            if together and other_id not in claimed:
                partners.append(other)
        members: list[Record] = []
        for m in (r, *partners):
            _reading_order(m, by_id, usable, members)
        members = [m for m in members if m.id not in claimed]
        claimed.update(m.id for m in members)
        dependencies = tuple(m.id for m in members if m.id != r.id and m not in partners)
        units.append(_Unit(r, tuple(members), dependencies, tuple(p.id for p in partners)))
    return units, conflicts


def _conflict_partners(r: Record, by_id: Mapping[str, Record]) -> list[str]:
    """Conflicts are symmetric even when ingestion wrote the link on one side only."""
    named = list(r.conflicts_with)
    named += [o.id for o in by_id.values() if r.id in o.conflicts_with and o.id not in named]
    return named


def _settle(
    units: list[_Unit], selection: Selection, rank: Mapping[str, int], decided: dict[str, EvidenceOutcome]
) -> list[str]:
    """Turn the packer's verdict on each group into an outcome for every member."""
    selected: list[str] = []
    for unit, packed in zip(units, selection.outcomes, strict=True):
        lead = unit.lead
        n = rank[lead.id]
        company = _company(unit)
        if packed.status is Status.SELECTED:
            selected.extend(m.id for m in unit.members)
            decided[lead.id] = EvidenceOutcome(
                lead.id, EvidenceStatus.SELECTED, "packing",
                f"rank {n} ({_score_text(lead)}){company}: {packed.reason}", n,
            )
            for m in unit.members:
                if m.id != lead.id:
                    decided[m.id] = _member_selected(m, unit, rank)
            continue
        if packed.status is Status.OVER_BUDGET:
            fits_alone = packed.used_before + lead.cost <= packed.allowance
            if fits_alone and unit.dependencies:
                status, check = EvidenceStatus.INCOMPLETE, "completeness"
                why = (f"fits alone ({lead.cost} tokens) but not{company}: {packed.reason}; "
                       "alone it would be misread")
            else:
                status, check = EvidenceStatus.OVER_BUDGET, "packing"
                why = f"rank {n} ({_score_text(lead)}){company}: {packed.reason}"
        else:
            status, check = EvidenceStatus.NOT_CONSIDERED, "packing"
            why = f"rank {n}: {packed.reason}"
        decided[lead.id] = EvidenceOutcome(lead.id, status, check, why, n)
        # Members that cleared the floor share the group's fate; a dependency
        # below the floor keeps its own below_floor outcome.
        later = status is EvidenceStatus.NOT_CONSIDERED
        kind = EvidenceStatus.NOT_CONSIDERED if later else EvidenceStatus.OVER_BUDGET
        for m in unit.members:
            if m.id != lead.id and m.id in rank:
                decided[m.id] = EvidenceOutcome(
                    m.id, kind, "packing", f"left out together with {lead.id} (rank {n})", rank[m.id]
                )
    return selected


def _company(unit: _Unit) -> str:
    parts = []
    if unit.dependencies:
        parts.append(f"with {', '.join(unit.dependencies)}, which it needs")
    if unit.partners:
        parts.append(f"kept together with {', '.join(unit.partners)}, which it conflicts with")
    return (", " + "; ".join(parts)) if parts else ""


def _member_selected(m: Record, unit: _Unit, rank: Mapping[str, int]) -> EvidenceOutcome:
    if m.id in unit.partners:
        why = f"kept together with {unit.lead.id}: both high authority and they disagree, so both go in"
        return EvidenceOutcome(m.id, EvidenceStatus.SELECTED, "completeness", why, rank.get(m.id))
    return EvidenceOutcome(
        m.id, EvidenceStatus.SELECTED, "completeness",
        f"brought along: {_needed_by(m, unit)} depends on it and would be misread without it", rank.get(m.id),
    )


def _needed_by(m: Record, unit: _Unit) -> str:
    for other in unit.members:
        if m.id in other.depends_on:
            return other.id
    return unit.lead.id  # reached through a duplicate's stand-in


# --- scenarios for lessons -------------------------------------------------------


def rescored(records: Iterable[Record], scores: Mapping[str, float]) -> tuple[Record, ...]:
    """The same records with the relevance scores retrieval gave them for another question.

    Scores belong to a question, not to a record; every other field is kept.
    A record missing from ``scores`` is an error, not a silent zero.
    """
    out = []
    for r in records:
        if r.id not in scores:
            raise RecordError(f"record {r.id}: no score given for this question", field="score", record=r.id)
        out.append(replace(r, score=scores[r.id]))
    return tuple(out)


@dataclass(frozen=True)
class FixtureQuestion:
    """A question the scenario can ask, the chunks that answer it, and retrieval's scores for it."""

    question: str
    answered_by: tuple[str, ...]
    scores: Mapping[str, float]
    note: str = ""


@dataclass(frozen=True)
class EvidenceScenario:
    """A selection scenario: who asks, when, under which floor and budget, over which candidates."""

    observed_on: _dt.date
    caller: str
    allowed_assets: tuple[str, ...]
    floor: float
    budget: Budget
    records: tuple[Record, ...]
    questions: tuple[FixtureQuestion, ...]

    def candidates(self, question: int = 0) -> tuple[Record, ...]:
        """The records, scored for question number ``question``."""
        return rescored(self.records, self.questions[question].scores)

    def select(self, question: int = 0, **overrides: Any) -> EvidenceSelection:
        """Run :func:`select_evidence` on one question; keyword arguments override the scenario."""
        args: dict[str, Any] = {
            "candidates": self.candidates(question), "allowed_assets": self.allowed_assets,
            "budget": self.budget, "observed_on": self.observed_on, "floor": self.floor,
        }
        args.update(overrides)
        return select_evidence(**args)


def load_evidence_scenario(path: str | os.PathLike[str] = "manual_revisions.json") -> EvidenceScenario:
    """Load a scenario such as ``fixtures/manual_revisions.json`` (a bare name is looked up there)."""
    path = Path(path)
    if not path.exists() and len(path.parts) == 1:
        path = fixture_path(str(path))
    records = load_records(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise FixtureError(f"{path.name}: expected an object with a scenario and its records", path=str(path))
    try:
        questions = tuple(_question(q, records, path) for q in data["questions"])
        return EvidenceScenario(
            _observation_date(data["observed_on"]), str(data["caller"]), tuple(data["allowed_assets"]),
            _unit_interval(data["relevance_floor"], "relevance_floor"), Budget(**data["budget"]),
            records, questions,
        )
    except KeyError as exc:
        name = exc.args[0]
        raise FixtureError(f"{path.name}: missing field {name!r}", path=str(path), field=name) from exc


def _question(entry: Mapping[str, Any], records: Sequence[Record], path: Path) -> FixtureQuestion:
    scores = dict(entry.get("scores") or {r.id: r.score for r in records})
    unknown = sorted(set(scores).difference(r.id for r in records))
    missing = [r.id for r in records if r.id not in scores]
    if unknown or missing:
        bad = unknown[0] if unknown else missing[0]
        raise FixtureError(
            f"{path.name}: question {entry.get('question')!r} must score every record exactly once ({bad})",
            path=str(path), field="scores", record=bad,
        )
    answered_by = tuple(entry["answered_by"])
    note = str(entry.get("note", ""))
    return FixtureQuestion(str(entry["question"]), answered_by, MappingProxyType(scores), note)
