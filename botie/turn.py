"""One turn of Botie, from question to action, with a record of what every stage kept.

The stages run in a fixed order:

1. **candidates**: what retrieval returned;
2. **permitted**: what the caller may read;
3. **fresh**: what is in force and not a copy of something else;
4. **relevant**: what cleared the relevance floor (a passage below it stays
   in only when a selected passage depends on it and both fit);
5. **fit**: what fitted the evidence budget, each document counted as it is
   sent (tags included) and the rest of the request counted first (or a
   refusal, decided before any model is called);
6. **request**: the request assembled and counted against the ceiling (or
   a stop: a document changed since this conversation read it);
7. **answer**: the model's reply (one that is no answer, being malformed,
   refused, cut off, empty or saying the documents do not answer, ends the
   turn with an outcome of its own and a notice that says which);
8. **citations**: every quote checked against the documents that were sent
   (a failure withholds the answer);
9. **proposal**: when the technician asked for an action, a *separate*
   request that carries their message and trusted facts and no document
   text, so nothing a document says can choose a tool or an argument;
10. **decision**: :func:`botie.actions.decision.decide` on that proposal, with the
    caller, the allowed assets and the approval from trusted state.

A tool call the model suggests while reading documents (stage 7) is dropped
and reported, never carried out. When a turn fails, :attr:`TurnResult.losses`
says for each piece of evidence that was needed where it went missing: never
retrieved, not authorised, not current, below the relevance floor, did not
fit, or the quoted fact is not in the text.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from botie._checks import allowed_set
from botie._enum import ShortName
from botie.actions.decision import Approval, Branch, Check, CheckName, Decision, StoredRequest, Verdict, decide
from botie.actions.tool import TOOL_NAME, FieldError, Problem, inspection_tool
from botie.context.budget import Budget
from botie.context.citations import CitationCheck, CitationFailure, CitationProblem, verify_citations
from botie.context.conversation import Conversation
from botie.context.evidence import (
    DEFAULT_INSTRUCTIONS,
    ModelRequest,
    RequestKind,
    as_messages,
    build_request,
    conflict_note,
    document_tokens,
    render_evidence,
    request_text,
)
from botie.context.provenance import DEFAULT_FLOOR, EvidenceSelection, authority, select_evidence
from botie.context.records import Record, unique_records
from botie.context.selection import permitted_only
from botie.context.tokens import Counter, count_tokens, token_counter
from botie.errors import RequestTooLargeError
from botie.model import Fault, Model, Reply, ReplyFault, StopReason, ToolProposal, reply_fault

__all__ = [
    "ActionRequest",
    "Loss",
    "Stage",
    "StageResult",
    "StageStatus",
    "TurnOutcome",
    "TurnResult",
    "TurnSetup",
    "action_instructions",
    "offered_tools",
    "run_turn",
]


class Stage(ShortName):
    """The stages of a turn, in the order they run."""

    CANDIDATES = "candidates"
    PERMITTED = "permitted"
    FRESH = "fresh"
    RELEVANT = "relevant"
    FIT = "fit"
    REQUEST = "request"
    ANSWER = "answer"
    CITATIONS = "citations"
    PROPOSAL = "proposal"
    DECISION = "decision"


class StageStatus(ShortName):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"  # not run: an earlier stage ended the answer, or no action was asked for


class TurnOutcome(ShortName):
    """What the technician gets back for their question."""

    ANSWERED = "answered"  # an answer whose every quote checked out
    REFUSED = "refused"  # nothing relevant survived: "the documents do not appear to answer this"
    WITHHELD = "withheld"  # the model answered, but a citation failed, so the answer is not shown
    STOPPED = "stopped"  # a document changed since this conversation first read it
    TOO_LARGE = "too_large"  # the request would not fit under the ceiling; nothing was cut
    # The model's reply could not be checked as an answer; each says why, so none hides behind "cites nothing":
    MALFORMED = "malformed"  # a field of the reply has the wrong type (the notice names it)
    MODEL_REFUSED = "model_refused"  # the model declined to answer
    TRUNCATED = "truncated"  # the reply was cut off at the output allowance
    EMPTY = "empty"  # the reply has no text
    NO_ANSWER = "no_answer"  # the model says the documents do not answer this


#: What it means for a needed document to go missing at each stage.
LOSS_KIND: Mapping[Stage, str] = {
    Stage.CANDIDATES: "missing candidate",
    Stage.PERMITTED: "not authorised",
    Stage.FRESH: "not current",
    Stage.RELEVANT: "below the relevance floor",
    Stage.FIT: "did not fit",
    Stage.REQUEST: "never sent",
    Stage.CITATIONS: "fact not in the text",
}

_STAGE_OF_CHECK = {
    "permission": Stage.PERMITTED,
    "freshness": Stage.FRESH,
    "duplicates": Stage.FRESH,
    # Its own stage: "did not fit" would send someone to the budget when the score was the reason.
    "relevance_floor": Stage.RELEVANT,
}


class StageResult(NamedTuple):
    """One stage of the trace: how it went, the document ids still in play after it, and why."""

    stage: Stage
    status: StageStatus
    ids: tuple[str, ...]
    detail: str

    @property
    def documents_in_play(self) -> int | None:
        """How many documents were still in play after this stage, or None where that means nothing:
        a skipped stage, or one whose ids are not the documents going forward (the answer's ids are
        the ones it cited; the citation check's are the ones it checked against)."""
        if self.stage in _DOCUMENT_STAGES and self.status is not StageStatus.SKIPPED:
            return len(self.ids)
        return None


class Loss(NamedTuple):
    """A document the answer needed, and the stage where it went missing."""

    record_id: str
    stage: Stage
    kind: str
    detail: str


@dataclass(frozen=True)
class TurnSetup:
    """Trusted state for a turn: who asks, when, what they may read, and the limits.

    None of this comes from a document or from the model. ``budget`` sizes the
    evidence (a :class:`~botie.context.budget.Budget` or an int allowance);
    ``ceiling`` and ``answer_allowance`` are for the assembled request;
    ``tools`` are the tools this turn offers when an action is asked for.
    ``counter`` counts tokens: an offline encoding's name or a callable (see
    :func:`botie.context.tokens.count_tokens`); a count under a tokenizer that is
    not the model's own is an estimate.
    """

    caller: str
    allowed_assets: tuple[str, ...]
    observed_on: _dt.date | str
    budget: Budget | int
    floor: float = DEFAULT_FLOOR
    ceiling: int = 1200
    answer_allowance: int = 150
    tools: tuple[str, ...] = (TOOL_NAME,)
    counter: Counter = "cl100k_base"

    def __post_init__(self) -> None:
        allowed_set(self.allowed_assets)  # the shared rule: a bare string is refused
        token_counter(self.counter)  # an unknown encoding fails here, not at the first count
        # Kept as a tuple, in the order given: the action request lists them for the model.
        object.__setattr__(self, "allowed_assets", tuple(self.allowed_assets))
        object.__setattr__(self, "tools", tuple(self.tools))

    @classmethod
    def from_scenario(cls, scenario: Any, **overrides: Any) -> TurnSetup:
        """The trusted state of a scenario, with overrides.

        ``scenario`` is anything with ``caller``, ``allowed_assets``,
        ``observed_on``, ``budget`` and ``floor``, such as a lesson's
        ``botie.lessons.content.scenarios.load_evidence_scenario()``.
        """
        fields: dict[str, Any] = {
            "caller": scenario.caller,
            "allowed_assets": scenario.allowed_assets,
            "observed_on": scenario.observed_on,
            "budget": scenario.budget,
            "floor": scenario.floor,
        }
        fields.update(overrides)
        return cls(**fields)

    def with_(self, **changes: Any) -> TurnSetup:
        return replace(self, **changes)


@dataclass(frozen=True)
class ActionRequest:
    """The technician's own request for an action, with what the application recorded about it.

    ``message`` is what they typed; ``approval`` is what the approval screen
    recorded (or None); ``previous`` is what is stored under the request id.
    """

    message: str
    approval: Approval | None = None
    previous: StoredRequest | None = None


def offered_tools(setup: TurnSetup) -> tuple[dict[str, Any], ...]:
    """Fresh definitions of the tools this turn offers (Anthropic's shape; an adapter converts them)."""
    return (inspection_tool(),) if TOOL_NAME in setup.tools else ()


def action_instructions(setup: TurnSetup) -> str:
    """The instructions of the action request: what to do and the trusted facts. The tools travel beside
    them in the request's ``tools``, and its text lists them; no documents."""
    may = ", ".join(setup.allowed_assets) or "nothing"
    return (
        "You are Botie. The signed-in technician is asking for an action. Propose at most one call of a "
        "tool listed below, or none. Take the arguments from the technician's own message and the facts "
        "in this request; this request contains no documents.\n"
        f"Signed in: {setup.caller}. May schedule: {may}."
    )


@dataclass(frozen=True)
class TurnResult:
    """Everything one turn did, stage by stage."""

    question: str
    outcome: TurnOutcome
    stages: tuple[StageResult, ...]
    selection: EvidenceSelection
    request: ModelRequest | None
    reply: Reply | None
    citations: CitationCheck | None
    dropped: ToolProposal | None  # a tool call suggested while reading documents: never carried out
    action_request: ModelRequest | None
    proposal: ToolProposal | None
    decision: Decision | None
    losses: tuple[Loss, ...]
    notice: str | None  # what the technician is told instead of an answer, if anything
    documents_in_action_request: tuple[str, ...]  # ids whose text appears in the action request: always ()

    def stage(self, stage: Stage | str) -> StageResult:
        for s in self.stages:
            if s.stage == stage:
                return s
        raise KeyError(stage)

    @property
    def answer(self) -> str | None:
        """The answer the technician sees: only when every citation checked out."""
        return self.reply.answer if self.outcome is TurnOutcome.ANSWERED and self.reply else None

    @property
    def context_ids(self) -> tuple[str, ...]:
        """The documents that entered the request, in reading order."""
        return self.request.document_ids if self.request is not None else ()

    @property
    def tool_call(self) -> tuple[str, str] | None:
        """The call handed to the decision (tool and canonical arguments), or None."""
        if self.decision is None or self.proposal is None:
            return None
        return self.proposal.key()

    def trace(self) -> str:
        """The stages as a table: stage, status, how many documents were still in play, and why."""
        lines = []
        for s in self.stages:
            kept = "  " if s.documents_in_play is None else f"{s.documents_in_play:>2}"
            lines.append(f"{s.stage!s:<11} {s.status!s:<8} {kept}  {s.detail}")
        lines.append(f"-> {self.outcome}")
        return "\n".join(lines)

    def explain_losses(self) -> str:
        if not self.losses:
            return "nothing the answer needed went missing"
        return "\n".join(f"{x.record_id}: lost at {x.stage} ({x.kind}): {x.detail}" for x in self.losses)


_DOCUMENT_STAGES = (Stage.CANDIDATES, Stage.PERMITTED, Stage.FRESH, Stage.RELEVANT, Stage.FIT, Stage.REQUEST)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _filter_stages(records: Sequence[Record], selection: EvidenceSelection) -> list[StageResult]:
    """Stages 1-5 from the selector's per-candidate outcomes."""
    outcome = {o.record_id: o for o in selection.outcomes}
    ids = tuple(r.id for r in records)
    stages = [
        StageResult(
            Stage.CANDIDATES,
            StageStatus.PASSED if ids else StageStatus.FAILED,
            ids,
            f"{_count(len(ids), 'candidate')} retrieved",
        )
    ]
    current = ids
    for stage in (Stage.PERMITTED, Stage.FRESH, Stage.RELEVANT):
        gone = [i for i in current if _STAGE_OF_CHECK.get(outcome[i].check) == stage]
        current = tuple(i for i in current if i not in gone)
        why = "; ".join(f"{i} {outcome[i].status}" for i in gone) or "nothing removed"
        if stage is Stage.RELEVANT:
            why += f" (floor {selection.floor:.2f})"
        stages.append(StageResult(stage, StageStatus.PASSED if current else StageStatus.FAILED, current, why))
    if selection.refused:
        stages.append(StageResult(Stage.FIT, StageStatus.FAILED, (), f"refused: {selection.refusal}"))
    else:
        detail = (
            f"{_count(len(selection.selected_ids), 'document')} in the pack, "
            f"{selection.used} of {selection.allowance} tokens as sent, tags included"
        )
        stages.append(StageResult(Stage.FIT, StageStatus.PASSED, selection.selected_ids, detail))
    return stages


def _skip(stage: Stage, why: str) -> StageResult:
    return StageResult(stage, StageStatus.SKIPPED, (), why)


def run_turn(
    question: str,
    candidates: Iterable[Record],
    setup: TurnSetup,
    model: Model,
    *,
    action: ActionRequest | None = None,
    needed: Iterable[str] = (),
    conversation: Conversation | None = None,
) -> TurnResult:
    """Run one turn (see the module docstring) and return every stage's result.

    ``model`` is anything with ``reply(text) -> Reply`` (:class:`botie.model.Model`).
    ``needed`` names the documents a correct answer rests on (from a
    fixture's ``answered_by``); it is used only to say where they went
    missing, never to decide anything. With a ``conversation``, the request
    is assembled by :meth:`Conversation.ask`, so document versions are pinned
    across turns (the conversation's own ceiling then applies).
    """
    records = unique_records(candidates)
    selection = _select(question, records, setup, conversation)
    answer = _answer(question, records, selection, setup, model, conversation)
    stages = _filter_stages(records, selection) + answer.stages
    action_request: ModelRequest | None = None
    proposal: ToolProposal | None = None
    decision: Decision | None = None
    leaked: tuple[str, ...] = ()
    if action is None:
        stages += [_skip(Stage.PROPOSAL, "no action was asked for"), _skip(Stage.DECISION, "no action was asked for")]
    else:
        action_request, proposal, decision, leaked, more = _act(action, setup, model, records)
        stages += more
    losses = _losses(needed, records, selection, answer.request, answer.check)
    return TurnResult(
        question,
        answer.outcome,
        tuple(stages),
        selection,
        answer.request,
        answer.reply,
        answer.check,
        answer.dropped,
        action_request,
        proposal,
        decision,
        losses,
        answer.notice,
        leaked,
    )


def _select(
    question: str, records: Sequence[Record], setup: TurnSetup, conversation: Conversation | None
) -> EvidenceSelection:
    """Select with every candidate costed as it would be sent: its element, tags included, plus the conflict
    notes it pays for, in the room left once the request without documents (instructions, earlier turns,
    the question) is counted, not guessed.

    Which notes can be sent depends on which candidates are eligible, so a first pass learns that (no
    budget decides it) and the second selects with the notes charged.
    """
    sized = [replace(r, cost=document_tokens(r, setup.counter)) for r in records]
    allowance: Budget | int = setup.budget
    if isinstance(setup.budget, Budget):
        instructions = conversation.instructions if conversation is not None else DEFAULT_INSTRUCTIONS
        history = as_messages(conversation.history) if conversation is not None else ()
        frame = request_text(instructions, render_evidence(()), history, question)
        allowance = setup.budget.evidence_after(count_tokens(frame, setup.counter))

    def selected(pack: list[Record]) -> EvidenceSelection:
        return select_evidence(pack, setup.allowed_assets, allowance, observed_on=setup.observed_on, floor=setup.floor)

    first = selected(sized)
    notes = _note_charges(sized, first, setup.counter)
    return selected([replace(r, cost=r.cost + notes[r.id]) for r in sized]) if notes else first


def _note_charges(records: Sequence[Record], first: EvidenceSelection, counter: Counter) -> dict[str, int]:
    """The tokens of each conflict note the request may carry, charged to one side of its pair.

    Only the pairs the first pass flagged (eligible records: permitted, in force, not a copy) are charged,
    each to the side of lower authority (the second of a tie): the selector sends a lower tier only alongside
    the source it contradicts, and two of a tier both or neither, so the note is paid for when it is sent. Where the
    other side is not (below the floor, did not fit), the charge is an overestimate, never an under: a
    selection that fits still gives a request that fits.
    """
    # The pairs the first pass flagged, not the raw links: a copy that stands in for an original carries the
    # original's disagreements, and the request sends a note for every flagged pair whose two sides are sent.
    by_id = {r.id: r for r in records}
    charges = dict.fromkeys(by_id, 0)
    for conflict in first.conflicts:
        a, b = sorted(conflict.ids)
        payer = a if authority(by_id[a]) < authority(by_id[b]) else b
        charges[payer] += count_tokens(conflict_note(a, b), counter)
    return charges if any(charges.values()) else {}


class _Answered(NamedTuple):
    """Stages 6-8 of a turn: the request, the model's answer and the citation check."""

    outcome: TurnOutcome
    stages: list[StageResult]
    request: ModelRequest | None = None
    reply: Reply | None = None
    check: CitationCheck | None = None
    dropped: ToolProposal | None = None
    notice: str | None = None


def _answer(
    question: str,
    records: Sequence[Record],
    selection: EvidenceSelection,
    setup: TurnSetup,
    model: Model,
    conversation: Conversation | None,
) -> _Answered:
    if selection.refused:
        why = "not run: refused before any model was called"
        skipped = [_skip(s, why) for s in (Stage.REQUEST, Stage.ANSWER, Stage.CITATIONS)]
        return _Answered(TurnOutcome.REFUSED, skipped, notice=selection.refusal)
    by_id = {r.id: r for r in records}
    # The last gate, at the boundary: whatever chose these records, none the caller may not read is sent
    # (it raises, naming the record and not its text, before the request or any trace is built).
    sending = permitted_only([by_id[i] for i in selection.selected_ids], setup.allowed_assets)
    # Every disagreement flagged between two documents that are sent goes into the request, as a note.
    flagged = tuple(c for c in selection.conflicts if c.in_context)
    outcome, request, notice, stage = _assemble(question, list(sending), flagged, setup, conversation)
    if request is None:
        skipped = [_skip(s, "not run: no request was sent") for s in (Stage.ANSWER, Stage.CITATIONS)]
        return _Answered(outcome, [stage, *skipped], notice=notice)
    reply = model.reply(request)
    fault = reply_fault(reply, request.answer_allowance)
    if fault is not None:
        return _faulted(stage, request, reply, fault)
    check = verify_citations(reply.citations, request.evidence)
    if check.ok:
        why = f"{_count(len(check.verified), 'quote')} checked: each is verbatim in a document that was sent"
        cited = StageResult(Stage.CITATIONS, StageStatus.PASSED, check.context_ids, why)
        return _Answered(
            TurnOutcome.ANSWERED, [stage, _answer_stage(reply), cited], request, reply, check, reply.proposal
        )
    notice = "answer withheld: " + "; ".join(f.reason for f in check.failures)
    withheld = StageResult(Stage.CITATIONS, StageStatus.FAILED, check.context_ids, notice)
    return _Answered(
        TurnOutcome.WITHHELD, [stage, _answer_stage(reply), withheld], request, reply, check, reply.proposal, notice
    )


def _faulted(stage: StageResult, request: ModelRequest, reply: Any, fault: Fault) -> _Answered:
    """A reply that is not an answer to check: its own outcome, and a notice that says which."""
    failed = StageResult(Stage.ANSWER, StageStatus.FAILED, (), f"{fault.kind} ({fault.field}): {fault.notice}")
    skipped = _skip(Stage.CITATIONS, "not run: there is no answer to check")
    dropped = reply.proposal if isinstance(reply, Reply) and isinstance(reply.proposal, ToolProposal) else None
    kept = reply if isinstance(reply, Reply) else None
    return _Answered(
        TurnOutcome(fault.kind.value), [stage, failed, skipped], request, kept, None, dropped, fault.notice
    )


def _assemble(
    question: str,
    records: list[Record],
    conflicts: Sequence[Any],
    setup: TurnSetup,
    conversation: Conversation | None,
) -> tuple[TurnOutcome, ModelRequest | None, str | None, StageResult]:
    ids = tuple(r.id for r in records)
    try:
        if conversation is None:
            request = build_request(
                question,
                records,
                ceiling=setup.ceiling,
                answer_allowance=setup.answer_allowance,
                encoding=setup.counter,
                conflicts=conflicts,
            )
        else:
            turn = conversation.ask(question, records)
            if turn.request is None:
                changed = tuple(c.document_id for c in turn.changes)
                notice = turn.notice
                assert notice is not None  # Conversation.ask gives a notice whenever it gives no request
                return (
                    TurnOutcome.STOPPED,
                    None,
                    notice,
                    StageResult(Stage.REQUEST, StageStatus.FAILED, changed, notice),
                )
            request = turn.request
    except RequestTooLargeError as exc:
        return TurnOutcome.TOO_LARGE, None, str(exc), StageResult(Stage.REQUEST, StageStatus.FAILED, ids, str(exc))
    over = _over_total(request, setup.budget)
    if over is not None:
        return TurnOutcome.TOO_LARGE, None, over, StageResult(Stage.REQUEST, StageStatus.FAILED, ids, over)
    return (
        TurnOutcome.ANSWERED,
        request,
        None,
        StageResult(Stage.REQUEST, StageStatus.PASSED, request.document_ids, request.report()),
    )


def _over_total(request: ModelRequest, budget: Budget | int) -> str | None:
    """The budget's total, checked on the request as built (a counter that does not add up is caught here)."""
    if not isinstance(budget, Budget) or request.tokens + budget.output_reserve <= budget.total:
        return None
    need = request.tokens + budget.output_reserve
    return (
        f"the request as built needs {request.tokens:,} tokens plus {budget.output_reserve:,} for the answer "
        f"({need:,}), over the budget's total of {budget.total:,}; nothing was cut"
    )


def _answer_stage(reply: Reply) -> StageResult:
    parts = [f"{_count(len(reply.citations), 'citation')}"]
    if reply.obeyed:
        parts.append("the model followed a planted instruction: " + ", ".join(reply.obeyed))
    if reply.proposal is not None:
        parts.append(f"suggested {reply.proposal} while reading documents: dropped, never carried out")
    return StageResult(Stage.ANSWER, StageStatus.PASSED, reply.citation_ids, "; ".join(parts))


class _Acted(NamedTuple):
    """Stages 9-10 of a turn: the request without documents, the model's proposal and the decision."""

    request: ModelRequest
    proposal: ToolProposal | None
    decision: Decision | None
    leaked: tuple[str, ...]  # ids of documents whose text reached the action request anyway
    stages: list[StageResult]


def _undecided(request: ModelRequest, proposal: ToolProposal | None, leaked: tuple[str, ...], why: str) -> _Acted:
    """The action stages when the proposal fails before any decision: nothing to decide."""
    stages = [StageResult(Stage.PROPOSAL, StageStatus.FAILED, (), why), _skip(Stage.DECISION, "nothing to decide")]
    return _Acted(request, proposal, None, leaked, stages)


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
        allowed_assets=setup.allowed_assets,
        approval=action.approval,
        previous=action.previous,
    )


def _act(action: ActionRequest, setup: TurnSetup, model: Model, records: Sequence[Record]) -> _Acted:
    """Stages 9-10: a request without documents, the model's proposal, and the decision."""
    request = build_request(
        action.message,
        (),
        ceiling=setup.ceiling,
        answer_allowance=setup.answer_allowance,
        instructions=action_instructions(setup),
        encoding=setup.counter,
        tools=offered_tools(setup),
        kind=RequestKind.ACTION,
    )
    leaked = tuple(r.id for r in records if r.text.strip() and r.text in request.text)
    reply = model.reply(request)
    why = _no_call(reply)
    proposal = reply.proposal if isinstance(reply, Reply) and isinstance(reply.proposal, ToolProposal) else None
    if why is not None:
        return _undecided(request, proposal, leaked, why)
    decision = _judge(reply, setup, action)
    status = StageStatus.PASSED if decision.branch.value in ("create", "reuse") else StageStatus.FAILED
    said = str(proposal) if proposal is not None else "no readable tool call"
    proposed = StageResult(
        Stage.PROPOSAL,
        StageStatus.PASSED if proposal is not None else StageStatus.FAILED,
        (),
        f"{said}, from a request with {_count(len(leaked), 'document')} in it",
    )
    decided = StageResult(Stage.DECISION, status, (), f"{decision.branch}: {decision.reason}")
    return _Acted(request, proposal, decision, leaked, [proposed, decided])


def _citation_loss(rid: str, failure: CitationFailure) -> Loss:
    """A paraphrased quote is not a missing fact: the trace names which of the two failed."""
    paraphrase = failure.problem is CitationProblem.NOT_VERBATIM
    return Loss(
        rid, Stage.CITATIONS, "quote not verbatim" if paraphrase else LOSS_KIND[Stage.CITATIONS], failure.reason
    )


def _losses(
    needed: Iterable[str],
    records: Sequence[Record],
    selection: EvidenceSelection,
    request: ModelRequest | None,
    check: CitationCheck | None,
) -> tuple[Loss, ...]:
    """Where each needed document, and each document a failed citation named, went missing."""
    retrieved = {r.id for r in records}
    sent = set(request.document_ids) if request is not None else set()
    found: dict[str, Loss] = {}

    def lost(rid: str) -> Loss | None:
        if rid not in retrieved:
            return Loss(rid, Stage.CANDIDATES, LOSS_KIND[Stage.CANDIDATES], "retrieval never returned it")
        o = selection.outcome(rid)
        stage = _STAGE_OF_CHECK.get(o.check)
        if stage is not None:
            return Loss(rid, stage, LOSS_KIND[stage], f"{o.status}: {o.reason}")
        if rid not in selection.selected_ids:
            why = selection.refusal if selection.refused else o.reason
            return Loss(rid, Stage.FIT, LOSS_KIND[Stage.FIT], f"{o.status}: {why}")
        if rid not in sent:
            return Loss(rid, Stage.REQUEST, LOSS_KIND[Stage.REQUEST], "selected, but the request was not sent")
        return None

    for rid in needed:
        loss = lost(rid)
        if loss is not None:
            found.setdefault(rid, loss)
    for failure in check.failures if check is not None else ():
        cited = failure.citation_id
        if cited is None or cited in found:
            continue
        if cited in sent:
            found[cited] = _citation_loss(cited, failure)
        else:
            loss = lost(cited)
            if loss is not None:
                found[cited] = loss
    return tuple(found.values())
