"""Retrieved records and the control-plane metadata that travels with them.

Everything here except ``text`` is assigned by trusted ingestion (or review),
never read out of the text: a body that calls itself "official" keeps the trust
tier it was given.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from botie._checks import as_date, aware_datetime, digest, non_empty_text, whole_number
from botie.errors import RecordError

__all__ = ["Record", "unique_records", "version_hash"]


def _need_text(value: Any, name: str, record: str | None, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    # An id that fails is no name to give the record, so its message says "record ?".
    non_empty_text(value, field=name, error=RecordError, record=record, where=f"record {record or '?'}")


def _optional_date(value: Any, record: str) -> _dt.date | None:
    return None if value is None else as_date(value, field="effective_date", record=record)


def _as_aware_datetime(value: Any, name: str, record: str) -> _dt.datetime | None:
    return None if value is None else aware_datetime(value, field=name, error=RecordError, record=record, parse=True)


def _as_score(value: Any, record: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise RecordError(
            f"record {record}: score must be a finite number, got {value!r}", field="score", record=record
        )
    return float(value)


def _as_ids(value: Any, name: str, record: str) -> tuple[str, ...]:
    items = (value,) if isinstance(value, str) else tuple(value or ())
    for item in items:
        _need_text(item, name, record)
    return items


@dataclass(frozen=True, slots=True)
class Record:
    """One retrieved candidate: an id, the asset it is about, its text and its token cost.

    ``cost`` is a supplied whole-token count (word count is not token count).
    The keyword-only fields are provenance: ``version`` and ``location`` lead a
    citation back to one revision and place, ``source_uri`` to the controlled
    source, ``effective_date`` says from when it applies, ``retrieved_at`` when
    it was ingested, ``trust`` its assigned tier and ``score`` its relevance.
    ``superseded_by``, ``duplicate_of``, ``conflicts_with`` and ``depends_on``
    are relations assigned by controlled ingestion, never by the text.
    ``document`` names the document every revision of this chunk belongs to
    (``version`` is the revision): once a newer revision is in force, the
    selector sends no chunk of an older one, unless ingestion listed the newer
    version in ``carried_into`` (the section was adopted unchanged).
    """

    id: str
    asset: str
    text: str
    cost: int
    version: str | None = field(default=None, kw_only=True)
    location: str | None = field(default=None, kw_only=True)
    source_uri: str | None = field(default=None, kw_only=True)
    effective_date: _dt.date | None = field(default=None, kw_only=True)
    retrieved_at: _dt.datetime | None = field(default=None, kw_only=True)
    trust: str | None = field(default=None, kw_only=True)
    score: float | None = field(default=None, kw_only=True)
    superseded_by: str | None = field(default=None, kw_only=True)
    duplicate_of: str | None = field(default=None, kw_only=True)
    conflicts_with: tuple[str, ...] = field(default=(), kw_only=True)
    depends_on: tuple[str, ...] = field(default=(), kw_only=True)
    document: str | None = field(default=None, kw_only=True)
    carried_into: tuple[str, ...] = field(default=(), kw_only=True)

    def __post_init__(self) -> None:
        # An id that fails this check is no name to give the record, so the error names none.
        _need_text(self.id, "id", None)
        rid = self.id
        _need_text(self.asset, "asset", rid)
        if not isinstance(self.text, str):
            raise RecordError(f"record {rid}: text must be a string, got {self.text!r}", field="text", record=rid)
        whole_number(self.cost, field="cost", what="a whole number of tokens", error=RecordError, record=rid)
        for name in ("version", "location", "source_uri", "trust", "superseded_by", "duplicate_of", "document"):
            _need_text(getattr(self, name), name, rid, optional=True)
        # Normalise in place: the dataclass is frozen, so go through object.
        set_ = object.__setattr__
        set_(self, "effective_date", _optional_date(self.effective_date, rid))
        set_(self, "retrieved_at", _as_aware_datetime(self.retrieved_at, "retrieved_at", rid))
        set_(self, "score", _as_score(self.score, rid))
        set_(self, "conflicts_with", _as_ids(self.conflicts_with, "conflicts_with", rid))
        set_(self, "depends_on", _as_ids(self.depends_on, "depends_on", rid))
        set_(self, "carried_into", _as_ids(self.carried_into, "carried_into", rid))
        _need_revision(self)


def _need_revision(r: Record) -> None:
    """A chunk placed in a document must say which revision it is and from when, or no order can be drawn."""
    if r.document is None:
        return
    for name in ("version", "effective_date"):
        if getattr(r, name) is None:
            raise RecordError(
                f"record {r.id}: names document {r.document!r}, so it needs a {name} too",
                field=name,
                record=r.id,
            )


def version_hash(record: Record) -> str:
    """A short hash of the record's version label and text: it changes whenever either does.

    Used to pin a document for the length of a conversation and to label it in
    the evidence region when ingestion assigned no version.
    """
    # The NUL keeps "v1" + "2 bar" apart from "v12" + " bar".
    return digest(f"{record.version or ''}\x00{record.text}").hex()[:16]


def unique_records(records: Iterable[Any], *, noun: str = "candidate") -> tuple[Record, ...]:
    """The records as a tuple, each a :class:`Record` with an id of its own.

    ``noun`` names an entry in the message ("candidate 3 is not a Record",
    "document 3 ..."), so the learner reads the word their own code used.
    Entries are read in order, and the first problem met is the one named.
    """
    records = tuple(records)
    seen: set[str] = set()
    for index, r in enumerate(records):
        if not isinstance(r, Record):
            raise RecordError(f"{noun} {index} is not a Record: {r!r:.80}", field="record", record=str(index))
        if r.id in seen:
            raise RecordError(f"record {r.id}: duplicate id (ids must be unique)", field="id", record=r.id)
        seen.add(r.id)
    return records
