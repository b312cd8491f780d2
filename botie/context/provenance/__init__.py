"""Which candidates are usable evidence: permitted, current, distinct, relevant and complete.

Four modules, one concept each: :mod:`.trust` (source tiers and the
authority order), :mod:`.rules` (the evidence predicates, each written once:
what a copy stands for, the floor, the revision in force, rivals, what a reason
may name), :mod:`.select` (the ordered checks, :func:`select_evidence`), and
:mod:`.completeness` (records that must travel together). Their results are
the values in :mod:`.outcomes`.
"""

from botie.context.provenance.outcomes import (
    CHECKS,
    DEFAULT_FLOOR,
    Conflict,
    EvidenceBranch,
    EvidenceOutcome,
    EvidenceSelection,
    EvidenceStatus,
)
from botie.context.provenance.select import freshness_of, select_evidence
from botie.context.provenance.trust import (
    AUTHORITY,
    HIGH_AUTHORITY,
    TRUST_LABELS,
    Trust,
    authority,
    kept_together,
    trust_of,
)
from botie.context.records import version_hash

__all__ = [
    "kept_together",
    "AUTHORITY",
    "CHECKS",
    "DEFAULT_FLOOR",
    "HIGH_AUTHORITY",
    "TRUST_LABELS",
    "Conflict",
    "EvidenceBranch",
    "EvidenceOutcome",
    "EvidenceSelection",
    "EvidenceStatus",
    "Trust",
    "authority",
    "freshness_of",
    "select_evidence",
    "trust_of",
    "version_hash",
]
