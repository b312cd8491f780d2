"""Memory policy: model statements are provisional, expired values go, corrections replace, stale summaries drop."""

import datetime as dt

import pytest

from botie.context.memory import MemoryEntry, MemoryStatus, Origin, carry_forward
from botie.errors import InputError

T0 = dt.datetime(2026, 3, 15, 9, tzinfo=dt.timezone.utc)


def at(hours):
    return T0 + dt.timedelta(hours=hours)


def status_of(entries, now=None):
    now = at(10) if now is None else now
    return [str(o.status) for o in carry_forward(entries, now=now).outcomes]


def test_a_model_statement_is_provisional_and_not_carried():
    e = MemoryEntry("torque", "25 N·m", Origin.MODEL, at(1))
    carried = carry_forward([e], now=at(2))
    assert carried.outcomes[0].status is MemoryStatus.PROVISIONAL and carried.kept == ()


def test_an_expired_entry_is_dropped_and_one_not_yet_expired_is_kept():
    focus = MemoryEntry("focus", "P-2 seal", Origin.TECHNICIAN, at(0), expires_at=at(8))
    assert status_of([focus], now=at(7)) == ["kept"]
    assert status_of([focus], now=at(8)) == ["expired"]


def test_a_later_correction_replaces_the_earlier_value():
    old = MemoryEntry("seal_replaced", "2026-03-01", Origin.TECHNICIAN, at(1))
    new = MemoryEntry("seal_replaced", "2026-03-14", Origin.DOCUMENT, at(2), source_id="tkt-5521")
    carried = carry_forward([old, new], now=at(3))
    assert status_of([old, new], now=at(3)) == ["replaced", "kept"]
    assert [e.value for e in carried.kept] == ["2026-03-14"]


def test_a_summary_written_before_a_key_it_covers_changed_is_stale():
    old = MemoryEntry("seal_replaced", "2026-03-01", Origin.TECHNICIAN, at(1))
    summary = MemoryEntry("summary", "seal replaced 2026-03-01", Origin.SUMMARY, at(2), covers=("seal_replaced",))
    new = MemoryEntry("seal_replaced", "2026-03-14", Origin.DOCUMENT, at(3), source_id="tkt-5521")
    assert status_of([old, summary, new]) == ["replaced", "stale_summary", "kept"]
    assert status_of([old, summary]) == ["kept", "kept"]


def test_a_fact_from_a_document_must_keep_its_source():
    with pytest.raises(InputError) as info:
        MemoryEntry("torque", "18 N·m", Origin.DOCUMENT, at(1))
    assert info.value.field == "source_id"


def test_naive_datetimes_are_refused():
    with pytest.raises(InputError):
        MemoryEntry("k", "v", Origin.TECHNICIAN, dt.datetime(2026, 3, 15))
    with pytest.raises(InputError):
        carry_forward([], now=dt.datetime(2026, 3, 15))
