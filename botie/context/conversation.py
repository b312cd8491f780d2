"""Across turns: one version of each document per conversation, and a running view of the ceiling.

Two things go wrong only after the first turn.

*A document changes mid-conversation.* If turn four quietly re-reads a policy
edited after turn three, the conversation now holds two readings of the same
clause with nothing between them to say so. A conversation therefore pins,
the first time it uses them, the revision of each document (``Record.document``
and ``Record.version``) and the version hash of each passage's text; when a
later turn offers another revision, or the same passage with other words, or
when document control's register says a pinned document has a new revision in
force (whether or not retrieval returned it), the turn stops with a visible
notice instead of assembling a request.

*The conversation grows.* Turns accumulate against the same ceiling the
documents use. Every assembled request reports how much of the ceiling it
claims (turns and answer allowance included) and raises an alert at 70%.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

from botie._enum import ShortName
from botie.context.evidence import DEFAULT_INSTRUCTIONS, ModelRequest, build_request
from botie.context.records import Record, version_hash
from botie.context.routing import ALERT_FRACTION
from botie.errors import RecordError

__all__ = ["Conversation", "Turn", "TurnBranch", "VersionChange"]


class TurnBranch(ShortName):
    """What a turn did."""

    ASSEMBLED = "assembled"  # every document matched its pin: here is the request
    VERSION_CHANGED = "version_changed"  # a document changed since first use: notice, no request


class VersionChange(NamedTuple):
    """A document whose current version differs from the one this conversation pinned."""

    document_id: str
    pinned: str
    current: str


@dataclass(frozen=True)
class Turn:
    """One turn's decision: the ordered checks, and either a request or a notice."""

    branch: TurnBranch
    checks: tuple[str, ...]
    request: ModelRequest | None
    notice: str | None
    changes: tuple[VersionChange, ...]
    newly_pinned: tuple[str, ...]


def _notice(changes: tuple[VersionChange, ...], revised: frozenset[str]) -> str:
    names = ", ".join(
        f"{c.document_id}: {c.pinned} then, {c.current} now" if c.document_id in revised else c.document_id
        for c in changes
    )
    which = "A document" if len(changes) == 1 else "Some documents"
    return (
        f"{which} changed after this conversation first read it ({names}). "
        "Answers here stay with the version already read; open a fresh conversation "
        "to work from the current one."
    )


def _turn_revisions(records: tuple[Record, ...], in_force: Mapping[str, str]) -> list[tuple[str, str]]:
    """(document, revision) for each record that names a document, in order.

    A section adopted unchanged into a newer revision (``carried_into``) counts as that revision when it is
    the one in force, or when a passage of it travels in the same turn: it is not a second reading.
    """
    present: dict[str, set[str]] = {}
    for r in records:
        if r.document is not None and r.version is not None:
            present.setdefault(r.document, set()).add(r.version)
    out: list[tuple[str, str]] = []
    for r in records:
        if r.document is None or r.version is None:
            continue
        newer = [v for v in r.carried_into if v == in_force.get(r.document) or v in present[r.document]]
        out.append((r.document, newer[0] if newer else r.version))
    return out


class Conversation:
    """A conversation that pins document versions and reports every request's share of the ceiling.

    ``ask`` decides a turn; after the model answers, ``add_turn`` records the
    exchange so the next request carries it (and pays for it).

    ``answer_allowance`` left as None takes the allowance each :meth:`ask` is given (a turn passes its
    setup's); a number here overrides it. With neither, nothing is held back for the answer.
    """

    def __init__(
        self,
        *,
        ceiling: int,
        answer_allowance: int | None = None,
        instructions: str = DEFAULT_INSTRUCTIONS,
        encoding: str = "cl100k_base",
        alert_fraction: float = ALERT_FRACTION,
    ) -> None:
        self.ceiling = ceiling
        self.answer_allowance = answer_allowance
        self.instructions = instructions
        self.encoding = encoding
        self.alert_fraction = alert_fraction
        self._pins: dict[str, str] = {}
        self._revisions: dict[str, str] = {}
        self._history: list[tuple[str, str]] = []

    @property
    def pins(self) -> Mapping[str, str]:
        """Document id -> the version hash this conversation is using (read-only)."""
        return MappingProxyType(self._pins)

    @property
    def revisions(self) -> Mapping[str, str]:
        """Document -> the revision this conversation is using (read-only)."""
        return MappingProxyType(self._revisions)

    @property
    def history(self) -> tuple[tuple[str, str], ...]:
        return tuple(self._history)

    def compare(
        self, records: Iterable[Record], *, in_force: Mapping[str, str] | None = None
    ) -> tuple[tuple[VersionChange, ...], dict[str, str]]:
        """Compare each passage's text and each document's revision with the pins, changing nothing.

        ``in_force`` (document -> the revision in force today, from a register) also reports a pinned
        document whose revision in force moved on, even when none of its passages was offered. Returns
        the changes and the passages not seen before (id -> version hash), which :meth:`ask` pins.
        """
        records = tuple(records)
        changes: list[VersionChange] = []
        unseen: dict[str, str] = {}
        for r in records:
            if not isinstance(r, Record):
                raise RecordError(f"a conversation reads Records, got {r!r:.80}", field="record")
            current = version_hash(r)
            pinned = self._pins.get(r.id, unseen.get(r.id))
            if pinned is None:
                unseen[r.id] = current
            elif pinned != current:
                changes.append(VersionChange(r.id, pinned, current))
        return (*changes, *self._revision_changes(records, in_force or {})), unseen

    def _revision_changes(self, records: tuple[Record, ...], in_force: Mapping[str, str]) -> list[VersionChange]:
        """Documents whose offered revision, or whose revision in force, is not the one pinned (each once)."""
        seen = dict(self._revisions)
        offered = [(doc, rev) for doc, rev in _turn_revisions(records, in_force)]
        offered += [(doc, rev) for doc, rev in in_force.items() if doc in self._revisions]
        changes: dict[str, VersionChange] = {}
        for doc, rev in offered:
            pinned = seen.setdefault(doc, rev)
            if pinned != rev and doc not in changes:
                changes[doc] = VersionChange(doc, pinned, rev)
        return list(changes.values())

    def ask(
        self,
        question: str,
        records: Iterable[Record],
        *,
        in_force: Mapping[str, str] | None = None,
        answer_allowance: int | None = None,
        conflicts: Iterable[Any] = (),
    ) -> Turn:
        """Decide one turn: check versions, then assemble and count the request.

        Checks, in order: ``versions`` (any change stops the turn with a
        notice, and the old pins stay), then ``assemble`` (which raises
        :class:`~botie.errors.RequestTooLargeError` rather than cut anything).
        Passages and documents seen for the first time are pinned only when
        the request was assembled. ``in_force``: see :meth:`compare`.
        ``answer_allowance`` is used when the conversation sets none;
        ``conflicts`` are the disagreements flagged among ``records`` (a note each, as in
        :func:`~botie.context.evidence.build_request`).
        """
        records = tuple(records)
        changes, unseen = self.compare(records, in_force=in_force)
        if changes:
            revised = frozenset(c.document_id for c in changes if c.document_id in self._revisions)
            return Turn(TurnBranch.VERSION_CHANGED, ("versions",), None, _notice(changes, revised), changes, ())
        request = build_request(
            question,
            records,
            ceiling=self.ceiling,
            answer_allowance=self.allowance(answer_allowance),
            instructions=self.instructions,
            history=self._history,
            encoding=self.encoding,
            alert_fraction=self.alert_fraction,
            conflicts=conflicts,
        )
        self._pins.update(unseen)
        for doc, rev in _turn_revisions(records, in_force or {}):
            self._revisions.setdefault(doc, rev)
        return Turn(TurnBranch.ASSEMBLED, ("versions", "assemble"), request, None, (), tuple(unseen))

    def allowance(self, offered: int | None = None) -> int:
        """The answer allowance a request of this conversation sends: its own, else ``offered``, else 0."""
        if self.answer_allowance is not None:
            return self.answer_allowance
        return offered if offered is not None else 0

    def add_turn(self, question: str, answer: str) -> None:
        """Record a finished exchange; later requests include it."""
        if not isinstance(question, str) or not isinstance(answer, str):
            raise RecordError("a turn is a question and an answer, both str", field="turn")
        self._history.append((question, answer))
