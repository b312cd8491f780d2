"""Across turns: one version of each document per conversation, and a running view of the ceiling.

Two things go wrong only after the first turn.

*A document changes mid-conversation.* If turn four quietly re-reads a policy
edited after turn three, the conversation now holds two readings of the same
clause with nothing between them to say so. A conversation therefore pins the
version hash of each document the first time it uses it; when a later turn
offers a different version, the turn stops with a visible notice instead of
assembling a request.

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


def _notice(changes: tuple[VersionChange, ...]) -> str:
    names = ", ".join(c.document_id for c in changes)
    which = "A document" if len(changes) == 1 else "Some documents"
    return (
        f"{which} changed after this conversation first read it ({names}). "
        "Answers here stay with the version already read; open a fresh conversation "
        "to work from the current one."
    )


class Conversation:
    """A conversation that pins document versions and reports every request's share of the ceiling.

    ``ask`` decides a turn; after the model answers, ``add_turn`` records the
    exchange so the next request carries it (and pays for it).
    """

    def __init__(
        self,
        *,
        ceiling: int,
        answer_allowance: int = 0,
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
        self._history: list[tuple[str, str]] = []

    @property
    def pins(self) -> Mapping[str, str]:
        """Document id -> the version hash this conversation is using (read-only)."""
        return MappingProxyType(self._pins)

    @property
    def history(self) -> tuple[tuple[str, str], ...]:
        return tuple(self._history)

    def compare(self, records: Iterable[Record]) -> tuple[tuple[VersionChange, ...], dict[str, str]]:
        """Compare each record with its pin, changing nothing.

        Returns the changed documents and the ones not seen before (id ->
        version hash), which :meth:`ask` pins once their turn goes ahead.
        """
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
        return tuple(changes), unseen

    def ask(self, question: str, records: Iterable[Record], *, conflicts: Iterable[Any] = ()) -> Turn:
        """Decide one turn: check versions, then assemble and count the request.

        ``conflicts`` are the disagreements flagged among ``records``: each is a note in the request, as
        :func:`~botie.context.evidence.build_request` writes it (a conversation drops none).

        Checks, in order: ``versions`` (any change stops the turn with a notice, and the old pin
        stays), then ``assemble`` (which raises :class:`~botie.errors.RequestTooLargeError` rather
        than cut anything).
        Documents seen for the first time are pinned only when the request
        was assembled.
        """
        records = tuple(records)
        changes, unseen = self.compare(records)
        if changes:
            return Turn(TurnBranch.VERSION_CHANGED, ("versions",), None, _notice(changes), changes, ())
        request = build_request(
            question,
            records,
            ceiling=self.ceiling,
            answer_allowance=self.answer_allowance,
            instructions=self.instructions,
            history=self._history,
            encoding=self.encoding,
            alert_fraction=self.alert_fraction,
            conflicts=conflicts,
        )
        self._pins.update(unseen)
        return Turn(TurnBranch.ASSEMBLED, ("versions", "assemble"), request, None, (), tuple(unseen))

    def add_turn(self, question: str, answer: str) -> None:
        """Record a finished exchange; later requests include it."""
        if not isinstance(question, str) or not isinstance(answer, str):
            raise RecordError("a turn is a question and an answer, both str", field="turn")
        self._history.append((question, answer))
