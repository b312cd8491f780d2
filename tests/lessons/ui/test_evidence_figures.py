"""Figures for lessons 02, 03, 04 and 06: drawn from core results, the same bytes every time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from botie.context.conversation import Conversation
from botie.context.routing import plan_context
from botie.context.tokens import compare_density
from botie.lessons import load_evidence_scenario, load_scripted_model
from botie.lessons.content.adversarial import compare_designs
from botie.lessons.content.loading import compare_loading
from botie.lessons.content.scenarios import attachments
from botie.lessons.ui._common import figure_png
from botie.lessons.ui.evidence_figures import (
    alert_figure,
    as_image,
    density_figure,
    loading_figure,
    routing_figure,
    slice_figure,
)


@pytest.fixture(scope="module")
def inputs():
    return {
        "density": compare_density({"prose": "Tighten the nuts evenly.", "parts": "P2-GN-M12-18, P2-GN-M16-24"}),
        "routing": plan_context(attachments(41, 33_500, 100_000), ceiling=900_000),
        "loading": compare_loading(trials=10),
        "slice": compare_designs(),
        "alert": growing_requests(turns=7),
    }


def growing_requests(*, turns: int, ceiling: int = 1_000):
    """Lesson 04, section 3: the seal-replacement question asked again and again, each answer carried forward."""
    scenario = load_evidence_scenario()
    by_id = {r.id: r for r in scenario.records}
    question = scenario.questions[3].question
    tickets = [by_id[i] for i in scenario.select(3).selected_ids]
    model, conversation, requests = load_scripted_model(), Conversation(ceiling=ceiling, answer_allowance=150), []
    for _ in range(turns):
        request = conversation.ask(question, tickets).request
        requests.append(request)
        conversation.add_turn(question, model.reply(request).answer)
    return requests


DRAW: dict[str, Callable[[Any], Any]] = {
    "alert": alert_figure,
    "density": density_figure,
    "routing": routing_figure,
    "loading": loading_figure,
    "slice": slice_figure,
}


@pytest.mark.parametrize("name", sorted(DRAW))
def test_each_figure_is_a_stable_png(inputs, name):
    first = figure_png(DRAW[name](inputs[name]))
    assert first.startswith(b"\x89PNG") and first == figure_png(DRAW[name](inputs[name]))


def test_different_numbers_draw_a_different_picture(inputs):
    other = plan_context(attachments(4, 20_000, 600_000), ceiling=900_000)
    assert figure_png(routing_figure(inputs["routing"])) != figure_png(routing_figure(other))


def test_as_image_wraps_the_png_for_display(inputs):
    image = as_image(density_figure(inputs["density"]))
    assert image.data.startswith(b"\x89PNG") and image.format == "png"


def test_the_alert_figure_says_each_turns_share_and_the_first_alert_in_words(inputs):
    fig = alert_figure(inputs["alert"])
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.texts]
    assert labels[0] == "41.0%\nok" and labels[4] == "66.6%\nok" and labels[5] == "73.0%\nALERT"
    assert ax.get_title() == "Share of the 1,000-token ceiling, turn by turn: turn 6 is the first to reach the alert"
    assert "alert at 70% of the ceiling" in [t.get_text() for t in fig.legends[0].get_texts()]


def test_the_alert_figure_follows_the_numbers(inputs):
    roomy = growing_requests(turns=7, ceiling=2_000)
    assert "no turn reaches the alert" in alert_figure(roomy).axes[0].get_title()
    assert figure_png(alert_figure(roomy)) != figure_png(alert_figure(inputs["alert"]))
