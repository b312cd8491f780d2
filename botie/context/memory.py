"""What a conversation carries into its next turn: a memory policy written down, not an accident.

Loading every past message is also a memory policy, just one nobody chose. It
spends the room evidence needs, and it carries forward whatever was said,
including a model's guess and a summary written before a correction. This
module decides, entry by entry, what goes forward, in a fixed order:

0. **visibility**: a value remembered for one person (``owner``) is seen by
   that person alone, and a value about an asset (``asset``) only by a reader
   allowed that asset, the same rule as for documents. A hidden entry shows
   no value in the result and cannot replace a visible one. With no reader
   named, nobody sees them.
1. **provisional**: something the model said is not a fact. It is dropped
   unless a document or a person confirmed it (then it is a new entry with
   that origin).
2. **expired**: every entry may carry an expiry; past it, the value is gone.
   The focus of today's question should not steer next week's.
3. **replaced**: a later entry for the same key replaces an earlier one. A
   correction wins, and the stale value does not linger beside it, nor
   come back when the correction expires: then the key has no value. So
   replacement is decided on every entry, expired or not: an expired
   correction still shows that the value before it was wrong, not just old.
   Two entries for one key written at the same moment are never settled by
   their place in the list: if they disagree, that is a **conflict** and
   neither is carried; if they agree, the one that lasts longer (then by
   origin and source) is kept and the other is its duplicate.
4. **stale summary**: a summary of keys that changed after it was written
   repeats the old values. It is dropped, and the keys it summarised speak
   for themselves.

A fact taken from a document keeps its ``source_id``, so it can be checked
against the document later. Entries are plain values; the decision is a
frozen result naming each entry's status and why.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from botie._checks import allowed_set, aware_datetime, non_empty_text
from botie._enum import ShortName
from botie.errors import InputError

__all__ = ["CarriedMemory", "MemoryEntry", "MemoryOutcome", "MemoryStatus", "Origin", "carry_forward"]


class Origin(ShortName):
    """Who put a value into the conversation's memory."""

    DOCUMENT = "document"  # read in a document: keeps the document's id
    TECHNICIAN = "technician"  # said by the signed-in person
    MODEL = "model"  # said by the model: provisional until confirmed
    SUMMARY = "summary"  # a condensed view of other keys


class MemoryStatus(ShortName):
    KEPT = "kept"
    PROVISIONAL = "provisional"
    EXPIRED = "expired"
    REPLACED = "replaced"
    STALE_SUMMARY = "stale_summary"
    HIDDEN = "hidden"
    CONFLICT = "conflict"


CHECKS = ("visibility", "provisional", "expiry", "replacement", "summaries")

#: What a hidden entry shows instead of its value.
HIDDEN_VALUE = "(hidden)"


@dataclass(frozen=True)
class MemoryEntry:
    """One remembered value. ``covers`` lists the keys a summary condenses (summaries only).

    ``owner`` is the person it was remembered for (None: the whole
    conversation's); ``asset`` the asset it is about, when reading it needs
    that asset's permission.
    """

    key: str
    value: str
    origin: Origin
    written_at: _dt.datetime
    expires_at: _dt.datetime | None = None
    source_id: str | None = None
    covers: tuple[str, ...] = ()
    owner: str | None = None
    asset: str | None = None

    def __post_init__(self) -> None:
        for name in ("key", "value"):
            non_empty_text(getattr(self, name), field=name, record=str(self.key), where="memory entry")
        where = f"memory entry {self.key}"
        for name in ("owner", "asset"):
            if getattr(self, name) is not None:
                non_empty_text(getattr(self, name), field=name, record=self.key, where=where)
        object.__setattr__(self, "origin", Origin(self.origin))
        aware_datetime(self.written_at, field="written_at", record=self.key, where=where)
        if self.expires_at is not None:
            aware_datetime(self.expires_at, field="expires_at", record=self.key, where=where)
        if self.origin is Origin.DOCUMENT and not self.source_id:
            # A fact that needs checking keeps the link to where it came from.
            raise InputError(
                f"memory entry {self.key}: a fact from a document needs its source_id",
                field="source_id",
                record=self.key,
            )
        object.__setattr__(self, "covers", tuple(self.covers))
        if (self.origin is Origin.SUMMARY) != bool(self.covers):
            raise InputError(
                f"memory entry {self.key}: covers is for summaries, and a summary needs it",
                field="covers",
                record=self.key,
            )


class MemoryOutcome(NamedTuple):
    key: str
    value: str
    status: MemoryStatus
    reason: str


@dataclass(frozen=True)
class CarriedMemory:
    """What goes into the next turn (``kept``), and every entry's outcome in input order."""

    kept: tuple[MemoryEntry, ...]
    outcomes: tuple[MemoryOutcome, ...]
    checks: tuple[str, ...] = CHECKS

    def explain(self) -> str:
        return "\n".join(f"{o.status!s:<14} {o.key:<14} {o.value!r}: {o.reason}" for o in self.outcomes)


def _latest(entries: Iterable[MemoryEntry]) -> dict[str, tuple[MemoryEntry, ...]]:
    """Per key, the entries written last (several when written at the same moment), expired or not.

    An expired correction still replaces what it corrected: the older value was wrong, not just old.
    """
    latest: dict[str, tuple[MemoryEntry, ...]] = {}
    for e in entries:
        last = latest.get(e.key)
        if last is None or e.written_at > last[0].written_at:
            latest[e.key] = (e,)
        elif e.written_at == last[0].written_at:
            latest[e.key] = (*last, e)
    return latest


def _lasting(e: MemoryEntry) -> tuple[object, ...]:
    # Orders agreeing entries by their fields alone, so the list order never picks the one kept;
    # the longest-lasting first, so an expired duplicate cannot hide a live one.
    return (e.expires_at is None, e.expires_at or e.written_at, str(e.origin), e.source_id or "")


def _speaks_for_key(tied: tuple[MemoryEntry, ...]) -> MemoryEntry | None:
    """The entry that speaks for its key: None when entries written at the same moment disagree."""
    if len({e.value for e in tied}) > 1:
        return None
    return max(tied, key=_lasting)


def _decide(e: MemoryEntry, latest: dict[str, tuple[MemoryEntry, ...]], now: _dt.datetime) -> tuple[MemoryStatus, str]:
    if e.origin is Origin.MODEL:
        return MemoryStatus.PROVISIONAL, "the model said it; nobody confirmed it, so it is not carried as a fact"
    if e.expires_at is not None and e.expires_at <= now:
        return MemoryStatus.EXPIRED, f"expired at {e.expires_at:%Y-%m-%d %H:%M}"
    tied = latest[e.key]
    newer = _speaks_for_key(tied)
    if newer is None:
        values = ", ".join(sorted({repr(t.value) for t in tied}))
        if any(t is e for t in tied):
            why = f"values written at the same moment disagree ({values}): a conflict, so none is carried"
            return MemoryStatus.CONFLICT, why
        return MemoryStatus.REPLACED, f"replaced by values written later at one moment, which conflict ({values})"
    if newer is not e:
        if newer.written_at == e.written_at:
            return MemoryStatus.REPLACED, f"a duplicate: the same value written at the same moment ({newer.origin})"
        gone = newer.expires_at is not None and newer.expires_at <= now
        since = ", which has since expired" if gone else ""
        return MemoryStatus.REPLACED, f"replaced by {newer.value!r} ({newer.origin}) written later{since}"
    changed = [k for k in e.covers if k in latest and latest[k][0].written_at > e.written_at]
    if changed:
        return MemoryStatus.STALE_SUMMARY, f"written before {', '.join(changed)} changed: it repeats the old value"
    where = f" (from {e.source_id})" if e.source_id else ""
    return MemoryStatus.KEPT, f"{e.origin}{where}"


def _hidden(e: MemoryEntry, reader: str | None, allowed: frozenset[str]) -> str | None:
    """Why ``reader`` may not see the entry, or None when they may."""
    if e.owner is not None and e.owner != reader:
        return "remembered for another person"
    if e.asset is not None and e.asset not in allowed:
        return f"about {e.asset}, which this reader may not read"
    return None


def carry_forward(
    entries: Iterable[MemoryEntry],
    *,
    now: _dt.datetime,
    reader: str | None = None,
    allowed_assets: Iterable[str] = (),
) -> CarriedMemory:
    """Decide what the next turn remembers for ``reader`` (see the module notes for the order of the checks)."""
    aware_datetime(now, field="now")
    allowed = allowed_set(allowed_assets)
    entries = tuple(entries)
    for e in entries:
        if not isinstance(e, MemoryEntry):
            raise InputError(f"memory holds MemoryEntry values, got {e!r:.80}", field="entry")
    hidden = {id(e): why for e in entries if (why := _hidden(e, reader, allowed)) is not None}
    # What may replace a value: a visible entry that is not a model's guess; expiry does not matter here.
    latest = _latest(e for e in entries if id(e) not in hidden and e.origin is not Origin.MODEL)
    outcomes = [
        MemoryOutcome(e.key, HIDDEN_VALUE, MemoryStatus.HIDDEN, hidden[id(e)])
        if id(e) in hidden
        else MemoryOutcome(e.key, e.value, *_decide(e, latest, now))
        for e in entries
    ]
    kept = tuple(e for e, o in zip(entries, outcomes) if o.status is MemoryStatus.KEPT)
    return CarriedMemory(kept, tuple(outcomes))
