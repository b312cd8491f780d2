"""Answering the concept check: judged by the questions' key, first answers kept, the two checks compared."""

import pytest

from botie.errors import BotieError
from botie.lessons.exercises.concept_check import answer_check, report_from, show_concepts, stored
from botie.lessons.exercises.concepts import CONCEPTS
from botie.lessons.learner import progress

IDS = list(CONCEPTS)


@pytest.fixture
def book(tmp_path, monkeypatch):
    path = tmp_path / progress.FILE_NAME
    monkeypatch.setenv("BOTIE_PROGRESS_FILE", str(path))
    monkeypatch.setattr(progress, "_SAID", set())
    return path


def _key(cid):
    return CONCEPTS[cid].question.answer


def _wrong(cid):
    return (_key(cid) + 1) % len(CONCEPTS[cid].question.options)


def test_answers_are_judged_by_the_key_and_a_question_left_open_is_not_an_answer(book):
    saved = answer_check("before", {IDS[0]: _key(IDS[0]), IDS[1]: _wrong(IDS[1]), IDS[2]: None})
    assert saved.saved and saved.new == 2 and saved.unanswered == tuple(IDS[2:])
    assert (saved.answers[IDS[0]].right, saved.answers[IDS[1]].right) == (True, False)
    assert stored()["before"] == saved.answers


def test_saving_again_keeps_the_first_answers_and_adds_only_the_open_ones(book):
    answer_check("before", {IDS[0]: _wrong(IDS[0])})
    again = answer_check("before", {cid: _key(cid) for cid in IDS})
    assert again.new == len(IDS) - 1 and again.unanswered == ()
    assert again.answers[IDS[0]].right is False and all(again.answers[c].right for c in IDS[1:])


def test_an_unknown_check_is_refused_by_name(book):
    with pytest.raises(BotieError, match="'before' or 'after'"):
        answer_check("middle", {})


def _both(before_right, after_right):
    answer_check("before", {c: _key(c) if c in before_right else _wrong(c) for c in IDS})
    answer_check("after", {c: _key(c) if c in after_right else _wrong(c) for c in IDS})
    return report_from(stored())


def test_the_report_shows_before_and_after_per_idea_and_the_section_for_each_idea_still_missed(book):
    report = _both(set(IDS[:3]), set(IDS[:-2]))
    assert (report.right("before"), report.right("after")) == (3, len(IDS) - 2)
    assert [c.id for c in report.revisit] == IDS[-2:]
    text = report.text()
    for c in report.revisit:
        assert f"Revisit {c.revisit} ({c.idea})" in text and c.question.options[c.question.answer] in text
    assert CONCEPTS[IDS[0]].revisit not in text  # right in the second check: nothing to revisit
    assert f"Right before: 3 of {len(IDS)}; after: {len(IDS) - 2} of {len(IDS)}. 2 ideas to revisit." in text


def test_before_the_second_check_nothing_is_to_revisit_and_no_key_is_shown(book):
    answer_check("before", {c: _wrong(c) for c in IDS})
    report = report_from(stored())
    assert report.revisit == () and not report.after_taken
    assert "The answer:" not in report.text() and "second check ends lesson 06" in report.text()


def test_an_idea_left_open_in_the_second_check_is_to_revisit(book):
    answer_check("before", {c: _key(c) for c in IDS})
    answer_check("after", {c: _key(c) for c in IDS[1:]})
    report = report_from(stored())
    assert [c.id for c in report.revisit] == [IDS[0]] and report.lines[0].after is None


def test_show_concepts_says_where_the_first_check_is_when_none_was_taken(book, capsys):
    show_concepts()
    assert "start of lesson 00" in capsys.readouterr().out
    _both(set(), set(IDS))
    show_concepts()
    out = capsys.readouterr().out
    assert f"Right before: 0 of {len(IDS)}; after: {len(IDS)} of {len(IDS)}. 0 ideas to revisit." in out
