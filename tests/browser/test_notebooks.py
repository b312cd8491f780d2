"""Every learner notebook, in a real browser: Restart Kernel and Run All, then three checks on the page it left.

Notebooks are discovered (notebooks/*.ipynb), so a lesson that lands later is
covered without touching this file. Each notebook is opened in a fresh
JupyterLab workspace and run once from a new kernel through the Kernel menu
(the ``ran`` fixture); then, on that page:

- no output is an error, as many ``botie-panel`` elements are drawn as the
  notebook displays panels, and operating one control per panel changes what
  the panel says in the way that panel promises;
- axe-core finds no critical or serious WCAG 2.1 A/AA violation in any panel;
- Tab alone reaches a panel control, which names itself and shows its focus,
  and a key press changes it, which changes the result and the announcement.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from . import a11y, jlab
from .servers import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

#: panel kind -> (the control Tab should reach, the key that changes it).
KEYBOARD = {
    "selection": ("total", "End"),
    "decision": ("approved", "Space"),
    "routing": ("largest", "End"),
    "provenance": ("floor", "End"),
    "turn": ("approved", "Space"),
    "evidence": ("escaped", "Space"),
}


def test_there_are_learner_notebooks_to_run():
    """An empty notebooks/ would parametrize the tests below into nothing: say so as a failure."""
    assert NOTEBOOKS, f"no learner notebooks in {ROOT / 'notebooks'}: run `make learner`"


class Ran:
    """A notebook after Restart and Run All: its page and how long the run took."""

    def __init__(self, notebook: Path, page, seconds: float) -> None:
        self.notebook, self.page, self.seconds = notebook, page, seconds


@pytest.fixture(scope="module", params=[pytest.param(p, id=p.stem) for p in NOTEBOOKS])
def ran(request: pytest.FixtureRequest, lab, browser) -> Iterator[Ran]:
    notebook: Path = request.param
    page = browser.context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    try:
        jlab.open_notebook(page, lab.base, lab.token, notebook.name)
        yield Ran(notebook, page, jlab.restart_and_run_all(page))
    finally:
        jlab.shut_down_kernels(page, lab.base, lab.token)
        page.close()


@pytest.fixture
def on_page(ran: Ran, request: pytest.FixtureRequest) -> Ran:
    request.node._botie_page = ran.page  # a failure saves a screenshot of this page
    return ran


def test_notebook_runs_clean_in_jupyterlab_and_its_panels_respond(on_page: Ran, browser):
    page, name = on_page.page, on_page.notebook.name
    errors = jlab.error_outputs(page)
    assert not errors, f"{name}: error output after Run All ({on_page.seconds:.0f} s):\n" + "\n---\n".join(errors)

    expected = jlab.expected_panels(on_page.notebook)
    panels = page.locator(".botie-panel")
    assert panels.count() == expected, (
        f"{name}: {panels.count()} botie-panel elements drawn, the notebook displays {expected}"
    )

    done = []
    for index in range(expected):
        panel = panels.nth(index)
        panel.scroll_into_view_if_needed()
        done.append(f"{jlab.panel_kind(panel)}: {jlab.operate(panel)}")
    print(f"{name}: ran in {on_page.seconds:.1f} s; " + "; ".join(done or ["no panels"]))

    assert jlab.log_console_count(page) == 0, (
        f"{name}: JupyterLab logged messages outside any cell (a widget callback raised?)"
    )
    assert jlab.error_outputs(page) == [], "operating the panels produced error output"
    assert jlab.visible_toasts(page) == [], "a notification toast is covering the lesson"
    assert browser.external == [], f"the page tried to reach the network: {browser.external}"


def test_panels_have_no_critical_or_serious_axe_violation(on_page: Ran):
    found = a11y.scan(on_page.page)
    print(f"\naxe, {on_page.notebook.stem}, JupyterLab light:\n{a11y.table(found)}")
    bad = a11y.blocking(found)
    assert not bad, f"{on_page.notebook.name}: axe-core found critical or serious violations:\n{a11y.report(bad)}"


def test_keyboard_alone_reaches_a_control_and_changes_the_result(on_page: Ran):
    page = on_page.page
    panels = page.locator(".botie-panel")
    if panels.count() == 0:
        pytest.skip(f"{on_page.notebook.name} displays no panel")
    for index in range(panels.count()):
        panel = panels.nth(index)
        kind = jlab.panel_kind(panel)
        wanted, key = KEYBOARD[kind]
        panel.scroll_into_view_if_needed()
        presses, focus = a11y.tab_to(page, panel, wanted)
        assert focus["label"].strip(), f"{kind}: the focused {wanted} control has no accessible name: {focus}"
        assert focus["outline"] or focus["shadow"], f"{kind}: the focus on {wanted} is not visible: {focus}"
        result, announced = jlab.result_of(panel), a11y.announcement(panel)
        shown, said = result.inner_text(), announced.inner_text()
        if key == "End" and focus.get("atMax"):
            key = "Home"  # an earlier test left the slider at its maximum: move it the other way
        page.keyboard.press(key)
        jlab.wait_changed(result, shown, what=f"pressing {key} on {wanted}")
        jlab.wait_changed(announced, said, what=f"pressing {key} on {wanted} (the live region)")
        assert not jlab.problems_in(panel), jlab.problems_in(panel)
        reached = f"{presses} x Tab to {focus['label']!r} ({focus['role'] or focus['tag']})"
        print(
            f"{on_page.notebook.stem} {kind}: {reached}, {key} -> the result changed and was announced: "
            f"{announced.inner_text()!r}"
        )
