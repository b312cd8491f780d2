"""Chunks and summaries: smaller or shorter evidence that still leads back to the document it came from.

Prefix packing keeps whole records, and a large first record can leave room
unused. Two other packing policies spend the room differently, and each has
its price:

* **smaller chunks**: split a record at sentence ends into parts of at most
  ``max_tokens``. More of the budget is used, but a part can lose the
  sentence that qualified it ("Exceptions are listed in 3.2.1"). Each part
  keeps the record's asset, version, source and dates, its id is
  ``<document id>#part<n>`` and its location says "part n of N", so
  :func:`document_of` leads any chunk back to its document.
* **a summary** (compression): shorter text standing in for one or more
  records. It is not evidence in itself: it is labelled ``version="summary"``,
  names what it condenses in ``depends_on`` and ``location``, and a citation
  of it proves only that the summary says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from botie._checks import whole_number
from botie.context.records import Record
from botie.context.tokens import count_tokens
from botie.errors import RecordError

__all__ = ["PART", "document_of", "split_record", "summary_of"]

PART = "#part"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_PART_ID = re.compile(rf"{re.escape(PART)}\d+$")


def document_of(record_id: str) -> str:
    """The document a chunk id belongs to (an id that is not a chunk's is its own document)."""
    return _PART_ID.sub("", record_id)


def _pieces(sentences: Sequence[str], max_tokens: int, encoding: str) -> list[str]:
    """Whole sentences grouped greedily into pieces of at most ``max_tokens`` (a longer sentence stands alone)."""
    pieces: list[str] = []
    current = ""
    for sentence in sentences:
        joined = f"{current} {sentence}" if current else sentence
        if current and count_tokens(joined, encoding) > max_tokens:
            pieces.append(current)
            joined = sentence
        current = joined
    if current:
        pieces.append(current)
    return pieces


def split_record(record: Record, max_tokens: int, *, encoding: str = "cl100k_base") -> tuple[Record, ...]:
    """Split ``record`` at sentence ends into chunks of at most ``max_tokens`` tokens each.

    A sentence is never cut; one longer than ``max_tokens`` becomes a chunk of
    its own, and its ``cost`` (counted, like every chunk's) says so. A record
    that fits in one chunk comes back as one chunk with a part id.
    """
    if not isinstance(record, Record):
        raise RecordError(f"split_record takes a Record, got {record!r:.80}", field="record")
    whole_number(
        max_tokens,
        field="max_tokens",
        least=1,
        what="a whole number of tokens",
        error=RecordError,
        record=record.id,
        where="",
    )
    pieces = _pieces(_SENTENCE_END.split(record.text.strip()), max_tokens, encoding)
    where = record.location or record.id
    return tuple(
        replace(
            record,
            id=f"{record.id}{PART}{n}",
            text=text,
            cost=count_tokens(text, encoding),
            location=f"{where}, part {n} of {len(pieces)}",
        )
        for n, text in enumerate(pieces, start=1)
    )


def summary_of(records: Iterable[Record], text: str, *, summary_id: str, encoding: str = "cl100k_base") -> Record:
    """A summary standing in for ``records``, labelled as one and linked to every record it condenses."""
    sources = tuple(records)
    if not sources:
        raise RecordError("a summary condenses at least one record", field="records", record=summary_id)
    assets = {r.asset for r in sources}
    if len(assets) != 1:
        # One summary across assets would blur exactly the identity selection protects.
        raise RecordError(f"a summary covers one asset, got {sorted(assets)}", field="asset", record=summary_id)
    ids = tuple(r.id for r in sources)
    return Record(
        summary_id,
        assets.pop(),
        text,
        count_tokens(text, encoding),
        version="summary",
        location="summary of " + ", ".join(ids),
        depends_on=ids,
    )
