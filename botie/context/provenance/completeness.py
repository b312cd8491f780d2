"""Completeness: a record travels with what it depends on, and high-authority rivals travel together.

A table row without its heading, or a rule without its exception, would be
misread. So the selector packs *units*: a ranked record, the records it
depends on (in reading order), and the rivals it may not be sent without.
A unit fits the budget whole or not at all.

Conflicts are never settled in silence. Two high-authority sources, or two
of one tier, that disagree travel together. A lower tier that disagrees with
a higher one travels only alongside it: the higher one may go in alone (it
outranks the other), the lower one never, so a budget cut cannot make the
less trusted source the only voice on the fact. If that higher source cannot
be sent at all (not retrieved, not permitted, not in force, incomplete), the
lower one stays out as ``contradicted``, naming it, unless the caller may not
read it: then the reason says only that such a source exists. A rival below the relevance
floor does not count, whether or not the caller may read it (its score decides, the same test
either way): retrieval judged it beside this question, so the fact the
two disagree on is not one the question needs (but if it travels along as a
dependency, the pair is listed all the same, so the request notes it). A rival
revision not in force is answered by its document's revision in force, when
the lower one disagrees with that one too; so is one that was not retrieved,
when a retrieved chunk still in force names it as its successor (with a
register, retrieval cannot change which revision applies). A copy standing in for an original
carries the original's disagreements. Every conflict met is listed.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping
from typing import NamedTuple

from botie.context.provenance.outcomes import Conflict, EvidenceOutcome, EvidenceStatus
from botie.context.provenance.rules import clears_floor, disagreements, may_name, travels_with
from botie.context.provenance.trust import HIGH_AUTHORITY, kept_together, trust_of
from botie.context.records import Record
from botie.context.selection import Selection, Status

__all__ = ["Unit", "settle", "units"]


class Unit(NamedTuple):
    """A ranked record and everything that must enter the context with it."""

    lead: Record
    members: tuple[Record, ...]  # reading order: dependencies before what needs them
    dependencies: tuple[str, ...]
    partners: tuple[str, ...]
    rivals: tuple[str, ...]  # for each partner, the member it disagrees with (not always the lead)


def _missing_dependency(
    r: Record,
    by_id: Mapping[str, Record],
    usable: Mapping[str, str],
    excluded: Mapping[str, EvidenceOutcome],
    allowed: frozenset[str],
    trail: frozenset[str] = frozenset(),
) -> str | None:
    """Why one of ``r``'s dependencies (transitively) cannot come along, or None if all can."""
    for dep in r.depends_on:
        target = usable.get(dep)  # a copy standing in for a dependency that was not retrieved meets it
        if target is None and dep not in by_id:
            return f"needs {dep}, which was not retrieved"
        if target is None and not may_name(dep, by_id, allowed):
            return "needs a record this caller may not read"  # naming it would say what the caller may not see
        if target is None:
            return f"needs {dep}, which is {excluded[dep].status.value.replace('_', ' ')}"
        if target in trail:
            continue  # a cycle: already on the way
        problem = _missing_dependency(by_id[target], by_id, usable, excluded, allowed, trail | {r.id})
        if problem is not None:
            return problem
    return None


def _reading_order(r: Record, by_id: Mapping[str, Record], usable: Mapping[str, str], out: list[Record]) -> None:
    """Append r's dependencies depth first, then r: a table heading comes before its row."""
    seen = {m.id for m in out}  # placed by an earlier call, or entered in this one

    def visit(x: Record) -> None:
        if x.id in seen:
            return  # already placed, or a cycle of dependencies
        seen.add(x.id)
        for dep in x.depends_on:
            visit(by_id[usable[dep]])
        out.append(x)

    visit(r)


def units(
    ranked: list[Record],
    by_id: Mapping[str, Record],
    usable: Mapping[str, str],
    rank: Mapping[str, int],
    known: Mapping[str, EvidenceOutcome],
    floor: float,
    allowed: frozenset[str],
) -> tuple[list[Unit], list[Conflict], dict[str, EvidenceOutcome]]:
    """Group each ranked record with its dependencies and high-authority conflict partners.

    A record is claimed by the first (highest-ranked) group that needs it, so
    a table heading shared by two rows is counted once. ``known`` holds the
    earlier checks' outcomes (read, never changed); the outcomes decided here
    (``incomplete``, ``contradicted``) are returned with the groups and conflicts. ``floor`` is the
    relevance floor, for rivals the earlier checks stopped before it (one the caller may not read);
    ``allowed``, the caller's assets: a reason names no record outside them.
    """
    eligible = {r.id for r in ranked}
    decided: dict[str, EvidenceOutcome] = {}
    for r in ranked:
        problem = _missing_dependency(r, by_id, usable, known, allowed)
        if problem is not None:
            why = f"{problem}; alone it would be misread"
            decided[r.id] = EvidenceOutcome(r.id, EvidenceStatus.INCOMPLETE, "completeness", why, rank[r.id])
    marks = _marks(by_id, usable)
    outcomes = ChainMap(decided, dict(known))
    decided.update(_block_stranded_rivals(ranked, by_id, usable, marks, rank, outcomes, floor, allowed))
    blocked = set(decided)

    conflicts: dict[frozenset[str], Conflict] = {}
    claimed: set[str] = set()
    units: list[Unit] = []
    for r in ranked:
        if r.id in claimed or r.id in blocked:
            continue
        found = _rivals(r, by_id, usable, marks, eligible - blocked, claimed, conflicts)
        partners = [p for p, _ in found]
        members: list[Record] = []
        for m in (r, *partners):
            _reading_order(m, by_id, usable, members)
        members = [m for m in members if m.id not in claimed]
        claimed.update(m.id for m in members)
        dependencies = tuple(m.id for m in members if m.id != r.id and m not in partners)
        units.append(Unit(r, tuple(members), dependencies, tuple(p.id for p in partners), tuple(x for _, x in found)))
    _company_conflicts(units, by_id, usable, marks, conflicts)
    return units, list(conflicts.values()), decided


def _company_conflicts(
    units: list[Unit],
    by_id: Mapping[str, Record],
    usable: Mapping[str, str],
    marks: Mapping[str, list[str]],
    conflicts: dict[frozenset[str], Conflict],
) -> None:
    """Add the disagreements between members that the rival search never met: a dependency below the floor
    travels along, and a post marked against it may be sent beside it. Every pair that can go in together is
    listed, so the request notes it and the budget pays for the note (members do not depend on the budget)."""
    members = [m.id for u in units for m in u.members]
    for rid in members:
        for other in _resolved(rid, marks, usable):
            pair = frozenset((rid, other))
            if other in members and pair not in conflicts:
                x, y = by_id[rid], by_id[other]  # never kept together: the selector did not pair them
                conflicts[pair] = Conflict((rid, other), (trust_of(x), trust_of(y)), False, False, company=True)


def _block_stranded_rivals(
    ranked: list[Record],
    by_id: Mapping[str, Record],
    usable: Mapping[str, str],
    marks: Mapping[str, list[str]],
    rank: Mapping[str, int],
    known: Mapping[str, EvidenceOutcome],
    floor: float,
    allowed: frozenset[str],
) -> dict[str, EvidenceOutcome]:
    """A record whose indispensable rival cannot be sent stays out too: alone it would settle the disagreement.

    Repeated until nothing changes, because leaving one out can strand a rival of its own. ``known``
    holds every outcome so far (a ranked record in it is blocked already); returns the new ``contradicted`` ones.
    """
    eligible = {r.id for r in ranked}
    contradicted: dict[str, EvidenceOutcome] = {}
    outcomes = ChainMap(contradicted, dict(known))
    changed = True
    while changed:
        changed = False
        for r in ranked:
            if r.id in outcomes:
                continue
            blocked = {i for i in eligible if i in outcomes}
            why = _stranded(r, by_id, usable, marks, eligible - blocked, outcomes, floor, allowed)
            if why is not None:
                why += "; alone it would win by default"
                contradicted[r.id] = EvidenceOutcome(r.id, EvidenceStatus.CONTRADICTED, "completeness", why, rank[r.id])
                changed = True
    return contradicted


def _stranded(
    r: Record,
    by_id: Mapping[str, Record],
    usable: Mapping[str, str],
    marks: Mapping[str, list[str]],
    open_ids: set[str],
    decided: Mapping[str, EvidenceOutcome],
    floor: float,
    allowed: frozenset[str],
) -> str | None:
    """Which rival r may not be sent without cannot be sent, and why; None if every one can (in r's group).

    Whatever the reason (not retrieved, not permitted, not in force, incomplete, itself contradicted),
    the outcome is the same; a rival below the floor is beside this question and strands nothing, whether
    or not the caller may read it (its score is known either way, so readability cannot change the outcome). A
    rival that was not retrieved has no known tier, so it counts: ingestion said the two disagree, and
    nothing here can say which should win.
    """
    sendable = [by_id[t] for t in _resolved(r.id, marks, usable) if t in open_ids]
    for named in marks.get(r.id, ()):
        target = usable.get(named)  # the record carrying the rival's content: itself, or a copy standing in
        if target == r.id or target in open_ids:
            continue
        if target is None and named not in by_id:
            document = _later_revision_of(named, by_id, decided)
            if document is not None and _answered_in_force(r, document, by_id, sendable, decided):
                continue  # judged as if it had been retrieved: a revision not in force decides nothing alone
            return f"disagrees with {named}, which was not retrieved"
        other = by_id[target or named]
        if _beside_the_question(other, by_id, decided, floor):
            continue  # retrieval found the rival irrelevant here: the fact they disagree on is not this question's
        if not travels_with(r, other) or _in_force_alongside(r, other, sendable, decided):
            continue
        return _cannot_send(other, decided[other.id].status, may_name(other.id, by_id, allowed))
    return None


def _cannot_send(other: Record, status: EvidenceStatus, named: bool) -> str:
    """Why the rival cannot come, in words the caller may see: a source they may not read stays unnamed."""
    if not named:
        return "disagrees with a source this caller may not read"  # its id and tier would say what it is
    return f"disagrees with {other.id} ({trust_of(other)}), which cannot be sent ({status})"


def _beside_the_question(
    other: Record, by_id: Mapping[str, Record], decided: Mapping[str, EvidenceOutcome], floor: float
) -> bool:
    """The rival is below the floor, or is a revision not in force whose document's revision in force is.

    A record the caller may not read was stopped before check 4, so its own score is tested here: the
    same test, so a rival beside the question strands nothing whoever asks."""

    def below(rid: str) -> bool:
        outcome = decided.get(rid)  # records still in play have no outcome yet
        if outcome is not None and outcome.status is EvidenceStatus.NOT_PERMITTED:
            return not clears_floor(by_id[rid], floor)
        return outcome is not None and outcome.status is EvidenceStatus.BELOW_FLOOR

    if below(other.id):
        return True
    if other.document is None or decided[other.id].check != "freshness":
        return False
    return any(r.document == other.document and below(r.id) for r in by_id.values())


def _later_revision_of(named: str, by_id: Mapping[str, Record], decided: Mapping[str, EvidenceOutcome]) -> str | None:
    """The document of which ``named`` (not retrieved) is a revision not in force on the day, if that can be told.

    It can when ingestion marked a retrieved chunk as replaced by ``named`` and that chunk passed the freshness
    check: its revision applies on the day, so its successor does not yet. Only a register lets such a chunk
    pass (without one, a successor that was not retrieved makes it superseded), so a bare call still plays safe.
    """
    for p in by_id.values():
        outcome = decided.get(p.id)
        passed = outcome is None or outcome.check not in ("permission", "freshness")
        if p.superseded_by == named and p.document is not None and passed and not p.carried_into:
            return p.document
    return None


def _answered_in_force(
    r: Record,
    document: str,
    by_id: Mapping[str, Record],
    sendable: list[Record],
    decided: Mapping[str, EvidenceOutcome],
) -> bool:
    """A rival revision of ``document`` that is not in force, treated as :func:`_stranded` treats a retrieved one:
    beside the question when the document's revision in force is below the floor, or answered by it when r
    disagrees with it too and it is sent with r."""
    below = any(
        x.document == document and x.id in decided and decided[x.id].status is EvidenceStatus.BELOW_FLOOR
        for x in by_id.values()
    )
    return below or any(s.document == document and travels_with(r, s) for s in sendable)


def _in_force_alongside(
    r: Record, other: Record, sendable: list[Record], decided: Mapping[str, EvidenceOutcome]
) -> bool:
    """A rival revision not in force on the day is answered by the revision of its document that is.

    Only if ingestion marked r as disagreeing with that one too, and it travels with r: the forum
    post that contradicts rev 4 and rev 5 goes in beside rev 4 while rev 5 is not yet effective.
    """
    if other.document is None or decided[other.id].check != "freshness":
        return False
    return any(s.document == other.document and travels_with(r, s) for s in sendable)


def _rivals(
    r: Record,
    by_id: Mapping[str, Record],
    usable: Mapping[str, str],
    marks: Mapping[str, list[str]],
    open_ids: set[str],
    claimed: set[str],
    conflicts: dict[frozenset[str], Conflict],
) -> list[tuple[Record, str]]:
    """The rivals r and everything that travels with it may not be sent without, closed under both relations.

    The closure matters: if c7 disagrees with c4 and with c6, or a record c4 needs disagrees with
    c2, a unit that left c6 or c2 out would settle that disagreement by the budget. Rivals that an
    earlier unit claimed are not taken again. Every conflict met is noted once. Each rival comes
    with the id of the record it disagrees with, so its reason can name the right one.
    """
    partners: list[tuple[Record, str]] = []
    queue, seen = [r], {r.id}
    while queue:
        x = queue.pop(0)
        for dep in x.depends_on:  # what travels with x may have rivals of its own
            target = by_id[usable[dep]]
            if target.id not in seen:
                seen.add(target.id)
                queue.append(target)
        if x.id not in open_ids:
            continue  # a dependency below the floor travels along, but its disagreements were never in play
        for other_id in _resolved(x.id, marks, usable):
            if other_id not in open_ids:
                continue
            other = by_id[other_id]
            pair = frozenset((x.id, other_id))
            if pair not in conflicts:
                both_ways = kept_together(x, other)
                conflicts[pair] = Conflict((x.id, other_id), (trust_of(x), trust_of(other)), both_ways, False)
            if travels_with(x, other) and other_id not in claimed and other_id not in seen:
                seen.add(other_id)
                partners.append((other, x.id))
                queue.append(other)
    return partners


def _marks(by_id: Mapping[str, Record], usable: Mapping[str, str]) -> dict[str, list[str]]:
    """Who ingestion marked as disagreeing with whom, gathered onto the record that carries each side's content.

    Conflicts are symmetric even when ingestion wrote the link on one side only; a copy that stands in
    for an original (or an original its copies give way to) takes over the original's disagreements.
    """
    marks: dict[str, list[str]] = {}

    def note(rid: str, other: str) -> None:
        named = marks.setdefault(usable.get(rid, rid), [])
        if other not in named:
            named.append(other)

    for rid, other in disagreements(by_id.values()):
        note(rid, other)
    return marks


def _resolved(rid: str, marks: Mapping[str, list[str]], usable: Mapping[str, str]) -> list[str]:
    """The live records carrying the content of the rivals marked against ``rid``, in the order marked."""
    out: list[str] = []
    for named in marks.get(rid, ()):
        target = usable.get(named)
        if target is not None and target != rid and target not in out:
            out.append(target)
    return out


def settle(
    units: list[Unit], selection: Selection, rank: Mapping[str, int]
) -> tuple[list[str], dict[str, EvidenceOutcome]]:
    """Turn the packer's verdict on each group into an outcome for every member: the ids sent, and the outcomes."""
    selected: list[str] = []
    decided: dict[str, EvidenceOutcome] = {}
    for unit, packed in zip(units, selection.outcomes, strict=True):
        lead = unit.lead
        n = rank[lead.id]
        company = _company(unit)
        if packed.status is Status.SELECTED:
            selected.extend(m.id for m in unit.members)
            why = f"rank {n} ({_score_text(lead)}){company}: {packed.reason}"
            decided[lead.id] = EvidenceOutcome(lead.id, EvidenceStatus.SELECTED, "packing", why, n)
            decided.update({m.id: _member_selected(m, unit, rank) for m in unit.members if m.id != lead.id})
            continue
        if packed.status is Status.OVER_BUDGET:
            fits_alone = packed.used_before + lead.cost <= packed.allowance
            if fits_alone and unit.dependencies:
                status, check = EvidenceStatus.INCOMPLETE, "completeness"
                why = f"fits alone ({lead.cost} tokens) but not{company}: {packed.reason}; alone it would be misread"
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
                why = f"left out together with {lead.id} (rank {n})"
                decided[m.id] = EvidenceOutcome(m.id, kind, "packing", why, rank[m.id])
    return selected, decided


def _score_text(r: Record) -> str:
    return f"score {r.score:.2f}, {trust_of(r)}"


def _company(unit: Unit) -> str:
    parts = []
    if unit.dependencies:
        parts.append(f"with {', '.join(unit.dependencies)}, which it needs")
    if unit.partners:
        parts.append(f"kept together with {', '.join(unit.partners)}, which it conflicts with")
    return (", " + "; ".join(parts)) if parts else ""


def _member_selected(m: Record, unit: Unit, rank: Mapping[str, int]) -> EvidenceOutcome:
    if m.id in unit.partners:
        rival = unit.rivals[unit.partners.index(m.id)]
        why = _partner_reason(m, rival, unit.lead.id, by_tier=not travels_with(m, _member(unit, rival)))
        return EvidenceOutcome(m.id, EvidenceStatus.SELECTED, "completeness", why, rank.get(m.id))
    return EvidenceOutcome(
        m.id,
        EvidenceStatus.SELECTED,
        "completeness",
        f"brought along: {_needed_by(m, unit)} depends on it and would be misread without it",
        rank.get(m.id),
    )


def _member(unit: Unit, rid: str) -> Record:
    return next(x for x in unit.members if x.id == rid)


def _partner_reason(m: Record, rival: str, lead: str, *, by_tier: bool) -> str:
    """Why a rival rides along: both sides of an unsettled disagreement, or a higher tier its lower rival needs."""
    if by_tier:  # m outranks rival, which may not enter without it
        return f"brought along: {rival} disagrees with it and, being a lower tier, is sent only alongside it"
    both = "both high authority" if trust_of(m) in HIGH_AUTHORITY else f"both {trust_of(m)}"
    if rival == lead:
        return f"kept together with {rival}: {both} and they disagree, so both go in"
    # reached through a chain: its disagreement is with another member, not the lead
    return f"kept together with {lead}: it disagrees with {rival}, {both}, so both go in"


def _needed_by(m: Record, unit: Unit) -> str:
    for other in unit.members:
        if m.id in other.depends_on:
            return other.id
    return unit.lead.id  # reached through a duplicate's stand-in
