"""What the lessons say about botie's behaviour, pinned without nbval: each test is named after a claim.

The stored outputs are compared by nbval, but prose is not. These tests hold the sentences: if a core change
makes a claim false, ``make test-fast`` fails here, with the claim in the test's name.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from botie import Record, select
from botie.context.provenance import select_evidence
from botie.context.provenance.outcomes import EvidenceStatus
from botie.lessons import fixture_path, load_scene
from botie.lessons.content.scenarios import load_evidence_scenario
from botie.lessons.content.scripted import AnswerScript, load_scripted_model
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
    return select_evidence(
        scenario.candidates(0), scenario.allowed_assets, 150, observed_on=scenario.observed_on, band=band
    )


def test_at_150_tokens_the_forum_post_and_the_note_crowd_out_the_exception_clause():
    tight = _tight(0.1)
    assert tight.selected_ids == ("man-p2-r4-s3.2", "forum-8812", "note-anon-77")
    assert tight.outcome("man-p2-r4-s3.2.1").status is not EvidenceStatus.SELECTED


def test_at_150_tokens_authority_first_sends_the_manual_the_table_and_the_exception_clause():
    tight = _tight(1.0)
    assert set(tight.selected_ids) == {
        "man-p2-r4-s3.2",
        "man-p2-r4-t3.4-head",
        "man-p2-r4-t3.4-m12",
        "man-p2-r4-s3.2.1",
    }
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
    plain = AnswerScript(
        "Tighten the P-2 gland nuts evenly, in a cross pattern, to 18 N·m, and never above 20 N·m.",
        (("man-p2-r4-s3.2", "tighten the gland nuts evenly in a cross pattern to 18 N·m"),),
    )
    candidates = [r for r in scenario.candidates(0) if r.id != "man-p2-r4-s3.2.1"]
    setup = TurnSetup.from_scenario(scenario, ceiling=1_200, answer_allowance=150)
    turn = run_turn(
        torque.question, candidates, setup, model.with_(answers={torque.question: plain}), needed=torque.answered_by
    )
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
    after = {o.record_id: str(o.status) for o in outcomes[stop + 1 :]}
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


# --- terms explained where first used, your code in the panel, corrected claims ---------------------------------


def test_lesson_01_the_fitting_section_costs_5_in_the_scene_and_48_counted_with_the_tokenizer():
    """The same text: an invented cost of 5 in lesson 01's scene, 48 tokens in lesson 02's counted fixture."""
    from botie import count_tokens

    in_scene = {r.id: r for r in load_scene(fixture_path("p2_seal.json")).records}["man-p2-r4-s3.2"]
    counted = {r.id: r for r in load_evidence_scenario().records}["man-p2-r4-s3.2"]
    assert in_scene.text == counted.text
    assert (in_scene.cost, counted.cost, count_tokens(counted.text)) == (5, 48, 48)


def test_lesson_01_render_evidence_writes_one_evidence_region_with_a_document_per_record_carrying_id_and_version():
    from botie import render_evidence

    records = [r for r in load_scene(fixture_path("p2_seal.json")).records if r.asset == "P-2"][:2]
    text = render_evidence(records)
    assert text.count("<evidence") == 1 and text.count("</evidence>") == 1
    for record in records:
        assert f'<document id="{record.id}" version="{record.version}"' in text


def test_lesson_01_a_skipping_choose_evidence_agrees_at_8_and_at_11_keeps_tkt_4410_below_the_record_that_did_not_fit():
    from botie.lessons.exercises.yours import compare_selection
    from tests.lessons.test_yours import skip_evidence

    scene = load_scene(fixture_path("p2_seal.json"))
    allowed = list(scene.allowed_assets)
    assert compare_selection(skip_evidence, scene.records, allowed, 8).line() == "Your function: same as the reference."
    at_11 = compare_selection(skip_evidence, scene.records, allowed, 11)
    assert at_11.line() == "Your function differs: only yours keeps tkt-4410."
    prefix = select(scene.records, allowed, 11)
    assert str(prefix.outcome("man-p3-r1-s2").status) == "over_budget"
    order = [r.id for r in scene.records]
    assert order.index("man-p3-r1-s2") < order.index("tkt-4410")


def test_lesson_02_band_1_0_holds_every_score_in_one_band_so_authority_comes_first():
    """At 150 tokens, band 1.0 sends the approved table and exception ahead of the higher-scoring forum post."""
    scenario = load_evidence_scenario()
    wide = select_evidence(
        scenario.candidates(0), scenario.allowed_assets, 150, observed_on=scenario.observed_on, band=1.0
    )
    scores = {r.id: r.score for r in scenario.candidates(0)}
    assert scores["forum-8812"] > scores["man-p2-r4-s3.2.1"]
    assert "man-p2-r4-s3.2.1" in wide.selected_ids and "forum-8812" not in wide.selected_ids


def test_lesson_02_ranking_first_leaves_no_usable_record_among_the_three_best_scores():
    from botie.lessons.exercises.yours import compare_shortlist
    from tests.lessons.test_exercises_evidence import shortlist

    scenario = load_evidence_scenario()
    top3 = sorted(scenario.candidates(0), key=lambda r: r.score, reverse=True)[:3]
    assert [r.id for r in top3] == ["vendor-p2-seal-design", "man-p2-r3-s3.2", "man-p2-r5-s3.2"]
    result = compare_shortlist(
        lambda *args: shortlist(*args, rank_first=True),
        scenario.candidates(0),
        scenario.allowed_assets,
        scenario.observed_on,
        3,
    )
    assert (result.yours, result.reference) == ("nothing", "man-p2-r4-s3.2, portal-p2-r4-s3.2, binder-p2-r4-s3.2")


def test_lesson_02_the_floor_and_the_budget_change_neither_shortlist_answer():
    from botie.ui import provenance_panel
    from tests.lessons.test_exercises_evidence import shortlist

    panel = provenance_panel(yours=shortlist)
    before = panel.comparison
    panel.floor.value, panel.budget.value = 0.9, 40
    assert panel.comparison == before and "refused" in panel.result_text()


def test_lesson_03_whole_document_selection_stops_at_the_first_agreement_that_does_not_fit():
    """It stops at msa-2019-acme (31,400 tokens, 27,600 left): every agreement read outranks every one searched."""
    from botie.context.routing import execute_plan, plan_context, relevance_order
    from botie.lessons.content.fixtures import load_records

    agreements = load_records(fixture_path("agreements_41.json"))
    coverage = execute_plan(plan_context(agreements, ceiling=900_000))
    ranked = [d.id for d in relevance_order(agreements)]
    assert ranked[:12] == list(coverage.included_ids)
    stopped_at = next(d for d in relevance_order(agreements) if d.id in coverage.excluded_ids)
    assert (stopped_at.id, stopped_at.cost, coverage.unused) == ("msa-2019-acme", 31_400, 27_600)


def test_lesson_04_only_in_progress_and_unavailable_are_retryable():
    from botie.actions.decision import Branch

    assert {str(b) for b in Branch if b.retryable} == {"in_progress", "unavailable"}


def test_lesson_04_an_approval_by_sup_lee_leaves_tech_ana_at_needs_approval():
    from botie.actions.decision import Approval, decide

    payload = {"asset_id": "P-2", "duration_minutes": 20, "request_id": "r7"}
    decision = decide(
        payload, caller="tech-ana", allowed_assets=["P-2", "P-3"], approval=Approval("sup-lee", payload), previous=None
    )
    assert str(decision.branch) == "needs_approval"


def test_lesson_04_approval_before_permission_agrees_on_p2_and_says_needs_approval_where_decide_says_denied():
    from botie.lessons.exercises.yours import compare_branch
    from tests.lessons.test_yours import approval_before_permission

    payload = {"asset_id": "P-2", "duration_minutes": 20, "request_id": "r7"}
    trusted = {"caller": "tech-ana", "allowed_assets": ["P-2", "P-3"], "approval": None, "previous": None}
    assert (
        compare_branch(approval_before_permission, payload, **trusted).line() == "Your function: same as the reference."
    )
    k7 = compare_branch(approval_before_permission, {**payload, "asset_id": "K-7"}, **trusted)
    assert k7.line() == "Your function differs: yours says needs_approval, the reference says denied."


def test_lesson_05_the_trace_goes_from_16_to_15_11_8_and_7_documents():
    from botie.turn import Stage

    scenario = load_evidence_scenario()
    turn = run_turn(
        scenario.questions[0].question, scenario.candidates(0), TurnSetup.from_scenario(scenario), load_scripted_model()
    )
    stages = (Stage.CANDIDATES, Stage.PERMITTED, Stage.FRESH, Stage.RELEVANT, Stage.FIT)
    assert [len(turn.stage(s).ids) for s in stages] == [16, 15, 11, 8, 7]


def test_lesson_05_the_capstone_scores_three_of_the_slices_sets_and_two_of_its_own():
    from botie.lessons.content.adversarial import SliceSet
    from botie.lessons.content.capstone import SETS

    slice_sets = {str(s) for s in SliceSet}
    assert [s for s in SETS if s in slice_sets] == ["ordinary questions", "answer absent", "injected instructions"]
    assert [s for s in SETS if s not in slice_sets] == ["restricted never sent", "decisions"]
    assert slice_sets - set(SETS) == {"1.6x the ceiling", "edited between turns"}


def test_lesson_03_turn_one_already_carries_its_own_6000_tokens():
    """03 §4: 'turn 1's request already holds its own 6,000': with exactly 6,000 tokens of room after the
    documents and the fixed 10,000, turn 1 fits and turn 2 is the first to go over."""
    from botie.context.routing import first_failing_turn

    ceiling = 100_000
    documents = 84_000  # soft fraction 0.84 of the ceiling
    assert ceiling - documents - 10_000 == 6_000
    assert first_failing_turn(ceiling, 0.84, per_turn=6_000, fixed=10_000) == 2
    assert first_failing_turn(ceiling, 0.84, per_turn=6_001, fixed=10_000) == 1  # a turn one token larger fails at once


def test_lesson_02_retrieval_hands_back_sixteen_candidates_one_a_barely_matching_p3_section():
    records = load_evidence_scenario().records
    assert len(records) == 16
    p3 = [r for r in records if r.asset == "P-3"]
    assert [r.id for r in p3] == ["man-p3-r1-s2"]


def test_lesson_03_routing_panel_starts_from_invented_attachments_not_the_41_agreements():
    """03 §4: the panel's 41 attachments total 1,440,000 tokens but are not the agreements of section 3."""
    from botie.lessons.content.fixtures import load_records
    from botie.lessons.content.scenarios import attachments
    from botie.ui.routing import DEFAULTS

    invented = attachments(DEFAULTS["count"], DEFAULTS["size"], DEFAULTS["largest"])
    agreements = load_records(fixture_path("agreements_41.json"))
    assert len(invented) == len(agreements) == 41
    assert sum(d.cost for d in invented) == 1_440_000
    assert {d.id for d in invented}.isdisjoint(d.id for d in agreements)
    assert max(invented, key=lambda d: d.cost).id == "doc-001"
