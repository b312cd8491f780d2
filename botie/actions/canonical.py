"""What "the same payload" means: one canonical JSON text per payload, and its fingerprint.

Approval and idempotency both ask whether two payloads are the same intended
action. Python's ``==`` is the wrong test for that: ``20 == 20.0 == True`` is
nearly true (``True == 1``), and dict order is irrelevant to equality but not
to a naive ``json.dumps``. The canonical form fixes each choice once: keys
sorted, no insignificant whitespace, non-ASCII kept as itself, NaN and
infinity refused. ``20`` and ``20.0`` and ``true`` then stay three different
texts, so an approval for one never authorises another.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["canonical_json", "fingerprint"]


def canonical_json(payload: Any) -> str:
    """The canonical JSON text of ``payload``; ``TypeError``/``ValueError`` if it has none."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def fingerprint(payload: Any) -> str:
    """SHA-256 (hex) of the canonical JSON: what a store keeps to recognise a payload again."""
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()
