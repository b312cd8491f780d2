"""The action step of a turn (stages 9-10): a request that carries the technician's message and trusted
facts and no document text, the model's proposal, and the decision on it.

Nothing a document says can choose a tool or an argument here: no document enters this request, and the
decision takes the caller, the assets they may schedule (the schedule scope, not the read scope), the
approval and the business rules from trusted state only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from botie.actions.decision import Branch, Check, CheckName, Decision, Verdict, decide
from botie.actions.tool import TOOL_NAME, FieldError, Problem, inspection_tool
from botie.context.budget import Budget
from botie.context.evidence import ModelRequest, RequestKind, build_request
from botie.context.records import Record
from botie.model import Model, Reply, ReplyFault, StopReason, ToolProposal
from botie.turn.pricing import UNCHECKED_CEILING, measured
from botie.turn.types import ActionRequest, Stage, StageResult, StageStatus, TurnSetup, plural, skipped

__all__ = ["Acted", "action_instructions", "action_notice", "action_step", "offered_tools"]


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
    """What the technician is told about the action they asked for when it was not carried out, else None.

    The answer's notice is about the answer alone; a booking that failed beside a released answer would
    otherwise be told only in the operator's trace.
    """
    if acted.decision is None:
        return f"no booking was made: {acted.stages[0].detail}"
    if acted.decision.branch.value in ("create", "reuse"):
        return None
    return f"no booking was made: {acted.decision.branch}: {acted.decision.reason}"


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


def _judge(reply: Any, setup: TurnSetup, action: ActionRequest) -> Decision:
    """The decision on the one call in ``reply``: unreadable calls and unknown tools are ``invalid`` here."""
    if not isinstance(reply, Reply):
        why = f"the model returned {type(reply).__name__}, not a Reply with a tool call"
        return _invalid("reply", Problem.NOT_AN_OBJECT, why)
    call = reply.proposal
    if not isinstance(call, ToolProposal):
        return _invalid("proposal", Problem.NOT_AN_OBJECT, f"the tool call is {type(call).__name__}, not a tool call")
    if call.tool not in setup.tools:
        offered = ", ".join(setup.tools) or "none"
        return _invalid("tool", Problem.UNEXPECTED, f"{call.tool!r:.60} is not a tool this turn offers ({offered})")
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


def action_step(action: ActionRequest, setup: TurnSetup, model: Model, records: Sequence[Record]) -> Acted:
    """Stages 9-10: a request without documents, the model's proposal, and the decision."""
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
    decision = _judge(reply, setup, action)
    status = StageStatus.PASSED if decision.branch.value in ("create", "reuse") else StageStatus.FAILED
    said = str(proposal) if proposal is not None else "no readable tool call"
    proposed = StageResult(
        Stage.PROPOSAL,
        StageStatus.PASSED if proposal is not None else StageStatus.FAILED,
        (),
        f"{said}, from a request with {plural(len(leaked), 'document')} in it",
    )
    decided = StageResult(Stage.DECISION, status, (), f"{decision.branch}: {decision.reason}")
    return Acted(
        request=request,
        proposal=proposal,
        decision=decision,
        leaked=leaked,
        stages=[proposed, decided],
        reply=reply if isinstance(reply, Reply) else None,
    )
