"""Drive JupyterLab and the botie panels the way a learner does: menus, clicks, keys.

The panels' DOM contract (botie/lessons/ui/__init__.py): each panel root has the
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

from playwright.sync_api import Locator, Page

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
STATUS_WORDS = (
    "selected",
    "not_permitted",
    "over_budget",
    "not_considered",  # botie.select
    "not_yet_effective",
    "superseded",
    "duplicate",
    "below_floor",
    "incomplete",
)  # botie.select_evidence
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


# The kernel is ready when both the toolbar indicator and the status bar say idle, and have
# for a moment: restarting a kernel whose websocket is still being set up trips a race in
# jupyter_server (jupyter-server/jupyter_server#1265) that can leave the page disconnected.
_KERNEL_READY = """(statusBar) => {
    const ind = document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator');
    const bar = !statusBar
        || [...document.querySelectorAll('.jp-StatusBar-Item')].some(e => /\\|\\s*Idle\\s*$/.test(e.textContent));
    const ok = bar && ind && ind.getAttribute('data-status') === 'idle';
    if (!ok) { window.__botieReadySince = null; return false; }
    window.__botieReadySince = window.__botieReadySince || Date.now();
    return Date.now() - window.__botieReadySince >= 1500;
}"""


def open_notebook(page: Page, base: str, token: str, path: str) -> None:
    """Open ``path`` in a fresh workspace and wait until its kernel is ready."""
    workspace = f"botie-{uuid.uuid4().hex[:12]}"
    open_url(page, f"{base}/lab/workspaces/{workspace}/tree/{quote(path)}?reset&token={token}")


def open_url(page: Page, url: str, *, status_bar: bool = True) -> None:
    """Open a notebook page (JupyterLab, or Notebook 7 with ``status_bar=False``: it has none); wait for its kernel."""
    page.goto(url)
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=120_000)
    page.wait_for_function(_KERNEL_READY, arg=status_bar, timeout=120_000, polling=100)


# Watches the page for a queued cell ([*]) from the moment it is installed, so a
# short run cannot slip between two polls.
_WATCH_QUEUE = """() => {
    window.__botieQueued = false;
    window.__botieIdle = false;
    const look = () => {
        if ([...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].some(p => p.textContent.includes('*')))
            window.__botieQueued = true;
    };
    if (window.__botieObserver) window.__botieObserver.disconnect();
    window.__botieObserver = new MutationObserver(look);
    window.__botieObserver.observe(document.body, {subtree: true, childList: true, characterData: true});
}"""

# The run is over when nothing is queued and the kernel is idle, at two polls in a row.
_RUN_OVER = """() => {
    const queued = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
        .some(p => p.textContent.includes('*'));
    const ind = document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator');
    const idle = !queued && ind && ind.getAttribute('data-status') === 'idle';
    const was = window.__botieIdle === true;
    window.__botieIdle = idle;
    return idle && was;
}"""


def notebook_state(page: Page) -> str:
    """The prompts and the kernel status, for a failure message."""
    return page.evaluate("""() => {
        const ind = document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator');
        const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(p => p.textContent.trim());
        return `kernel ${ind ? ind.getAttribute('data-status') : '?'}; prompts ${prompts.join(' ')}`;
    }""")


def _ask_for_restart_and_run_all(page: Page) -> None:
    """Kernel menu -> Restart Kernel and Run All Cells… -> Restart, like a person (the item must be enabled)."""
    item = page.locator(".lm-Menu-item[data-command='runmenu:restart-and-run-all']")
    for _ in range(20):
        page.locator(".lm-MenuBar-item", has_text="Kernel").click()
        item.wait_for(state="visible")
        if "lm-mod-disabled" not in (item.get_attribute("class") or ""):
            break
        page.keyboard.press("Escape")  # the kernel is not ready for it yet
        page.wait_for_timeout(500)
    item.click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(state="visible")
    assert "Restart" in dialog.inner_text(), f"unexpected dialog: {dialog.inner_text()!r}"
    dialog.locator(".jp-mod-accept").click()
    dialog.wait_for(state="detached")


def restart_and_run_all(page: Page) -> float:
    """Restart the kernel and run every cell through the Kernel menu; wait for the run; return its seconds."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    start = time.monotonic()
    for attempt in (1, 2):
        page.evaluate(_WATCH_QUEUE)
        _ask_for_restart_and_run_all(page)
        try:
            page.wait_for_function("() => window.__botieQueued === true", timeout=60_000, polling=100)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise AssertionError(f"Restart and Run All never queued a cell: {notebook_state(page)}") from None
    try:
        page.wait_for_function(_RUN_OVER, timeout=RUN_TIMEOUT_S * 1000, polling=250)
    except PlaywrightTimeout:
        raise AssertionError(f"the run did not finish within {RUN_TIMEOUT_S} s: {notebook_state(page)}") from None
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
    kinds = [
        c[len("botie-") : -len("-panel")]
        for c in classes
        if c.startswith("botie-") and c.endswith("-panel") and c != "botie-panel"
    ]
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


def wait_changed(result: Locator, before: str, timeout: float = 10_000, what: str = "the change") -> str:
    """Wait until the result's text differs from ``before``; fail if the panel never answers."""
    deadline = time.monotonic() + timeout / 1000
    while time.monotonic() < deadline:
        now = result.inner_text()
        if now != before:
            return now
        time.sleep(0.05)
    raise AssertionError(
        f"the panel's result did not change within {timeout / 1000:.0f} s after {what}; "
        f"it still reads: {before[:300]!r}"
    )


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
        handle.focus()  # again: Notebook 7 moves the focus to the active cell after a run
        if handle.get_attribute("role") == "slider":
            handle.press("ArrowLeft")
        else:  # a number box: type one less and commit
            handle.fill(str(int(handle.input_value()) - 1))
            handle.press("Enter")
        wait_changed(result, shown, what="pressing Left on total")
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
        wait_changed(result, shown, what="ticking approved")
    assert branch_of(panel) == "create", f"with approval on, expected branch create: {result.inner_text()!r}"
    shown = result.inner_text()
    box.click()
    wait_changed(result, shown, what="unticking approved")
    assert branch_of(panel) == "needs_approval", f"approval off should need approval: {result.inner_text()!r}"
    assert not problems_in(panel), problems_in(panel)
    return "approved off: create -> needs_approval"


def nudge(control: Locator) -> None:
    """Change one control like a person would: click, pick another option, press a key, type."""
    target = control.locator(
        "input[type=checkbox], .noUi-handle, select, button:not(.mod-active), "
        "input[type=radio]:not(:checked), input, textarea"
    ).first
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
            nudge(control)
            wait_changed(result, shown, timeout=5_000, what=f"changing {name}")
        except AssertionError:
            tried.append(name)
            continue
        assert not problems_in(panel), f"{name} showed a problem: {problems_in(panel)}"
        return f"{name} changed the result"
    raise AssertionError(f"no control changed the result text (tried {tried})")


def _slider_key(panel: Locator, name: str, key: str) -> None:
    handle = panel.locator(f".botie-control-{name} .noUi-handle").first
    handle.focus()
    handle.press(key)


def oversized_document_changes_the_route(panel: Locator) -> str:
    """Routing panel: pushing the largest attachment to its maximum makes the oversized guard decide."""
    result = result_of(panel)
    before = result.inner_text()
    assert "retrieve_within_document" not in before, f"the panel already starts oversized: {before[:200]!r}"
    _slider_key(panel, "largest", "End")
    after = wait_changed(result, before, what="pressing End on the largest attachment")
    assert "strategy: retrieve_within_document" in after, f"expected the oversized guard: {after[:300]!r}"
    assert not problems_in(panel), problems_in(panel)
    return "largest attachment to its maximum: strategy -> retrieve_within_document"


def later_date_supersedes_revision_4(panel: Locator) -> str:
    """Provenance panel: on 2026-04-01 revision 5 is in force, so revision 4 is superseded."""
    rev4, rev5 = "man-p2-r4-s3.2", "man-p2-r5-s3.2"
    before = statuses_of(panel)
    assert before.get(rev4) == "selected", f"{rev4} should start selected: {before}"
    result = result_of(panel)
    shown = result.inner_text()
    date = panel.locator(".botie-control-observed-on input, .botie-control-observed_on input").first
    date.fill("2026-04-01")
    date.press("Enter")
    wait_changed(result, shown, what="setting observed on to 2026-04-01")
    after = statuses_of(panel)
    assert after.get(rev4) == "superseded" and after.get(rev5) == "selected", (
        f"on 2026-04-01 expected {rev4} superseded and {rev5} selected: {after}"
    )
    return f"observed on 2026-04-01: {rev4} selected -> superseded, {rev5} not_yet_effective -> selected"


def turn_without_approval_needs_approval(panel: Locator) -> str:
    """Turn panel: the proposed inspection is created when approved, and needs approval when not."""

    def decision() -> str | None:
        found = re.search(r"decision:\s*([a-z_]+)", result_of(panel).inner_text())
        return found.group(1) if found else None

    box = panel.locator(".botie-control-approved input[type=checkbox]").first
    result = result_of(panel)
    if not box.is_checked():
        shown = result.inner_text()
        box.click()
        wait_changed(result, shown, what="ticking approved")
    assert decision() == "create", f"approved, the turn should create the job: {result.inner_text()[-400:]!r}"
    shown = result.inner_text()
    box.click()
    wait_changed(result, shown, what="unticking approved")
    assert decision() == "needs_approval", f"unapproved, it should need approval: {result.inner_text()[-400:]!r}"
    return "approved off: decision create -> needs_approval"


def pasting_lets_the_ticket_close_the_region(panel: Locator) -> str:
    """Evidence panel: with tkt-5702 sent, the escaped region holds; pasted, the ticket closes it early."""

    def set_box(name: str, ticked: bool) -> None:
        box = panel.locator(f".botie-control-{name} input[type=checkbox]").first
        if box.is_checked() != ticked:
            shown = result.inner_text()
            box.click()
            wait_changed(result, shown, what=f"{'ticking' if ticked else 'unticking'} {name}")

    result = result_of(panel)
    set_box("escaped", True)
    set_box("doc-tkt-5702", True)
    assert "closed_early" not in result.inner_text(), f"escaped, the region should hold: {result.inner_text()[:400]!r}"
    set_box("escaped", False)
    text = result.inner_text()
    assert "closed_early by tkt-5702" in text, f"pasted, tkt-5702 should close the region: {text[:400]!r}"
    assert not problems_in(panel), problems_in(panel)
    return "escaping off with tkt-5702 sent: region held -> closed early by tkt-5702"


#: kind -> how to operate one control of that panel and check the outcome it should have.
#: A panel of another kind must at least change its result when one of its controls moves.
INTERACTIONS = {
    "selection": lower_total_until_over_budget,
    "decision": switch_approval_off,
    "routing": oversized_document_changes_the_route,
    "provenance": later_date_supersedes_revision_4,
    "turn": turn_without_approval_needs_approval,
    "evidence": pasting_lets_the_ticket_close_the_region,
}


def operate(panel: Locator) -> str:
    return INTERACTIONS.get(panel_kind(panel), any_control_changes_result)(panel)
