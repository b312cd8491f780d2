"""Figures for lessons 02, 03 and 06: drawn from core results, the same bytes every time."""

from __future__ import annotations

import pytest

from botie.context.routing import plan_context
from botie.context.tokens import compare_density
from botie.lessons.content.adversarial import compare_designs
from botie.lessons.content.loading import compare_loading
from botie.lessons.content.scenarios import attachments
from botie.ui._common import figure_png
from botie.ui.evidence_figures import as_image, density_figure, loading_figure, routing_figure, slice_figure


@pytest.fixture(scope="module")
def inputs():
    return {
        "density": compare_density({"prose": "Tighten the nuts evenly.", "parts": "P2-GN-M12-18, P2-GN-M16-24"}),
        "routing": plan_context(attachments(41, 33_500, 100_000), ceiling=900_000),
        "loading": compare_loading(trials=10),
        "slice": compare_designs(),
    }


DRAW = {"density": density_figure, "routing": routing_figure, "loading": loading_figure, "slice": slice_figure}


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
