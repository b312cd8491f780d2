"""The concept check in the system Chromium: each question a named radio group, answered with the mouse and
the keyboard, the result announced, before and after shown in words, and axe-core finds nothing serious.

The widget is served by Voila (the way ``make present`` serves a lesson) from a small notebook that answers
the first check for the learner, then shows the second. With ``BOTIE_CONCEPT_SHOTS`` set to a folder, the
widget after saving is photographed there (the guide's and the issue's screenshot).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest

from botie.lessons.exercises.concepts import CONCEPTS

from . import a11y, servers

IDS = list(CONCEPTS)
#: The learner's first check: right on every third question. The second: right on all but the last two.
BEFORE_RIGHT = {cid for i, cid in enumerate(IDS) if i % 3 == 0}
AFTER_MISSED = IDS[-2:]


def _notebook(folder: Path, progress: Path) -> Path:
    setup = f"""import os
os.environ["BOTIE_PROGRESS_FILE"] = {json.dumps(str(progress))}
from botie.lessons import concept_check
from botie.lessons.exercises.concept_check import answer_check
from botie.lessons.exercises.concepts import CONCEPTS

right = {sorted(BEFORE_RIGHT)!r}
answer_check("before", {{c: q.question.answer if c in right else (q.question.answer + 1) % len(q.question.options)
                        for c, q in CONCEPTS.items()}})"""
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(setup), nbformat.v4.new_code_cell('concept_check("after")')]
    )
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / "concept_check_after.ipynb"
    nbformat.write(nb, path)
    return path


def _answer(page) -> None:
    """The key with the mouse, except the last two questions; the first question by keyboard alone."""
    for n, cid in enumerate(IDS, start=1):
        q = CONCEPTS[cid].question
        group = page.locator(f"[role='radiogroup'][aria-label='Question {n} of {len(IDS)}']")
        assert group.count() == 1, f"question {n} is not a named radio group"
        choice = q.answer if cid not in AFTER_MISSED else (q.answer + 1) % len(q.options)
        if n == 1:
            group.locator("input[type='radio']").first.focus()
            for _ in range(choice):
                page.keyboard.press("ArrowDown")
        else:
            group.get_by_label(q.options[choice], exact=True).check()


@pytest.mark.slow
def test_the_second_check_is_answered_from_the_keyboard_and_shows_before_and_after(voila_ready, browser, page, scratch):
    folder = scratch / "concepts"
    folder.mkdir(exist_ok=True)
    server = servers.voila(_notebook(folder, folder / "botie-progress.json"), scratch)
    try:
        server.start()
    except RuntimeError as exc:
        pytest.fail(f"Voila did not start: {exc}")
    try:
        page.goto(server.base + "/", timeout=120_000)
        widget = page.locator(".botie-concepts")
        widget.wait_for(state="visible", timeout=120_000)
        _answer(page)
        save = widget.get_by_role("button", name="Save my answers")
        save.focus()
        page.keyboard.press("Enter")
        result = widget.locator(".botie-result")
        result.get_by_text("ideas to revisit").wait_for(timeout=30_000)
        text = result.inner_text()
        n = len(IDS)
        assert f"Right before: {len(BEFORE_RIGHT)} of {n}; after: {n - 2} of {n}. 2 ideas to revisit." in text
        for cid in AFTER_MISSED:
            assert CONCEPTS[cid].revisit in text
        assert "✗ missed" in text and "✓ right" in text  # words and symbols, not colour alone
        spoken = widget.locator(".botie-announce")
        assert spoken.get_attribute("role") == "status" and "2 ideas to revisit" in spoken.inner_text()
        shots = os.environ.get("BOTIE_CONCEPT_SHOTS")
        if shots:
            result.scroll_into_view_if_needed()
            result.screenshot(path=str(Path(shots) / "learner-before-after.png"))
            page.screenshot(path=str(Path(shots) / "learner-whole-page.png"), full_page=True)
        found = a11y.scan(page, ".botie-concepts")
        print(f"\naxe, the concept check after saving:\n{a11y.table(found)}")
        assert not a11y.blocking(found), a11y.report(a11y.blocking(found))
        assert browser.external == [], f"the page tried to reach the network: {browser.external}"
    finally:
        server.stop()
