"""Accessibility on the Python side: every control is named, every result is announced, badges read in any theme.

The browser side (axe-core, Tab, focus rings, the live region on the page) is
tested in tests/browser; here, what the panels hand to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import ipywidgets as widgets
import pytest

from botie.lessons import fixture_path, load_scene
from botie.lessons.ui import (
    decision_panel,
    evidence_panel,
    provenance_panel,
    routing_panel,
    selection_panel,
    turn_panel,
)
from botie.lessons.ui._access import Access
from botie.lessons.ui._common import OKABE_ITO, STYLES, Panel, badge, contrast, control, control_names, text_colour


def _scene():
    return load_scene(fixture_path("p2_seal.json"))


PANELS: dict[str, Callable[[], Panel]] = {
    "selection": lambda: selection_panel(_scene()),
    "decision": decision_panel,
    "routing": routing_panel,
    "provenance": provenance_panel,
    "turn": turn_panel,
    "evidence": evidence_panel,
}


def _inputs(widget: widgets.Widget) -> list[widgets.Widget]:
    """Every widget under ``widget`` that a learner can change (anything with a value, but not an HTML text)."""
    found, stack = [], [widget]
    while stack:
        w = stack.pop()
        if isinstance(w, widgets.ValueWidget) and not isinstance(w, (widgets.HTML, widgets.Label)):
            found.append(w)
        stack.extend(getattr(w, "children", ()))
    return found


@pytest.mark.parametrize("kind", PANELS)
def test_every_control_a_learner_can_change_has_an_accessible_name(kind):
    panel = PANELS[kind]()
    names = panel.access.names
    for widget in _inputs(panel.widget):
        tags = [c for c in widget._dom_classes if c.startswith("botie-control-")]
        assert tags, f"{kind}: a {type(widget).__name__} ({widget.description!r}) is not tagged as a control"
        assert names[tags[0][len("botie-control-") :]].strip(), f"{kind}: {tags[0]} has no accessible name"


@pytest.mark.parametrize("kind", PANELS)
def test_each_panel_carries_one_access_widget_as_its_live_region(kind):
    panel = PANELS[kind]()
    assert [w for w in panel.widget.children if isinstance(w, Access)] == [panel.access]
    assert panel.access.message.strip(), f"{kind}: nothing is announced for the first result"


def test_the_slider_is_named_by_its_description_and_a_label_overrides_it():
    names = control_names(
        widgets.VBox(
            [
                control(widgets.IntSlider(20, description="total (tokens)"), "total"),
                control(widgets.IntSlider(4, description="out"), "output-reserve", "output reserve in tokens"),
                control(widgets.IntSlider(4), "input-reserve"),  # no description: the control's own name, in words
            ]
        )
    )
    assert names == {
        "total": "total (tokens)",
        "output-reserve": "output reserve in tokens",
        "input-reserve": "input reserve",
    }


def test_an_untagged_control_is_caught():
    """Guard the guard: a slider added without control() fails the naming test's check."""
    stray = widgets.IntSlider(3, description="stray")
    assert _inputs(widgets.VBox([stray])) == [stray]
    assert not [c for c in stray._dom_classes if c.startswith("botie-control-")]


# --- announcements: the sentence a screen reader speaks after each change -----------------------


def test_selection_announces_what_was_selected_and_a_window_that_cannot_hold_the_request():
    panel = selection_panel(_scene())
    assert panel.access.message == "selected: man-p2-r4-s3.2, tkt-5521; 8 of 8 tokens used"
    panel.input_reserve.value = 17
    assert panel.access.message.startswith("Problem: the reserves (17 input + 4 output = 21) exceed the total")


def test_decision_announces_the_branch_and_its_reason():
    panel = decision_panel()
    assert panel.access.message.startswith("branch: needs_approval. no approval is recorded")
    panel.approved.value = True
    assert panel.access.message.startswith("branch: create.")


def test_routing_announces_the_strategy():
    panel = routing_panel()
    assert panel.access.message.startswith("strategy: select_documents. ")
    panel.largest.value = panel.largest.max
    assert panel.access.message.startswith("strategy: retrieve_within_document. ")


def test_provenance_announces_the_pack_or_the_refusal():
    panel = provenance_panel()
    assert panel.access.message.startswith("pack: man-p2-r4-s3.2, ")
    panel.floor.value = 1.0
    assert panel.access.message.startswith("refused: ")


def test_turn_announces_the_outcome_and_the_decision():
    panel = turn_panel()
    assert panel.access.message == "outcome: answered; decision: create"
    panel.approved.value = False
    assert panel.access.message == "outcome: answered; decision: needs_approval"


def test_evidence_announces_the_verdict_and_what_the_model_followed():
    panel = evidence_panel()
    assert panel.access.message == "verdict: release; region held; the careful model followed nothing planted"
    panel.model_kind.value = "gullible"
    assert panel.access.message.startswith("verdict: withhold (fact_not_in_text); ")


def test_a_panel_without_a_summary_of_its_own_announces_its_first_result_line():
    class Bare(Panel):
        kind = "bare"

        def _render(self) -> None:
            self.result.value = "<p><b>verdict:</b> fine</p><p>details</p>"

    bare = Bare()
    bare.widget = bare._root([])
    bare.refresh()
    assert bare.access.message == "verdict: fine"


# --- colour: never the only signal, and readable in both themes ---------------------------------


def test_contrast_matches_the_wcag_reference_values():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the classic just-failing grey
    assert contrast("#ffffff", OKABE_ITO["orange"]) < 4.5  # white on orange is what text_colour must avoid
    assert text_colour(OKABE_ITO["orange"]) == "#000000" and text_colour(OKABE_ITO["blue"]) == "#ffffff"


@pytest.mark.parametrize("word", sorted(STYLES))
def test_every_badge_reads_at_4_5_to_1_and_says_its_word_and_symbol(word):
    background, symbol = STYLES[word]
    html = badge(word)
    found = re.search(r";color:(#[0-9a-fA-F]{6})", html)
    assert found is not None
    ink = found.group(1)
    assert contrast(ink, background) >= 4.5, f"{word}: {ink} on {background}"
    assert f"{symbol} {word}" in html  # the meaning without the colour


def test_badge_colours_come_from_the_colour_blind_safe_palette():
    assert {colour.upper() for colour, _ in STYLES.values()} <= {c.upper() for c in OKABE_ITO.values()}


@pytest.mark.parametrize("kind", PANELS)
def test_no_panel_text_sets_a_colour_of_its_own_outside_a_badge(kind):
    """Plain text takes the theme's colour, so it keeps its contrast in the light and the dark theme alike."""
    panel = PANELS[kind]()
    html = panel.result.value
    without_badges = re.sub(r'<span class="botie-badge[^"]*" style="[^"]*">', "", html)
    found = re.search(r"(?<![-\w])color\s*:", without_badges)
    assert not found, f"{kind}: a fixed text colour in {without_badges[:300]}"
