"""The room: rows from what the hub said; the summary per exercise, the polls and the activity, each
checked against counts written out by hand; the reader asks the hub once per refresh."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from botie.lessons.learner import progress
from botie.lessons.room.room import (
    CORRUPT,
    NOT_STARTED,
    ROOM_SCOPES,
    STOPPED,
    UNREACHABLE,
    WORKING,
    RoomReader,
    activity,
    exercise_state,
    is_stuck,
    ordered,
    polls,
    room_text,
    row_for,
    summarize,
)

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=timezone.utc)


def _entry(status="not yet", attempts=1, hints=0, name="permitted", stubs=0, passed_at=None):
    lesson, number = progress.PLACES[name]
    if status == "passed" and passed_at is None:
        passed_at = "t1"
    return progress.Entry(name, lesson, number, status, attempts, hints, "t0", "t1", passed_at, stubs)


def _answer(entries, predictions=None, last_activity=None) -> str:
    body = {"format": 1, "exercises": {e.name: e.to_json() for e in entries}}
    if predictions is not None:
        body["predictions"] = predictions
    if last_activity is not None:
        body["last_activity"] = last_activity
    return json.dumps({"type": "file", "content": json.dumps(body), "last_modified": "m1"})


def _row(learner, entries=(), predictions=None, last_activity=None):
    return row_for(learner, running=True, status=200, body=_answer(list(entries), predictions, last_activity))


def _said(question, first_choice, lesson="01"):
    return {"lesson": lesson, "attempts": 1, "first_right": False, "right": False, "first_choice": first_choice}


# --- the words: stuck, not started, trying ---------------------------------------------------


def test_stuck_means_no_pass_and_three_failed_checks_or_the_last_hint():
    assert is_stuck(_entry(attempts=3))
    assert is_stuck(_entry(hints=3))  # every exercise has three hints: the third is the last
    assert not is_stuck(_entry(attempts=2, hints=2))
    assert not is_stuck(_entry("passed", attempts=9, hints=3))
    assert not is_stuck(_entry(attempts=3, stubs=1))  # one of the three ran the stub: two failures


def test_a_pass_stays_a_pass_when_a_later_check_fails():
    assert exercise_state(_entry("not yet", attempts=5, passed_at="t1")) == "passed"


def test_an_exercise_checked_only_on_its_stub_is_not_started():
    assert exercise_state(None) == "not started"
    assert exercise_state(_entry(attempts=2, hints=1, stubs=2)) == "not started"
    assert exercise_state(_entry(attempts=2, hints=1, stubs=1)) == "trying"
    assert exercise_state(_entry(attempts=1, hints=3, stubs=1)) == "stuck"  # asked for the last hint


# --- rows from what the hub said -------------------------------------------------------------


def test_a_learner_row_carries_their_entries_predictions_and_last_activity():
    row = _row(
        "ana",
        [_entry("passed"), _entry(attempts=4, name="route")],
        {"prefix-6-5-in-8": _said("prefix-6-5-in-8", 1)},
        "2026-12-01T14:58:00+00:00",
    )
    assert row.state == WORKING and row.passed == 1 and row.stuck == ("route",)
    assert row.predictions["prefix-6-5-in-8"].first_choice == 1
    assert row.last_activity == "2026-12-01T14:58:00+00:00"


def test_a_file_from_before_activity_was_kept_falls_back_on_its_latest_check():
    old = progress.Entry("route", "03", 1, "not yet", 1, 0, "x", "2026-12-01T14:10:00+00:00", None)
    older = progress.Entry("permitted", "01", 1, "passed", 1, 0, "x", "2026-12-01T13:00:00+00:00", "x")
    assert _row("ana", [older, old]).last_activity == "2026-12-01T14:10:00+00:00"


def test_a_file_with_only_predictions_counts_as_read():
    assert _row("ana", [], {"prefix-6-5-in-8": _said("prefix-6-5-in-8", 0)}).state == WORKING


def test_stopped_missing_unreachable_and_corrupt_are_states_not_errors():
    assert row_for("bo", running=False, status=None).state == STOPPED
    assert row_for("bo", running=True, status=404).state == NOT_STARTED
    assert row_for("bo", running=True, status=403).detail == "HTTP 403"
    assert row_for("bo", running=True, status=None).state == UNREACHABLE
    assert row_for("bo", running=True, status=200, body="<html>").state == UNREACHABLE
    corrupt = row_for("bo", running=True, status=200, body=json.dumps({"content": "{half"}))
    assert corrupt.state == CORRUPT and corrupt.entries == {} and corrupt.detail


# --- activity --------------------------------------------------------------------------------


def test_activity_is_working_under_ten_minutes_and_stopped_from_ten():
    def at(minutes):
        return activity(_row("a", [_entry()], last_activity=(NOW - timedelta(minutes=minutes)).isoformat()), NOW)

    assert (at(0.5).kind, at(0.5).text) == ("working", "working: under a minute ago")
    assert (at(9.9).kind, at(9.9).text) == ("working", "working: 9 min ago")
    assert (at(10).kind, at(10).text) == ("stopped", "stopped: quiet for 10 min")
    assert at(75).text == "stopped: quiet for 1 h 15 min"
    assert activity(row_for("b", running=False, status=None), NOW).kind == "none"


# --- the summary -----------------------------------------------------------------------------


def _class():
    """Six learners on lesson 01, written so each count below can be checked by eye."""
    return [
        _row("ana", [_entry("passed"), _entry("passed", name="choose_evidence")]),
        _row("bo", [_entry(attempts=3, hints=2)]),  # stuck on permitted: three failures
        _row("cy", [_entry(attempts=1, hints=1, stubs=1)]),  # left the stub: not started
        _row("di", [_entry(attempts=2, hints=1), _entry(attempts=1, hints=3, name="choose_evidence")]),
        row_for("ed", running=True, status=404),  # no file yet: not started everywhere
        row_for("fay", running=False, status=None),  # not counted: nothing could be read
    ]


def test_the_summary_counts_each_state_per_exercise_over_the_learners_read():
    by_name = {s.name: s for s in summarize(_class(), lesson="01")}
    assert list(by_name) == ["permitted", "choose_evidence"]
    permitted, choose = by_name["permitted"], by_name["choose_evidence"]
    assert (permitted.passed, permitted.trying, permitted.stuck, permitted.not_started) == (1, 1, 1, 2)
    assert permitted.stuck_learners == ("bo",)
    assert (choose.passed, choose.trying, choose.stuck, choose.not_started) == (1, 0, 1, 3)
    assert choose.stuck_learners == ("di",)
    assert permitted.total == choose.total == 5  # fay's server is stopped: not in any count


def test_the_summary_covers_every_exercise_in_lesson_order_without_a_lesson():
    names = [(s.lesson, s.number) for s in summarize(_class())]
    assert names == sorted(progress.PLACES.values()) and len(names) == len(progress.PLACES)


def test_stuck_learners_come_first_then_by_name():
    assert [r.learner for r in ordered(_class())] == ["bo", "di", "ana", "cy", "ed", "fay"]


# --- the polls -------------------------------------------------------------------------------


def test_a_poll_counts_first_choices_per_option_and_keeps_older_answers_apart():
    rows = [
        _row("a", [], {"prefix-6-5-in-8": _said("prefix-6-5-in-8", 0)}),
        _row("b", [], {"prefix-6-5-in-8": _said("prefix-6-5-in-8", 0), "restricted-where": _said("r", 1)}),
        _row("c", [], {"prefix-6-5-in-8": _said("prefix-6-5-in-8", 1)}),
        _row("d", [], {"prefix-6-5-in-8": {"lesson": "01", "attempts": 2, "first_right": True, "right": True}}),
        _row("e", []),
    ]
    found = {p.question.id: p for p in polls(rows)}
    assert list(found) == ["prefix-6-5-in-8", "restricted-where"]  # the questions' own order; unanswered left out
    prefix = found["prefix-6-5-in-8"]
    assert (prefix.counts, prefix.unrecorded, prefix.answered) == ((2, 1, 0, 0), 1, 4)
    assert found["restricted-where"].counts == (0, 1, 0)
    assert polls(rows, lesson="00") == ()


# --- text ------------------------------------------------------------------------------------


def test_the_text_summarises_then_marks_the_stuck_learners():
    text = room_text(_class(), NOW)
    assert "01.1 permitted: 1 passed, 1 trying, 1 stuck, 2 not started; stuck: bo" in text
    assert text.splitlines()[-1] == "6 learners; stuck: bo, di"
    assert "3x!" in text and " stub " in text and STOPPED in text


# --- the reader ------------------------------------------------------------------------------


class FakeHub:
    """The hub's user list and each learner's file, as the contents API answers; it counts what it was asked."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self.stamps = dict.fromkeys(files, "m1")
        self.asked: list[str] = []

    def get(self, url: str) -> tuple[int, str]:
        self.asked.append(url)
        if url.endswith("/users"):
            users = [{"name": n, "servers": {"": {"ready": True}}} for n in self.files]
            return 200, json.dumps([*users, {"name": "zed", "servers": {}}])
        learner = url.split("/user/")[1].split("/")[0]
        model = {"type": "file", "last_modified": self.stamps[learner]}
        if "content=1" in url:
            model["content"] = self.files[learner]
        return 200, json.dumps(model)


def _reader(hub, clock):
    return RoomReader("http://hub/api", "http://hub", "t", max_age=5, clock=lambda: clock[0], get=hub.get, workers=2)


def _content_reads(hub) -> list[str]:
    return sorted(u.split("/user/")[1].split("/")[0] for u in hub.asked if "content=1" in u)


def test_the_reader_asks_the_hub_once_per_refresh_however_many_pages_ask():
    file = json.loads(_answer([_entry("passed")]))["content"]
    hub, clock = FakeHub({"ana": file, "bo": file}), [100.0]
    reader = _reader(hub, clock)
    first = reader.rows()
    clock[0] = 104.9
    assert reader.rows() is first and reader.rows() is first
    assert len(hub.asked) == 1 + 2 * 2  # the user list, then a look and a read per running learner
    assert [r.state for r in first] == [WORKING, WORKING, STOPPED]  # zed's server is not running


def test_the_reader_reads_again_only_the_files_that_changed():
    file = json.loads(_answer([_entry("passed")]))["content"]
    hub, clock = FakeHub({"ana": file, "bo": file}), [100.0]
    reader = _reader(hub, clock)
    reader.rows()
    hub.asked.clear()
    clock[0] = 105.0
    reader.rows()
    assert len(hub.asked) == 1 + 2 and _content_reads(hub) == []  # nothing changed: the list and two looks
    hub.asked.clear()
    hub.files["bo"] = json.loads(_answer([_entry(attempts=3)]))["content"]
    hub.stamps["bo"] = "m2"
    clock[0] = 110.0
    rows = {r.learner: r for r in reader.rows()}
    assert _content_reads(hub) == ["bo"]  # ana's file did not change: only looked at
    assert rows["bo"].stuck == ("permitted",) and rows["ana"].passed == 1


def test_the_rooms_scopes_read_files_only():
    assert "custom:jupyter_server:read:contents" in ROOM_SCOPES
    assert not any(
        s.startswith(("admin", "tokens", "custom:jupyter_server:execute", "custom:jupyter_server:write"))
        for s in ROOM_SCOPES
    )
