"""The evidence predicates, each written once: what a copy stands for, the floor, the revision in force,
rivals, and what a reason may name.

The selector (:mod:`.select`, :mod:`.completeness`), the lessons' document tool and the lesson checks
all ask these questions. Each asks them here, so a check can only tell a learner the library's rule:
a second copy of a rule drifts (it followed one ``duplicate_of`` link where the selector follows the
chain) and then teaches something the selector does not do. What each caller says about the answer
(its reasons and verdicts) stays with the caller.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from botie.context.provenance.outcomes import EvidenceStatus
from botie.context.provenance.trust import authority, both_high
from botie.context.records import Record
from botie.context.register import DocumentRegister
from botie.errors import RecordError

__all__ = [
    "InForce",
    "Standing",
    "clears_floor",
    "copy_chain",
    "disagreements",
    "may_name",
    "not_yet_effective",
    "of_revision",
    "original_of",
    "register_standing",
    "revisions_in_force",
    "superseded_in",
    "travels_with",
]

#: Without a register: document -> (the revision in force, since when), as the candidates tell it.
InForce = Mapping[str, tuple[str, _dt.date]]


# --- copies -------------------------------------------------------------------------------------------------


def copy_chain(rid: str, by_id: Mapping[str, Record]) -> tuple[str, ...]:
    """The ids ``rid`` copies, nearest first, following ``duplicate_of`` to its end.

    The walk stops at a link that was not retrieved (its id is the last one: the original, unseen) and
    before a link back into the chain (a cycle has no original beyond what it has already named).
    """
    chain: list[str] = []
    seen, current = {rid}, by_id.get(rid)
    while current is not None and current.duplicate_of is not None and current.duplicate_of not in seen:
        chain.append(current.duplicate_of)
        seen.add(current.duplicate_of)
        current = by_id.get(current.duplicate_of)
    return tuple(chain)


def original_of(rid: str, by_id: Mapping[str, Record]) -> str:
    """The original all of ``rid``'s copies repeat: the end of its chain (maybe not retrieved), else ``rid``."""
    chain = copy_chain(rid, by_id)
    return chain[-1] if chain else rid


# --- relevance ----------------------------------------------------------------------------------------------


def clears_floor(r: Record, floor: float) -> bool:
    """Is r about the question? Its score is at or above the floor (no score clears none). The one test,
    for check 4, for which copy stands in, and for a rival of any readability: what the caller may read
    never makes a record relevant."""
    return r.score is not None and r.score >= floor


# --- the revision in force ----------------------------------------------------------------------------------


class Standing(NamedTuple):
    """Why a chunk's revision does not apply on the day, and which revision it points to.

    ``not_yet_effective``: ``version`` is the chunk's own revision, effective from ``since``.
    ``superseded``: ``version`` is the revision in force instead, since ``since``.
    """

    status: EvidenceStatus
    version: str
    since: _dt.date


def of_revision(r: Record, version: str) -> bool:
    """Does ``r`` belong to revision ``version``: its own, or one ingestion marked it carried into unchanged?"""
    return version == r.version or version in r.carried_into


def register_standing(r: Record, register: DocumentRegister, today: _dt.date) -> Standing | None:
    """With a register, it alone decides: retrieval's choice of chunks cannot move the revision in force.

    None when ``r`` is of the revision in force on ``today``; a chunk the register cannot place is bad input
    (:meth:`~botie.context.register.DocumentRegister.revision_of` raises, naming it).
    """
    own = register.revision_of(r)
    assert r.document is not None  # revision_of refuses a chunk with no document
    if own.effective_date > today:
        return Standing(EvidenceStatus.NOT_YET_EFFECTIVE, own.version, own.effective_date)
    current = register.in_force(r.document, today)
    assert current is not None  # at least this chunk's own revision is in force by now
    if of_revision(r, current.version):
        return None
    return Standing(EvidenceStatus.SUPERSEDED, current.version, current.effective_date)


def not_yet_effective(r: Record, today: _dt.date) -> bool:
    """Without a register: the chunk's own effective date is after ``today`` (no date: nothing says so)."""
    return r.effective_date is not None and r.effective_date > today


def revisions_in_force(records: Iterable[Record], today: _dt.date) -> InForce:
    """Without a register, for each document the revision in force on ``today``: the newest effective date
    among the candidates' revisions that is not after it.

    A revision with two effective dates, or two revisions sharing one, leave no order to read: bad input,
    named, rather than a guess.
    """
    since: dict[tuple[str, str], _dt.date] = {}
    on_date: dict[tuple[str, _dt.date], str] = {}
    for r in records:
        if r.document is None:
            continue
        key, when = (r.document, str(r.version)), r.effective_date
        assert when is not None  # Record insists on a date when a document is named
        if since.setdefault(key, when) != when:
            why = f"{r.version} of {r.document} has two effective dates, {since[key]} and {when}"
            raise RecordError(f"record {r.id}: {why}", field="effective_date", record=r.id)
        if on_date.setdefault((r.document, when), key[1]) != key[1]:
            why = f"{on_date[(r.document, when)]} and {r.version} of {r.document} both take effect on {when}"
            raise RecordError(f"record {r.id}: {why}", field="effective_date", record=r.id)
    in_force: dict[str, tuple[str, _dt.date]] = {}
    for (document, version), when in sorted(since.items(), key=lambda item: item[1]):
        if when <= today:
            in_force[document] = (version, when)
    return in_force


def superseded_in(r: Record, in_force: InForce) -> Standing | None:
    """Without a register: a chunk of a revision older than the one ``in_force`` names is superseded, link or
    no link (unless carried into it), so a section retrieval happened not to return never travels beside
    the newer revision as if it were current."""
    current = in_force.get(r.document) if r.document is not None else None
    if current is None or of_revision(r, current[0]):
        return None
    return Standing(EvidenceStatus.SUPERSEDED, *current)


# --- rivals -------------------------------------------------------------------------------------------------


def disagreements(records: Iterable[Record]) -> tuple[tuple[str, str], ...]:
    """Every pair ingestion marked as disagreeing, both ways round: conflicts are symmetric even when the link
    is written on one side only. The links as written come first (in record order), then each reversed."""
    marked = [(r.id, other) for r in records for other in r.conflicts_with]
    return (*marked, *((b, a) for a, b in marked))


def travels_with(x: Record, other: Record) -> bool:
    """Must ``other`` come wherever its rival ``x`` goes? Yes for two high-authority sources (both or neither),
    or when ``other`` is at least as trusted (a lower tier is sent only alongside the higher one)."""
    return both_high(x, other) or authority(other) >= authority(x)


# --- what a reason may name ---------------------------------------------------------------------------------


def may_name(rid: str, by_id: Mapping[str, Record], allowed: frozenset[str]) -> bool:
    """May a reason this caller reads name ``rid``? Never when it is a record they may not read: its id, and
    anything said about it (its successor, revision, dates), would tell them what it is. An id nothing was
    retrieved for may be named: all that is known of it is the link that named it."""
    record = by_id.get(rid)
    return record is None or record.asset in allowed
