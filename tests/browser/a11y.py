"""Accessibility checks in the browser: axe-core over the Botie panels, keyboard reach, visible focus.

axe-core comes inside the ``axe-playwright-python`` wheel (``axe.min.js``), so
the scan needs no network. It runs the WCAG 2.0/2.1 A and AA rules, limited to
the panels (``.botie-panel``): JupyterLab's own chrome is not ours to fix.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from playwright.sync_api import Locator, Page

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("critical", "serious")


@dataclass(frozen=True)
class Violation:
    """One element that breaks one rule."""

    rule: str
    impact: str
    target: str
    html: str
    summary: str


#: Tall enough for a whole panel on screen: axe checks the contrast of text it can see, and text
#: scrolled out of the notebook counts as hidden (it would pass unchecked).
SCAN_VIEWPORT = {"width": 1400, "height": 3200}


def scan(page: Page, selector: str = ".botie-panel") -> list[Violation]:
    """Every WCAG A/AA violation axe-core finds inside the elements matching ``selector``, each scrolled into view."""
    panels = page.locator(selector)
    before = page.viewport_size
    page.set_viewport_size(SCAN_VIEWPORT)
    found: list[Violation] = []
    try:
        for index in range(panels.count()):
            panel = panels.nth(index)
            panel.evaluate(
                "(el, i) => { el.dataset.botieScan = String(i); el.scrollIntoView({block: 'start'}); }", index
            )
            found += _scan_one(page, f'[data-botie-scan="{index}"]')
    finally:
        if before:
            page.set_viewport_size(before)
    return found


def _scan_one(page: Page, selector: str) -> list[Violation]:
    from axe_playwright_python.sync_playwright import Axe

    options = {"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]}
    results = Axe().run(page, context={"include": [[selector]]}, options=options)
    found = []
    for violation in results.response["violations"]:
        for node in violation["nodes"]:
            found.append(
                Violation(
                    rule=violation["id"],
                    impact=node.get("impact") or violation.get("impact") or "unknown",
                    target=" ".join(str(t) for t in node.get("target", [])),
                    html=node.get("html", "")[:160],
                    summary=(node.get("failureSummary") or "").replace("\n", " ")[:240],
                )
            )
    return found


def blocking(violations: list[Violation]) -> list[Violation]:
    return [v for v in violations if v.impact in BLOCKING]


def table(violations: list[Violation]) -> str:
    """rule, impact, count: one line per (rule, impact), most serious first."""
    if not violations:
        return "no violations"
    order = {"critical": 0, "serious": 1, "moderate": 2, "minor": 3}
    counts = Counter((v.rule, v.impact) for v in violations)
    lines = [f"{'rule':<28} {'impact':<9} count"]
    for (rule, impact), n in sorted(counts.items(), key=lambda kv: (order.get(kv[0][1], 9), kv[0][0])):
        lines.append(f"{rule:<28} {impact:<9} {n}")
    return "\n".join(lines)


def report(violations: list[Violation]) -> str:
    """The table, then every offending element: what a failing test prints."""
    details = [f"- {v.rule} ({v.impact}) at {v.target}\n    {v.html}\n    {v.summary}" for v in violations]
    return table(violations) + ("\n" + "\n".join(details) if details else "")


# --- keyboard ------------------------------------------------------------------------------


_ACTIVE = """() => {
    const e = document.activeElement;
    if (!e) return null;
    const control = e.closest("[class*='botie-control-']");
    const name = control ? [...control.classList].find(c => c.startsWith('botie-control-')) : null;
    const panel = e.closest('.botie-panel');
    const style = getComputedStyle(e);
    return {control: name, inPanel: !!panel, tag: e.tagName.toLowerCase(), role: e.getAttribute('role'),
            label: e.getAttribute('aria-label') || (e.labels && e.labels[0] ? e.labels[0].innerText : '')
                   || e.innerText || '',
            atMax: e.getAttribute('role') === 'slider'
                   && e.getAttribute('aria-valuenow') === e.getAttribute('aria-valuemax'),
            outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 1,
            shadow: style.boxShadow !== 'none'};
}"""


def active(page: Page) -> dict | None:
    """What has the keyboard focus: its control name, role, accessible label and whether focus shows."""
    return page.evaluate(_ACTIVE)


def start_before(panel: Locator) -> None:
    """Put the focus just before the panel, as if the reader had tabbed down to it.

    The panel's output area is made focusable for the moment (tabindex -1 takes it
    out of the tab order again), so the next Tab goes to the panel's first control.
    """
    panel.evaluate("""el => {
        const host = el.closest('.jp-OutputArea-output') || el.parentElement;
        host.setAttribute('tabindex', '-1');
        host.focus();
    }""")


def tab_to(page: Page, panel: Locator, wanted: str, limit: int = 40) -> tuple[int, dict]:
    """Press Tab until a control whose class contains ``wanted`` has the focus; return presses and focus."""
    start_before(panel)
    seen = []
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        now = active(page) or {}
        seen.append(now.get("control") or now.get("tag"))
        if now.get("control") and wanted in now["control"]:
            return presses, now
    raise AssertionError(f"Tab never reached a control named {wanted!r} in {limit} presses; focus went: {seen}")


def announcement(panel: Locator) -> Locator:
    """The panel's live region: a short sentence a screen reader speaks whenever the result changes."""
    return panel.locator(".botie-announce[aria-live]").first
