"""`make present LESSON=NN`: Voila shows every lesson's panels without code; they respond, offline, in both themes.

Each lesson that displays a panel is served the way ``make present`` serves it
(one Voila per lesson). On the page: no error, every panel drawn, no code,
one control operated with the result it promises, and axe-core's WCAG A/AA
rules passing in every panel in the light theme; one lesson (the one with the
most status badges) is reloaded with Voila's ``?theme=dark`` and scanned again
in the dark theme (every page load runs the notebook, so once is what the
time allows). Contrast is checked here: in
JupyterLab's own page axe-core treats all notebook text as out of its reach
(its colour-contrast rule comes back inapplicable), so the themes are scanned
where it can see them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import a11y, jlab, servers
from .servers import ROOT

DARK_LESSON = "02a_relevance"
LESSONS = [p for p in sorted((ROOT / "notebooks").glob("*.ipynb")) if jlab.expected_panels(p) > 0]


def test_there_are_lessons_with_panels_to_present():
    assert LESSONS, "no learner notebook in notebooks/ displays a panel: run `make learner`"


def _open(page, url: str) -> None:
    page.goto(url, timeout=120_000)
    page.locator(".botie-panel").first.wait_for(state="visible", timeout=120_000)


def _scan(page, lesson: Path, theme: str) -> None:
    found = a11y.scan(page)
    print(f"\naxe, {lesson.stem}, Voila {theme}:\n{a11y.table(found)}")
    bad = a11y.blocking(found)
    assert not bad, f"{lesson.name} in Voila ({theme}): critical or serious violations:\n{a11y.report(bad)}"


@pytest.mark.parametrize("lesson", [pytest.param(p, id=p.stem) for p in LESSONS])
def test_present_serves_the_panels_without_code_they_respond_and_pass_axe(
    lesson: Path, voila_ready, browser, page, workshop, scratch
):
    server = servers.voila(workshop / lesson.name, scratch)
    try:
        server.start()
    except RuntimeError as exc:
        pytest.fail(f"Voila did not start: {exc}")
    try:
        _open(page, server.base + "/")
        assert "There was an error when executing cell" not in page.inner_text("body")
        assert page.locator(".botie-panel").count() == jlab.expected_panels(lesson)
        assert page.locator(".jp-CodeCell .jp-InputArea, .cm-editor, .CodeMirror").count() == 0, "code is showing"
        _scan(page, lesson, "light")
        panel = page.locator(".botie-panel").first
        panel.scroll_into_view_if_needed()
        print(f"Voila {lesson.name}: {jlab.panel_kind(panel)}: {jlab.operate(panel)}")
        assert jlab.error_outputs(page) == []

        if lesson.stem == DARK_LESSON:
            _open(page, server.base + "/?theme=dark")
            dark = page.evaluate("() => document.body.dataset.jpThemeLight")
            assert dark == "false", f"Voila did not switch to the dark theme (data-jp-theme-light={dark!r})"
            _scan(page, lesson, "dark")
            assert jlab.error_outputs(page) == []
        assert browser.external == [], f"Voila's page tried to reach the network: {browser.external}"
    finally:
        server.stop()
