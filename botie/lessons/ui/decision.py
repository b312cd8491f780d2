"""The decision panel: change the proposal, the approval and what is stored; see which branch fired and why.

Everything shown comes from :func:`botie.actions.decision.decide`. The panel only
builds its inputs from the controls:

- the proposal the model wrote (``asset``, ``duration``, ``request_id``);
- the approval, recorded for the payload as it was *when the switch was
  turned on*, so changing the proposal afterwards shows why an old approval
  must not authorise a new request;
- the request already stored under this request id: none, the same payload,
  or a different payload (another duration for the same request id).

Given ``yours`` (a learner's ``choose_branch``), the panel also shows that
function's branch beside ``decide``'s, as
:func:`botie.lessons.exercises.yours.compare_branch` worked it out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from botie.lessons.content.scenarios import STORED_JOB, stored_previous
from botie.lessons.exercises.yours import compare_branch

from ._common import Panel, badge, control, esc, function_name, table_html

if TYPE_CHECKING:  # decide() itself is imported when the panel first draws
    from botie.actions.decision import Decision

__all__ = ["DecisionPanel", "decision_panel", "PREVIOUS_CHOICES"]

DEFAULT_PROPOSAL = {"asset_id": "P-2", "duration_minutes": 20, "request_id": "r7"}
PREVIOUS_CHOICES = (("none", "none"), ("the same payload", "same"), ("a different payload", "different"))


def _payload_text(payload: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={payload[k]!r}" for k in ("asset_id", "duration_minutes", "request_id") if k in payload)


class DecisionPanel(Panel):
    """Controls: ``asset``, ``duration``, ``request_id``, ``approved``, ``approval_actor``, ``previous``.
    Shows: ``result`` (the branch and the path of checks)."""

    kind = "decision"

    def __init__(
        self,
        *,
        caller: str,
        allowed_assets: Iterable[str],
        proposal: Mapping[str, Any] | None = None,
        actors: Iterable[str] | None = None,
        yours: Callable[..., Any] | None = None,
    ) -> None:
        super().__init__()
        self.caller = caller
        self.allowed_assets = tuple(allowed_assets)
        start = dict(DEFAULT_PROPOSAL if proposal is None else proposal)
        self.decision: Decision | None = None
        self.approved_payload: dict[str, Any] | None = None

        self.asset = control(widgets.Text(str(start["asset_id"]), description="asset", continuous_update=True), "asset")
        self.duration = control(
            widgets.IntSlider(int(start["duration_minutes"]), min=0, max=90, description="duration (minutes)"),
            "duration",
        )
        self.request_id = control(widgets.Text(str(start["request_id"]), description="request id"), "request-id")
        self.approved = control(widgets.Checkbox(False, description="approved", indent=False), "approved")
        actor_options = list(dict.fromkeys([caller, *(actors or ("sup-lee",))]))
        self.approval_actor = control(
            widgets.Dropdown(options=actor_options, value=caller, description="approved by"), "approval-actor"
        )
        self.previous = control(
            widgets.Dropdown(options=list(PREVIOUS_CHOICES), value="none", description="stored under this request id"),
            "previous",
        )
        self.inputs = widgets.HTML()
        self.inputs.add_class("botie-inputs")

        who = widgets.HTML(
            f"Signed in: <b>{esc(caller)}</b>, who may schedule: <b>{esc(', '.join(self.allowed_assets) or 'nothing')}"
            "</b> (trusted application state, never read from the model's proposal)."
        )
        self.approved.observe(self._on_approval, names="value")
        self.approval_actor.observe(self._on_change, names="value")
        self._start(
            [
                who,
                widgets.HTML("<b>The proposal</b> (what the model wrote):"),
                self.asset,
                self.duration,
                self.request_id,
                widgets.HTML(
                    "<b>Approval</b> (recorded by the application for one exact payload; "
                    "switch it off and on to approve the proposal as it is now):"
                ),
                widgets.HBox([self.approved, self.approval_actor]),
                widgets.HTML("<b>Already stored</b> under this request id:"),
                self.previous,
                self.inputs,
                self.result,
                *self._yours_widgets(yours),
            ],
            self.asset,
            self.duration,
            self.request_id,
            self.previous,
        )

    # -- building the inputs of decide() from the controls -------------------------

    def proposal(self) -> dict[str, Any]:
        return {
            "asset_id": self.asset.value,
            "duration_minutes": self.duration.value,
            "request_id": self.request_id.value,
        }

    def _on_approval(self, change: Any = None) -> None:
        # The approval screen showed the payload as it is now; that is what gets approved.
        self.approved_payload = self.proposal() if self.approved.value else None
        self.refresh()

    def _approval(self):
        from botie.actions.decision import Approval

        if not self.approved.value or self.approved_payload is None:
            return None
        return Approval(self.approval_actor.value, self.approved_payload)

    def _previous(self, proposal: dict[str, Any]):
        from botie.actions.decision import StoredRequest
        from botie.errors import BotieError

        payload = stored_previous(proposal, self.previous.value)
        if payload is None:
            return None, "nothing"
        try:
            stored = StoredRequest.settled(payload, STORED_JOB)
        except BotieError:
            # Nothing can be stored under a malformed request id; decide() stops at validation anyway.
            return None, f"nothing can be stored under the request id {proposal['request_id']!r}"
        return stored, f"{_payload_text(payload)}, which created {STORED_JOB}"

    # -- drawing ----------------------------------------------------------------------

    def _render(self) -> None:
        from botie.actions.decision import decide

        proposal = self.proposal()
        approval = self._approval()
        previous, stored_text = self._previous(proposal)
        decision = decide(
            proposal, caller=self.caller, allowed_assets=self.allowed_assets, approval=approval, previous=previous
        )
        self.decision = decision
        if approval is None:
            approval_text = "none recorded"
        else:
            approval_text = f"{esc(approval.actor)} approved {esc(_payload_text(approval.payload))}"
        self.inputs.value = (
            f"<p>proposal: {esc(_payload_text(proposal))}<br>"
            f"approval on record: {approval_text}<br>"
            f"stored under {esc(proposal['request_id'] or '(empty)')}: {esc(stored_text)}</p>"
        )
        self.result.value = self._result_html(decision)
        kwargs = {
            "caller": self.caller,
            "allowed_assets": self.allowed_assets,
            "approval": approval,
            "previous": previous,
        }
        self._show_yours(
            lambda: compare_branch(self.yours, proposal, **kwargs),
            f"{function_name(self.yours)}(this proposal, ...) beside decide()",
        )

    def _result_html(self, decision: Any) -> str:
        branch = str(decision.branch)
        rows = [
            (str(i), esc(check.name), badge(str(check.verdict)), esc(check.reason))
            for i, check in enumerate(decision.checks, start=1)
        ]
        table = table_html("botie-checks", ("#", "check", "verdict", "reason"), rows)
        extra = ""
        if decision.errors:
            items = "".join(f"<li><code>{esc(e.field)}</code>: {esc(e.message)}</li>" for e in decision.errors)
            extra += f"<p>fields to repair:</p><ul>{items}</ul>"
        if decision.receipt is not None:
            extra += f"<p>receipt: {esc(decision.receipt.job_id)} (the earlier job, not a new booking)</p>"
        return f"<p style='font-size:115%'>{badge(branch)} <b>branch: {esc(branch)}</b></p>{table}{extra}"

    def _summary(self) -> str:
        if self.decision is None:
            return ""
        return f"branch: {self.decision.branch}. {self.decision.reason}"


def decision_panel(
    scene: Any = None,
    *,
    caller: str | None = None,
    allowed_assets: Iterable[str] | None = None,
    proposal: Mapping[str, Any] | None = None,
    actors: Iterable[str] | None = None,
    yours: Callable[..., Any] | None = None,
) -> DecisionPanel:
    """Build the decision panel; ``caller`` and ``allowed_assets`` default to the scene's (or tech-ana, P-2/P-3).

    ``yours=choose_branch`` adds a box with that function's branch beside the reference.
    """
    if caller is None:
        caller = scene.caller if scene is not None else "tech-ana"
    if allowed_assets is None:
        allowed_assets = scene.allowed_assets if scene is not None else ("P-2", "P-3")
    return DecisionPanel(caller=caller, allowed_assets=allowed_assets, proposal=proposal, actors=actors, yours=yours)
