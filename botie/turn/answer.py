"""The answer step of a turn (stages 1-8): select the evidence, build and count the request, ask the model,
check its citations.

Selection charges every candidate as it would be sent (its element, tags included, and the conflict notes
it pays for), so a selection that fits gives a request that fits. A reply that is no answer ends the step
with an outcome of its own; an answer whose citations fail is withheld.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from botie._checks import as_date
from botie.context.budget import Budget
from botie.context.citations import CitationCheck, verify_citations
from botie.context.conversation import Conversation
from botie.context.evidence import (
    ModelRequest,
    build_request,
)
from botie.context.provenance import EvidenceSelection, authority, select_evidence
from botie.context.records import Record
from botie.context.selection import permitted_only
from botie.errors import RequestTooLargeError
from botie.model import Fault, Model, Reply, ToolProposal, reply_fault
from botie.turn.pricing import Pricing
from botie.turn.types import STAGE_OF_CHECK, Stage, StageResult, StageStatus, TurnOutcome, TurnSetup, plural, skipped

__all__ = ["Answered", "answer_step", "filter_stages", "select_for_turn"]


def filter_stages(records: Sequence[Record], selection: EvidenceSelection) -> list[StageResult]:
    """Stages 1-5 from the selector's per-candidate outcomes."""
    outcome = {o.record_id: o for o in selection.outcomes}
    ids = tuple(r.id for r in records)
    stages = [
        StageResult(
            Stage.CANDIDATES,
            StageStatus.PASSED if ids else StageStatus.FAILED,
            ids,
            f"{plural(len(ids), 'candidate')} retrieved",
        )
    ]
    current = ids
    for stage in (Stage.PERMITTED, Stage.FRESH, Stage.RELEVANT):
        gone = [i for i in current if STAGE_OF_CHECK.get(outcome[i].check) == stage]
        current = tuple(i for i in current if i not in gone)
        why = "; ".join(f"{i} {outcome[i].status}" for i in gone) or "nothing removed"
        if stage is Stage.RELEVANT:
            why += f" (floor {selection.floor:.2f})"
        stages.append(StageResult(stage, StageStatus.PASSED if current else StageStatus.FAILED, current, why))
    if selection.refused:
        stages.append(StageResult(Stage.FIT, StageStatus.FAILED, (), f"refused: {selection.refusal}"))
    else:
        detail = (
            f"{plural(len(selection.selected_ids), 'document')} in the pack, "
            f"{selection.used} of {selection.allowance} tokens as sent, tags included"
        )
        stages.append(StageResult(Stage.FIT, StageStatus.PASSED, selection.selected_ids, detail))
    return stages


def select_for_turn(
    question: str,
    records: Sequence[Record],
    setup: TurnSetup,
    conversation: Conversation | None,
    pricing: Pricing | None = None,
) -> EvidenceSelection:
    """Select with every candidate costed as it would be sent: its element, tags included, plus the conflict
    notes it pays for, in the room left once the request without documents (instructions, earlier turns,
    the question) is counted, not guessed. ``pricing`` says how (by default on botie's text; with a model
    that renders its provider's body, on that body: see :mod:`botie.turn.pricing`).

    Which notes can be sent depends on which candidates are eligible, so a first pass learns that (no
    budget decides it) and the second selects with the notes charged.
    """
    pricing = pricing if pricing is not None else Pricing(question, setup, conversation, None)
    sized = [replace(r, cost=pricing.document(r)) for r in records]
    allowance: Budget | int = setup.budget
    if isinstance(setup.budget, Budget):
        allowance = setup.budget.evidence_after(pricing.frame())

    def selected(pack: list[Record]) -> EvidenceSelection:
        return select_evidence(
            pack,
            setup.allowed_assets,
            allowance,
            observed_on=setup.observed_on,
            floor=setup.floor,
            register=setup.register,
        )

    first = selected(sized)
    notes = _note_charges(sized, first, pricing)
    return selected([replace(r, cost=r.cost + notes[r.id]) for r in sized]) if notes else first


def _note_charges(records: Sequence[Record], first: EvidenceSelection, pricing: Pricing) -> dict[str, int]:
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
        charges[payer] += pricing.note(by_id[a], by_id[b])
    return charges if any(charges.values()) else {}


class Answered(NamedTuple):
    """Stages 6-8 of a turn: the request, the model's answer and the citation check."""

    outcome: TurnOutcome
    stages: list[StageResult]
    request: ModelRequest | None = None
    reply: Reply | None = None
    check: CitationCheck | None = None
    dropped: ToolProposal | None = None
    notice: str | None = None


def answer_step(
    question: str,
    records: Sequence[Record],
    selection: EvidenceSelection,
    setup: TurnSetup,
    model: Model,
    conversation: Conversation | None,
    pricing: Pricing | None = None,
) -> Answered:
    if selection.refused:
        why = "not run: refused before any model was called"
        not_run = [skipped(s, why) for s in (Stage.REQUEST, Stage.ANSWER, Stage.CITATIONS)]
        return Answered(outcome=TurnOutcome.REFUSED, stages=not_run, notice=selection.refusal)
    by_id = {r.id: r for r in records}
    # The last gate, at the boundary: whatever chose these records, none the caller may not read is sent
    # (it raises, naming the record and not its text, before the request or any trace is built).
    sending = permitted_only([by_id[i] for i in selection.selected_ids], setup.allowed_assets)
    # Every disagreement flagged between two documents that are sent goes into the request, as a note.
    flagged = tuple(c for c in selection.conflicts if c.in_context)
    pricing = pricing if pricing is not None else Pricing(question, setup, conversation, model)
    outcome, request, notice, stage = _assemble(question, list(sending), flagged, setup, conversation)
    if request is not None:
        outcome, request, notice, stage = _measured(pricing.measure(request, model), setup, model, stage)
    if request is None:
        not_run = [skipped(s, "not run: no request was sent") for s in (Stage.ANSWER, Stage.CITATIONS)]
        return Answered(outcome=outcome, stages=[stage, *not_run], notice=notice)
    reply = model.reply(request)
    fault = reply_fault(reply, request.answer_allowance)
    if fault is not None:
        return _faulted(stage, request, reply, fault)
    return _checked(stage, request, reply)


def _checked(stage: StageResult, request: ModelRequest, reply: Reply) -> Answered:
    """Stage 8: the answer is released only when every quote is verbatim in a document that was sent."""
    check = verify_citations(reply.citations, request.evidence)
    if check.ok:
        why = f"{plural(len(check.verified), 'quote')} checked: each is verbatim in a document that was sent"
        cited = StageResult(Stage.CITATIONS, StageStatus.PASSED, check.context_ids, why)
        outcome, notice = TurnOutcome.ANSWERED, None
    else:
        notice = "answer withheld: " + "; ".join(f.reason for f in check.failures)
        cited = StageResult(Stage.CITATIONS, StageStatus.FAILED, check.context_ids, notice)
        outcome = TurnOutcome.WITHHELD
    return Answered(
        outcome=outcome,
        stages=[stage, _answer_stage(reply), cited],
        request=request,
        reply=reply,
        check=check,
        dropped=reply.proposal,
        notice=notice,
    )


def _faulted(stage: StageResult, request: ModelRequest, reply: Any, fault: Fault) -> Answered:
    """A reply that is not an answer to check: its own outcome, and a notice that says which."""
    failed = StageResult(Stage.ANSWER, StageStatus.FAILED, (), f"{fault.kind} ({fault.field}): {fault.notice}")
    not_run = skipped(Stage.CITATIONS, "not run: there is no answer to check")
    dropped = reply.proposal if isinstance(reply, Reply) and isinstance(reply.proposal, ToolProposal) else None
    return Answered(
        outcome=TurnOutcome(fault.kind.value),
        stages=[stage, failed, not_run],
        request=request,
        reply=reply if isinstance(reply, Reply) else None,
        dropped=dropped,
        notice=fault.notice,
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
                answer_allowance=setup.answer_max_tokens,
                encoding=setup.counter,
                conflicts=conflicts,
            )
        else:
            turn = conversation.ask(
                question,
                records,
                in_force=_versions_in_force(setup),
                answer_allowance=setup.answer_max_tokens,
                conflicts=conflicts,
            )
            if turn.request is None:
                return _stopped(turn)
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


def _versions_in_force(setup: TurnSetup) -> dict[str, str] | None:
    """The register's revision in force per document on the turn's date: a conversation pinned to another is told."""
    if setup.register is None:
        return None
    return setup.register.versions_on(as_date(setup.observed_on, field="observed_on"))


def _measured(
    request: ModelRequest, setup: TurnSetup, model: Model, stage: StageResult
) -> tuple[TurnOutcome, ModelRequest | None, str | None, StageResult]:
    """The request counted as its provider is sent it (when the model renders a body), checked again
    against the ceiling and the budget's total: a body over either is not sent; nothing is cut."""
    if not callable(getattr(model, "render", None)):
        return TurnOutcome.ANSWERED, request, None, stage
    counted = getattr(model, "count_note", "") or "counted with the turn's counter"
    over = _over_total(request, setup.budget)
    if over is None and request.load > request.ceiling:
        over = f"the body as sent needs {request.load:,} tokens with the answer, over the {request.ceiling:,} ceiling"
    if over is not None:
        return TurnOutcome.TOO_LARGE, None, over, StageResult(Stage.REQUEST, StageStatus.FAILED, stage.ids, over)
    detail = f"{request.report()}; the body sent to the provider, {counted}"
    return TurnOutcome.ANSWERED, request, None, StageResult(Stage.REQUEST, StageStatus.PASSED, stage.ids, detail)


def _stopped(turn: Any) -> tuple[TurnOutcome, None, str, StageResult]:
    """A conversation whose document changed since it first read it: the turn stops and says which."""
    changed = tuple(c.document_id for c in turn.changes)
    notice = turn.notice
    assert notice is not None  # Conversation.ask gives a notice whenever it gives no request
    return TurnOutcome.STOPPED, None, notice, StageResult(Stage.REQUEST, StageStatus.FAILED, changed, notice)


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
    parts = [f"{plural(len(reply.citations), 'citation')}"]
    if reply.obeyed:
        parts.append("the model followed a planted instruction: " + ", ".join(reply.obeyed))
    if reply.proposal is not None:
        parts.append(f"suggested {reply.proposal} while reading documents: dropped, never carried out")
    return StageResult(Stage.ANSWER, StageStatus.PASSED, reply.citation_ids, "; ".join(parts))
