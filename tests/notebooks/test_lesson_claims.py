"""What the lessons say about botie's behaviour, pinned without nbval: each test is named after a claim.

The stored outputs are compared by nbval, but prose is not. These tests hold the sentences: if a core change
makes a claim false, ``make test-fast`` fails here, with the claim in the test's name.
"""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from botie import Budget, Record, select
from botie.context.provenance import select_evidence
from botie.context.provenance.outcomes import EvidenceStatus
from botie.lessons import fixture_path, load_scene
from botie.lessons.content.adversarial import BUDGET
from botie.lessons.content.scenarios import load_evidence_scenario
from botie.lessons.content.scripted import AnswerScript, load_scripted_model
from botie.turn import TurnOutcome, TurnSetup, run_turn

#: Lesson 06's budget and ceiling (cell 05-02): 600 tokens for evidence, room for the seven documents and their
#: conflict notes, tags included; the whole request plus the answer stays under the 70% alert of 1,300.
LESSON_05_BUDGET = Budget(950, 200, 150)
LESSON_06_CEILING = 1_300

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
    """Lesson 01 lists P-1's leaking-seal ticket as tkt-5704; tkt-5702 is the planted ticket of lessons 03 and 06."""
    ids = {r.id: r for r in load_scene(fixture_path("p2_seal.json")).records}
    assert ids["tkt-5704"].asset == "P-1" and "tkt-5702" not in ids


# --- lesson 02a: names that say what they mean; crowding out the exception ----------------------------


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


# --- lesson 06: a released, plausible, incomplete answer --------------------------------------------


def test_without_the_exception_clause_an_answer_from_what_was_sent_is_released_and_incomplete():
    """Lesson 06: retrieval coverage 3 of 4, answer support complete, the turn answered; only `needed` shows it."""
    scenario, model = load_evidence_scenario(), load_scripted_model()
    torque = scenario.questions[0]
    plain = AnswerScript(
        "Tighten the P-2 gland nuts evenly, in a cross pattern, to 18 N·m, and never above 20 N·m [1].",
        (("man-p2-r4-s3.2", "tighten the gland nuts evenly in a cross pattern to 18 N·m, and never above 20 N·m"),),
    )
    candidates = [r for r in scenario.candidates(0) if r.id != "man-p2-r4-s3.2.1"]
    setup = TurnSetup.from_scenario(scenario, ceiling=LESSON_06_CEILING, answer_allowance=150, budget=BUDGET)
    turn = run_turn(
        torque.question, candidates, setup, model.with_(answers={torque.question: plain}), needed=torque.answered_by
    )
    assert turn.outcome is TurnOutcome.ANSWERED and turn.answer is not None
    assert turn.citations is not None
    assert turn.citations.ok
    assert sum(i in {r.id for r in candidates} for i in torque.answered_by) == 3 == len(torque.answered_by) - 1
    assert [(loss.record_id, str(loss.stage)) for loss in turn.losses] == [("man-p2-r4-s3.2.1", "candidates")]


# --- lessons 01, 02 and 05: after the stop, the day a revision applies, the floor, the retry limit ---------------


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


# --- lessons 01 to 05: token counts, the evidence region, your code in the panel, checks and traces ---------------


def test_lesson_01_the_fitting_section_costs_5_in_the_scene_and_48_counted_with_the_tokenizer():
    """The same text: an invented cost of 5 in lesson 01's scene, 48 tokens in lesson 02's counted fixture."""
    from botie import count_tokens

    in_scene = {r.id: r for r in load_scene(fixture_path("p2_seal.json")).records}["man-p2-r4-s3.2"]
    counted = {r.id: r for r in load_evidence_scenario().records}["man-p2-r4-s3.2"]
    assert in_scene.text == counted.text
    assert (in_scene.cost, counted.cost, count_tokens(counted.text)) == (5, 48, 48)


def test_lesson_01_render_evidence_writes_one_region_with_a_document_per_record_carrying_id_asset_and_version():
    from botie import render_evidence

    records = [r for r in load_scene(fixture_path("p2_seal.json")).records if r.asset == "P-2"][:2]
    text = render_evidence(records)
    assert text.count("<evidence") == 1 and text.count("</evidence>") == 1
    for record in records:
        assert f'<document id="{record.id}" asset="{record.asset}" version="{record.version}"' in text


def test_lesson_01_a_skipping_choose_evidence_agrees_at_8_and_at_11_keeps_tkt_4410_below_the_record_that_did_not_fit():
    from botie.lessons.exercises.yours import compare_selection
    from tests.lessons.exercises.test_yours import skip_evidence

    scene = load_scene(fixture_path("p2_seal.json"))
    allowed = list(scene.allowed_assets)
    assert compare_selection(skip_evidence, scene.records, allowed, 8).line() == "Your function: same as the reference."
    at_11 = compare_selection(skip_evidence, scene.records, allowed, 11)
    assert at_11.line() == "Your function differs: only yours keeps tkt-4410."
    prefix = select(scene.records, allowed, 11)
    assert str(prefix.outcome("man-p3-r1-s2").status) == "over_budget"
    order = [r.id for r in scene.records]
    assert order.index("man-p3-r1-s2") < order.index("tkt-4410")


def test_lesson_02a_band_1_0_holds_every_score_in_one_band_so_authority_comes_first():
    """At 150 tokens, band 1.0 sends the approved table and exception ahead of the higher-scoring forum post."""
    scenario = load_evidence_scenario()
    wide = select_evidence(
        scenario.candidates(0), scenario.allowed_assets, 150, observed_on=scenario.observed_on, band=1.0
    )
    scores = {r.id: r.score for r in scenario.candidates(0) if r.score is not None}
    assert scores["forum-8812"] > scores["man-p2-r4-s3.2.1"]
    assert "man-p2-r4-s3.2.1" in wide.selected_ids and "forum-8812" not in wide.selected_ids


def test_lesson_02a_ranking_first_leaves_no_usable_record_among_the_three_best_scores():
    from botie.lessons.exercises.yours import compare_shortlist
    from tests.lessons.exercises.test_exercises_evidence import shortlist

    scenario = load_evidence_scenario()
    top3 = sorted(scenario.candidates(0), key=lambda r: r.score or 0.0, reverse=True)[:3]
    assert [r.id for r in top3] == ["vendor-p2-seal-design", "man-p2-r3-s3.2", "man-p2-r5-s3.2"]
    result = compare_shortlist(
        lambda *args: shortlist(*args, rank_first=True),
        scenario.candidates(0),
        scenario.allowed_assets,
        scenario.observed_on,
        3,
        scenario.register,
    )
    assert (result.yours, result.reference) == ("nothing", "man-p2-r4-s3.2, portal-p2-r4-s3.2, binder-p2-r4-s3.2")


def test_lesson_02a_the_floor_and_the_budget_change_neither_shortlist_answer():
    from botie.lessons.ui import provenance_panel
    from tests.lessons.exercises.test_exercises_evidence import shortlist

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

    payload = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
    decision = decide(
        payload, caller="tech-ana", allowed_assets=["P-2", "P-3"], approval=Approval("sup-lee", payload), previous=None
    )
    assert str(decision.branch) == "needs_approval"


def test_lesson_04_approval_before_permission_agrees_on_p2_and_says_needs_approval_where_decide_says_denied():
    from botie.lessons.exercises.yours import compare_branch
    from tests.lessons.exercises.test_yours import approval_before_permission

    payload = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
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
        scenario.questions[0].question,
        scenario.candidates(0),
        TurnSetup.from_scenario(scenario, budget=LESSON_05_BUDGET),
        load_scripted_model(),
    )
    stages = (Stage.CANDIDATES, Stage.PERMITTED, Stage.FRESH, Stage.RELEVANT, Stage.FIT)
    assert [len(turn.stage(s).ids) for s in stages] == [16, 15, 11, 8, 7]


def test_lesson_05_the_capstone_scores_three_of_the_slices_sets_and_three_of_its_own():
    from botie.lessons.content.adversarial import SliceSet
    from botie.lessons.content.capstone import SETS

    slice_sets = {str(s) for s in SliceSet}
    assert [s for s in SETS if s in slice_sets] == ["ordinary questions", "answer absent", "injected instructions"]
    assert [s for s in SETS if s not in slice_sets] == ["restricted never sent", "tight allowances", "decisions"]
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


def test_lesson_02a_retrieval_hands_back_sixteen_candidates_one_a_barely_matching_p3_section():
    records = load_evidence_scenario().records
    assert len(records) == 16
    p3 = [r for r in records if r.asset == "P-3"]
    assert [r.id for r in p3] == ["man-p3-r1-s2"]


def test_lesson_03_routing_panel_starts_from_invented_attachments_not_the_41_agreements():
    """03 §4: the panel's 41 attachments total 1,440,000 tokens but are not the agreements of section 3."""
    from botie.lessons.content.fixtures import load_records
    from botie.lessons.content.scenarios import attachments
    from botie.lessons.ui.routing import DEFAULTS

    invented = attachments(DEFAULTS["count"], DEFAULTS["size"], DEFAULTS["largest"])
    agreements = load_records(fixture_path("agreements_41.json"))
    assert len(invented) == len(agreements) == 41
    assert sum(d.cost for d in invented) == 1_440_000
    assert {d.id for d in invented}.isdisjoint(d.id for d in agreements)
    assert max(invented, key=lambda d: d.cost).id == "doc-001"


# --- lesson 02a: one revision at a time, and no silent conflicts -----------------------------------------


def test_on_1_april_the_question_gets_rev_5_and_no_section_of_rev_4():
    """02a §2: "gets a different manual, all of it", and the pack holds no exception clause at all."""
    scenario = load_evidence_scenario()
    april = scenario.select(0, observed_on="2026-04-01")
    manual = [r for r in scenario.records if r.document == "docs://site-a/manuals/p2" and r.id in april.selected_ids]
    assert {r.version for r in manual} == {"rev 5"}
    assert april.outcome("man-p2-r4-s3.2.1").status is EvidenceStatus.SUPERSEDED
    assert not any(r.carried_into for r in scenario.records)  # "none is marked here"


def test_the_forum_post_the_note_and_ticket_5630_are_flagged_against_rev_4_and_sent_only_alongside_it():
    """02a §2: each carries a flag; a source contradicting a higher tier goes in only alongside it."""
    selection = load_evidence_scenario().select(0)
    flagged = {frozenset(c.ids) for c in selection.conflicts}
    assert flagged == {frozenset(("man-p2-r4-s3.2", other)) for other in ("forum-8812", "note-anon-77", "tkt-5630")}
    assert all(not c.kept_together and c.in_context for c in selection.conflicts)
    assert {"forum-8812", "note-anon-77", "tkt-5630", "man-p2-r4-s3.2"} <= set(selection.selected_ids)


def test_the_exercise_2_rule_is_the_selectors_rule_for_every_pair_of_tiers():
    """02a §3 and exercise 2: together for two high-authority sources or one tier; else the lower rides along."""
    from botie.context.provenance import Trust

    for ta in Trust:
        for tb in Trust:
            a = Record("a", "P-2", "a", 10, trust=ta.value, score=0.9, conflicts_with=("b",))
            b = Record("b", "P-2", "b", 10, trust=tb.value, score=0.5)
            (conflict,) = select_evidence([a, b], ["P-2"], 100, observed_on="2026-03-15").conflicts
            high = {"approved", "reviewed"}
            expected = (ta.value in high and tb.value in high) or ta is tb
            assert conflict.kept_together is expected, (ta, tb)


def test_believing_the_body_puts_the_note_first_kept_together_with_the_manual():
    """02a §6: the note moves to the top, ahead of the manual, and the flag reads as two approved sources."""
    from dataclasses import replace

    scenario = load_evidence_scenario()
    trusting = [replace(r, trust="approved") if r.id == "note-anon-77" else r for r in scenario.candidates(0)]
    pack = select_evidence(trusting, scenario.allowed_assets, scenario.budget, observed_on=scenario.observed_on)
    assert pack.ranking[0] == "note-anon-77"
    assert any(c.kept_together and "note-anon-77" in c.ids for c in pack.conflicts)


# --- lesson 03: the coverage record says what was done; the citation check says what failed -------------


def test_whole_document_selection_names_29_agreements_not_read_and_never_calls_them_searched():
    """03 §3: twelve read in full (512,400 tokens), twenty-nine not read; nothing searched them."""
    from botie.context.routing import execute_plan, plan_context
    from botie.lessons import load_records

    coverage = execute_plan(plan_context(load_records(fixture_path("agreements_41.json")), ceiling=900_000))
    record = coverage.as_dict()
    assert (record["documents_in_context"], record["documents_not_read"], record["token_budget_used"]) == (
        12,
        29,
        512_400,
    )
    assert not any("searched" in key for key in record)
    assert "nothing searched the 29 not read" in coverage.explain()


def test_the_30_nm_quote_fails_as_a_missing_fact_and_a_reworded_18_nm_as_not_verbatim():
    """03 §9: fact_not_in_text when 30 is nowhere in the manual; not_verbatim when only the words differ."""
    from botie.context.citations import CitationProblem, verify_citations

    rev4 = {r.id: r for r in load_evidence_scenario().records}["man-p2-r4-s3.2"]
    invented = verify_citations([{"id": rev4.id, "quote": "tighten the gland nuts to 30 N·m"}], [rev4])
    reworded = verify_citations([{"id": rev4.id, "quote": "tighten the gland nuts to 18 N·m"}], [rev4])
    assert invented.failures[0].problem is CitationProblem.FACT_NOT_IN_TEXT
    assert reworded.failures[0].problem is CitationProblem.NOT_VERBATIM


def test_the_notes_conflict_flag_is_in_the_selection_and_in_the_request_the_model_reads():
    """03 §9: "the request carries that flag to the model: the <conflict> note ... names both documents
    (run_turn adds one for every flagged pair whose two documents are both sent)"."""
    from botie.context.evidence import build_request, conflicts_in

    scenario, model = load_evidence_scenario(), load_scripted_model()
    selection = scenario.select(0)
    by_id = {r.id: r for r in scenario.records}
    pack = [by_id[i] for i in selection.selected_ids]
    flagged = [c for c in selection.conflicts if c.in_context]
    request = build_request(scenario.questions[0].question, pack, ceiling=1_200, conflicts=flagged)
    assert ("man-p2-r4-s3.2", "note-anon-77") in conflicts_in(request.evidence)
    turn = run_turn(
        scenario.questions[0].question,
        scenario.candidates(0),
        TurnSetup.from_scenario(scenario, budget=LESSON_05_BUDGET),
        model,
    )
    assert turn.request is not None
    assert ("man-p2-r4-s3.2", "note-anon-77") in conflicts_in(turn.request.evidence)
    gullible = model.with_(gullible=True).reply(request)
    assert "25 N·m" in gullible.answer  # a note is a hint: the gullible model reads past it


# --- lesson 05: who may approve, and the order of the checks -------------------------------------------


def test_a_supervisor_approval_counts_only_when_the_policy_names_them():
    """04 §2: by default only the caller may approve; approvers={"tech-ana": ["sup-lee"]} lets sup-lee."""
    from botie.actions.decision import Approval, Branch, decide

    r7 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
    args = {"caller": "tech-ana", "allowed_assets": ["P-2", "P-3"], "approval": Approval("sup-lee", r7)}
    assert decide(r7, previous=None, **args).branch is Branch.NEEDS_APPROVAL
    allowed = decide(r7, previous=None, approvers={"tech-ana": ["sup-lee"]}, **args)
    assert allowed.branch is Branch.CREATE and "sup-lee approved exactly this payload for tech-ana" in allowed.explain()


def test_an_unapproved_changed_r7_stops_at_needs_approval_and_approving_it_ends_in_conflict():
    """04 §4: "Mind the order": the approval is checked before the stored request."""
    from botie.actions.decision import Approval, Branch, StoredRequest, decide

    r7 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
    changed = {**r7, "duration_minutes": 30}
    stored = StoredRequest.settled(r7, "job-1")
    common = {"caller": "tech-ana", "allowed_assets": ["P-2"], "previous": stored}
    assert decide(changed, approval=Approval("tech-ana", r7), **common).branch is Branch.NEEDS_APPROVAL
    assert decide(changed, approval=Approval("tech-ana", changed), **common).branch is Branch.CONFLICT


def test_another_technicians_reminder_and_a_k7_value_are_hidden_from_tech_ana_and_show_no_value():
    """03 §7: a value remembered for one person is theirs alone; a value about K-7 needs K-7."""
    import datetime as dt

    from botie.context.memory import MemoryEntry, MemoryStatus, Origin, carry_forward

    at = dt.datetime(2026, 3, 15, 13, tzinfo=dt.timezone.utc)
    entries = [
        MemoryEntry("reminder", "call the seal supplier", Origin.TECHNICIAN, at, owner="tech-bo"),
        MemoryEntry("k7_setpoint", "4.2 bar", Origin.DOCUMENT, at, source_id="man-k7-r1-s4", asset="K-7"),
    ]
    carried = carry_forward(entries, now=at, reader="tech-ana", allowed_assets=["P-2", "P-3"])
    assert [o.status for o in carried.outcomes] == [MemoryStatus.HIDDEN, MemoryStatus.HIDDEN]
    assert "supplier" not in carried.explain() and "4.2" not in carried.explain()


# --- lesson 06: a structured request, counting what is sent, and your own model -------------------------------


def test_lesson_05_the_pack_is_243_tokens_of_text_465_as_sent_3_notes_of_110_and_the_request_713_plus_150_against_600():
    from botie import count_tokens
    from botie.context.evidence import conflict_note, conflicts_in, document_tokens

    scenario, model = load_evidence_scenario(), load_scripted_model()
    setup = TurnSetup.from_scenario(scenario, ceiling=LESSON_06_CEILING, answer_allowance=150, budget=LESSON_05_BUDGET)
    turn = run_turn(scenario.questions[0].question, scenario.candidates(0), setup, model)
    pack = [r for r in scenario.candidates(0) if r.id in turn.context_ids]
    text_only, as_sent = sum(r.cost for r in pack), sum(document_tokens(r) for r in pack)
    assert (len(pack), text_only, as_sent, round((as_sent - text_only) / len(pack))) == (7, 243, 465, 32)
    assert turn.request is not None
    notes = conflicts_in(turn.request.evidence)
    assert (len(notes), sum(count_tokens(conflict_note(a, b)) for a, b in notes)) == (3, 110)
    assert turn.request.tokens - as_sent - 110 == 138
    assert turn.request.tokens == 713 and 713 + 150 == 863 > scenario.budget.total == 600
    assert turn.stage("fit").detail == "7 documents in the pack, 575 of 600 tokens as sent, tags included"
    assert f"{turn.request.ratio:.1%}" == "66.4%" and not turn.request.alert
    assert scenario.budget.evidence == 250 and text_only <= 250  # on text alone the pack "fits"
    small = run_turn(scenario.questions[0].question, scenario.candidates(0), setup.with_(budget=scenario.budget), model)
    assert len(small.context_ids) == 2 and small.outcome is TurnOutcome.WITHHELD


def test_lesson_05_a_model_is_handed_the_request_as_data_and_replies_with_tool_calls_with_ids_and_a_stop_reason():
    scenario, model = load_evidence_scenario(), load_scripted_model()
    setup = TurnSetup.from_scenario(scenario, budget=BUDGET, schedule_assets=("P-2", "P-3"))
    seen = []

    class Watching:
        def reply(self, request):
            seen.append(request)
            return model.reply(request)

    from botie.actions.decision import Approval
    from botie.turn import ActionRequest

    payload = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
    action = ActionRequest("Please book a 20-minute inspection of P-2 (request r7).", Approval("tech-ana", payload))
    turn = run_turn(scenario.questions[0].question, scenario.candidates(0), setup, Watching(), action=action)
    asked, acted = seen
    assert (str(asked.kind), str(acted.kind)) == ("answer", "action")
    assert asked.instructions and asked.documents and asked.question and asked.answer_allowance == 150
    assert acted.documents == () and [t["name"] for t in acted.tools] == ["propose_inspection"]
    assert turn.proposal is not None
    assert turn.proposal.id == "call-1" and str(model.reply(acted).stop_reason) == "tool_use"
    assert turn.reply is not None
    assert str(turn.reply.stop_reason) == "end_turn"


def test_lesson_06_the_anthropic_body_printed_is_render_in_under_30_lines():
    import inspect

    from botie.adapters import AnthropicModel

    assert len(inspect.getsource(AnthropicModel.render).splitlines()) <= 30


def test_lesson_05_odd_replies_end_in_their_own_outcomes_and_none_raises():
    from botie.model import Reply

    scenario = load_evidence_scenario()
    setup = TurnSetup.from_scenario(scenario, ceiling=LESSON_06_CEILING, answer_allowance=150, budget=LESSON_05_BUDGET)
    replies = {
        "empty": Reply("", ()),
        "model_refused": Reply("", (), stop_reason="refusal", refusal="I can't help with that."),
        "truncated": Reply("Tighten the gland nuts to 18 N·m, except", (), stop_reason="max_tokens"),
        "no_answer": Reply("The documents do not answer this.", ()),
    }
    for outcome, said in replies.items():
        model = type("Says", (), {"reply": lambda self, request, said=said: said})()
        result = run_turn(scenario.questions[0].question, scenario.candidates(0), setup, model)
        assert str(result.outcome) == outcome and result.answer is None and result.notice


def test_lesson_05_a_counter_is_a_name_or_any_function_from_text_to_a_whole_number():
    scenario, model = load_evidence_scenario(), load_scripted_model()
    words = TurnSetup.from_scenario(scenario, budget=BUDGET, counter=lambda text: len(text.split()))
    turn = run_turn(scenario.questions[0].question, scenario.candidates(0), words, model)
    assert turn.request is not None
    assert turn.request.tokens == len(turn.request.text.split())


def test_lesson_05_without_a_key_the_last_cell_sends_nothing_and_says_how_to_set_one():
    from botie.lessons.content.own_model import HOW_TO, your_turn

    called: list[object] = []
    assert your_turn(called.append, {}) == HOW_TO and called == []
    assert "ANTHROPIC_API_KEY" in HOW_TO and "OPENAI_API_KEY" in HOW_TO


# --- lesson 01: the permission filter runs again at the boundary, before the model or a log ----------------


def test_lesson_01_a_restricted_record_past_selection_stops_the_turn_naming_it_and_no_model_is_called(monkeypatch):
    """01 §2: "a turn checks a second time at that boundary ... no model is called"."""
    import dataclasses

    import pytest

    import botie.turn.answer as turn_module
    from botie import RecordError

    scenario = load_evidence_scenario()
    outsider = Record("k7-price-list", "K-7", "K-7 vendor prices, not for technicians.", 12, score=0.99)
    honest = select_evidence  # what botie.turn.answer calls

    def smuggling(records, *args, **kwargs):
        chosen = honest(records, *args, **kwargs)
        return dataclasses.replace(chosen, selected_ids=(outsider.id, *chosen.selected_ids))

    class Never:
        def reply(self, request):
            raise AssertionError("the model was called")

    monkeypatch.setattr(turn_module, "select_evidence", smuggling)
    setup = TurnSetup.from_scenario(scenario, budget=BUDGET)
    with pytest.raises(RecordError) as caught:
        run_turn(scenario.questions[0].question, [*scenario.candidates(0), outsider], setup, Never())
    assert caught.value.record == "k7-price-list" and "vendor prices" not in str(caught.value)


# --- lessons 01 and 03: what the markup costs, one document at a time ---------------------------------------


def _alone_and_as_sent(record_id):
    from botie import count_tokens
    from botie.context.evidence import document_tokens

    record = {r.id: r for r in load_evidence_scenario().records}[record_id]
    return count_tokens(record.text), document_tokens(record)


def test_lesson_01_the_fitting_section_is_48_tokens_alone_and_81_as_sent_33_for_the_markup_69_percent_more():
    alone, as_sent = _alone_and_as_sent("man-p2-r4-s3.2")
    assert (alone, as_sent, as_sent - alone, f"{(as_sent - alone) / alone:.0%}") == (48, 81, 33, "69%")


def test_lesson_03_the_exception_clause_is_44_tokens_alone_and_79_as_sent_35_for_the_markup_80_percent_more():
    alone, as_sent = _alone_and_as_sent("man-p2-r4-s3.2.1")
    assert (alone, as_sent, as_sent - alone, f"{(as_sent - alone) / alone:.0%}") == (44, 79, 35, "80%")


def test_lesson_02a_when_both_of_a_flagged_pair_are_sent_the_request_carries_a_conflict_note_naming_both():
    """02a §3: "when both documents of a flagged pair are sent, run_turn writes it into the request as a
    <conflict> note ... naming both"."""
    from botie.context.evidence import conflicts_in

    scenario = load_evidence_scenario()
    flush = scenario.questions[1]
    turn = run_turn(flush.question, scenario.candidates(1), TurnSetup.from_scenario(scenario), load_scripted_model())
    assert set(turn.context_ids) == {"man-p2-r4-s6.1", "eng-bulletin-2026-02"}
    assert turn.request is not None
    assert conflicts_in(turn.request.evidence) == (("eng-bulletin-2026-02", "man-p2-r4-s6.1"),)


def test_if_the_source_a_lower_tier_contradicts_cannot_be_sent_at_all_the_lower_one_stays_out_as_contradicted():
    """02a §3: for every reason rev 4 cannot be sent, the forum post, the note and ticket 5630 stay out, and say why."""
    import dataclasses

    scenario = load_evidence_scenario()
    copies = {"portal-p2-r4-s3.2", "binder-p2-r4-s3.2"}
    ways = {
        "not retrieved": lambda r: None if r.id == "man-p2-r4-s3.2" else r,
        "not permitted": lambda r: dataclasses.replace(r, asset="K-7") if r.id == "man-p2-r4-s3.2" else r,
        "incomplete": lambda r: dataclasses.replace(r, depends_on=("gone",)) if r.id == "man-p2-r4-s3.2" else r,
    }
    for way, change in ways.items():
        cands = [change(r) for r in scenario.candidates(0) if r.id not in copies]
        result = select_evidence(
            [r for r in cands if r is not None],
            scenario.allowed_assets,
            scenario.budget,
            observed_on=scenario.observed_on,
        )
        for low in ("forum-8812", "note-anon-77", "tkt-5630"):
            outcome = result.outcome(low)
            assert outcome.status is EvidenceStatus.CONTRADICTED, (way, low)
            # named, unless the caller may not read it: then the reason says only that such a source exists
            named = "a source this caller may not read" if way == "not permitted" else "man-p2-r4-s3.2"
            assert outcome.reason.startswith(f"disagrees with {named}"), (way, outcome.reason)
            assert low in result.coverage.excluded_ids


def test_the_copies_give_way_to_the_original_and_one_stands_in_when_it_does_not_make_it():
    """02a §2: the copies give way to rev 4; without rev 4, exactly one copy carries its content, flagged like it."""
    scenario = load_evidence_scenario()
    with_rev4 = scenario.select(0)
    assert not {"portal-p2-r4-s3.2", "binder-p2-r4-s3.2"} & set(with_rev4.selected_ids)
    cands = [r for r in scenario.candidates(0) if r.id != "man-p2-r4-s3.2"]
    without = select_evidence(cands, scenario.allowed_assets, scenario.budget, observed_on=scenario.observed_on)
    assert [i for i in without.selected_ids if i.endswith("-p2-r4-s3.2")] == ["portal-p2-r4-s3.2"]
    assert {frozenset(c.ids) for c in without.conflicts} == {
        frozenset(("portal-p2-r4-s3.2", low)) for low in ("forum-8812", "note-anon-77", "tkt-5630")
    }
