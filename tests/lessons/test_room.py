"""The room: rows from what the hub said, stuck learners marked, stopped or corrupt shown as such."""

from __future__ import annotations

import json

from botie.lessons.classroom import progress
from botie.lessons.classroom.room import (
    CORRUPT,
    NOT_STARTED,
    ROOM_SCOPES,
    STOPPED,
    UNREACHABLE,
    WORKING,
    is_stuck,
    room_html,
    room_text,
    row_for,
)


def _entry(status="not yet", attempts=1, hints=0, name="permitted"):
    lesson, number = progress.PLACES[name]
    return progress.Entry(name, lesson, number, status, attempts, hints, "t0", "t1", None)


def _answer(entries) -> str:
    text = json.dumps({"format": 1, "exercises": {e.name: e.to_json() for e in entries}})
    return json.dumps({"type": "file", "content": text})


def test_stuck_means_no_pass_and_many_tries_or_hints():
    assert is_stuck(_entry(attempts=3))
    assert is_stuck(_entry(hints=2))
    assert not is_stuck(_entry(attempts=2, hints=1))
    assert not is_stuck(_entry("passed", attempts=9, hints=3))


def test_a_working_learner_row_carries_their_entries():
    row = row_for("ana", running=True, status=200, body=_answer([_entry("passed"), _entry(attempts=4, name="route")]))
    assert row.state == WORKING and row.passed == 1 and row.stuck == ("route",)


def test_stopped_missing_unreachable_and_corrupt_are_states_not_errors():
    assert row_for("bo", running=False, status=None).state == STOPPED
    assert row_for("bo", running=True, status=404).state == NOT_STARTED
    assert row_for("bo", running=True, status=403).detail == "HTTP 403"
    assert row_for("bo", running=True, status=None).state == UNREACHABLE
    assert row_for("bo", running=True, status=200, body="<html>").state == UNREACHABLE
    corrupt = row_for("bo", running=True, status=200, body=json.dumps({"content": "{half"}))
    assert corrupt.state == CORRUPT and corrupt.entries == {} and corrupt.detail


def test_the_text_and_the_page_mark_the_stuck_learner_only():
    rows = [
        row_for("ana", running=True, status=200, body=_answer([_entry("passed")])),
        row_for("bo", running=True, status=200, body=_answer([_entry(attempts=3)])),
        row_for("cy", running=False, status=None),
    ]
    text = room_text(rows)
    assert "stuck: bo" in text.splitlines()[-1]
    assert "3x!" in text and "ok" in text and STOPPED in text
    page = room_html(rows, refresh=4)
    assert 'content="4"' in page
    assert page.count("<tr class='stuck'>") == 1 and "<tr class='stuck'><th>bo</th>" in page


def test_learner_names_are_escaped_in_the_page():
    page = room_html([row_for("<script>", running=False, status=None)])
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_the_rooms_scopes_read_files_only():
    assert "custom:jupyter_server:read:contents" in ROOM_SCOPES
    assert not any(
        s.startswith(("admin", "tokens", "custom:jupyter_server:execute", "custom:jupyter_server:write"))
        for s in ROOM_SCOPES
    )
