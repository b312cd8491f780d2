"""The selection panel: move the allowed assets, the window and the policy; see every candidate's fate.

Everything shown comes from :class:`botie.Budget` and :func:`botie.select`.
A window whose reserves exceed the total shows the :class:`botie.BudgetError`
message in the panel instead of a selection. Given ``yours`` (a learner's
``choose_evidence``), the panel also shows that function's answer beside the
prefix rule's, as :func:`botie.lessons.exercises.yours.compare_selection` worked it out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from botie.context.budget import Budget
from botie.context.selection import POLICIES, Selection, select
from botie.errors import BudgetError
from botie.lessons.content.fixtures import Scene
from botie.lessons.exercises.yours import compare_selection

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
    table_html,
)
from .figures import window_bars, window_text

__all__ = ["SelectionPanel", "selection_panel"]


class SelectionPanel(Panel):
    """Controls: ``assets`` (one checkbox per asset), ``total``, ``input_reserve``,
    ``output_reserve``, ``policy``. Shows: ``result`` (HTML) and ``figure`` (the window bar)."""

    kind = "selection"

    def __init__(self, scene: Scene, *, max_tokens: int | None = None, yours: Callable[..., Any] | None = None) -> None:
        super().__init__()
        self.scene = scene
        self.selection: Selection | None = None
        budget = scene.budget
        top = max_tokens or max(40, 2 * budget.total)

        self.assets = asset_boxes(scene.records, scene.allowed_assets)
        self.total = control(widgets.IntSlider(budget.total, min=0, max=top, description="total (tokens)"), "total")
        self.input_reserve = control(
            widgets.IntSlider(budget.input_reserve, min=0, max=top, description="input reserve"), "input-reserve"
        )
        self.output_reserve = control(
            widgets.IntSlider(budget.output_reserve, min=0, max=top, description="output reserve"), "output-reserve"
        )
        self.policy = control(
            widgets.ToggleButtons(
                options=list(POLICIES),
                value="prefix",
                description="policy",
                tooltips=[
                    "stop at the first record that does not fit",
                    "skip a record that does not fit and keep looking",
                ],
            ),
            "policy",
        )
        # An HTML bar, not a PNG: it redraws in microseconds on every slider step and its legend is text.
        self.figure = widgets.HTML(layout=widgets.Layout(width="100%"))

        who = widgets.HTML(
            f"<b>{esc(scene.caller)}</b> asks: {esc(scene.question)}<br>"
            f"Allowed assets (trusted, from the sign-in), one box per asset in the candidates:"
        )
        self._start(
            [
                who,
                widgets.HBox(list(self.assets.values())),
                self.total,
                self.input_reserve,
                self.output_reserve,
                self.policy,
                self.figure,
                self.result,
                *self._yours_widgets(yours),
            ],
            self.total,
            self.input_reserve,
            self.output_reserve,
            self.policy,
            *self.assets.values(),
        )

    def _render(self) -> None:
        total, ins, outs = self.total.value, self.input_reserve.value, self.output_reserve.value
        try:
            budget = Budget(total, ins, outs)
        except BudgetError as exc:
            self.selection = None
            self.figure.value = window_bars(total, ins, outs)
            self.show_problem(
                "This window cannot hold the request (BudgetError).", f"{exc} Lower a reserve or raise the total."
            )
            self._no_comparison("this window cannot hold a request")
            return
        selection = self._select(budget)
        self.selection = selection
        self.figure.value = window_bars(total, ins, outs, selection.used)
        self.result.value = self._result_html(budget, selection)
        allowed, allowance = self.allowed, budget.evidence
        self._show_yours(
            lambda: compare_selection(self.yours, self.scene.records, allowed, allowance),
            f"{function_name(self.yours)}(the candidates, {allowed}, {allowance}) beside the prefix rule",
        )

    def _select(self, budget: Budget) -> Selection:
        return select(self.scene.records, self.allowed, budget, policy=self.policy.value)

    def _result_html(self, budget: Budget, selection: Selection) -> str:
        chosen = ", ".join(selection.selected_ids) or "nothing"
        texts = {r.id: r.text for r in self.scene.records}
        rows = [
            (
                str(rank),
                f"<code>{esc(o.record_id)}</code>",
                esc(o.asset),
                str(o.cost),
                badge(str(o.status)),
                esc(o.reason),
                esc(preview(texts[o.record_id])),
            )
            for rank, o in enumerate(selection.outcomes, start=1)
        ]
        columns = ("#", "id", "asset", "cost", "status", "why", "text")
        table = table_html("botie-candidates", columns, rows, styles={"cost": RIGHT, "text": SMALL})
        allowed = ", ".join(self.allowed) or "none"
        return (
            f"<p><b>selected:</b> {esc(chosen)}<br>"
            f"<b>tokens used:</b> {selection.used} of {selection.allowance} "
            f"(evidence allowance {esc(budget.explain())}; policy {esc(selection.policy)}; "
            f"allowed assets: {esc(allowed)})<br>"
            f"{esc(window_text(budget.total, budget.input_reserve, budget.output_reserve, selection.used))}</p>"
            f"{table}<p>{esc(selection.coverage.summary())}</p>"
        )

    def _summary(self) -> str:
        if self.selection is None:
            return ""
        chosen = ", ".join(self.selection.selected_ids) or "nothing"
        return f"selected: {chosen}; {self.selection.used} of {self.selection.allowance} tokens used"


def selection_panel(scene: Scene, **options: Any) -> SelectionPanel:
    """Build the selection panel for a scene (see :class:`SelectionPanel`); display ``.widget``.

    ``yours=choose_evidence`` adds a box with that function's answer beside the reference.
    """
    return SelectionPanel(scene, **options)
