"""The workshop's asset register and maintenance calendar: loaded from the fixtures, refusing a bad entry by name."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from botie.actions.rules import AssetRegister, MaintenanceCalendar
from botie.errors import FixtureError
from botie.lessons.content.business import load_booking_rules

UTC = dt.timezone.utc


def test_the_fixture_register_and_calendar_answer_as_the_protocols_ask():
    rules = load_booking_rules()
    assert isinstance(rules.register, AssetRegister) and isinstance(rules.calendar, MaintenanceCalendar)
    assert "P-2" in rules.register and "P-999" not in rules.register
    nine = dt.datetime(2026, 4, 2, 9, 0, tzinfo=UTC)
    assert rules.calendar.unavailable("P-2", nine, 20) is None
    too_long = rules.calendar.unavailable("P-2", nine, 61)
    assert too_long is not None and too_long.startswith("2026-04-02 09:00-10:01 UTC overlaps")
    assert (
        rules.calendar.unavailable("P-999", nine, 20)
        == "no maintenance window of P-999 covers 2026-04-02 09:00-09:20 UTC"
    )


def test_a_calendar_reason_never_says_whose_visit_fills_the_window():
    rules = load_booking_rules()
    why = rules.calendar.unavailable("P-2", dt.datetime(2026, 4, 2, 10, 0, tzinfo=UTC), 20)
    assert why is not None
    assert "tech-" not in why and "job" not in why and "r7" not in why


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"register": "P-2"}, "register"),
        ({"register": ["P-2", ""]}, "register"),
        ({"register": ["P-2"], "windows": {"P-2": [["2026-04-02T12:00Z", "2026-04-02T09:00Z"]]}}, "windows.P-2"),
        ({"register": ["P-2"], "windows": {"P-2": [["2026-04-02 09:00", "2026-04-02T12:00Z"]]}}, "windows.P-2"),
        ({"register": ["P-2"], "booked": ["P-2"]}, "booked"),
    ],
)
def test_a_bad_entry_is_a_fixture_error_naming_its_field(tmp_path, data, field):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FixtureError) as caught:
        load_booking_rules(path)
    assert caught.value.field == field
