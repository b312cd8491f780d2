"""Per sub-question selection: each need gets its own evidence or its own refusal; the union is sent once."""

import pytest

from botie.context.records import Record
from botie.context.subquestions import SubQuestion, select_per_subquestion
from botie.errors import BudgetError, InputError
from botie.lessons.content.scenarios import load_evidence_scenario


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


def _rec(rid, score, *, asset="P-2", cost=10, trust=None):
    return Record(rid, asset, f"text of {rid}", cost, score=score, trust=trust)


TORQUE = SubQuestion("What torque?", [_rec("forum", 0.9), _rec("manual", 0.85, trust="approved")], 100)
SEAL = SubQuestion("When was the seal replaced?", [_rec("tkt", 0.6), _rec("manual", 0.4, trust="approved")], 100)


def test_the_default_band_is_a_tenth_and_a_wider_band_lets_authority_lead():
    """forum 0.9 and manual 0.85 share a 1.0-wide band (manual first, approved) but not a 0.1-wide one."""
    default = select_per_subquestion([TORQUE], ["P-2"], observed_on="2026-03-15")
    assert default.selected_ids == ("forum", "manual")
    assert select_per_subquestion([TORQUE], ["P-2"], observed_on="2026-03-15", band=1.0).selected_ids == (
        "manual",
        "forum",
    )


def test_the_floor_reaches_every_sub_question():
    pack = select_per_subquestion([TORQUE, SEAL], ["P-2"], observed_on="2026-03-15", floor=0.5)
    assert pack.parts[1].selection.outcome("manual").status == "below_floor"
    assert (pack.selected_ids, pack.used) == (("forum", "manual", "tkt"), 30)


def test_allowed_assets_given_once_as_a_generator_serve_every_sub_question():
    pack = select_per_subquestion([TORQUE, SEAL], (a for a in ["P-2"]), observed_on="2026-03-15")
    assert pack.gaps == ()
    assert pack.parts[1].selection.selected_ids == ("tkt", "manual")


def test_a_bare_string_of_allowed_assets_is_still_a_type_error():
    with pytest.raises(TypeError):
        select_per_subquestion([TORQUE], "P-2", observed_on="2026-03-15")


def test_a_budget_of_zero_is_allowed_and_simply_fits_nothing():
    pack = select_per_subquestion([TORQUE._replace(budget=0)], ["P-2"], observed_on="2026-03-15")
    assert (pack.selected_ids, pack.used, pack.gaps) == ((), 0, ())


@pytest.mark.parametrize("budget", [-1, 2.5, True])
def test_a_bad_budget_names_the_sub_question_and_the_field(budget):
    with pytest.raises(BudgetError) as info:
        select_per_subquestion([TORQUE._replace(budget=budget)], ["P-2"], observed_on="2026-03-15")
    assert (str(info.value), info.value.field) == (
        "sub-question 'What torque?': budget must be a Budget or a whole number of tokens (an int >= 0), "
        f"got {budget!r}",
        "budget",
    )


def test_bad_sub_questions_name_the_field():
    with pytest.raises(InputError) as info:
        select_per_subquestion([("What torque?", [], 100)], ["P-2"], observed_on="2026-03-15")
    assert (str(info.value), info.value.field) == (
        "expected SubQuestion values, got ('What torque?', [], 100)",
        "subquestions",
    )
    with pytest.raises(InputError) as info:
        select_per_subquestion([], ["P-2"], observed_on="2026-03-15")
    assert (str(info.value), info.value.field) == ("at least one sub-question is needed", "subquestions")


def test_explain_shows_each_need_its_picks_or_its_refusal_and_what_was_sent():
    unanswered = SubQuestion("Which bearing?", [_rec("bulletin", 0.1)], 50)
    pack = select_per_subquestion([TORQUE, unanswered], ["P-2"], observed_on="2026-03-15")
    assert pack.explain() == (
        "What torque?\n  -> forum, manual (20 tokens)\n"
        "Which bearing?\n  -> refused: best score 0.10 is below the 0.35 floor: "
        "the documents do not appear to contain an answer\n"
        "sent: 2 records, 20 tokens"
    )


def test_the_register_reaches_every_sub_question():
    """With rev 5's chunk missing on 15 March, a bare call plays safe and sends no rev 4; the register sends it."""
    s = load_evidence_scenario()
    missing = [r for r in s.candidates(0) if r.id != "man-p2-r5-s3.2"]
    needs = [SubQuestion("torque?", missing, 150), SubQuestion("replaced?", s.candidates(3), 40)]
    bare = select_per_subquestion(needs, s.allowed_assets, observed_on="2026-03-15")
    told = select_per_subquestion(needs, s.allowed_assets, observed_on="2026-03-15", register=s.register)
    assert "man-p2-r4-s3.2" not in bare.selected_ids
    assert "man-p2-r4-s3.2" in told.selected_ids
