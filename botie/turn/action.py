"""The action step of a turn (stages 9-10): a request that carries the technician's message and trusted
facts and no document text, the model's proposal, and the decision on it.

Nothing a document says can choose a tool or an argument here: no document enters this request, and the
decision takes the caller, the assets they may schedule (the schedule scope, not the read scope), the
approval and the business rules from trusted state only.

With a booking service (``run_turn(..., service=...)``) the call goes to
:meth:`botie.actions.service.InspectionService.submit`: the service reads what is stored under the request id,
applies its own asset register and calendar, and books a ``create`` (its receipt names the job), so the same
turn sent again reuses that job. Without one, the decision is only a decision: nothing is booked, and
:func:`action_notice` says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from botie.actions.decision import Branch, Check, CheckName, Decision, Verdict, decide
from botie.actions.service import InspectionService
from botie.actions.tool import TOOL_NAME, FieldError, Problem, inspection_tool
from botie.context.budget import Budget
from botie.context.evidence import ModelRequest, RequestKind, build_request
from botie.context.records import Record
from botie.errors import SettingError
from botie.model import Model, Reply, ReplyFault, StopReason, ToolProposal
from botie.turn.pricing import UNCHECKED_CEILING, measured
from botie.turn.types import ActionRequest, Stage, StageResult, StageStatus, TurnSetup, plural, skipped

__all__ = ["Acted", "action_instructions", "action_notice", "action_step", "check_service", "offered_tools"]

#: What the technician is told of a ``create`` no service booked: a decision is not a booking.
NOT_BOOKED = "nothing was booked: this turn was given no booking service"


def offered_tools(setup: TurnSetup) -> tuple[dict[str, Any], ...]:
    """Fresh definitions of the tools this turn offers (Anthropic's shape; an adapter converts them)."""
    return (inspection_tool(),) if TOOL_NAME in setup.tools else ()


def action_instructions(setup: TurnSetup) -> str:
    """The instructions of the action request: what to do and the trusted facts. The tools travel beside
    them in the request's ``tools``, and its text lists them; no documents."""
    may = ", ".join(setup.may_schedule) or "nothing"
    return (
        "You are Botie. The signed-in technician is asking for an action. Propose at most one call of a "
        "tool listed below, or none. Take the arguments from the technician's own message and the facts "
        "in this request; this request contains no documents.\n"
        f"Signed in: {setup.caller}. May schedule: {may}."
    )


class Acted(NamedTuple):
    """Stages 9-10 of a turn: the request without documents, the model's proposal and the decision."""

    request: ModelRequest
    proposal: ToolProposal | None
    decision: Decision | None
    leaked: tuple[str, ...]  # ids of documents whose text reached the action request anyway
    stages: list[StageResult]
    reply: Reply | None = None  # what came back, when a request was sent and a Reply came back


def _undecided(request: ModelRequest, proposal: ToolProposal | None, leaked: tuple[str, ...], why: str) -> Acted:
    """The action stages when the proposal fails before any decision: nothing to decide."""
    stages = [StageResult(Stage.PROPOSAL, StageStatus.FAILED, (), why), skipped(Stage.DECISION, "nothing to decide")]
    return Acted(request=request, proposal=proposal, decision=None, leaked=leaked, stages=stages)


def action_notice(acted: Acted) -> str | None:
    """What the technician is told about the action they asked for when no job exists for it, else None.

    The answer's notice is about the answer alone; a booking that failed beside a released answer would
    otherwise be told only in the operator's trace. A ``create`` without a receipt was decided and not booked
    (the turn had no service); a retryable outcome (``in_progress``, ``unavailable``) may still become a job.
    """
    decision = acted.decision
    if decision is None:
        return f"no booking was made: {acted.stages[0].detail}"
    if decision.receipt is not None:  # created now or reused: the receipt names the job
        return None
    if decision.branch is Branch.CREATE:
        return f"decided create; {NOT_BOOKED}"
    if decision.retryable:
        return f"the booking is not confirmed: {decision.branch}: {decision.reason}"
    return f"no booking was made: {decision.branch}: {decision.reason}"


def check_service(setup: TurnSetup, action: ActionRequest | None, service: InspectionService | None) -> None:
    """Refuse a turn whose booking service and trusted state disagree, before any model is asked.

    With a service, the service owns the business rules and what is stored: a setup may repeat its register
    and calendar (equal ones), and an action may not supply ``previous`` of its own. An action needs a
    schedule scope: what the caller may read is another list, so it is never used in its place.
    """
    if action is not None and setup.schedule_assets is None:
        raise SettingError(
            "an action was asked for but the setup has no schedule_assets: give what this caller may schedule "
            "(from trusted state; the read scope, allowed_assets, is another list), or () for nothing",
            field="schedule_assets",
        )
    if service is None:
        return
    if not callable(getattr(service, "submit", None)):
        raise SettingError(f"service must be an InspectionService, got {service!r:.80}", field="service")
    if action is not None and action.previous is not None:
        raise SettingError(
            "ActionRequest.previous was given with a booking service: the service reads what is stored under the "
            "request id from its own store, so leave previous None",
            field="previous",
        )
    for name in ("asset_register", "calendar"):
        mine, theirs = getattr(setup, name), getattr(service, name, None)
        if mine is not None and mine != theirs:
            raise SettingError(
                f"setup.{name} ({mine!r:.80}) differs from the booking service's {name} ({theirs!r:.80}): the "
                f"service applies its own, so give the setup none or the same",
                field=name,
            )


def _invalid(field: str, problem: Problem, message: str) -> Decision:
    """An ``invalid`` decision for a call :func:`decide` never sees (no such tool, not a call at all)."""
    after = "not reached: the proposal must be repaired first"
    checks = (
        Check(CheckName.VALIDATION, Verdict.FAILED, message),
        *(
            Check(name, Verdict.NOT_REACHED, after)
            for name in (CheckName.PERMISSION, CheckName.APPROVAL, CheckName.IDEMPOTENCY)
        ),
    )
    return Decision(Branch.INVALID, checks, (FieldError(field, problem, message),))


def _no_call(reply: Any) -> str | None:
    """Why a reply to the action request carries no call to decide on, or None when it carries one."""
    if not isinstance(reply, Reply):
        return None  # decided as invalid: the reply itself is the field at fault
    if reply.failure is not None:
        return f"{reply.failure.kind}: {reply.failure}; no call was proposed, nothing was decided or booked"
    if reply.stop_reason == StopReason.REFUSAL or reply.refusal:
        return f"{ReplyFault.REFUSED}: the model declined to propose a call"
    if reply.stop_reason == StopReason.MAX_TOKENS:
        return f"{ReplyFault.TRUNCATED}: the reply was cut off at the output allowance, mid tool call: nothing decided"
    if not reply.tool_calls:
        return "the model proposed no tool call"
    if len(reply.tool_calls) > 1:
        return f"the model proposed {len(reply.tool_calls)} tool calls; this request allows one: nothing decided"
    return None


def _judge(reply: Any, setup: TurnSetup, action: ActionRequest, service: InspectionService | None) -> Decision:
    """The decision on the one call in ``reply``: unreadable calls and unknown tools are ``invalid`` here; the
    rest go to the service when there is one (it reads the store and books), else to :func:`decide` alone."""
    if not isinstance(reply, Reply):
        why = f"the model returned {type(reply).__name__}, not a Reply with a tool call"
        return _invalid("reply", Problem.NOT_AN_OBJECT, why)
    call = reply.proposal
    if not isinstance(call, ToolProposal):
        return _invalid("proposal", Problem.NOT_AN_OBJECT, f"the tool call is {type(call).__name__}, not a tool call")
    if call.tool not in setup.tools:
        offered = ", ".join(setup.tools) or "none"
        return _invalid("tool", Problem.UNEXPECTED, f"{call.tool!r:.60} is not a tool this turn offers ({offered})")
    if service is not None:
        return service.submit(call.arguments, caller=setup.caller, allowed_assets=setup.may_schedule,
                              approval=action.approval)  # fmt: skip
    return decide(
        call.arguments,
        caller=setup.caller,
        allowed_assets=setup.may_schedule,
        approval=action.approval,
        previous=action.previous,
        asset_register=setup.asset_register,
        calendar=setup.calendar,
    )


def _too_large(request: ModelRequest, setup: TurnSetup) -> str | None:
    """Why the action request is not sent: over the ceiling, or over the budget's total with its reserve."""
    reserve = setup.budget.output_reserve if isinstance(setup.budget, Budget) else request.answer_allowance
    total = setup.budget.total if isinstance(setup.budget, Budget) else request.ceiling
    limit = min(total, request.ceiling)
    if request.tokens + reserve <= limit:
        return None
    return (
        f"too_large: the action request needs {request.tokens:,} tokens plus {reserve:,} for the reply, over "
        f"{limit:,}; nothing was sent, proposed or decided"
    )


def _stages(proposal: ToolProposal | None, decision: Decision, leaked: tuple[str, ...]) -> list[StageResult]:
    """The proposal and decision stages of a call that was decided."""
    said = str(proposal) if proposal is not None else "no readable tool call"
    proposed = StageResult(
        Stage.PROPOSAL,
        StageStatus.PASSED if proposal is not None else StageStatus.FAILED,
        (),
        f"{said}, from a request with {plural(len(leaked), 'document')} in it",
    )
    status = StageStatus.PASSED if decision.branch.value in ("create", "reuse") else StageStatus.FAILED
    return [proposed, StageResult(Stage.DECISION, status, (), _decided(decision))]


def _decided(decision: Decision) -> str:
    """The decision stage's detail: the branch, its reason, and whether a job was booked."""
    said = f"{decision.branch}: {decision.reason}"
    if decision.branch is not Branch.CREATE:
        return said  # (a reuse's reason names the job it returns)
    if decision.receipt is None:
        return f"{said}; {NOT_BOOKED}"
    return f"{said}; booked {decision.receipt.job_id}"


def action_step(
    action: ActionRequest,
    setup: TurnSetup,
    model: Model,
    records: Sequence[Record],
    service: InspectionService | None = None,
) -> Acted:
    """Stages 9-10: a request without documents, the model's proposal, and the decision (booked by ``service``)."""
    request = build_request(
        action.message,
        (),
        ceiling=UNCHECKED_CEILING,  # checked below, on the request as its provider is sent it
        answer_allowance=setup.answer_max_tokens,
        instructions=action_instructions(setup),
        encoding=setup.counter,
        tools=offered_tools(setup),
        kind=RequestKind.ACTION,
    )
    request = replace(measured(request, model, setup), ceiling=setup.ceiling)
    leaked = tuple(r.id for r in records if r.text.strip() and r.text in request.text)
    over = _too_large(request, setup)
    if over is not None:
        return _undecided(request, None, leaked, over)
    reply = model.reply(request)
    why = _no_call(reply)
    proposal = reply.proposal if isinstance(reply, Reply) and isinstance(reply.proposal, ToolProposal) else None
    if why is not None:
        return _undecided(request, proposal, leaked, why)._replace(reply=reply if isinstance(reply, Reply) else None)
    decision = _judge(reply, setup, action, service)
    return Acted(
        request=request,
        proposal=proposal,
        decision=decision,
        leaked=leaked,
        stages=_stages(proposal, decision, leaked),
        reply=reply if isinstance(reply, Reply) else None,
    )
