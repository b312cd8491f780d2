"""Source tiers and the authority order: assigned at ingestion, never read from the text."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from botie._enum import ShortName
from botie.context.records import Record
from botie.errors import RecordError

__all__ = [
    "AUTHORITY",
    "HIGH_AUTHORITY",
    "TRUST_LABELS",
    "Trust",
    "authority",
    "both_high",
    "kept_together",
    "trust_of",
]


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

#: Labels other systems' ingestion writes, and the tier each one means: the one table of them. A label found
#: neither here nor among the tiers' own names is refused, never guessed at. "approved-policy" is the
#: syllabus's own example record (seed 002): policy released through document control.
TRUST_LABELS: Mapping[str, Trust] = MappingProxyType({"approved-policy": Trust.APPROVED})

#: Tiers whose disagreements are never settled by the selector: both sides go in together, flagged.
HIGH_AUTHORITY = frozenset({Trust.APPROVED, Trust.REVIEWED})


def trust_of(record: Record) -> Trust:
    """The record's assigned tier. No tier is :attr:`Trust.UNVERIFIED`: missing metadata earns nothing.

    A label in :data:`TRUST_LABELS` means the tier it maps to; any other label that is not a tier's
    name is bad input, naming the record.

    The text is never consulted, so a body announcing that it is the official
    policy keeps whatever tier ingestion gave it.
    """
    if record.trust is None:
        return Trust.UNVERIFIED
    if record.trust in TRUST_LABELS:
        return TRUST_LABELS[record.trust]
    try:
        return Trust(record.trust)
    except ValueError:
        known = ", ".join(t.value for t in Trust)
        mapped = ", ".join(f"{label} (= {tier})" for label, tier in TRUST_LABELS.items())
        raise RecordError(
            f"record {record.id}: trust must be one of {known}, or a mapped label: {mapped}; got {record.trust!r}",
            field="trust",
            record=record.id,
        ) from None


def authority(record: Record) -> int:
    """The record's place in the authority order (see :data:`AUTHORITY`)."""
    return AUTHORITY[trust_of(record)]


def both_high(a: Record, b: Record) -> bool:
    """Are both sources of high authority (:data:`HIGH_AUTHORITY`)? Then the selector never settles their
    disagreement (seed 002)."""
    return trust_of(a) in HIGH_AUTHORITY and trust_of(b) in HIGH_AUTHORITY


def kept_together(a: Record, b: Record) -> bool:
    """Do two disagreeing sources go in both or neither? Yes when both are of high authority, or of one tier;
    otherwise the lower goes only alongside the higher (seed 002's rule, with the workshop's same-tier case)."""
    return both_high(a, b) or authority(a) == authority(b)
