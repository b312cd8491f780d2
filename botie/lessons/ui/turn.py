"""The turn panel: run one whole turn and see every stage, which one lost the evidence, and what was decided.

Everything shown comes from :func:`botie.turn.run_turn`. The controls change
its inputs: the question, the evidence budget, what the caller may read and
(separately) what they may schedule, whether the scripted model is careful
or gullible, a document carrying planted instructions, and whether the
technician asked for (and approved) an inspection.

The turn books through a real :class:`~botie.actions.service.InspectionService`, built afresh for every
render: a new in-memory store, the register and calendar of ``fixtures/booking_rules.json`` (the service
owns them), and a clock at 09:00 UTC on the setup's day. The panel re-renders on every change of a control,
so a store kept across renders would turn the first ``create`` into ``reuse`` on the next click; a fresh
one makes every render the first submission of its request id (a ``create`` books ``job-1``). Lesson 06
shows the retry (the same turn again, the same store) outside the panel; the panel says so under its controls.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import ipywidgets as widgets

from botie.actions.decision import Approval
from botie.actions.service import InspectionService
from botie.actions.stores.memory import MemoryStore
from botie.context.budget import Budget
from botie.context.records import Record
from botie.lessons.content.adversarial import BUDGET
from botie.lessons.content.business import load_booking_rules
from botie.lessons.content.scenarios import EvidenceScenario
from botie.lessons.content.scripted import ScriptedModel
from botie.turn import ActionRequest, TurnResult, TurnSetup, run_turn

from ._common import RIGHT, Panel, asset_boxes, badge, control, esc, question_control, table_html

__all__ = ["TurnPanel", "turn_panel"]

_OUTCOME_WORD = {
    "answered": "passed",
    "refused": "refuse",
    "withheld": "failed",
    "stopped": "failed",
    "too_large": "failed",
    "malformed": "failed",
    "model_refused": "refuse",
    "truncated": "failed",
    "empty": "failed",
    "no_answer": "refuse",
    # The provider sent no reply: the turn did not fail on its own rules, but there is no answer to show.
    **dict.fromkeys(
        (
            "rate_limited",
            "overloaded",
            "server_error",
            "timeout",
            "unreachable",
            "not_authorised",
            "unknown_model",
            "context_too_long",
            "rejected",
        ),
        "failed",
    ),
}
_STATUS_WORD = {"passed": "passed", "failed": "failed", "skipped": "not_reached"}


class TurnPanel(Panel):
    """Controls: ``question``, ``budget``, ``assets`` (may read), ``schedule`` (may schedule), ``model``,
    ``planted``, ``ask``, ``approved``.
    Shows: ``result`` (the outcome, the stage trace, the losses and the decision)."""

    kind = "turn"

    def __init__(
        self,
        scenario: EvidenceScenario,
        model: ScriptedModel,
        *,
        planted: tuple[Record, ...] = (),
        message: str,
        payload: dict[str, Any],
        setup: TurnSetup | None = None,
    ) -> None:
        super().__init__()
        self.scenario, self.model, self.message, self.payload = scenario, model, message, dict(payload)
        # The business rules belong to each render's booking service (see _service), not to the setup.
        # Without a setup, tech-ana may schedule both pumps: stated as trusted state, not taken from the read scope.
        default = TurnSetup.from_scenario(scenario, budget=BUDGET, schedule_assets=("P-2", "P-3"))
        self.setup = (setup or default).with_(asset_register=None, calendar=None)
        self.planted_docs = {r.id: r for r in planted}
        self.turn: TurnResult | None = None
        self.question = question_control(scenario.questions)
        self.budget = control(
            widgets.IntSlider(_evidence(self.setup.budget), min=0, max=800, description="evidence budget (tokens)"),
            "budget",
        )
        self.assets = asset_boxes(scenario.records, self.setup.read_assets)
        self.schedule = {
            asset: control(
                widgets.Checkbox(asset in self.setup.may_schedule, description=asset, indent=False),
                f"schedule-{asset}",
            )
            for asset in self.assets
        }
        self.model_kind = control(
            widgets.ToggleButtons(
                options=["careful", "gullible"],
                value="careful",
                description="scripted model",
                tooltips=["obeys only text outside the evidence region", "obeys any instruction it reads"],
            ),
            "model",
        )
        self.planted = control(
            widgets.Dropdown(
                options=[("none", "")] + [(rid, rid) for rid in self.planted_docs],
                value="",
                description="add a planted document",
            ),
            "planted",
        )
        self.ask = control(
            widgets.Checkbox(
                True, description=f"also ask: {message}", indent=False, layout=widgets.Layout(width="auto")
            ),
            "ask",
        )
        self.approved = control(
            widgets.Checkbox(
                True,
                description=(
                    f"{self.setup.caller} approved asset {payload['asset_id']}, {payload['duration_minutes']} minutes "
                    f"from {payload['start']}, request {payload['request_id']}"
                ),
                indent=False,
                layout=widgets.Layout(width="auto"),
            ),
            "approved",
        )
        self._start(
            [
                self.question,
                self.budget,
                widgets.HTML("What the caller may <b>read</b> (trusted, from the sign-in; the evidence steps use it):"),
                widgets.HBox(list(self.assets.values())),
                widgets.HTML("What the caller may <b>schedule</b> (a separate scope; the decision uses it):"),
                widgets.HBox(list(self.schedule.values())),
                self.model_kind,
                self.planted,
                self.ask,
                self.approved,
                widgets.HTML(
                    "Each change runs the turn again with a fresh booking service (a new, empty store), so every "
                    "run is a first booking of its request id; a retry that reuses the job is shown in the lesson."
                ),
                self.result,
            ],
            self.question,
            self.budget,
            self.model_kind,
            self.planted,
            self.ask,
            self.approved,
            *self.assets.values(),
            *self.schedule.values(),
        )

    def _render(self) -> None:
        index = self.question.value
        q = self.scenario.questions[index]
        candidates = list(self.scenario.candidates(index))
        if self.planted.value:
            candidates.append(self.planted_docs[self.planted.value])
        schedule = tuple(asset for asset, box in self.schedule.items() if box.value)
        setup = self.setup.with_(
            budget=_with_evidence(self.setup.budget, self.budget.value),
            allowed_assets=tuple(self.allowed),
            schedule_assets=schedule,
        )
        model = self.model.with_(gullible=self.model_kind.value == "gullible")
        action = None
        if self.ask.value:
            approval = Approval(self.setup.caller, self.payload) if self.approved.value else None
            action = ActionRequest(self.message, approval)
        service = self._service()
        self.turn = run_turn(q.question, candidates, setup, model, action=action, needed=q.answered_by, service=service)
        self.result.value = self._result_html(self.turn)

    def _service(self) -> InspectionService:
        """A fresh booking service for one render: a new store and calendar, so each render is a first submission."""
        day = self.setup.observed_on
        day = day if isinstance(day, _dt.date) else _dt.date.fromisoformat(day)
        nine = _dt.datetime.combine(day, _dt.time(9), _dt.timezone.utc)
        return InspectionService(MemoryStore(), clock=lambda: nine, **load_booking_rules().kwargs())

    @staticmethod
    def _result_html(turn: TurnResult) -> str:
        outcome = str(turn.outcome)
        said = turn.answer if turn.answer is not None else turn.notice
        rows = [
            (
                esc(s.stage),
                badge(_STATUS_WORD[str(s.status)]),
                esc(s.status),
                _count(s.documents_in_play),
                esc(s.detail),
            )
            for s in turn.stages
        ]
        columns = ("stage", "result", "status", "documents in play", "detail")
        table = table_html("botie-stages", columns, rows, styles={"documents in play": RIGHT})
        losses = "".join(
            f"<li><code>{esc(x.record_id)}</code> lost at <b>{esc(x.stage)}</b> ({esc(x.kind)}): {esc(x.detail)}</li>"
            for x in turn.losses
        )
        lost = f"<p><b>where the evidence went missing:</b></p><ul>{losses}</ul>" if losses else ""
        job = turn.decision.receipt if turn.decision is not None else None
        booked = f", booked as {esc(job.job_id)}" if job is not None else ""
        decision = (
            f"<p><b>decision:</b> {esc(turn.decision.branch)} on {esc(turn.proposal)}{booked}</p>"
            if turn.decision is not None
            else ""
        )
        # The technician is told when the booking they asked for was not made; the panel shows the same words.
        notice = f"<p><b>booking:</b> {esc(turn.action_notice)}</p>" if turn.action_notice else ""
        return (
            f"<p style='font-size:115%'>{badge(_OUTCOME_WORD[outcome])} <b>outcome: {esc(outcome)}</b></p>"
            f"<p>{esc(said or '')}</p>"
            f"{table}{lost}{decision}{notice}"
        )

    def _summary(self) -> str:
        if self.turn is None:
            return ""
        decision = f"; decision: {self.turn.decision.branch}" if self.turn.decision is not None else ""
        return f"outcome: {self.turn.outcome}{decision}"


def turn_panel(
    scenario: EvidenceScenario | None = None, model: ScriptedModel | None = None, **options: Any
) -> TurnPanel:
    """Build the turn panel on ``manual_revisions.json`` with the workshop's scripted model and planted documents."""
    import json

    from botie.lessons.content.fixtures import fixture_path, load_records
    from botie.lessons.content.scenarios import load_evidence_scenario
    from botie.lessons.content.scripted import load_scripted_model

    path = fixture_path("scripted_turns.json")
    action = json.loads(path.read_text(encoding="utf-8"))["action"]
    options.setdefault("planted", load_records(path))
    options.setdefault("message", action["message"])
    options.setdefault("payload", action["approved_payload"])
    return TurnPanel(scenario or load_evidence_scenario(), model or load_scripted_model(str(path)), **options)


def _count(documents: int | None) -> str:
    """A stage's documents in play, or blank where the count does not apply (the answer and citation stages)."""
    return "" if documents is None else str(documents)


def _evidence(budget: Budget | int) -> int:
    return budget.evidence if isinstance(budget, Budget) else budget


def _with_evidence(budget: Budget | int, evidence: int) -> Budget | int:
    """The slider sets the evidence; the reserves stay, so the request is still checked against a total."""
    if not isinstance(budget, Budget):
        return evidence
    return Budget(evidence + budget.input_reserve + budget.output_reserve, budget.input_reserve, budget.output_reserve)
