"""The document register: every document's revisions and the day each takes effect.

Which revision of a manual applies on a date is a fact about the manual, kept
by document control. It is not a fact about whichever chunks retrieval
happened to return: if rev 5's section was not among the candidates, rev 5 is
still in force from its effective date, and a chunk of rev 4 is still out of
date from then on. So the selector and a conversation read revisions from the
register, injected from trusted state like the clock and the store, and a
chunk that names no document (or a document or revision the register does not
know) is refused where it comes in, naming the record and the field.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from botie._checks import as_date, non_empty_text
from botie.context.records import Record
from botie.errors import RecordError

__all__ = ["DocumentRegister", "Revision"]


class Revision(NamedTuple):
    """One revision of a document and the day it takes effect."""

    version: str
    effective_date: _dt.date


def _revisions(document: Any, entries: Any) -> tuple[Revision, ...]:
    """A document's revisions, oldest first; a repeated label or a shared date leaves no order to read."""
    non_empty_text(document, field="document", error=RecordError, where="register")
    out: list[Revision] = []
    for entry in entries if isinstance(entries, (list, tuple)) else ():
        version = entry.get("version") if isinstance(entry, Mapping) else getattr(entry, "version", None)
        when = entry.get("effective_date") if isinstance(entry, Mapping) else getattr(entry, "effective_date", None)
        version = non_empty_text(
            version, field="version", error=RecordError, record=document, where=f"register, {document}"
        )
        out.append(Revision(version, as_date(when, field="effective_date", record=document)))
    if not out:
        why = f"register, {document}: a document needs at least one revision"
        raise RecordError(why, field="revisions", record=document)
    for name, values in (("version", [r.version for r in out]), ("effective_date", [r.effective_date for r in out])):
        if len(set(values)) != len(values):
            raise RecordError(f"register, {document}: two revisions share one {name}", field=name, record=document)
    return tuple(sorted(out, key=lambda r: r.effective_date))


@dataclass(frozen=True)
class DocumentRegister:
    """Document -> its revisions with their effective dates (from document control, never from the text).

    Build one with :meth:`of`, e.g. ``DocumentRegister.of({"docs://p2": [{"version": "rev 4",
    "effective_date": "2026-01-10"}, {"version": "rev 5", "effective_date": "2026-04-01"}]})``.
    """

    documents: Mapping[str, tuple[Revision, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        checked = {doc: _revisions(doc, list(revs)) for doc, revs in dict(self.documents).items()}
        object.__setattr__(self, "documents", MappingProxyType(checked))

    @classmethod
    def of(cls, entries: Mapping[str, Iterable[Any]]) -> DocumentRegister:
        """A register from ``{document: [{"version": ..., "effective_date": ...}, ...]}`` (dates as ISO text)."""
        if not isinstance(entries, Mapping):
            raise RecordError(f"register: expected a mapping of documents, got {entries!r:.80}", field="register")
        return cls({doc: tuple(revs) for doc, revs in entries.items()})

    def in_force(self, document: str, on: _dt.date) -> Revision | None:
        """The revision of ``document`` in force on ``on``: the newest whose effective date is not after it."""
        current = None
        for revision in self.documents.get(document, ()):
            if revision.effective_date <= on:
                current = revision
        return current

    def versions_on(self, on: _dt.date) -> dict[str, str]:
        """Document -> the label of its revision in force on ``on`` (documents not yet in force are left out)."""
        current = {doc: self.in_force(doc, on) for doc in self.documents}
        return {doc: rev.version for doc, rev in current.items() if rev is not None}

    def revision_of(self, record: Record) -> Revision:
        """The registered revision a chunk belongs to; bad input (named) if the register cannot place it.

        A chunk with no ``document``, a document or revision the register does not know, or an effective
        date that disagrees with the register's is refused: none of them can be checked for freshness.
        """
        if record.document is None:
            why = "has no document field, so the register cannot say which revision of what it is"
            raise RecordError(f"record {record.id}: {why}", field="document", record=record.id)
        revisions = self.documents.get(record.document)
        if revisions is None:
            why = f"names document {record.document!r}, which is not in the register"
            raise RecordError(f"record {record.id}: {why}", field="document", record=record.id)
        found = next((r for r in revisions if r.version == record.version), None)
        if found is None:
            why = f"is {record.version!r} of {record.document}, a revision the register does not list"
            raise RecordError(f"record {record.id}: {why}", field="version", record=record.id)
        if record.effective_date is not None and record.effective_date != found.effective_date:
            since = found.effective_date
            why = f"says {record.effective_date}, but the register has {found.version} in force from {since}"
            raise RecordError(f"record {record.id}: {why}", field="effective_date", record=record.id)
        return found
