"""Which candidates are usable evidence: permitted, current, distinct, relevant and complete.

A relevance score says a chunk is *about* the question. It cannot say whether
the caller may read it, whether it is still in force, whether it repeats
another chunk, or whether it can be understood without the table heading it
belongs to. Those answers come from control-plane metadata on each
:class:`~botie.context.records.Record` (assigned by controlled ingestion, never read
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
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import NamedTuple

from botie._checks import allowed_set, as_date, unit_interval
from botie.context.budget import Budget
from botie.context.provenance.completeness import settle, units
from botie.context.provenance.outcomes import (
    CHECKS,
    DEFAULT_FLOOR,
    Conflict,
    EvidenceBranch,
    EvidenceOutcome,
    EvidenceSelection,
    EvidenceStatus,
)
from botie.context.provenance.rules import (
    InForce,
    clears_floor,
    copy_chain,
    may_name,
    not_yet_effective,
    original_of,
    register_standing,
    revisions_in_force,
    superseded_in,
)
from botie.context.provenance.trust import authority, trust_of
from botie.context.records import Record, unique_records
from botie.context.register import DocumentRegister
from botie.context.selection import Coverage, select

__all__ = ["freshness_of", "select_evidence"]

_Verdict = tuple[EvidenceStatus, str] | None


# --- the ordered checks ----------------------------------------------------------


def _freshness(r: Record, fresh: _Freshness) -> _Verdict:
    """Not yet effective (a future revision) or superseded (a newer revision is in force), else None."""
    if fresh.register is not None:
        return _against_register(r, fresh.register, fresh.today, fresh.by_id, fresh.allowed)
    today = fresh.today
    if not_yet_effective(r, today):
        why = f"effective from {r.effective_date}, after the observation date {today}"
        return EvidenceStatus.NOT_YET_EFFECTIVE, why
    return _replaced_by_link(r, fresh, today) or _older_revision(r, fresh.in_force) or _marked_revision(r, fresh)


def _against_register(
    r: Record, register: DocumentRegister, today: _dt.date, by_id: Mapping[str, Record], allowed: frozenset[str]
) -> _Verdict:
    """Freshness from the register alone: retrieval's choice of chunks cannot move the revision in force.

    The reason names the successor chunk when ingestion linked one, it was retrieved and the caller may read
    it, else the revision (the register's, trusted state, not a chunk).
    """
    standing = register_standing(r, register, today)
    if standing is None:
        return None
    if standing.status is EvidenceStatus.NOT_YET_EFFECTIVE:
        return standing.status, f"effective from {standing.since}, after the observation date {today}"
    successor = by_id.get(r.superseded_by or "")
    if successor is not None and successor.version == standing.version and may_name(successor.id, by_id, allowed):
        return standing.status, f"superseded by {successor.id}, in force since {standing.since}"
    why = f"{r.version} of {r.document} was replaced by {standing.version}, in force since {standing.since}"
    return standing.status, why


def _replaced_by_link(r: Record, fresh: _Freshness, today: _dt.date) -> _Verdict:
    """Superseded through an explicit ``superseded_by`` link whose target is in force (or was not retrieved)."""
    successor_id = r.superseded_by
    if successor_id is None:
        return None
    successor = fresh.by_id.get(successor_id)
    if successor is None:
        why = f"marked at ingestion as replaced by {successor_id}, which was not retrieved"
        why += ": with no register to say when that takes effect, left out to play safe"
        return EvidenceStatus.SUPERSEDED, why
    when = successor.effective_date
    if when is not None and when > today:
        return None  # the new revision is not in force yet, so this one still applies
    if not may_name(successor_id, fresh.by_id, fresh.allowed):
        return EvidenceStatus.SUPERSEDED, "superseded by a newer source this caller may not read"  # no id, no date
    since = f", in force since {when}" if when is not None else ""
    return EvidenceStatus.SUPERSEDED, f"superseded by {successor_id}{since}"


def _older_revision(r: Record, in_force: InForce) -> _Verdict:
    """A chunk of a revision older than the one in force is superseded, link or no link.

    Without this, a section that rev 5's retrieval happened not to return
    (an exception clause, a table row) would stay "fresh" and travel next to
    rev 5: two revisions of one manual in one pack. Ingestion can mark a
    section as adopted unchanged by the newer revision (``carried_into``).
    """
    standing = superseded_in(r, in_force)
    if standing is None:
        return None
    why = f"{r.version} of {r.document} was replaced by {standing.version}, in force since {standing.since}"
    return standing.status, why


def _marked_revision(r: Record, fresh: _Freshness) -> _Verdict:
    """Without a register, a revision one of whose chunks ingestion marked as replaced (by a successor that was
    not retrieved) is replaced for all its chunks: rev 4's exception clause never travels without its section."""
    if r.document is None:
        return None
    for other in fresh.by_id.values():
        same = other.id != r.id and other.document == r.document and other.version == r.version
        if same and other.superseded_by is not None and other.superseded_by not in fresh.by_id:
            why = f"{r.version} of {r.document} was marked replaced at ingestion"
            if may_name(other.id, fresh.by_id, fresh.allowed):  # named only to a caller who may read it
                why += f" ({other.id} by {other.superseded_by})"
            return EvidenceStatus.SUPERSEDED, why
    return None


def _freshness_of_copy(r: Record, fresh: _Freshness) -> _Verdict:
    """A copy is exactly as fresh as what it copies: ingestion marks the original, not every mirror of it.

    An original the caller may not read goes unnamed, and so does everything its own reason would say
    (its successor, document, revision and dates): the copy is permitted, its original is not.
    """
    by_id = fresh.by_id
    for current in copy_chain(r.id, by_id):
        verdict = _freshness(by_id[current], fresh) if current in by_id else None  # one not retrieved says nothing
        if verdict is not None and not may_name(current, by_id, fresh.allowed):
            return verdict[0], f"a copy of a source that is not in force on {fresh.today}"
        if verdict is not None:
            return verdict[0], f"copy of {current}, which is {verdict[0]}: {verdict[1]}"
    return None


def freshness_of(
    record: Record,
    records: Iterable[Record],
    *,
    allowed_assets: Iterable[str],
    observed_on: _dt.date | _dt.datetime | str,
    register: DocumentRegister | None = None,
) -> tuple[EvidenceStatus, str] | None:
    """Why ``record`` is not in force on ``observed_on`` (not yet effective, or superseded), else None.

    The selector's freshness check (step 2 of :func:`select_evidence`) on one record, for a caller that
    serves records one at a time, such as a just-in-time tool: with a ``register`` its revisions decide,
    without one the revisions ``records`` (every record the caller holds) carry. A copy is as fresh as what
    it copies. The reason names no record on an asset outside ``allowed_assets`` (the caller's).
    """
    allowed = allowed_set(allowed_assets)
    records = unique_records(records)
    today = as_date(observed_on, field="observed_on")
    if register is not None:
        register.revision_of(record)  # a record the register cannot place is bad input, named
    in_force = revisions_in_force(records, today) if register is None else {}
    fresh = _Freshness({r.id: r for r in records}, today, in_force, register, allowed)
    return _freshness(record, fresh) or _freshness_of_copy(record, fresh)


def _representative(root: str, members: list[Record], floor: float, width: float) -> Record:
    """The one member of a family of copies that goes on: the original if it clears the floor (or nothing does),
    else the best-ranked copy that does. Ties keep the input order (min() returns the first)."""
    clears = [m for m in members if clears_floor(m, floor)]
    own = next((m for m in members if m.id == root), None)
    if own is not None and (own in clears or not clears):
        return own
    return min(clears or members, key=lambda m: _rank_key(m, width))


def _whereabouts(root: str, by_id: Mapping[str, Record], decided: Mapping[str, EvidenceOutcome]) -> str:
    """Where an original went that a copy stands in for: never retrieved, or excluded before ranking."""
    if root not in by_id:
        return "was not retrieved"
    if root not in decided or decided[root].check == "relevance_floor":
        return "is below the floor"  # live: only the floor stopped it (a copy stands in only for that)
    return f"is {decided[root].status.value.replace('_', ' ')}"


def _band(score: float, width: float) -> int:
    # round() first so 0.3 / 0.1 = 2.9999999999999996 lands in band 3, not 2.
    return math.floor(round(score / width, 9))


def _rank_key(r: Record, width: float) -> tuple[int, int, int, float]:
    """Relevance band first; within a band, authority, then the newer effective date, then the score.

    A full tie keeps the input order: sorted() is stable and the eligible records arrive in input order.
    """
    newest = r.effective_date or _dt.date.min
    return (-_band(r.score or 0.0, width), -authority(r), -newest.toordinal(), -(r.score or 0.0))


def select_evidence(
    candidates: Iterable[Record],
    allowed_assets: Iterable[str],
    budget: Budget | int,
    *,
    observed_on: _dt.date | _dt.datetime | str,
    floor: float = DEFAULT_FLOOR,
    band: float = 0.1,
    register: DocumentRegister | None = None,
) -> EvidenceSelection:
    """Decide which candidates may enter the context, in the lesson's order.

    1. **permission**: ``record.asset`` must be in ``allowed_assets``.
    2. **freshness**: in force on ``observed_on`` (else ``not_yet_effective``), and not
       replaced by a revision that is already in force (``superseded``). With a
       ``register`` (:class:`~botie.context.register.DocumentRegister`, from trusted
       state), the revision in force is the register's, whatever retrieval returned,
       and a candidate the register cannot place (no ``document``, an unknown document
       or revision) is bad input, raised before anything is decided. Without one, the
       revisions are read from the candidates themselves.
    3. **duplicates**: of an original and the copies ingestion marked, one
       goes on, so copies cannot crowd out anything else: the original if it
       clears the floor, else (not retrieved, not permitted, below the floor)
       the best-ranked copy that does, which stands in for it. The content
       arrives once, and both reasons say which record carries it.
    4. **relevance_floor**: a score below ``floor`` is not evidence. When
       nothing clears it, the result is a refusal and no model is needed.
    5. **ranking**: by relevance band (``band`` wide, 0.8 to 0.9 and so on),
       then authority, then the newer effective date, then the exact score.
    6. **completeness**: a record travels with everything it ``depends_on``
       (a table heading, a definition, an exception), even below the floor,
       but never past permission or freshness; if one cannot come, the record
       is ``incomplete``. Two high-authority records that conflict travel
       together too, so the selector never settles their disagreement; a
       lower tier travels only alongside the higher source it contradicts,
       and if that source cannot be sent (a rival below the floor aside: the
       question does not need what they disagree on), the lower one is
       ``contradicted``.
    7. **packing**: :func:`botie.select` with the prefix policy keeps whole
       groups in rank order while they fit the allowance.

    Each step returns the outcomes it decided as a value; they are joined here, in order.
    """
    records = unique_records(candidates)
    for r in records:
        trust_of(r)  # an unknown tier is bad input: fail before deciding anything
        if register is not None:
            register.revision_of(r)  # so is a chunk the register cannot place
    allowed = allowed_set(allowed_assets)
    today = as_date(observed_on, field="observed_on")
    floor = unit_interval(floor, field="floor")
    band = unit_interval(band, field="band", allow_zero=False)
    by_id = {r.id: r for r in records}
    # With a register, it alone says which revision is in force; without one, the candidates are all there is.
    in_force = revisions_in_force(records, today) if register is None else {}
    fresh = _Freshness(by_id, today, in_force, register, allowed)
    screened = _screen(records, allowed, fresh, floor, band)  # 1-4: permission and freshness before any score
    if not screened.eligible:
        return _refusal(records, screened.decided, budget, today, floor, screened.best)
    return _rank_and_pack(records, screened, by_id, budget, fresh, floor, band)


class _Freshness(NamedTuple):
    """What the freshness check reads: the candidates by id, the day, the revision in force per document
    (the register, or without one what the candidates say), and the caller's assets (a reason names no
    record outside them)."""

    by_id: Mapping[str, Record]
    today: _dt.date
    in_force: InForce
    register: DocumentRegister | None
    allowed: frozenset[str]


class _Screened(NamedTuple):
    """Checks 1-4: what is left to rank, what was decided on the way, and the best score seen."""

    eligible: list[Record]
    usable: dict[str, str]
    stand_ins: dict[str, str]
    decided: dict[str, EvidenceOutcome]
    best: float | None


def _screen(
    records: Sequence[Record], allowed: frozenset[str], fresh: _Freshness, floor: float, band: float
) -> _Screened:
    """Checks 1-4, each returning its own decisions; later checks read the earlier ones."""
    live, checked = _permitted_and_current(records, allowed, fresh)  # 1-2: before any score
    distinct, usable, stand_ins, copies = _distinct(live, fresh, floor, band, checked)  # 3
    eligible, best, low = _above_floor(distinct, floor)  # 4
    return _Screened(eligible, usable, stand_ins, {**checked, **copies, **low}, best)


def _rank_and_pack(
    records: Sequence[Record],
    screened: _Screened,
    by_id: Mapping[str, Record],
    budget: Budget | int,
    fresh: _Freshness,
    floor: float,
    band: float,
) -> EvidenceSelection:
    """Checks 5-7: rank, group each record with what must travel with it, pack the groups."""
    ranked = sorted(screened.eligible, key=lambda r: _rank_key(r, band))  # 5
    rank = {r.id: n for n, r in enumerate(ranked, start=1)}
    # 6. completeness: each record with what it depends on and the rivals it may not go without
    groups, conflicts, grouped = units(ranked, by_id, screened.usable, rank, screened.decided, floor, fresh.allowed)
    # 7. packing, by the same rule lesson 1 uses: each group is one synthetic record.
    packed = select([Record(u.lead.id, _UNIT, "", sum(m.cost for m in u.members)) for u in groups], (_UNIT,), budget)
    selected, settled = settle(groups, packed, rank)
    decided = {**screened.decided, **grouped, **settled}
    decided.update(_credit_stand_ins(screened.stand_ins, fresh, decided))
    both_in = set(selected)
    outcomes = tuple(decided[r.id] for r in records)
    return EvidenceSelection(
        branch=EvidenceBranch.ANSWER,
        checks=CHECKS,
        selected_ids=tuple(selected),
        used=packed.used,
        allowance=packed.allowance,
        outcomes=outcomes,
        ranking=tuple(r.id for r in ranked),
        conflicts=tuple(_where_sent(c, both_in) for c in conflicts),
        observed_on=fresh.today,
        floor=floor,
        best_score=screened.best,
        refusal=None,
        coverage=Coverage.of(outcomes, EvidenceStatus),
    )


def _where_sent(conflict: Conflict, selected: set[str]) -> Conflict:
    sent = tuple(i for i in conflict.ids if i in selected)
    return replace(conflict, in_context=len(sent) == 2, sent=sent)


def _outcome(r: Record, status: EvidenceStatus, check: str, why: str) -> EvidenceOutcome:
    return EvidenceOutcome(r.id, status, check, why)


def _permitted_and_current(
    records: Iterable[Record], allowed: frozenset[str], fresh: _Freshness
) -> tuple[list[Record], dict[str, EvidenceOutcome]]:
    """Checks 1 and 2: permission, then freshness. No score has been looked at yet."""
    live: list[Record] = []
    decided: dict[str, EvidenceOutcome] = {}
    for r in records:
        if r.asset not in allowed:
            why = f"{r.asset} is not in your allowed assets"
            decided[r.id] = _outcome(r, EvidenceStatus.NOT_PERMITTED, "permission", why)
            continue
        verdict = _freshness(r, fresh) or _freshness_of_copy(r, fresh)
        if verdict is not None:
            decided[r.id] = _outcome(r, verdict[0], "freshness", verdict[1])
        else:
            live.append(r)
    return live, decided


def _distinct(
    live: list[Record], fresh: _Freshness, floor: float, width: float, known: Mapping[str, EvidenceOutcome]
) -> tuple[list[Record], dict[str, str], dict[str, str], dict[str, EvidenceOutcome]]:
    """Check 3: of an original and its copies, one goes on; the others are duplicates, so none crowds anything out.

    The original goes on if it clears the floor. If it does not make it (not retrieved, not permitted,
    below the floor), the best copy that clears the floor stands in for it, so the content still
    arrives once. Returns the distinct records, for every id the record that stands for it (so a
    dependency naming a copy is met by the original, and the other way round), each stand-in's
    original, and the duplicates' outcomes (``known``: what checks 1-2 decided, for the reasons).
    """
    by_id = fresh.by_id
    families: dict[str, list[Record]] = {}
    for r in live:
        families.setdefault(original_of(r.id, by_id), []).append(r)
    keep: set[str] = set()
    usable: dict[str, str] = {}
    stand_ins: dict[str, str] = {}
    decided: dict[str, EvidenceOutcome] = {}
    for root, members in families.items():
        rep = _representative(root, members, floor, width)
        keep.add(rep.id)
        usable.update({m.id: rep.id for m in members})
        if rep.id != root:
            stand_ins[rep.id] = root
            usable[root] = rep.id  # a dependency on the original is met by the copy carrying its content
            keep.update(m.id for m in members if m.id == root)  # a live original still meets the floor, and fails it
        for m in members:
            if m.id not in keep:
                why = _copy_reason(root, rep.id, fresh, known)
                decided[m.id] = _outcome(m, EvidenceStatus.DUPLICATE, "duplicates", why)
    return [r for r in live if r.id in keep], usable, stand_ins, decided


def _copy_reason(root: str, rep: str, fresh: _Freshness, decided: Mapping[str, EvidenceOutcome]) -> str:
    if not may_name(root, fresh.by_id, fresh.allowed):
        return f"duplicate of a source this caller may not read; {rep} stands in for it"
    if rep == root:
        return f"duplicate of {root}, which stays in its place"
    return f"duplicate of {root}, which {_whereabouts(root, fresh.by_id, decided)}; {rep} stands in for it"


def _credit_stand_ins(
    stand_ins: Mapping[str, str], fresh: _Freshness, decided: Mapping[str, EvidenceOutcome]
) -> dict[str, EvidenceOutcome]:
    """Say in both reasons that a copy carries an original's content: traceable from either end.

    Returns the rewritten outcomes; ``decided`` (every other check's) is only read.
    """
    by_id = fresh.by_id
    credited: dict[str, EvidenceOutcome] = {}
    for rep, root in stand_ins.items():
        o = decided[rep]
        if not may_name(root, by_id, fresh.allowed):
            why = f"{o.reason}; it stands in for a source this caller may not read"  # naming it would say what it is
        else:
            why = f"{o.reason}; it stands in for {root}, which {_whereabouts(root, by_id, decided)}"
        credited[rep] = o._replace(reason=why)
        if root in by_id and decided[root].check == "relevance_floor":
            o = decided[root]
            credited[root] = o._replace(reason=f"{o.reason}; its copy {rep} stands in for it")
    return credited


def _above_floor(distinct: list[Record], floor: float) -> tuple[list[Record], float | None, dict[str, EvidenceOutcome]]:
    """Check 4: the relevance floor. Returns the eligible records, the best score seen, and the others' outcomes."""
    scores = [r.score for r in distinct if r.score is not None]
    eligible: list[Record] = []
    decided: dict[str, EvidenceOutcome] = {}
    for r in distinct:
        if clears_floor(r, floor):
            eligible.append(r)
            continue
        if r.score is None:
            why = f"has no relevance score, so it cannot clear the {floor:.2f} floor"
        else:
            why = f"score {r.score:.2f} is below the {floor:.2f} floor"
        decided[r.id] = _outcome(r, EvidenceStatus.BELOW_FLOOR, "relevance_floor", why)
    return eligible, (max(scores) if scores else None), decided


_UNIT = "unit"  # the single "asset" of the synthetic records handed to select()


def _refusal(
    records: Sequence[Record],
    decided: Mapping[str, EvidenceOutcome],
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
        why = f"best score {best:.2f} is below the {floor:.2f} floor: the documents do not appear to contain an answer"
    outcomes = tuple(decided[r.id] for r in records)
    return EvidenceSelection(
        branch=EvidenceBranch.REFUSE,
        checks=CHECKS[: CHECKS.index("relevance_floor") + 1],
        selected_ids=(),
        used=0,
        allowance=allowance,
        outcomes=outcomes,
        ranking=(),
        conflicts=(),
        observed_on=today,
        floor=floor,
        best_score=best,
        refusal=why,
        coverage=Coverage.of(outcomes, EvidenceStatus),
    )
