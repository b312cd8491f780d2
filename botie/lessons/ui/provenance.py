"""The provenance panel: move the observation date, the allowed assets, the relevance floor and the budget;
see which candidates survive and why each of the others was excluded.

Everything shown comes from :func:`botie.context.provenance.select_evidence`. The
panel builds its inputs from the controls and draws the result: one row per
candidate with its status word and reason, the verdict (a pack, or a refusal
decided before any model is called), and every conflict between sources,
with both sides shown together and flagged. Given ``yours`` (a learner's
``shortlist``), the panel also shows that function's top three beside the
reference's, as :func:`botie.lessons.exercises.yours.compare_shortlist` worked it out.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from botie.context.provenance import EvidenceSelection, trust_of
from botie.lessons.content.scenarios import EvidenceScenario
from botie.lessons.exercises.yours import compare_shortlist

from ._common import (
    RIGHT,
    SMALL,
    Panel,
    asset_boxes,
    badge,
    control,
    esc,
    function_name,
    preview,
    question_control,
    table_html,
)

__all__ = ["ProvenancePanel", "provenance_panel"]

_PREVIEW = 64
SHORTLIST_K = 3  # the k of the shortlist exercise's worked example


class ProvenancePanel(Panel):
    """Controls: ``question``, ``observed_on``, ``assets`` (one checkbox per asset), ``floor``, ``budget``.
    Shows: ``result`` (HTML): the verdict, one row per candidate, and the flagged conflicts."""

    kind = "provenance"

    def __init__(
        self, scenario: EvidenceScenario, *, max_budget: int | None = None, yours: Callable[..., Any] | None = None
    ) -> None:
        super().__init__()
        self.scenario = scenario
        self.selection: EvidenceSelection | None = None
        allowance = scenario.budget.evidence
        top = max_budget or max(600, 2 * allowance)

        self.question = question_control(scenario.questions)
        self.observed_on = control(
            widgets.DatePicker(value=scenario.observed_on, description="observed on"), "observed-on"
        )
        self.assets = asset_boxes(scenario.records, scenario.allowed_assets)
        self.floor = control(
            widgets.FloatSlider(
                value=scenario.floor, min=0.0, max=1.0, step=0.01, readout_format=".2f", description="relevance floor"
            ),
            "floor",
        )
        self.budget = control(
            widgets.IntSlider(value=allowance, min=0, max=top, step=1, description="evidence budget (tokens)"), "budget"
        )
        self._start(
            [
                widgets.HTML(f"<b>{esc(scenario.caller)}</b> asks (retrieval's scores change with the question):"),
                self.question,
                self.observed_on,
                widgets.HTML("Allowed assets (trusted, from the sign-in):"),
                widgets.HBox(list(self.assets.values())),
                self.floor,
                self.budget,
                self.result,
                *self._yours_widgets(yours),
            ],
            self.question,
            self.observed_on,
            self.floor,
            self.budget,
            *self.assets.values(),
        )

    def _render(self) -> None:
        day = self.observed_on.value
        if not isinstance(day, _dt.date):
            self.selection = None
            self.show_problem("Pick an observation date.", "Freshness is judged against a date; none is set.")
            self._no_comparison("no observation date is set")
            return
        selection = self.scenario.select(
            self.question.value,
            observed_on=day,
            allowed_assets=self.allowed,
            floor=self.floor.value,
            budget=self.budget.value,
        )
        self.selection = selection
        self.result.value = self._result_html(selection)
        candidates, allowed, register = (
            self.scenario.candidates(self.question.value),
            self.allowed,
            self.scenario.register,
        )
        self._show_yours(
            lambda: compare_shortlist(self.yours, candidates, allowed, day, SHORTLIST_K, register),
            f"{function_name(self.yours)}(this question's candidates, {allowed}, {day}, "
            f"{SHORTLIST_K}, the scene's register) beside the reference",
        )

    def _result_html(self, selection: EvidenceSelection) -> str:
        records = {r.id: r for r in self.scenario.candidates(self.question.value)}
        if selection.refused:
            verdict = f"{badge('refuse')} <b>refused:</b> {esc(selection.refusal)}"
        else:
            verdict = (
                f"{badge('answer')} <b>pack:</b> {esc(', '.join(selection.selected_ids))} "
                f"({selection.used} of {selection.allowance} tokens)"
            )
        rows = []
        for n, outcome in enumerate(selection.outcomes, start=1):
            r = records[outcome.record_id]
            fate = "survived" if str(outcome.status) == "selected" else "excluded"
            rows.append(
                (
                    str(n),
                    f"<code>{esc(r.id)}</code>",
                    esc(trust_of(r)),
                    f"{r.score:.2f}",
                    fate,
                    badge(str(outcome.status)),
                    esc(outcome.check),
                    esc(outcome.reason),
                    esc(preview(r.text, _PREVIEW)),
                )
            )
        columns = ("#", "id", "trust", "score", "fate", "status", "check", "why", "text")
        table = table_html("botie-candidates", columns, rows, styles={"score": RIGHT, "text": SMALL})
        conflicts = "".join(self._conflict_html(c, records) for c in selection.conflicts)
        allowed = ", ".join(self.allowed) or "none"
        return (
            f"<p style='font-size:110%'>{verdict}</p>"
            f"<p>observed on {selection.observed_on} · allowed assets: {esc(allowed)} · "
            f"relevance floor {selection.floor:.2f} · evidence budget {selection.allowance} tokens</p>"
            f"{table}{conflicts}<p>{esc(selection.coverage.summary())}</p>"
        )

    @staticmethod
    def _conflict_html(conflict: Any, records: dict) -> str:
        a, b = conflict.ids
        sides = "".join(
            f"<td style='vertical-align:top;padding:4px 8px;border:1px solid #ccc'><code>{esc(i)}</code> "
            f"({esc(tier)})<br>{esc(records[i].text)}</td>"
            for i, tier in ((a, conflict.tiers[0]), (b, conflict.tiers[1]))
        )
        # The selector's rule (botie.context.provenance): a pair of one standing travels both or neither; a lower
        # tier only alongside the source it contradicts. Either way the pair is flagged, never settled silently.
        flag = "kept together, flagged" if conflict.kept_together else "flagged, the lower tier sent only alongside"
        return (
            f"<div class='botie-conflict'><p>{badge('conflict')} <b>conflict ({flag}):</b> "
            f"{esc(conflict.explain())}</p><table><tr>{sides}</tr></table></div>"
        )

    def _summary(self) -> str:
        selection = self.selection
        if selection is None:
            return ""
        if selection.refused:
            return f"refused: {selection.refusal}"
        return f"pack: {', '.join(selection.selected_ids)} ({selection.used} of {selection.allowance} tokens)"


def provenance_panel(scenario: EvidenceScenario | None = None, **options: Any) -> ProvenancePanel:
    """Build the provenance panel (default: the ``manual_revisions.json`` scenario); display ``.widget``."""
    if scenario is None:
        from botie.lessons.content.scenarios import load_evidence_scenario

        scenario = load_evidence_scenario()
    return ProvenancePanel(scenario, **options)
