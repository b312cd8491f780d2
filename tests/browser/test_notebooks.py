"""Every learner notebook, in a real browser: Restart Kernel and Run All, no errors, every panel drawn and alive.

Notebooks are discovered (notebooks/*.ipynb), so a lesson that lands later is
covered without touching this file. For each one: open it in a fresh
JupyterLab workspace, run it from a new kernel through the Kernel menu, and
check that no output is an error, that as many ``botie-panel`` elements are
drawn as the notebook displays panels, and that operating one control per
panel changes what the panel says in the way that panel promises.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import jlab
from .servers import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_learner_notebooks_to_run():
    """An empty notebooks/ would parametrize the test below into nothing: say so as a failure."""
    assert NOTEBOOKS, f"no learner notebooks in {ROOT / 'notebooks'}: run `make learner`"


@pytest.mark.parametrize("notebook", [pytest.param(p, id=p.stem) for p in NOTEBOOKS])
def test_notebook_runs_clean_in_jupyterlab_and_its_panels_respond(notebook: Path, lab, browser, page):
    jlab.open_notebook(page, lab.base, lab.token, notebook.name)
    seconds = jlab.restart_and_run_all(page)
    try:
        errors = jlab.error_outputs(page)
        assert not errors, f"{notebook.name}: error output after Run All ({seconds:.0f} s):\n" + "\n---\n".join(errors)

        expected = jlab.expected_panels(notebook)
        panels = page.locator(".botie-panel")
        assert panels.count() == expected, (
            f"{notebook.name}: {panels.count()} botie-panel elements drawn, the notebook displays {expected}")

        done = []
        for index in range(expected):
            panel = panels.nth(index)
            panel.scroll_into_view_if_needed()
            done.append(f"{jlab.panel_kind(panel)}: {jlab.operate(panel)}")
        print(f"{notebook.name}: ran in {seconds:.1f} s; " + "; ".join(done or ["no panels"]))

        assert jlab.log_console_count(page) == 0, (
            f"{notebook.name}: JupyterLab logged messages outside any cell (a widget callback raised?)")
        assert jlab.error_outputs(page) == [], "operating the panels produced error output"
        assert jlab.visible_toasts(page) == [], "a notification toast is covering the lesson"
        assert browser.external == [], f"the page tried to reach the network: {browser.external}"
    finally:
        jlab.shut_down_kernels(page, lab.base, lab.token)
