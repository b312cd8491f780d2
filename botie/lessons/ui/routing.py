"""The routing panel: change the attachments, the ceiling and the soft fraction; see which strategy fired and why.

Everything shown comes from :func:`botie.context.routing.plan_context` and
:func:`botie.context.routing.execute_plan`. The attachments are ``count`` documents:
one of ``largest`` tokens and the rest of ``size`` tokens each, which is
enough to reach every strategy, including the case where the oversized check
decides although the total alone would have allowed whole-document selection.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from botie.context.records import Record
from botie.context.routing import SELECT_FACTOR, ContextPlan, DocumentCoverage, execute_plan, plan_context
from botie.lessons.content.scenarios import attachments

from ._common import Panel, badge, control, esc, table_html
from .evidence_figures import routing_bars

__all__ = ["RoutingPanel", "routing_panel"]

# The lesson's starting point: 41 attachments, 1,440,000 tokens (1.6 times a 900,000-token ceiling).
DEFAULTS = {"count": 41, "size": 33_500, "largest": 100_000, "ceiling": 900_000, "soft_fraction": 0.6}


class RoutingPanel(Panel):
    """Controls: ``count``, ``size``, ``largest``, ``ceiling``, ``soft_fraction``.
    Shows: ``result`` (the strategy, the checks in the order they ran, the coverage) and ``figure``."""

    kind = "routing"

    def __init__(self, **start: Any) -> None:
        super().__init__()
        values = {**DEFAULTS, **start}
        self.plan: ContextPlan | None = None
        self.coverage: DocumentCoverage | None = None
        self.count = control(widgets.IntSlider(values["count"], min=1, max=200, description="attachments"), "count")
        self.size = control(
            widgets.IntSlider(
                values["size"], min=0, max=200_000, step=500, description="size of each of the others (tokens)"
            ),
            "size",
        )
        self.largest = control(
            widgets.IntSlider(
                values["largest"], min=0, max=2_000_000, step=10_000, description="largest attachment (tokens)"
            ),
            "largest",
        )
        self.ceiling = control(
            widgets.IntSlider(
                values["ceiling"], min=10_000, max=2_000_000, step=10_000, description="ceiling (tokens)"
            ),
            "ceiling",
        )
        self.soft_fraction = control(
            widgets.FloatSlider(
                values["soft_fraction"], min=0.05, max=1.0, step=0.05, readout_format=".2f", description="soft fraction"
            ),
            "soft-fraction",
        )
        # An HTML bar, not a PNG: it redraws in microseconds on every slider step and its legend is text.
        self.figure = widgets.HTML(layout=widgets.Layout(width="100%"))
        self._start(
            [
                widgets.HTML(
                    "Attachments are counted in tokens before any prompt exists. One is the largest; the "
                    "others share one size."
                ),
                self.count,
                self.size,
                self.largest,
                self.ceiling,
                self.soft_fraction,
                self.figure,
                self.result,
            ],
            self.count,
            self.size,
            self.largest,
            self.ceiling,
            self.soft_fraction,
        )

    def docs(self) -> tuple[Record, ...]:
        return attachments(self.count.value, self.size.value, self.largest.value)

    def _render(self) -> None:
        plan = plan_context(
            self.docs(), ceiling=self.ceiling.value, soft_fraction=self.soft_fraction.value, select_factor=SELECT_FACTOR
        )
        coverage = execute_plan(plan)
        self.plan, self.coverage = plan, coverage
        self.figure.value = routing_bars(plan)
        self.result.value = self._result_html(plan, coverage)

    def _result_html(self, plan: ContextPlan, coverage: DocumentCoverage) -> str:
        strategy = str(plan.strategy)
        rows = [
            (str(i), esc(c.name), "yes, it decided" if c.fired else "no, go on", esc(c.detail))
            for i, c in enumerate(plan.checks, start=1)
        ]
        table = table_html("botie-checks", ("#", "check", "decided?", "detail"), rows)
        share = f"{plan.soft_budget:,} of {plan.ceiling:,} tokens ({self.soft_fraction.value:.0%})"
        return (
            f"<p style='font-size:115%'>{badge(strategy)} <b>strategy: {esc(strategy)}</b></p>"
            f"<p><b>why:</b> {esc(plan.note)}</p>"
            f"<p>{len(plan.docs)} attachments, {plan.total:,} tokens in all; soft budget {esc(share)}; "
            f"select limit {plan.select_limit:,} ({SELECT_FACTOR} soft budgets)</p>"
            f"{table}<p><b>coverage:</b> {esc(coverage.explain())}</p>"
        )

    def _summary(self) -> str:
        if self.plan is None:
            return ""
        return f"strategy: {self.plan.strategy}. {self.plan.note}"


def routing_panel(**start: Any) -> RoutingPanel:
    """Build the routing panel; keyword arguments set the starting values (see ``DEFAULTS``)."""
    return RoutingPanel(**start)
