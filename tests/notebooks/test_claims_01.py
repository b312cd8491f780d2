"""Lesson 01's sentences about botie, each pinned by a test named after it, run without nbval.

Each test checks the lesson's own numbers and, where the sentence is general, other inputs too.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given

from botie import Budget, BudgetError, Record, count_tokens, render_evidence, select
from botie.context.chunks import document_of, split_record, summary_of
from botie.context.evidence import document_element, document_tokens, parse_evidence
from botie.lessons import fixture_path, load_scene
from botie.lessons.content.scenarios import load_evidence_scenario
from tests.strategies import allowances, allowed_lists, events, examples, record_lists, selection_labels

SCENE = load_scene(fixture_path("p2_seal.json"))
BY_ID = {r.id: r for r in SCENE.records}
BUDGET = Budget(total=20, input_reserve=8, output_reserve=4)
EVERYONE = sorted({r.asset for r in SCENE.records})


# --- the scene, the window ----------------------------------------------------------------------------------------


def test_retrieval_hands_tech_ana_eleven_ranked_manual_sections_and_tickets_and_she_may_read_p2_and_p3():
    assert SCENE.caller == "tech-ana" and list(SCENE.allowed_assets) == ["P-2", "P-3"]
    assert len(SCENE.records) == 11 and all(r.id.startswith(("man-", "tkt-")) for r in SCENE.records)
    assert all(type(r.cost) is int for r in SCENE.records)  # whole tokens


def test_the_evidence_allowance_is_8_of_20_and_reserves_of_12_in_10_are_refused_not_zero():
    assert BUDGET.evidence == 8 and BUDGET.explain() == "20 − 8 − 4 = 8"
    with pytest.raises(BudgetError, match=r"12\) exceed the total of 10 by 2"):
        Budget(total=10, input_reserve=8, output_reserve=4)


# --- section 2: who may read what ----------------------------------------------------------------------------------


def test_a_record_is_eligible_only_when_its_asset_is_exactly_an_allowed_string():
    near = [Record(rid, asset, "t", 1) for rid, asset in (("a", "P-2"), ("b", "p-2"), ("c", "P-2 "), ("d", "P-22"))]
    assert select(near, ["P-2"], 10).selected_ids == ("a",)


def test_every_p1_and_k7_record_is_off_limits_to_tech_ana_and_costs_nothing():
    outcomes = select(SCENE.records, SCENE.allowed_assets, BUDGET).outcomes
    off = [o for o in outcomes if BY_ID[o.record_id].asset in ("P-1", "K-7")]
    assert len(off) == 3 and {str(o.status) for o in off} == {"not_permitted"}


def _budget_first(records, allowed, allowance):
    everyone = sorted({r.asset for r in records})
    chosen = select(records, everyone, allowance).selected_ids
    by_id = {r.id: r for r in records}
    return [rid for rid in chosen if by_id[rid].asset in allowed], [
        rid for rid in chosen if by_id[rid].asset not in allowed
    ]


def test_budget_first_the_p1_manual_takes_room_and_is_dropped_after_pushing_out_tkt_5521():
    kept, dropped = _budget_first(SCENE.records, SCENE.allowed_assets, BUDGET)
    assert kept == ["man-p2-r4-s3.2"] and dropped == ["man-p1-r2-s3.2"]
    assert list(select(SCENE.records, SCENE.allowed_assets, BUDGET).selected_ids) == ["man-p2-r4-s3.2", "tkt-5521"]


@examples(200)
@given(record_lists(), allowed_lists, allowances)
def test_budget_first_never_keeps_more_than_permission_first_and_what_it_keeps_is_a_head_of_it(
    records, allowed, allowance
):
    """Filtering after the budget can only lose permitted records, never gain one: its list is a prefix."""
    kept, _ = _budget_first(records, allowed, allowance)
    selection = select(records, allowed, allowance)
    events(
        selection_labels(selection) | ({"budget first lost one"} if len(kept) < len(selection.selected_ids) else set())
    )
    assert list(selection.selected_ids)[: len(kept)] == kept


def test_with_no_filter_and_room_to_spare_the_k7_text_is_in_the_request():
    chosen = select(SCENE.records, EVERYONE, 12).selected_ids
    assert "man-k7-r1-s4" in chosen
    assert BY_ID["man-k7-r1-s4"].text in render_evidence([BY_ID[i] for i in chosen])


@pytest.mark.parametrize("allowance", [0, 8, 12, 40])
def test_with_the_filter_no_restricted_text_reaches_the_request_at_any_allowance(allowance):
    chosen = select(SCENE.records, SCENE.allowed_assets, allowance).selected_ids
    request = render_evidence([BY_ID[i] for i in chosen])
    assert "K-7" not in request and "P-1 " not in request


# --- section 3: prefix and skip -------------------------------------------------------------------------------


def test_the_scene_keeps_tkt_5521_at_exactly_8_and_stops_at_tkt_5630_which_would_make_10():
    selection = select(SCENE.records, SCENE.allowed_assets, BUDGET)
    assert selection.outcome("tkt-5521").reason == "5 + 3 = 8 fills the 8-token allowance exactly"
    assert selection.outcome("tkt-5630").reason.startswith("8 + 2 = 10 exceeds")
    assert selection.coverage.summary().endswith("= 11 candidates")


def test_prefix_on_6_then_5_in_8_keeps_one_source_and_uses_6():
    pair = [Record("first", "P-2", "a", 6), Record("second", "P-2", "b", 5)]
    result = select(pair, ["P-2"], 8)
    assert result.selected_ids == ("first",) and result.used == 6


def test_skip_steps_over_the_8_and_keeps_positions_0_and_2_using_5():
    ranked = [Record(f"pos{i}", "P-2", "x", c) for i, c in enumerate([3, 8, 2])]
    assert select(ranked, ["P-2"], 7, policy="prefix").selected_ids == ("pos0",)
    skipped = select(ranked, ["P-2"], 7, policy="skip")
    assert skipped.selected_ids == ("pos0", "pos2") and skipped.used == 5


@examples(200)
@given(record_lists(), allowed_lists, allowances)
def test_skip_never_uses_less_room_than_prefix(records, allowed, allowance):
    """Skip "fills more room": on any input it uses at least as much as prefix."""
    prefix = select(records, allowed, allowance)
    events(selection_labels(prefix))
    assert select(records, allowed, allowance, policy="skip").used >= prefix.used


# --- section 4: what the model reads ---------------------------------------------------------------------------


@pytest.mark.parametrize("record_id", sorted(BY_ID))
def test_the_document_tag_carries_the_id_asset_version_and_trust(record_id):
    record = BY_ID[record_id]
    tag = document_element(record).splitlines()[0]
    assert tag == (
        f'<document id="{record.id}" asset="{record.asset}" version="{record.version}" trust="{record.trust}">'
    )


@pytest.mark.parametrize("asset", ["P-2", "P-1", "K-7"])
def test_a_passage_whose_text_does_not_name_its_pump_still_reaches_the_request_saying_which_pump(asset):
    quiet = Record("man-x-s1", asset, "Tighten the gland nuts to 18 N·m.", 5, version="rev 1")
    region = render_evidence([quiet])
    assert asset not in quiet.text and f'asset="{asset}"' in region
    assert parse_evidence(region)[0].asset == asset


def test_both_selected_records_are_about_p2_and_say_where_they_came_from():
    for rid in select(SCENE.records, SCENE.allowed_assets, BUDGET).selected_ids:
        record = BY_ID[rid]
        assert record.asset == "P-2" and record.version and record.location
    assert (BY_ID["man-p2-r4-s3.2"].version, BY_ID["man-p2-r4-s3.2"].location) == ("rev 4", "section 3.2, page 41")


def _fitting_and_exception():
    revisions = {r.id: r for r in load_evidence_scenario().records}
    return revisions["man-p2-r4-s3.2"], revisions["man-p2-r4-s3.2.1"]


def test_in_40_tokens_whole_records_send_nothing_and_chunks_send_the_opening_sentence_only():
    fitting, exception = _fitting_and_exception()
    assert select([fitting, exception], ["P-2"], 40).selected_ids == ()
    chunks = split_record(fitting, 40) + split_record(exception, 40)
    sent = select(chunks, ["P-2"], 40).selected_ids
    assert sent == ("man-p2-r4-s3.2#part1",)
    assert fitting.text.startswith(chunks[0].text) and "3.2.1" not in chunks[0].text  # the pointer stays behind
    assert {document_of(c.id) for c in chunks} == {fitting.id, exception.id}
    assert all(c.location is not None and c.location.startswith(("section 3.2,", "section 3.2.1,")) for c in chunks)


def test_the_summary_is_34_tokens_says_it_is_a_summary_and_names_both_records():
    fitting, exception = _fitting_and_exception()
    summary = summary_of(
        [fitting, exception],
        "Gland nuts: 18 N·m in a cross pattern, never above 20; 16 N·m if the seal faces were lapped on site.",
        summary_id="sum-p2-gland-torque",
    )
    assert summary.cost == 34 and summary.version == "summary"
    assert summary.location is not None
    assert fitting.id in summary.location and exception.id in summary.location


def test_the_tags_cost_tokens_on_every_record_so_counting_the_text_alone_comes_up_short():
    for record in [*load_evidence_scenario().records, *SCENE.records]:
        assert document_tokens(record) > count_tokens(record.text), record.id


# --- the panel and your code in it ------------------------------------------------------------------------------


def test_in_the_panel_an_input_reserve_of_17_replaces_the_selection_with_the_refusal():
    from botie.lessons.ui import selection_panel

    panel = selection_panel(SCENE)
    panel.input_reserve.value = 17
    assert panel.selection is None and "BudgetError" in panel.result_text()


def test_in_the_panel_a_total_of_22_lets_tkt_5630_in():
    from botie.lessons.ui import selection_panel

    panel = selection_panel(SCENE)
    assert panel.selection is not None
    assert "tkt-5630" not in panel.selection.selected_ids
    panel.total.value = 22
    assert "tkt-5630" in panel.selection.selected_ids


def test_your_function_unwritten_says_not_written_yet_and_one_that_raises_is_shown_not_passed_on():
    from botie.lessons.exercises.yours import Agreement, compare_selection

    def stub(records, allowed_assets, allowance):
        raise NotImplementedError("your code here")

    def broken(records, allowed_assets, allowance):
        raise KeyError("cost")

    assert compare_selection(stub, SCENE.records, SCENE.allowed_assets, 8).agreement is Agreement.NOT_WRITTEN
    raised = compare_selection(broken, SCENE.records, SCENE.allowed_assets, 8)
    assert raised.agreement is Agreement.RAISED and "KeyError" in raised.line()


# --- section 7 and the exercises ----------------------------------------------------------------------------------


def test_a_too_broad_list_sends_18_and_25_nm_and_tkt_5521_no_longer_fits():
    oops = select(SCENE.records, ["P-1", "P-2", "P-3"], BUDGET)
    texts = " ".join(BY_ID[i].text for i in oops.selected_ids)
    assert "18 N·m" in texts and "25 N·m" in texts
    assert str(oops.outcome("tkt-5521").status) == "over_budget"


def test_permitted_keeps_8_of_11_and_choose_evidence_at_8_is_the_manual_section_and_tkt_5521():
    assert sum(r.asset in SCENE.allowed_assets for r in SCENE.records) == 8
    assert select(SCENE.records, SCENE.allowed_assets, 8).selected_ids == ("man-p2-r4-s3.2", "tkt-5521")


def test_each_exercise_starts_as_a_stub_that_raises_not_implemented_and_the_check_says_not_yet():
    import json
    from pathlib import Path

    from botie.lessons.exercises.catalogue import run
    from botie.lessons.exercises.engine import Verdict

    learner = Path(__file__).resolve().parents[2] / "notebooks" / "01_which_records.ipynb"
    cells = ["".join(c["source"]) for c in json.loads(learner.read_text(encoding="utf-8"))["cells"]]
    for name in ("permitted", "choose_evidence"):
        (stub,) = [c for c in cells if c.startswith(f"def {name}(")]
        assert "raise NotImplementedError" in stub
        namespace: dict = {}
        exec(stub, namespace)  # the learner edition's own stub
        report = run(name, namespace[name])
        assert not isinstance(report, str)
        assert report.verdict is Verdict.NOT_YET


def test_reset_exercise_numbers_lesson_01s_exercises_1_and_2_as_the_table_does():
    from botie.lessons.learner.progress import PLACES

    assert PLACES["permitted"] == ("01", 1) and PLACES["choose_evidence"] == ("01", 2)
    assert sorted({lesson for lesson, _ in PLACES.values()}) == [
        "00",
        "01",
        "02a",
        "02b",
        "03",
        "04",
        "05a",
        "05b",
        "06",
    ]


# --- the cast card, true to the fixtures ----------------------------------------------------------------------

CARD_FACTS = {
    "man-p2-r4-s3.2": ("18 N·m", "20 N·m"),
    "man-p1-r2-s3.2": ("25 N·m",),
    "man-k7-r1-s4": ("RESTRICTED", "Site B"),
    "tkt-5521": ("2026-03-14", "replaced", "leak"),
    "tkt-5630": ("Assistant", "30 N·m", "inspection"),
    "man-p3-r1-s2": ("0.4 mm", "0.6 mm"),
    "tkt-4410": ("weep", "monitor"),
    "man-p2-r3-s3.2": ("rev 3", "15 N·m"),
    "tkt-5704": ("leaking again", "25 N·m"),
    "man-p2-r4-s5.1": ("2,000 running hours",),
    "tkt-3307": ("coupling guard", "alignment"),
}


@pytest.mark.parametrize("record_id", sorted(CARD_FACTS))
def test_the_cast_cards_line_for_each_scene_record_states_what_its_text_says(record_id):
    for fact in CARD_FACTS[record_id]:
        assert fact in BY_ID[record_id].text, (record_id, fact)


def test_the_cast_cards_dates_and_states_are_the_fixtures():
    assert (BY_ID["tkt-4410"].version, str(BY_ID["tkt-4410"].effective_date)) == ("closed", "2025-11-20")
    assert BY_ID["tkt-5630"].version == BY_ID["tkt-5704"].version == "open"
    assert BY_ID["tkt-3307"].version == "closed" and BY_ID["man-p2-r4-s3.2"].trust == "approved"
    _, exception = _fitting_and_exception()
    assert "16 N·m" in exception.text and "lapped on site" in exception.text
    assert re.search(r"\b15 N·m\b", BY_ID["man-p2-r3-s3.2"].text)


def test_the_restricted_where_key_is_the_order_the_run_shows():
    """The prediction's right option, "before the budget", is what section 2's run settles."""
    from botie.lessons.exercises.questions import QUESTIONS

    question = QUESTIONS["restricted-where"]
    assert question.options[question.answer].startswith("before the budget")
    kept, dropped = _budget_first(SCENE.records, SCENE.allowed_assets, BUDGET)
    assert (
        "tkt-5521" not in kept
        and dropped
        and "tkt-5521" in select(SCENE.records, SCENE.allowed_assets, BUDGET).selected_ids
    )


def test_from_a_total_of_30_the_panels_selection_lets_rev_3_join_rev_4_since_no_dates_are_checked_until_lesson_02():
    from botie import Budget, select
    from botie.lessons import fixture_path, load_scene

    scene = load_scene(fixture_path("p2_seal.json"))
    reserves = (scene.budget.input_reserve, scene.budget.output_reserve)
    at_29 = select(scene.records, scene.allowed_assets, Budget(29, *reserves)).selected_ids
    at_30 = select(scene.records, scene.allowed_assets, Budget(30, *reserves)).selected_ids
    assert "man-p2-r3-s3.2" not in at_29
    assert {"man-p2-r3-s3.2", "man-p2-r4-s3.2"} <= set(at_30)


def _instructor_markdown(cell_id: str) -> str:
    from pathlib import Path

    import nbformat

    root = Path(__file__).resolve().parents[2]
    nb = nbformat.read(root / "notebooks" / "instructor" / "01_which_records.ipynb", as_version=4)
    return " ".join(next(c.source for c in nb.cells if c.id == cell_id).split())


def test_the_summary_drops_the_24_hour_recheck_and_the_lesson_says_so():
    from botie import summary_of
    from botie.lessons import load_evidence_scenario

    by_id = {r.id: r for r in load_evidence_scenario().records}
    fitting, exception = by_id["man-p2-r4-s3.2"], by_id["man-p2-r4-s3.2.1"]
    text = "Gland nuts: 18 N·m in a cross pattern, never above 20; 16 N·m if the seal faces were lapped on site."
    summary = summary_of([fitting, exception], text, summary_id="sum-p2-gland-torque")
    assert "24 hours" in exception.text and "24" not in summary.text and summary.cost == 34
    said = _instructor_markdown("33495b7d")
    assert "run the pump 24 hours and check the torque again" in said and "drops a step" in said


def test_the_request_labels_passages_by_id_asset_and_version():
    from botie import render_evidence
    from botie.lessons import load_evidence_scenario

    ticket = next(r for r in load_evidence_scenario().records if r.id == "tkt-5521")
    tag = render_evidence([ticket]).splitlines()[1]
    assert tag.startswith(f'<document id="{ticket.id}" asset="{ticket.asset}" version="{ticket.version}"')
    said = " ".join(_instructor_markdown("01-15").split())
    assert "labels each passage with its id, asset and version" in said and "not its asset" not in said
