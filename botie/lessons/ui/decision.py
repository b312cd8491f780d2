"""The decision panel: change the proposal, the scope, the approval, what is stored and the business rules;
see which branch fired and why.

Everything shown comes from :func:`botie.actions.decision.decide`. The panel only
builds its inputs from the controls:

- what the caller may schedule (one tickbox per asset: the schedule scope,
  trusted application state);
- the proposal the model wrote (``asset``, ``duration``, ``start``, ``request_id``);
- the approval, recorded for the payload as it was *when the switch was
  turned on*, so changing the proposal afterwards shows why an old approval
  must not authorise a new request;
- the request already stored under this request id: none, the same payload,
  or a different payload (another duration for the same request id);
- the asset register (one tickbox per asset) and the maintenance calendar:
  as in ``fixtures/booking_rules.json``, with another visit already booked
  at the proposal's start, or no calendar at all.

Given ``yours`` (a learner's ``choose_branch``), the panel also shows that
function's branch beside ``decide``'s, as
:func:`botie.lessons.exercises.yours.compare_branch` worked it out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from botie.lessons.content.business import BookingRules, MemoryCalendar, load_booking_rules
from botie.lessons.content.scenarios import STORED_JOB, stored_previous
from botie.lessons.exercises.yours import compare_branch

from ._common import Panel, badge, control, esc, function_name, table_html

if TYPE_CHECKING:  # decide() itself is imported when the panel first draws
    from botie.actions.decision import Decision

__all__ = ["DecisionPanel", "decision_panel", "PREVIOUS_CHOICES"]

DEFAULT_PROPOSAL = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
PREVIOUS_CHOICES = (("none", "none"), ("the same payload", "same"), ("a different payload", "different"))
CALENDAR_CHOICES = (
    ("as in the fixture", "fixture"),
    ("another visit already booked at this start", "taken"),
    ("no calendar given (not checked)", "none"),
)
_FIELDS = ("asset_id", "duration_minutes", "start", "request_id")


def _payload_text(payload: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={payload[k]!r}" for k in _FIELDS if k in payload)


def _taken(calendar: MemoryCalendar, proposal: Mapping[str, Any]) -> MemoryCalendar:
    """The calendar with one more visit booked on the proposal's asset, over the proposal's own time."""
    from datetime import timedelta

    from botie.actions.tool import parse_start

    start, minutes = parse_start(proposal["start"]), proposal["duration_minutes"]
    if start is None or type(minutes) is not int or minutes < 1:  # decide() stops at validation anyway
        return calendar
    booked = dict(calendar.booked)
    booked[proposal["asset_id"]] = (*booked.get(proposal["asset_id"], ()), (start, start + timedelta(minutes=minutes)))
    return MemoryCalendar(calendar.windows, booked)


class DecisionPanel(Panel):
    """Controls: ``schedule`` (tickboxes), ``asset``, ``duration``, ``start``, ``request_id``, ``approved``,
    ``approval_actor``, ``previous``, ``register`` (tickboxes), ``calendar``.
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
        rules: BookingRules | None = None,
    ) -> None:
        super().__init__()
        self.caller = caller
        self.rules = rules or load_booking_rules()
        start = dict(DEFAULT_PROPOSAL if proposal is None else proposal)
        self.decision: Decision | None = None
        self.approved_payload: dict[str, Any] | None = None
        scope = set(allowed_assets)
        everyone = sorted(scope | self.rules.register)
        self.schedule = {a: control(_box(a, a in scope), f"schedule-{a}") for a in everyone}
        self.assets = self.schedule  # Panel.allowed reads the ticked ones: the schedule scope
        self.register = {a: control(_box(a, a in self.rules.register), f"register-{a}") for a in everyone}
        self.calendar = control(
            widgets.Dropdown(options=list(CALENDAR_CHOICES), value="fixture", description="maintenance calendar"),
            "calendar",
        )

        self.asset = control(widgets.Text(str(start["asset_id"]), description="asset", continuous_update=True), "asset")
        self.duration = control(
            widgets.IntSlider(int(start["duration_minutes"]), min=0, max=90, description="duration (minutes)"),
            "duration",
        )
        self.start_at = control(
            widgets.Text(str(start["start"]), description="start (UTC, YYYY-MM-DDTHH:MMZ)", continuous_update=True),
            "start",
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
            f"Signed in: <b>{esc(caller)}</b>. What they may <b>schedule</b> (trusted application state, never read "
            "from the model's proposal; what they may <i>read</i> is a separate scope, which decide() never uses):"
        )
        self.approved.observe(self._on_approval, names="value")
        self.approval_actor.observe(self._on_change, names="value")
        self._start(
            [
                who,
                widgets.HBox(list(self.schedule.values())),
                widgets.HTML("<b>The proposal</b> (what the model wrote):"),
                self.asset,
                self.duration,
                self.start_at,
                self.request_id,
                widgets.HTML(
                    "<b>Approval</b> (recorded by the application for one exact payload; "
                    "switch it off and on to approve the proposal as it is now):"
                ),
                widgets.HBox([self.approved, self.approval_actor]),
                widgets.HTML("<b>Already stored</b> under this request id:"),
                self.previous,
                widgets.HTML("<b>Business rules</b>, asked only about a new booking: in the asset register"),
                widgets.HBox(list(self.register.values())),
                self.calendar,
                self.inputs,
                self.result,
                *self._yours_widgets(yours),
            ],
            self.asset,
            self.duration,
            self.start_at,
            self.request_id,
            self.previous,
            self.calendar,
            *self.schedule.values(),
            *self.register.values(),
        )

    @property
    def allowed_assets(self) -> tuple[str, ...]:
        """The schedule scope as ticked now."""
        return tuple(self.allowed)

    # -- building the inputs of decide() from the controls -------------------------

    def proposal(self) -> dict[str, Any]:
        return {
            "asset_id": self.asset.value,
            "duration_minutes": self.duration.value,
            "start": self.start_at.value,
            "request_id": self.request_id.value,
        }

    def _rules(self, proposal: Mapping[str, Any]) -> dict[str, Any]:
        """``asset_register=`` and ``calendar=`` for decide(), from the tickboxes and the calendar choice."""
        register = frozenset(a for a, box in self.register.items() if box.value)
        choice = self.calendar.value
        if choice == "none":
            return {"asset_register": register}
        calendar = _taken(self.rules.calendar, proposal) if choice == "taken" else self.rules.calendar
        return {"asset_register": register, "calendar": calendar}

    def _rules_text(self, rules: Mapping[str, Any]) -> str:
        listed = ", ".join(sorted(rules["asset_register"])) or "nothing"
        choice = {value: label for label, value in CALENDAR_CHOICES}[self.calendar.value]
        return f"asset register: {esc(listed)}<br>maintenance calendar: {esc(choice)}"

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
        rules = self._rules(proposal)
        decision = decide(
            proposal,
            caller=self.caller,
            allowed_assets=self.allowed_assets,
            approval=approval,
            previous=previous,
            **rules,
        )
        self.decision = decision
        if approval is None:
            approval_text = "none recorded"
        else:
            approval_text = f"{esc(approval.actor)} approved {esc(_payload_text(approval.payload))}"
        self.inputs.value = (
            f"<p>{esc(self.caller)} may schedule: {esc(', '.join(self.allowed_assets) or 'nothing')}<br>"
            f"proposal: {esc(_payload_text(proposal))}<br>"
            f"approval on record: {approval_text}<br>"
            f"stored under {esc(proposal['request_id'] or '(empty)')}: {esc(stored_text)}<br>"
            f"{self._rules_text(rules)}</p>"
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
    rules: BookingRules | None = None,
) -> DecisionPanel:
    """Build the decision panel; ``caller`` and ``allowed_assets`` (what the caller may *schedule*) default to the
    scene's (or tech-ana, P-2/P-3); ``rules`` to the register and calendar of ``fixtures/booking_rules.json``.

    ``yours=choose_branch`` adds a box with that function's branch beside the reference (the four checks of
    the exercise: the register and calendar are not part of it).
    """
    if caller is None:
        caller = scene.caller if scene is not None else "tech-ana"
    if allowed_assets is None:
        allowed_assets = scene.allowed_assets if scene is not None else ("P-2", "P-3")
    return DecisionPanel(
        caller=caller, allowed_assets=allowed_assets, proposal=proposal, actors=actors, yours=yours, rules=rules
    )


def _box(asset: str, ticked: bool) -> widgets.Checkbox:
    return widgets.Checkbox(value=ticked, description=asset, indent=False, layout=widgets.Layout(width="auto"))
