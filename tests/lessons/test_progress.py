"""Progress: every check and hint is recorded atomically; a bad file never breaks a check and is kept aside."""

from __future__ import annotations

import json
import re

import nbformat
import pytest

from botie.lessons.classroom import files, progress
from botie.lessons.exercises.catalogue import EXERCISES, check, hint
from botie.lessons.tooling.editions import STUB
from tests.lessons.test_checks import permitted
from tests.test_notebooks import LEARNER


@pytest.fixture
def book(tmp_path, monkeypatch):
    """A fresh progress file path for one test, and a fresh 'said once' memory."""
    path = tmp_path / "work" / progress.FILE_NAME
    monkeypatch.setenv("BOTIE_PROGRESS_FILE", str(path))
    monkeypatch.setattr(progress, "_SAID", set())
    return path


def _entries(path):
    return json.loads(path.read_text())["exercises"]


def wrong_permitted(records, allowed_assets):
    return list(records)


def stub_permitted(records, allowed_assets):
    raise NotImplementedError("your code here")


def test_a_passing_check_is_recorded_with_its_lesson_and_number(book, capsys):
    check(permitted)
    entry = _entries(book)["permitted"]
    assert (entry["lesson"], entry["exercise"], entry["status"], entry["attempts"]) == ("01", 1, "passed", 1)
    assert entry["passed_at"] == entry["first_tried"]
    assert "all" in capsys.readouterr().out


def test_attempts_count_up_and_the_latest_result_wins(book, capsys):
    check("permitted", wrong_permitted)
    check("permitted", wrong_permitted)
    assert _entries(book)["permitted"]["status"] == "not yet"
    check(permitted)
    entry = _entries(book)["permitted"]
    assert (entry["status"], entry["attempts"]) == ("passed", 3)
    check("permitted", wrong_permitted)  # broke it again: the latest says not yet, the first pass is kept
    entry = _entries(book)["permitted"]
    assert entry["status"] == "not yet" and entry["passed_at"] is not None


def test_a_stub_counts_as_one_hint_shown_and_hints_keep_the_highest_level(book, capsys):
    check("permitted", stub_permitted)
    assert _entries(book)["permitted"]["hints"] == 1
    hint("permitted", 3)
    hint("permitted", 2)
    assert _entries(book)["permitted"]["hints"] == 3
    assert _entries(book)["permitted"]["attempts"] == 1


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        '["a", "list"]',
        '{"exercises": {"permitted": "x"}}',
        '{"exercises": {"permitted": {"attempts": "two"}}}',
    ],
)
def test_a_corrupt_file_is_kept_aside_and_the_check_still_answers(book, capsys, content):
    book.parent.mkdir(parents=True)
    book.write_text(content)
    check(permitted)
    out = capsys.readouterr().out
    assert "all" in out and "cases passed" in out  # the check answered
    assert "could not be read" in out and "fresh one starts" in out
    (aside,) = book.parent.glob("botie-progress.unreadable-*.json")
    assert aside.read_text() == content  # the learner's file is kept, byte for byte
    assert _entries(book)["permitted"]["attempts"] == 1  # a fresh record began
    check(permitted)
    assert "could not be read" not in capsys.readouterr().out  # said once


def test_an_empty_or_missing_file_is_a_quiet_fresh_start(book, capsys):
    book.parent.mkdir(parents=True)
    book.write_text("")
    check(permitted)
    assert "could not" not in capsys.readouterr().out
    assert _entries(book)["permitted"]["attempts"] == 1
    assert not list(book.parent.glob("*unreadable*"))


def test_an_unwritable_place_is_said_once_and_the_check_still_answers(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("BOTIE_PROGRESS_FILE", str(blocker / progress.FILE_NAME))
    monkeypatch.setattr(progress, "_SAID", set())
    check(permitted)
    check(permitted)
    out = capsys.readouterr().out
    assert out.count("cases passed") == 2
    assert out.count("could not be saved") == 1


def test_the_write_is_atomic_no_temporary_file_is_left(book, capsys, monkeypatch):
    check(permitted)
    assert sorted(p.name for p in book.parent.iterdir()) == [progress.FILE_NAME]

    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    before = book.read_text()
    monkeypatch.setattr(files.os, "fsync", fail)  # the disk fills while the new text is being written
    check(permitted)
    assert book.read_text() == before  # the old file survives a failed write whole
    assert sorted(p.name for p in book.parent.iterdir()) == [progress.FILE_NAME]
    assert "No space left" in capsys.readouterr().out


def test_recording_can_be_turned_off(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BOTIE_PROGRESS_FILE", "off")
    monkeypatch.chdir(tmp_path)
    check(permitted)
    assert list(tmp_path.iterdir()) == []


def test_the_default_file_is_in_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("BOTIE_PROGRESS_FILE", raising=False)
    monkeypatch.chdir(tmp_path)
    assert progress.progress_path() == tmp_path / "botie-progress.json"


def test_show_progress_lists_every_exercise_and_counts_the_passes(book, capsys):
    check(permitted)
    check("choose_evidence", wrong_permitted)
    capsys.readouterr()
    progress.show_progress()
    out = capsys.readouterr().out
    assert re.search(r"01\s+1\. permitted\s+passed\s+1\s+0", out)
    assert re.search(r"01\s+2\. choose_evidence\s+not yet\s+1\s+0", out)
    assert re.search(r"05\s+1\. first_lost_stage\s+-\s+0\s+0", out)
    assert f"1 of {len(progress.PLACES)} exercises passed." in out


def test_show_progress_says_plainly_when_the_file_is_unreadable(book, capsys):
    book.parent.mkdir(parents=True)
    book.write_text("{oops")
    progress.show_progress()
    out = capsys.readouterr().out
    assert "could not be read" in out and "0 of" in out
    assert book.read_text() == "{oops"  # only a check moves it aside, never a look


def test_every_registered_exercise_has_a_place():
    assert set(progress.PLACES) == set(EXERCISES)


def _places_from_notebooks():
    """(lesson, n) for each exercise as the learner notebooks order them: stub cell, then its check cell."""
    found = {}
    for path in LEARNER:
        lesson = path.name[:2]
        cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        number = 0
        for index, cell in enumerate(cells):
            if STUB not in cell.source or "run_capstone" in cell.source:
                continue  # the capstone (lesson 05) is run on the adversarial slice, not checked
            number += 1
            following = "\n".join(c.source for c in cells[index + 1 : index + 3])
            match = re.search(r"check\((\w+)\)", following)
            assert match, f"{path.name}: exercise {number} has no check(...) after it"
            found[match.group(1)] = (lesson, number)
    return found


def test_the_places_table_matches_the_learner_notebooks():
    assert _places_from_notebooks() == progress.PLACES


def test_an_exercise_passed_then_failed_stays_passed_with_a_star(book, capsys):
    check(permitted)
    check("permitted", wrong_permitted)  # e.g. the lesson's demonstration of a quiet wrong function
    check("choose_evidence", wrong_permitted)
    capsys.readouterr()
    progress.show_progress()
    out = capsys.readouterr().out
    assert re.search(r"01\s+1\. permitted\s+passed\*\s+2\s+0", out)
    assert re.search(r"01\s+2\. choose_evidence\s+not yet\s+1\s+0", out)  # never passed: no star
    assert f"1 of {len(progress.PLACES)} exercises passed." in out
    assert "* passed earlier; your latest check of it did not pass." in out


def test_no_star_note_when_every_latest_check_agrees(book, capsys):
    check(permitted)
    capsys.readouterr()
    progress.show_progress()
    assert "passed earlier" not in capsys.readouterr().out


def test_a_prediction_keeps_its_tries_and_whether_the_first_answer_was_right(book):
    from botie.lessons.exercises.predict import answer
    from botie.lessons.exercises.questions import QUESTIONS

    question = QUESTIONS["prefix-6-5-in-8"]
    wrong = (question.answer + 1) % len(question.options)
    assert answer(question, None).answered is False  # pressing check with nothing chosen is not an answer
    assert not book.exists()
    answer(question, wrong)
    answer(question, question.answer)
    saved = json.loads(book.read_text())["predictions"]["prefix-6-5-in-8"]
    assert saved == {"lesson": question.lesson, "attempts": 2, "first_right": False, "right": True}


def test_show_progress_counts_questions_answered_and_right_first_time(book, capsys):
    from botie.lessons.exercises.predict import answer
    from botie.lessons.exercises.questions import QUESTIONS

    first, second = list(QUESTIONS.values())[:2]
    answer(first, first.answer)
    answer(second, (second.answer + 1) % len(second.options))
    answer(second, second.answer)
    capsys.readouterr()
    progress.show_progress()
    out = capsys.readouterr().out
    assert f"Predict-then-run: 2 of {len(QUESTIONS)} questions answered, 1 right at the first try." in out


def test_the_predict_widget_records_the_learners_answer(book):
    from botie.ui.predict import predict

    widget = predict("prefix-6-5-in-8")
    widget.choice.value = widget.question.answer
    widget.button.click()
    assert json.loads(book.read_text())["predictions"]["prefix-6-5-in-8"]["first_right"] is True


def test_a_file_from_before_predictions_were_kept_still_reads(book):
    book.parent.mkdir(parents=True)
    book.write_text('{"format": 1, "exercises": {}}')
    assert progress.load(book).state == "ok"


@pytest.mark.parametrize(
    "predictions",
    [
        '"x"',
        '{"q": {"attempts": "1", "first_right": true, "right": true}}',
        '{"q": {"attempts": 1, "first_right": 1, "right": true}}',
        '{"q": []}',
    ],
)
def test_a_nonsense_prediction_makes_the_file_corrupt_not_a_crash(book, predictions):
    book.parent.mkdir(parents=True)
    book.write_text(f'{{"format": 1, "exercises": {{}}, "predictions": {predictions}}}')
    found = progress.load(book)
    assert found.state == "corrupt" and "prediction" in found.problem


def test_a_check_the_lesson_runs_on_its_own_wrong_function_is_not_recorded(book, capsys):
    check(permitted)
    check("permitted", wrong_permitted, record=False)
    out = capsys.readouterr().out
    assert "permitted" in out and out.count("cases passed") == 2  # the check still answers
    entry = _entries(book)["permitted"]
    assert (entry["status"], entry["attempts"]) == ("passed", 1)
