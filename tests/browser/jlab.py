"""Drive JupyterLab and the botie panels the way a learner does: menus, clicks, keys.

The panels' DOM contract (botie/ui/__init__.py): each panel root has the
classes ``botie-panel`` and ``botie-<kind>-panel``; its outcome widget has
``botie-result`` and reads as plain words (``branch: needs_approval``, a
candidate id with a status word such as ``over_budget``); every control has
``botie-control-<name>``. A problem drawn instead of a result has
``botie-problem``.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import Locator, Page, expect

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
STATUS_WORDS = ("selected", "not_permitted", "over_budget", "not_considered")
_STATUS = re.compile(r"\b(" + "|".join(STATUS_WORDS) + r")\b")
_BRANCH = re.compile(r"branch:\s*([a-z_]+)")
# A cell that builds a panel: selection_panel(...), decision_panel(...), SomethingPanel(...).
_PANEL_SOURCE = re.compile(r"\b\w+_panel\s*\(|\b[A-Z]\w*Panel\s*\(")
# An error output once rendered (JupyterLab shows errors with the stderr mime type) ...
_ERROR_TEXT = re.compile(r"Traceback|^\w*(Error|Exception)\b|^Cell In\[\d+\]", re.M)
# ... and a widget that could not be drawn.
_WIDGET_FAILURE = re.compile(r"Error displaying widget|Error rendering|Failed to (load|display) (model|widget)")

RUN_TIMEOUT_S = 240


# --- what a notebook should show ------------------------------------------------------


def expected_panels(notebook: Path) -> int:
    """How many panels the notebook displays: widget displays stored by cells that build a panel.

    Learner notebooks are committed executed (nbval), so each panel display is a
    stored widget-view output. A cell tagged ``panel`` counts even if its source
    is unusual; a panel cell with no stored output counts once.
    """
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    total = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        tagged = "panel" in cell.get("metadata", {}).get("tags", [])
        if not (tagged or _PANEL_SOURCE.search(source)):
            continue
        views = sum(WIDGET_VIEW in out.get("data", {}) for out in cell.get("outputs", []))
        total += views or (1 if tagged or not cell.get("outputs") else 0)
    return total


# --- JupyterLab --------------------------------------------------------------------------


def open_notebook(page: Page, base: str, token: str, path: str) -> None:
    """Open ``path`` in a fresh workspace and wait until its kernel is ready."""
    workspace = f"botie-{uuid.uuid4().hex[:12]}"
    page.goto(f"{base}/lab/workspaces/{workspace}/tree/{quote(path)}?reset&token={token}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=120_000)
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status=idle]", timeout=120_000)


def restart_and_run_all(page: Page) -> float:
    """Kernel menu -> Restart Kernel and Run All Cells -> Restart; wait for the run; return its seconds."""
    page.locator(".lm-MenuBar-item", has_text="Kernel").click()
    page.locator(".lm-Menu-item[data-command='runmenu:restart-and-run-all']").click()
    page.locator(".jp-Dialog .jp-mod-accept").click()
    start = time.monotonic()
    # Every code cell is queued ([*]) once the new kernel is up ...
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].some(p => p.textContent.includes('*'))",
        timeout=120_000, polling="raf")
    # ... and the run is over when nothing is queued and the kernel is idle, twice in a row.
    page.wait_for_function(
        """() => {
            const queued = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                .some(p => p.textContent.includes('*'));
            const ind = document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator');
            const idle = !queued && ind && ind.getAttribute('data-status') === 'idle';
            const was = window.__botieIdle === true;
            window.__botieIdle = idle;
            return idle && was;
        }""",
        timeout=RUN_TIMEOUT_S * 1000, polling=250)
    return time.monotonic() - start


def error_outputs(page: Page) -> list[str]:
    """Every error in the page: tracebacks, widgets that failed to draw, panels showing a problem.

    Printed text that merely names an error (a lesson showing a BudgetError on
    purpose prints it) is stdout, and is not counted.
    """
    stderr = page.evaluate("""() => [...document.querySelectorAll(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')].map(e => e.innerText)""")
    outputs = page.evaluate("() => [...document.querySelectorAll('.jp-OutputArea-output')].map(e => e.innerText)")
    problems = page.locator(".botie-problem").all_inner_texts()
    found = [t for t in stderr if _ERROR_TEXT.search(t)]
    found += [t for t in outputs if _WIDGET_FAILURE.search(t)]
    found += [f"panel problem: {t}" for t in problems]
    return [t.strip()[:600] for t in found]


def stderr_outputs(page: Page) -> list[str]:
    texts = page.evaluate("""() => [...document.querySelectorAll(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')].map(e => e.innerText)""")
    return [t.strip()[:300] for t in texts]


def log_console_count(page: Page) -> int:
    """Messages JupyterLab logged for this notebook outside any cell (e.g. a widget callback that raised)."""
    text = page.evaluate("""() => { const e = document.querySelector('.jp-LogConsoleStatusItem');
                                    return e ? e.textContent : ''; }""")
    digits = re.findall(r"\d+", text or "")
    return int(digits[0]) if digits else 0


def visible_toasts(page: Page) -> list[str]:
    return page.evaluate("() => [...document.querySelectorAll('.Toastify__toast')].map(t => t.innerText)")


def shut_down_kernels(page: Page, base: str, token: str) -> None:
    sessions = page.request.get(f"{base}/api/sessions?token={token}").json()
    for session in sessions:
        page.request.delete(f"{base}/api/sessions/{session['id']}?token={token}")


# --- panels ---------------------------------------------------------------------------------


def panel_kind(panel: Locator) -> str:
    classes = (panel.get_attribute("class") or "").split()
    kinds = [c[len("botie-"):-len("-panel")] for c in classes
             if c.startswith("botie-") and c.endswith("-panel") and c != "botie-panel"]
    return kinds[0] if kinds else "unknown"


def result_of(panel: Locator) -> Locator:
    return panel.locator(".botie-result").first


def problems_in(panel: Locator) -> list[str]:
    return [t.strip() for t in panel.locator(".botie-problem").all_inner_texts()]


def branch_of(panel: Locator) -> str | None:
    found = _BRANCH.search(result_of(panel).inner_text())
    return found.group(1) if found else None


def statuses_of(panel: Locator) -> dict[str, str]:
    """Candidate id -> status word, read from the result's table rows (or its lines)."""
    rows = result_of(panel).evaluate("""el => [...el.querySelectorAll('tr')].map(tr => ({
            id: (tr.querySelector('code') || {}).innerText || null,
            cells: [...tr.querySelectorAll('td')].map(td => td.innerText.trim())}))""")
    found: dict[str, str] = {}
    for row in rows:
        status = next((m.group(1) for c in row["cells"] if (m := _STATUS.search(c))), None)
        ident = row["id"] or next((c for c in row["cells"] if c and not c.isdigit()), None)
        if status and ident:
            found[ident.strip()] = status
    if not found:
        for line in result_of(panel).inner_text().splitlines():
            m = _STATUS.search(line)
            words = [w for w in line.split() if not w.isdigit()]
            if m and words:
                found[words[0]] = m.group(1)
    return found


def _changed(result: Locator, before: str, timeout: float = 10_000) -> str:
    expect(result).not_to_have_text(before, timeout=timeout)
    return result.inner_text()


def lower_total_until_over_budget(panel: Locator) -> str:
    """Selection panel: press Left on the total slider until a selected record turns over_budget."""
    before = statuses_of(panel)
    chosen = [i for i, s in before.items() if s == "selected"]
    assert chosen, f"the selection panel starts with nothing selected: {before}"
    control = panel.locator(".botie-control-total").first
    handle = control.locator(".noUi-handle, input").first
    handle.focus()
    result = result_of(panel)
    for step in range(1, 80):
        shown = result.inner_text()
        if handle.get_attribute("role") == "slider":
            handle.press("ArrowLeft")
        else:  # a number box: type one less and commit
            handle.fill(str(int(handle.input_value()) - 1))
            handle.press("Enter")
        _changed(result, shown)
        assert not problems_in(panel), f"lowering the total showed a problem: {problems_in(panel)}"
        now = statuses_of(panel)
        flipped = [i for i in chosen if now.get(i) == "over_budget"]
        if flipped:
            return f"{step} x Left on total: {flipped[0]} selected -> over_budget"
    raise AssertionError(f"lowering the total never made a selected record over_budget: {statuses_of(panel)}")


def switch_approval_off(panel: Locator) -> str:
    """Decision panel: with approval on the branch is create; switching it off gives needs_approval."""
    box = panel.locator(".botie-control-approved input[type=checkbox]").first
    result = result_of(panel)
    if not box.is_checked():
        shown = result.inner_text()
        box.click()
        _changed(result, shown)
    assert branch_of(panel) == "create", f"with approval on, expected branch create: {result.inner_text()!r}"
    shown = result.inner_text()
    box.click()
    _changed(result, shown)
    assert branch_of(panel) == "needs_approval", f"approval off should need approval: {result.inner_text()!r}"
    assert not problems_in(panel), problems_in(panel)
    return "approved off: create -> needs_approval"


def _nudge(control: Locator) -> None:
    """Change one control like a person would: click, pick another option, press a key, type."""
    target = control.locator("input[type=checkbox], .noUi-handle, select, button:not(.mod-active), "
                             "input[type=radio]:not(:checked), input, textarea").first
    tag = target.evaluate("e => e.tagName.toLowerCase() + ':' + (e.type || e.getAttribute('role') || '')")
    if tag.startswith("select"):
        values = target.evaluate("e => [...e.options].map(o => o.value)")
        current = target.input_value()
        target.select_option(next(v for v in values if v != current))
    elif tag.endswith(":slider"):
        target.focus()
        target.press("ArrowLeft")
    elif tag in ("input:text", "textarea:textarea", "input:number"):
        target.focus()
        target.press("End")
        target.type("1")
        target.press("Enter")
    else:
        target.click()


def any_control_changes_result(panel: Locator) -> str:
    """A panel of a kind this file does not know: some control must change the result text."""
    result = result_of(panel)
    controls = panel.locator("[class*='botie-control-']")
    tried = []
    for index in range(controls.count()):
        control = controls.nth(index)
        name = next(c for c in (control.get_attribute("class") or "").split() if c.startswith("botie-control-"))
        shown = result.inner_text()
        try:
            _nudge(control)
            _changed(result, shown, timeout=5_000)
        except AssertionError:
            tried.append(name)
            continue
        assert not problems_in(panel), f"{name} showed a problem: {problems_in(panel)}"
        return f"{name} changed the result"
    raise AssertionError(f"no control changed the result text (tried {tried})")


#: kind -> how to operate one control of that panel and check the outcome it should have.
INTERACTIONS = {
    "selection": lower_total_until_over_budget,
    "decision": switch_approval_off,
}


def operate(panel: Locator) -> str:
    return INTERACTIONS.get(panel_kind(panel), any_control_changes_result)(panel)
