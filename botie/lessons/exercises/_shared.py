"""Small builders the lessons' exercises share: the evidence scenario and a record with defaults."""

from __future__ import annotations

from typing import Any

__all__ = ["record", "scenario"]


def scenario():
    """The evidence scenario of lessons 02, 03 and 06 (imported late: building cases is lazy)."""
    from botie.lessons.content.scenarios import load_evidence_scenario

    return load_evidence_scenario()


def record(rid: str, asset: str = "P-2", cost: int = 10, **meta: Any):
    """A record for a case: asset P-2 and cost 10 unless the case says otherwise."""
    from botie.context.records import Record

    return Record(rid, asset, meta.pop("text", f"text of {rid}"), cost, **meta)
