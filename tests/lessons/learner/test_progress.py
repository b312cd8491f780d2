"""Progress: every check and hint is recorded atomically; a bad file never breaks a check and is kept aside."""

from __future__ import annotations

import json
import multiprocessing
import re

import nbformat
import pytest

from botie.lessons.exercises.catalogue import EXERCISES, check, hint
from botie.lessons.learner import files, progress
from botie.lessons.tooling.editions import STUB
from tests.lessons.exercises.test_checks import permitted
from tests.notebooks.test_notebooks import LEARNER


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
    # the file, its lock and the passing function kept beside it (botie.lessons.learner.kept); no temporary
    leaves = sorted([progress.FILE_NAME, progress.lock_path(book).name, "botie-functions.json"])
    assert sorted(p.name for p in book.parent.iterdir()) == leaves

    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    before = book.read_text()
    monkeypatch.setattr(files.os, "fsync", fail)  # the disk fills while the new text is being written
    check(permitted)
    assert book.read_text() == before  # the old file survives a failed write whole
    assert sorted(p.name for p in book.parent.iterdir()) == leaves
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
    assert re.search(r"06\s+1\. first_lost_stage\s+-\s+0\s+0", out)
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
        lesson = path.name.split("_")[0]
        cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        number = 0
        for index, cell in enumerate(cells):
            if STUB not in cell.source or "run_capstone" in cell.source:
                continue  # the capstone (lesson 06) is run on the adversarial slice, not checked
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
    assert saved == {
        "lesson": question.lesson,
        "attempts": 2,
        "first_right": False,
        "right": True,
        "first_choice": wrong,
        "choice": question.answer,
    }


def test_the_option_chosen_at_the_first_try_is_kept_through_later_tries(book):
    from botie.lessons.exercises.predict import answer

    answer("prefix-6-5-in-8", 0)  # "both (6 + 5 = 11)"
    answer("prefix-6-5-in-8", 3)
    answer("prefix-6-5-in-8", 1)
    found = progress.load(book).predictions["prefix-6-5-in-8"]
    assert (found.first_choice, found.choice, found.attempts, found.first_right) == (0, 1, 3, False)


def test_a_prediction_from_before_choices_were_kept_reads_with_no_choice(book):
    book.parent.mkdir(parents=True)
    book.write_text(
        '{"format": 1, "exercises": {}, "predictions": '
        '{"q": {"lesson": "01", "attempts": 1, "first_right": true, "right": true}}}'
    )
    found = progress.load(book)
    assert found.state == "ok" and found.last_activity is None
    assert (found.predictions["q"].first_choice, found.predictions["q"].choice) == (None, None)


def test_every_check_hint_and_prediction_stamps_the_last_activity(book, capsys, monkeypatch):
    from botie.lessons.exercises.predict import answer

    times = iter(["2026-12-01T10:00:00+00:00", "2026-12-01T10:05:00+00:00", "2026-12-01T10:07:00+00:00"])
    monkeypatch.setattr(progress, "_now", lambda: next(times))
    check(permitted)
    assert progress.load(book).last_activity == "2026-12-01T10:00:00+00:00"
    hint("permitted", 2)
    assert progress.load(book).last_activity == "2026-12-01T10:05:00+00:00"
    answer("prefix-6-5-in-8", 1)
    assert progress.load(book).last_activity == "2026-12-01T10:07:00+00:00"


def test_checks_of_the_unchanged_stub_are_counted_apart(book, capsys):
    check("permitted", stub_permitted)
    check("permitted", stub_permitted)
    check("permitted", wrong_permitted)
    entry = _entries(book)["permitted"]
    assert (entry["attempts"], entry["stubs"]) == (3, 2)


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
    from botie.lessons.ui.predict import predict

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
        '{"q": {"attempts": 1, "first_right": true, "right": true, "first_choice": "1"}}',
        '{"q": {"attempts": 1, "first_right": true, "right": true, "choice": true}}',
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


# --- several writers at once, and a writer that dies --------------------------------------------

WRITERS = 4
CHECKS_EACH = 60
WAIT = 120  # seconds a worker may take before the test calls it stuck (a hang guard, not a timing claim)


def _record_many(path: str, name: str, start, count: int) -> None:
    """One notebook's kernel: record ``count`` checks of exercise ``name``, as fast as it can."""
    import os

    os.environ["BOTIE_PROGRESS_FILE"] = path
    start.wait(WAIT)
    for index in range(count):
        progress.record_check(name, passed=index == count - 1)


@pytest.mark.slow
def test_several_processes_recording_at_once_lose_no_update(book):
    ctx = multiprocessing.get_context("spawn")  # fresh interpreters, as on macOS and Windows: only the file is shared
    start = ctx.Event()
    names = sorted(progress.PLACES)[:WRITERS]
    workers = [ctx.Process(target=_record_many, args=(str(book), n, start, CHECKS_EACH)) for n in names]
    for w in workers:
        w.start()
    start.set()  # all of them at once: the learner presses check in one lesson while another runs all cells
    for w in workers:
        w.join(WAIT)
        assert w.exitcode == 0, "a writer did not finish"
    entries = _entries(book)
    assert {n: entries[n]["attempts"] for n in names} == dict.fromkeys(names, CHECKS_EACH)
    assert all(entries[n]["status"] == "passed" for n in names)  # each writer's last check passed


def test_a_lock_held_too_long_is_said_once_and_the_check_still_answers(book, capsys, monkeypatch):
    check("choose_evidence", wrong_permitted)
    before = book.read_text()
    monkeypatch.setattr(progress, "LOCK_WAIT", 0.2)
    with progress._locked(book):  # another writer that does not let go (a stopped, not dead, kernel)
        check(permitted)
        check(permitted)
    out = capsys.readouterr().out
    assert out.count("cases passed") == 3
    assert out.count("could not be saved") == 1 and "kept it locked" in out
    assert book.read_text() == before  # nothing was written past the lock
    check(permitted)
    assert _entries(book)["permitted"]["attempts"] == 1  # once it is free, recording goes on


@pytest.fixture
def no_flock(monkeypatch):
    """A system whose fcntl has no flock, as in Pyodide: the lock must be filelock's SoftFileLock."""
    fcntl = pytest.importorskip("fcntl")  # POSIX; Windows locks with msvcrt and never reads fcntl
    monkeypatch.delattr(fcntl, "flock")
    chosen = []
    choose = progress._lock_for

    def spy(path):
        chosen.append(choose(path))
        return chosen[-1]

    monkeypatch.setattr(progress, "_lock_for", spy)
    return chosen


def test_without_flock_progress_is_still_saved_under_a_soft_lock(book, capsys, no_flock):
    import filelock

    check("permitted", wrong_permitted)
    check(permitted)
    entry = _entries(book)["permitted"]
    assert (entry["status"], entry["attempts"]) == ("passed", 2)
    assert no_flock and all(type(lock) is filelock.SoftFileLock for lock in no_flock)
    assert "could not be saved" not in capsys.readouterr().out
    assert not progress.lock_path(book).exists()  # a soft lock is its file: released, it is gone


def test_without_flock_a_held_lock_is_waited_for_and_said_once(book, capsys, monkeypatch, no_flock):
    check("choose_evidence", wrong_permitted)
    before = book.read_text()
    monkeypatch.setattr(progress, "LOCK_WAIT", 0.2)
    with progress._locked(book):  # another writer that does not let go
        check(permitted)
    assert "kept it locked" in capsys.readouterr().out and book.read_text() == before
    check(permitted)
    assert _entries(book)["permitted"]["attempts"] == 1


def test_with_flock_the_lock_is_the_operating_systems(book):
    import filelock

    assert type(progress._lock_for(book)) is filelock.FileLock


def _die_inside_update(path: str, where: str, ready) -> None:
    """Start an update and stop dead inside it (``where``: after reading, or halfway through writing)."""
    import os
    import time

    os.environ["BOTIE_PROGRESS_FILE"] = path

    def hang(*args, **kwargs):
        ready.set()
        time.sleep(WAIT)

    if where == "writing":
        from botie.lessons.learner import files

        # The new text is in the temporary file, not yet on disk nor renamed over the progress file.
        files.os.fsync = lambda fd: hang()
        progress.record_check("permitted", passed=True)
    else:
        progress._update(lambda book: hang())


@pytest.mark.slow
@pytest.mark.parametrize("where", ["reading", "writing"])
def test_a_writer_killed_mid_update_leaves_the_file_whole_and_unlocked(book, capsys, where):
    check("choose_evidence", wrong_permitted)
    before = book.read_text()
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Event()
    writer = ctx.Process(target=_die_inside_update, args=(str(book), where, ready))
    writer.start()
    assert ready.wait(WAIT), "the writer never reached the middle of its update"
    writer.kill()  # SIGKILL on POSIX: no cleanup code runs, as when a kernel is killed
    writer.join(WAIT)
    assert book.read_text() == before  # the file is the previous one, whole
    check(permitted)  # the next writer gets in at once: the dead one's lock went with it
    out = capsys.readouterr().out
    assert "could not be saved" not in out
    entries = _entries(book)
    assert entries["permitted"]["attempts"] == 1 and entries["choose_evidence"]["attempts"] == 1
    # a temporary file the dead writer left half-written is cleared by the next writer
    assert not [p.name for p in book.parent.iterdir() if p.name.endswith(".tmp")]


def _keep_writing(path: str, start, count: int) -> None:
    _record_many(path, "permitted", start, count)


@pytest.mark.slow
def test_a_reader_sees_a_whole_file_or_the_previous_one_never_a_mix(book):
    """What the room service does: read the file while the learner's kernels write it."""
    ctx = multiprocessing.get_context("spawn")  # fresh interpreters, as on macOS and Windows: only the file is shared
    start = ctx.Event()
    writers = [ctx.Process(target=_keep_writing, args=(str(book), start, CHECKS_EACH)) for _ in range(2)]
    for w in writers:
        w.start()
    start.set()
    seen, states = [], set()
    while any(w.is_alive() for w in writers):
        found = progress.load(book)
        states.add(found.state)
        if found.state == "ok":
            seen.append(found.entries["permitted"].attempts)
    for w in writers:
        w.join(WAIT)
        assert w.exitcode == 0
    assert states <= {"missing", "ok"}  # never "empty" or "corrupt": no half-written file was ever read
    assert seen == sorted(seen)  # and never an older file after a newer one
    assert _entries(book)["permitted"]["attempts"] == 2 * CHECKS_EACH


# --- the concept check's answers ------------------------------------------------------------


def _answer(choice, right):
    return progress.ConceptAnswer(choice, right, "2026-12-02T09:00:00+00:00")


def test_concept_answers_keep_the_first_answer_per_question_and_check(book):
    kept, saved = progress.record_concepts("before", {"tokens-not-words": _answer(0, False)})
    assert saved and kept["tokens-not-words"].choice == 0
    kept, _ = progress.record_concepts(
        "before", {"tokens-not-words": _answer(1, True), "oversized-first": _answer(2, True)}
    )
    assert (kept["tokens-not-words"].choice, kept["oversized-first"].choice) == (0, 2)  # the first answer stays
    kept, _ = progress.record_concepts("after", {"tokens-not-words": _answer(1, True)})
    stored = progress.load(book).concepts
    assert stored["before"]["tokens-not-words"].right is False and stored["after"]["tokens-not-words"].right is True


def test_concept_answers_survive_checks_hints_and_predictions_written_after_them(book):
    progress.record_concepts("before", {"tokens-not-words": _answer(1, True)})
    check(permitted)
    progress.record_hint("choose_evidence", 1)
    progress.record_prediction("prefix-6-5-in-8", "01", True, 1)
    assert progress.load(book).concepts == {"before": {"tokens-not-words": _answer(1, True)}}


def test_a_file_from_before_the_concept_check_reads_with_no_concept_answers():
    old = json.dumps({"format": 1, "exercises": {}, "predictions": {}})
    found = progress.parse(old)
    assert found.state == "ok" and found.concepts == {}


@pytest.mark.parametrize(
    "concepts",
    [
        [],
        {"before": []},
        {"before": {"tokens-not-words": {"choice": "1", "right": True}}},
        {"before": {"x": {"choice": 1}}},
    ],
)
def test_concept_answers_that_make_no_sense_are_reported_as_a_corrupt_file(concepts):
    found = progress.parse(json.dumps({"format": 1, "exercises": {}, "concepts": concepts}))
    assert found.state == "corrupt" and "concept" in found.problem


def test_concept_answers_wait_for_the_lock_and_say_so_when_it_is_held(book, capsys, monkeypatch):
    monkeypatch.setattr(progress, "LOCK_WAIT", 0.2)
    book.parent.mkdir(parents=True)
    with progress._locked(book):  # another notebook writing, and not letting go
        kept, saved = progress.record_concepts("before", {"tokens-not-words": _answer(1, True)})
    assert not saved and kept == {"tokens-not-words": _answer(1, True)} and not book.exists()
    assert "kept it locked" in capsys.readouterr().out
    progress.record_concepts("before", {"oversized-first": _answer(2, True)})
    assert set(progress.load(book).concepts["before"]) == {"oversized-first"}


def test_concept_answers_are_not_recorded_when_recording_is_off(monkeypatch):
    monkeypatch.setenv("BOTIE_PROGRESS_FILE", "off")
    kept, saved = progress.record_concepts("after", {"tokens-not-words": _answer(1, True)})
    assert not saved and kept == {"tokens-not-words": _answer(1, True)}
