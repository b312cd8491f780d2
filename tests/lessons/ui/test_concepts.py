"""The concept-check widget: named radio groups, one save button, the result in words (never colour alone)."""

import pytest

from botie.lessons.exercises.concepts import CONCEPTS
from botie.lessons.learner import progress
from botie.lessons.ui._common import STYLES
from botie.lessons.ui.concepts import CONCEPTS_CLASS, concept_check

IDS = list(CONCEPTS)


@pytest.fixture
def book(tmp_path, monkeypatch):
    path = tmp_path / progress.FILE_NAME
    monkeypatch.setenv("BOTIE_PROGRESS_FILE", str(path))
    monkeypatch.setattr(progress, "_SAID", set())
    return path


def _choose(widget, right):
    for cid, radio in widget.choices.items():
        q = CONCEPTS[cid].question
        radio.value = q.answer if cid in right else (q.answer + 1) % len(q.options)


def test_every_question_is_a_named_radio_group_that_starts_unanswered(book):
    w = concept_check("before")
    assert list(w.choices) == IDS and all(r.value is None for r in w.choices.values())
    names = w.access.names
    assert names["save"] == "Save my answers"
    assert [names[f"concept-{n}"] for n in range(1, len(IDS) + 1)] == [
        f"Question {n} of {len(IDS)}" for n in range(1, len(IDS) + 1)
    ]
    assert CONCEPTS_CLASS in w.widget._dom_classes and "botie-panel" not in w.widget._dom_classes


def test_the_first_check_is_saved_without_showing_any_key(book):
    w = concept_check("before")
    _choose(w, set(IDS[:4]))
    w.button.click()
    text = w.result_text()
    assert f"{len(IDS)} of {len(IDS)} answers kept for the before check" in text
    assert "right" not in text and "missed" not in text and "The answer" not in text
    assert w.access.message == text  # announced as written


def test_a_partly_answered_check_says_how_many_are_open(book):
    w = concept_check("before")
    w.choices[IDS[0]].value = 0
    w.button.click()
    assert f"1 of {len(IDS)} answers kept" in w.result_text() and f"{len(IDS) - 1} still open" in w.result_text()


def test_the_second_check_shows_before_and_after_in_words_and_what_to_revisit(book):
    first = concept_check("before")
    _choose(first, set(IDS[:2]))
    first.button.click()
    second = concept_check("after")
    _choose(second, set(IDS[:-1]))
    second.button.click()
    text = second.result_text()
    assert f"Right before: 2 of {len(IDS)}; after: {len(IDS) - 1} of {len(IDS)}. 1 idea to revisit." in text
    last = CONCEPTS[IDS[-1]]
    assert f"revisit {last.revisit}" in text
    # each cell says its word and a symbol; the colour only repeats it
    assert f"{STYLES['right'][1]} right" in text and f"{STYLES['missed'][1]} missed" in text
    assert "1 idea to revisit" in second.access.message


def test_running_the_cell_again_shows_the_first_answers_kept(book):
    w = concept_check("before")
    _choose(w, set(IDS))
    w.button.click()
    again = concept_check("before")
    assert [r.value for r in again.choices.values()] == [CONCEPTS[c].question.answer for c in IDS]
    assert "kept as first given" in again.result_text()
    again.choices[IDS[0]].value = (CONCEPTS[IDS[0]].question.answer + 1) % 3
    again.button.click()
    assert progress.load(book).concepts["before"][IDS[0]].right is True  # the first answer stays
