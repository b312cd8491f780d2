"""`make present`: Voila shows a lesson's panels without its code, and they respond, offline."""

from __future__ import annotations

import pytest

from . import jlab, servers
from .servers import ROOT


def _lesson():
    """Lesson 01 if it exists, else the first learner notebook that displays a panel."""
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    preferred = [p for p in notebooks if p.name.startswith("01_")] + notebooks
    return next((p for p in preferred if jlab.expected_panels(p) > 0), None)


def test_present_serves_a_panel_without_code_and_it_responds(voila_ready, browser, page, workshop, scratch):
    lesson = _lesson()
    assert lesson is not None, "no learner notebook in notebooks/ displays a panel: run `make learner`"
    server = servers.voila(workshop / lesson.name, scratch)
    try:
        server.start()
    except RuntimeError as exc:
        pytest.fail(f"Voila did not start: {exc}")
    try:
        page.goto(server.base + "/", timeout=120_000)
        panel = page.locator(".botie-panel").first
        panel.wait_for(state="visible", timeout=120_000)
        assert "There was an error when executing cell" not in page.inner_text("body")
        assert page.locator(".botie-panel").count() == jlab.expected_panels(lesson)
        assert page.locator(".jp-CodeCell .jp-InputArea, .cm-editor, .CodeMirror").count() == 0, "code is showing"
        panel.scroll_into_view_if_needed()
        print(f"Voila {lesson.name}: {jlab.panel_kind(panel)}: {jlab.operate(panel)}")
        assert jlab.error_outputs(page) == []
        assert browser.external == [], f"Voila's page tried to reach the network: {browser.external}"
    finally:
        server.stop()
