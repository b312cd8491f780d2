"""The simulated class answers both concept checks, so the room's gain figure shows a real spread."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from botie.lessons.exercises.concepts import CONCEPTS
from botie.lessons.room.room import concept_gains, row_for
from tools import room_class
from tools.room_class import CONCEPT_ODDS, progress_files

NOW = datetime(2026, 12, 2, 15, 0, tzinfo=timezone.utc)


def _rows(files):
    return [
        row_for(name, running=True, status=200, body=json.dumps({"content": text}))
        if text is not None
        else row_for(name, running=False, status=None)
        for name, text in files.items()
    ]


def test_every_concept_has_its_odds():
    assert set(CONCEPT_ODDS) == set(CONCEPTS)


def test_at_the_end_of_the_day_every_readable_learner_took_both_checks_and_the_gains_spread():
    gains = concept_gains(_rows(progress_files(20, NOW, end_of_day=True)))
    assert all(g.both == 18 for g in gains)  # 20 learners, one server stopped and one file unreadable
    assert any(not g.moved for g in gains) and any(g.moved for g in gains)
    assert len({g.gain for g in gains}) >= 5


def test_during_the_day_only_part_of_the_room_took_the_second_check():
    gains = concept_gains(_rows(progress_files(20, NOW)))
    assert all(g.before_answered == 18 for g in gains) and 0 < gains[0].after_answered < 18


def test_the_concept_answers_leave_the_exercises_and_predictions_as_they_were(monkeypatch):
    """Drawn from a generator of their own: without them, every other field of every file is the same."""

    def others(files):
        return {
            n: t if t is None else {k: v for k, v in json.loads(t).items() if k != "concepts"} for n, t in files.items()
        }

    def readable(files):
        return {n: t for n, t in files.items() if t is None or t.startswith("{\n")}

    with_them = others(readable(progress_files(12, NOW, end_of_day=True)))
    monkeypatch.setattr(room_class, "_concept_check", lambda *args: {})
    assert with_them == others(readable(progress_files(12, NOW)))
