"""Per sub-question selection: each need gets its own evidence or its own refusal; the union is sent once."""

import pytest

from botie.context.subquestions import SubQuestion, select_per_subquestion
from botie.errors import InputError
from botie.lessons.scenarios import load_evidence_scenario


def _pack(second=3, budget=40):
    s = load_evidence_scenario()
    subs = [SubQuestion("torque?", s.candidates(0), 150), SubQuestion("other?", s.candidates(second), budget)]
    return select_per_subquestion(subs, s.allowed_assets, observed_on=s.observed_on, band=1.0)


def test_each_record_is_sent_once_and_counted_once():
    pack = _pack(second=0, budget=150)
    assert len(pack.selected_ids) == len(set(pack.selected_ids))
    assert pack.used == pack.parts[0].selection.used


def test_a_sub_question_nothing_answers_is_a_gap():
    assert _pack(second=2).gaps == ("other?",)
    assert _pack(second=3).gaps == ()


def test_no_sub_questions_is_an_error():
    s = load_evidence_scenario()
    with pytest.raises(InputError):
        select_per_subquestion([], s.allowed_assets, observed_on=s.observed_on)
