"""The selection panel, driven without a browser: set controls, read what the panel shows."""

from __future__ import annotations

import re

import pytest

from botie import BudgetError
from botie.lessons import fixture_path, load_scene
from botie.lessons.ui import html_to_text, selection_panel, window_text
from tests.lessons.exercises.test_checks import choose_evidence
from tests.lessons.exercises.test_yours import skip_evidence

STATUSES = ("selected", "not_permitted", "over_budget", "not_considered")


@pytest.fixture
def scene():
    return load_scene(fixture_path("p2_seal.json"))


@pytest.fixture
def panel(scene):
    return selection_panel(scene)


def shown_statuses(panel) -> dict[str, str]:
    """Each candidate's status as the panel displays it: the id and the status word on one row."""
    found = {}
    for line in panel.result_text().splitlines():
        match = re.match(rf"^\d+ (\S+) \S+ \d+ \S ({'|'.join(STATUSES)}) ", line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def test_the_scene_shows_all_four_statuses_with_every_candidate(panel, scene):
    statuses = shown_statuses(panel)
    assert list(statuses) == [r.id for r in scene.records]
    assert statuses["man-p2-r4-s3.2"] == "selected"
    assert statuses["tkt-5521"] == "selected"  # fills the room exactly
    assert statuses["man-p1-r2-s3.2"] == "not_permitted"
    assert statuses["man-k7-r1-s4"] == "not_permitted"
    assert statuses["tkt-5630"] == "over_budget"
    assert statuses["man-p3-r1-s2"] == "not_considered"
    assert set(statuses.values()) == set(STATUSES)


def test_selected_ids_tokens_used_and_window_are_shown(panel):
    text = panel.result_text()
    assert "selected: man-p2-r4-s3.2, tkt-5521" in text
    assert "tokens used: 8 of 8" in text
    assert "20 − 8 − 4 = 8" in text
    assert "window 20 = input reserve 8 + output reserve 4 + evidence used 8 + room left 0" in text
    assert "2 selected + 3 not_permitted + 1 over_budget + 5 not_considered = 11 candidates" in text


def test_reasons_are_words_not_only_colours(panel):
    text = panel.result_text()
    assert "5 + 3 = 8 fills the 8-token allowance exactly" in text
    assert "K-7 is not in your allowed assets" in text
    assert "not considered: the prefix rule stopped at tkt-5630" in text


def test_allowing_p1_lets_the_wrong_pump_crowd_out_the_ticket(panel):
    panel.assets["P-1"].value = True
    statuses = shown_statuses(panel)
    assert statuses["man-p1-r2-s3.2"] == "selected"
    assert statuses["tkt-5521"] == "over_budget"
    assert "selected: man-p2-r4-s3.2, man-p1-r2-s3.2" in panel.result_text()


def test_unchecking_every_asset_selects_nothing(panel):
    for box in panel.assets.values():
        box.value = False
    statuses = shown_statuses(panel)
    assert set(statuses.values()) == {"not_permitted"}
    assert "selected: nothing" in panel.result_text()


def test_skip_policy_keeps_looking(panel):
    panel.total.value = 23  # allowance 11
    panel.policy.value = "skip"
    statuses = shown_statuses(panel)
    assert "not_considered" not in statuses.values()
    assert statuses["tkt-5630"] == "selected"
    assert statuses["man-p3-r1-s2"] == "over_budget"
    assert statuses["tkt-4410"] == "selected"
    assert "tokens used: 11 of 11" in panel.result_text()


def test_reserves_above_the_total_show_the_budget_error(panel):
    panel.input_reserve.value = 17
    with pytest.raises(BudgetError) as expected:
        from botie import Budget

        Budget(20, 17, 4)
    text = panel.result_text()
    assert "BudgetError" in text
    assert str(expected.value) in text
    assert panel.error is not None
    assert panel.selection is None
    assert shown_statuses(panel) == {}
    panel.input_reserve.value = 8  # repaired: the table comes back
    assert panel.error is None
    assert shown_statuses(panel)["tkt-5521"] == "selected"


def test_zero_allowance_is_a_result_not_an_error(panel):
    panel.total.value = 12
    assert panel.error is None
    statuses = shown_statuses(panel)
    assert statuses["man-p2-r4-s3.2"] == "over_budget"
    assert "tokens used: 0 of 0" in panel.result_text()


def test_an_unexpected_failure_becomes_a_message(panel, monkeypatch):
    def broken(budget):
        raise RuntimeError("boom")

    monkeypatch.setattr(panel, "_select", broken)
    panel.total.value = 21  # must not raise
    assert "RuntimeError: boom" in panel.result_text()
    assert "not your fault" in panel.result_text()
    assert "Traceback" in panel.last_traceback


def test_dom_contract(panel):
    assert {"botie-panel", "botie-selection-panel"} <= set(panel.widget._dom_classes)
    assert "botie-result" in panel.result._dom_classes
    controls = {
        "total": panel.total,
        "input-reserve": panel.input_reserve,
        "output-reserve": panel.output_reserve,
        "policy": panel.policy,
    }
    controls.update({f"asset-{a}": box for a, box in panel.assets.items()})
    assert set(panel.assets) == {"K-7", "P-1", "P-2", "P-3"}
    for name, widget in controls.items():
        assert f"botie-control-{name}" in widget._dom_classes
        assert widget.description.strip()


def test_the_window_bar_states_its_numbers_in_text(scene):
    a, b = selection_panel(scene), selection_panel(scene)
    assert a.figure.value == b.figure.value
    assert html_to_text(a.figure.value).splitlines() == [
        "window of 20 tokens: evidence allowance 8, used 8",
        "input reserve 8; output reserve 4; evidence used 8; room left 0",
    ]
    a.input_reserve.value = 17  # an overflowing window is drawn too, with a line at the total
    assert html_to_text(a.figure.value).splitlines() == [
        "reserves 21 > total 20: over by 1",
        "input reserve 17; output reserve 4; evidence used 0; room left 0; total 20 (solid line)",
    ]


def test_window_text_names_every_segment():
    assert window_text(20, 8, 4, 6) == (
        "window 20 = input reserve 8 + output reserve 4 + evidence used 6 + room left 2"
    )
    assert "overflow the total by 1" in window_text(20, 17, 4, 0)


# --- your function beside the reference (lesson 01's exercise plugged into the panel) -------------------


def test_without_a_function_the_panel_has_no_box_for_one(panel):
    assert panel.yours_box not in panel.widget.children
    assert panel.yours_text() == "" and panel.comparison is None


def test_a_right_function_shows_beside_the_reference_and_says_same(scene):
    panel = selection_panel(scene, yours=choose_evidence)
    assert panel.yours_box in panel.widget.children
    text = panel.yours_text()
    assert "man-p2-r4-s3.2, tkt-5521 man-p2-r4-s3.2, tkt-5521" in text  # reference column, then yours
    assert "= same Your function: same as the reference." in text
    assert panel.access.message.endswith("Your function: same as the reference.")


def test_moving_a_control_reruns_the_learner_function_and_a_skip_shows_where_it_differs(scene):
    calls = []

    def counted(records, allowed_assets, allowance):
        calls.append(allowance)
        return skip_evidence(records, allowed_assets, allowance)

    panel = selection_panel(scene, yours=counted)
    assert "same as the reference" in panel.yours_text()
    panel.total.value = 23  # allowance 11: prefix stops at man-p3-r1-s2, skip rides on to tkt-4410
    assert calls == [8, 11]
    assert "≠ differs Your function differs: only yours keeps tkt-4410." in panel.yours_text()
    assert "only yours keeps tkt-4410" in panel.access.message


def test_a_function_that_raises_is_a_message_in_the_panel_not_a_traceback(scene):
    def broken(records, allowed_assets, allowance):
        raise KeyError("asset")

    panel = selection_panel(scene, yours=broken)
    assert "Your function raised an error: KeyError: 'asset'" in panel.yours_text()
    assert panel.error is None and "Traceback" not in panel.yours_text()
    assert "selected: man-p2-r4-s3.2, tkt-5521" in panel.result_text()  # the reference still shows


def test_the_stub_says_not_written_yet_and_a_window_that_cannot_fit_calls_nothing(scene):
    calls = []

    def stub(records, allowed_assets, allowance):
        calls.append(allowance)
        raise NotImplementedError("your code here")

    panel = selection_panel(scene, yours=stub)
    assert "… not written yet Your function: not written yet." in panel.yours_text()
    panel.input_reserve.value = 17
    assert calls == [8]
    assert panel.yours_text() == "Your function: not called, because this window cannot hold a request."


def test_a_learner_function_cannot_change_the_panels_candidates(scene):
    def vandal(records, allowed_assets, allowance):
        records.clear()
        allowed_assets.remove("P-2")
        return []

    panel = selection_panel(scene, yours=vandal)
    panel.total.value = 21
    assert shown_statuses(panel)["man-p2-r4-s3.2"] == "selected"
    assert panel.allowed == ["P-2", "P-3"] and len(panel.scene.records) == 11
