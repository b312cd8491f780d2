"""What the lessons say about botie's behaviour, pinned without nbval: each test is named after a claim.

The stored outputs are compared by nbval, but prose is not. These tests hold the sentences: if a core change
makes a claim false, ``make test-fast`` fails here, with the claim in the test's name.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from botie import Record, fixture_path, load_scene, select
from botie.context.provenance import select_evidence
from botie.context.provenance.outcomes import EvidenceStatus
from botie.lessons.scenarios import load_evidence_scenario
from botie.lessons.scripted import AnswerScript, load_scripted_model
from botie.turn import TurnOutcome, TurnSetup, run_turn

# --- lesson 01: prefix against skip ------------------------------------------------------------------


def _ranked(costs):
    return [Record(f"pos{i}", "P-2", "...", cost) for i, cost in enumerate(costs)]


def _kept_and_left_out(costs, room, policy):
    chosen = select(_ranked(costs), ["P-2"], room, policy=policy).selected_ids
    kept = [i for i in range(len(costs)) if f"pos{i}" in chosen]
    return kept, [i for i in range(len(costs)) if i not in kept]


@settings(max_examples=300)
@given(st.lists(st.integers(min_value=0, max_value=12), max_size=8), st.integers(min_value=0, max_value=30))
def test_under_prefix_every_kept_record_outranks_every_permitted_record_left_out(costs, room):
    kept, left_out = _kept_and_left_out(costs, room, "prefix")
    assert all(k < d for k in kept for d in left_out)


def test_skip_keeps_a_lower_ranked_record_while_a_higher_one_is_left_out_on_the_lesson_costs():
    """Lesson 01, costs 3, 8, 2 in 7: prefix keeps [0]; skip keeps [0, 2] and leaves out 1, ranked above 2."""
    assert _kept_and_left_out([3, 8, 2], 7, "prefix") == ([0], [1, 2])
    assert _kept_and_left_out([3, 8, 2], 7, "skip") == ([0, 2], [1])


def test_the_scene_ids_in_lesson_01_name_one_record_each():
    """Lesson 01 lists P-1's leaking-seal ticket as tkt-5704; tkt-5702 is the planted ticket of lessons 03 and 05."""
    ids = {r.id: r for r in load_scene(fixture_path("p2_seal.json")).records}
    assert ids["tkt-5704"].asset == "P-1" and "tkt-5702" not in ids


# --- lesson 02: names that say what they mean; crowding out the exception ----------------------------


def test_a_revision_not_yet_in_force_is_not_yet_effective_rather_than_stale():
    selection = load_evidence_scenario().select(0)
    outcome = selection.outcome("man-p2-r5-s3.2")
    assert outcome.status is EvidenceStatus.NOT_YET_EFFECTIVE
    assert str(outcome.status) == "not_yet_effective"
    assert "stale" not in {str(s) for s in EvidenceStatus}


def _tight(band):
    scenario = load_evidence_scenario()
    return select_evidence(scenario.candidates(0), scenario.allowed_assets, 150, observed_on=scenario.observed_on,
                           band=band)


def test_at_150_tokens_the_forum_post_and_the_note_crowd_out_the_exception_clause():
    tight = _tight(0.1)
    assert tight.selected_ids == ("man-p2-r4-s3.2", "forum-8812", "note-anon-77")
    assert tight.outcome("man-p2-r4-s3.2.1").status is not EvidenceStatus.SELECTED


def test_at_150_tokens_authority_first_sends_the_manual_the_table_and_the_exception_clause():
    tight = _tight(1.0)
    assert set(tight.selected_ids) == {"man-p2-r4-s3.2", "man-p2-r4-t3.4-head", "man-p2-r4-t3.4-m12",
                                       "man-p2-r4-s3.2.1"}
    assert tight.outcome("man-p2-r4-s3.2.1").status is EvidenceStatus.SELECTED
    assert "forum-8812" not in tight.selected_ids and "note-anon-77" not in tight.selected_ids


def test_at_250_tokens_the_exception_clause_fits_either_way():
    scenario = load_evidence_scenario()
    assert "man-p2-r4-s3.2.1" in scenario.select(0).selected_ids


# --- lesson 05: a released, plausible, incomplete answer --------------------------------------------


def test_without_the_exception_clause_an_answer_from_what_was_sent_is_released_and_incomplete():
    """Lesson 05: retrieval coverage 3 of 4, answer support complete, the turn answered; only `needed` shows it."""
    scenario, model = load_evidence_scenario(), load_scripted_model()
    torque = scenario.questions[0]
    plain = AnswerScript("Tighten the P-2 gland nuts evenly, in a cross pattern, to 18 N·m, and never above 20 N·m.",
                         (("man-p2-r4-s3.2", "tighten the gland nuts evenly in a cross pattern to 18 N·m"),))
    candidates = [r for r in scenario.candidates(0) if r.id != "man-p2-r4-s3.2.1"]
    setup = TurnSetup.from_scenario(scenario, ceiling=1_200, answer_allowance=150)
    turn = run_turn(torque.question, candidates, setup, model.with_(answers={torque.question: plain}),
                    needed=torque.answered_by)
    assert turn.outcome is TurnOutcome.ANSWERED and turn.answer is not None
    assert turn.citations.ok
    assert sum(i in {r.id for r in candidates} for i in torque.answered_by) == 3 == len(torque.answered_by) - 1
    assert [(loss.record_id, str(loss.stage)) for loss in turn.losses] == [("man-p2-r4-s3.2.1", "candidates")]


# --- claims corrected after the fresh read of the learner edition ---------------------------------------------


def test_after_the_prefix_stops_a_record_the_caller_may_not_read_stays_not_permitted():
    """Lesson 01: every *permitted* record after tkt-5630 is not_considered; tkt-5704 (P-1) stays not_permitted."""
    scene = load_scene(fixture_path("p2_seal.json"))
    outcomes = list(select(scene.records, scene.allowed_assets, scene.budget).outcomes)
    stop = [o.record_id for o in outcomes].index("tkt-5630")
    after = {o.record_id: str(o.status) for o in outcomes[stop + 1:]}
    assert after["tkt-5704"] == "not_permitted"
    assert {s for rid, s in after.items() if rid != "tkt-5704"} == {"not_considered"}


def test_revision_4_applies_the_day_before_revision_5_comes_into_force_and_revision_5_on_that_day():
    scenario = load_evidence_scenario()
    before, on_the_day = (scenario.select(0, observed_on=day) for day in ("2026-03-31", "2026-04-01"))
    assert str(before.outcome("man-p2-r4-s3.2").status) == "selected"
    assert str(before.outcome("man-p2-r5-s3.2").status) == "not_yet_effective"
    assert str(on_the_day.outcome("man-p2-r4-s3.2").status) == "superseded"
    assert str(on_the_day.outcome("man-p2-r5-s3.2").status) == "selected"


def test_in_lesson_05_three_candidates_fall_below_the_floor_and_one_does_not_fit_the_budget():
    scenario = load_evidence_scenario()
    statuses = [str(o.status) for o in scenario.select(0).outcomes]
    assert (statuses.count("below_floor"), statuses.count("over_budget"), statuses.count("selected")) == (3, 1, 7)


def test_retries_make_at_most_three_attempts_in_all_the_first_call_included():
    from botie.actions.decision import Branch, Check, CheckName, Decision, Verdict

    unavailable = Decision(Branch.UNAVAILABLE, (Check(CheckName.IDEMPOTENCY, Verdict.FAILED, "no answer"),))
    from botie.actions.retry import submit_with_retries

    run = submit_with_retries(lambda: unavailable)
    assert len(run.attempts) == 3
