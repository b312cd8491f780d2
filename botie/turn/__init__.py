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
   turn with an outcome of its own and a notice that says which; so does a
   provider that sent no reply at all, rate-limited, overloaded, timed out
   and the like, with what its SDK retried: never an exception);
8. **citations**: the answer gate (:mod:`~botie.turn.gate`): every quote
   verbatim in a document that was sent and about the asked asset, every
   sentence citing a quote that holds its figures, and no disagreement
   noted in the request settled by the answer alone (a failure withholds it);
9. **proposal**: when the technician asked for an action, a *separate*
   request that carries their message and trusted facts and no document
   text, so nothing a document says can choose a tool or an argument (if the
   provider fails here, the answer already checked stands, and the trace and
   :attr:`TurnResult.action_notice` say nothing was proposed or booked);
10. **decision**: with a booking service (``service=``), its
    :meth:`~botie.actions.service.InspectionService.submit` on that proposal, with the caller, the assets
    they may schedule and the approval from trusted state: the service reads what is stored under the
    request id, applies its register and calendar, and books a ``create`` (the receipt names the job), so
    the same turn sent again reuses that job. Without one, :func:`botie.actions.decision.decide` alone:
    a decision, not a booking, and :attr:`TurnResult.action_notice` says nothing was booked.

A tool call the model suggests while reading documents (stage 7) is dropped
and reported, never carried out. When a turn fails, :attr:`TurnResult.losses`
says for each piece of evidence that was needed where it went missing: never
retrieved, not authorised, not current, below the relevance floor, did not
fit, or the quoted fact is not in the text.

The package holds one job a module: :mod:`~botie.turn.types` (the values), :mod:`~botie.turn.answer`
(stages 1-8), :mod:`~botie.turn.action` (stages 9-10), :mod:`~botie.turn.pricing` (what a request costs as
it is sent: botie's text, or the body a model renders for its provider) and :mod:`~botie.turn.losses` (where
evidence went missing); :func:`run_turn`, here, puts them together.
"""

from __future__ import annotations

from collections.abc import Iterable

from botie.actions.service import InspectionService
from botie.context.conversation import Conversation
from botie.context.evidence import ModelRequest
from botie.context.provenance import EvidenceSelection, EvidenceStatus
from botie.context.records import Record, unique_records
from botie.context.routing import DocumentCoverage, passage_coverage, source_document
from botie.model import Model
from botie.turn.action import action_instructions, action_notice, action_step, check_service, offered_tools
from botie.turn.answer import answer_step, filter_stages, select_for_turn
from botie.turn.gate import Gate, asked_assets
from botie.turn.losses import find_losses
from botie.turn.pricing import Pricing
from botie.turn.types import (
    ActionRequest,
    Loss,
    Stage,
    StageResult,
    StageStatus,
    TurnOutcome,
    TurnResult,
    TurnSetup,
    skipped,
)

__all__ = [
    "ActionRequest",
    "Gate",
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


def run_turn(
    question: str,
    candidates: Iterable[Record],
    setup: TurnSetup,
    model: Model,
    *,
    action: ActionRequest | None = None,
    needed: Iterable[str] = (),
    conversation: Conversation | None = None,
    asset: str | Iterable[str] | None = None,
    service: InspectionService | None = None,
) -> TurnResult:
    """Run one turn (see the module docstring) and return every stage's result.

    ``model`` is anything with ``reply(request) -> Reply`` (:class:`botie.model.Model`).
    ``needed`` names the documents a correct answer rests on (from a
    fixture's ``answered_by``); it is used only to say where they went
    missing, never to decide anything. With a ``conversation``, the request
    is assembled by :meth:`Conversation.ask`, so document versions are pinned
    across turns (the conversation's own ceiling then applies); every conflict note is sent either way.
    ``asset`` is the asset (or assets) the question is about, from trusted application state; without
    it, the readable assets the question names (see :func:`botie.turn.gate.asked_assets`). A citation of
    a document about any other asset withholds the answer.
    ``service`` is the booking service (:class:`~botie.actions.service.InspectionService`, built by the
    caller with its store, clock and business rules); it is an argument beside ``model``, not part of the
    setup, because it holds a store that changes as it books, where a setup is a frozen value of trusted
    state. With it, the service owns the register, the calendar and what is stored: a setup's own register
    or calendar must equal the service's, and ``action.previous`` must be None (a
    :class:`~botie.errors.SettingError` otherwise, raised before any model is asked). An ``action`` needs
    ``setup.schedule_assets`` (what the caller may schedule; the read scope is never used for it): without
    it, the same error, naming ``schedule_assets``.
    """
    check_service(setup, action, service)
    if conversation is not None:
        setup.check_allowance(conversation.allowance(setup.answer_max_tokens), "the conversation's answer allowance")
    records = unique_records(candidates)
    pricing = Pricing(question, setup, conversation, model)
    selection = select_for_turn(question, records, setup, conversation, pricing)
    asked = asked_assets(question, setup.allowed_assets, asset)
    answered = answer_step(question, records, selection, setup, model, conversation, pricing, asked)
    if action is None:
        why = "no action was asked for"
        acted = None
        action_stages = [skipped(Stage.PROPOSAL, why), skipped(Stage.DECISION, why)]
    else:
        acted = action_step(action, setup, model, records, service)
        action_stages = acted.stages
    return TurnResult(
        question=question,
        outcome=answered.outcome,
        stages=(*filter_stages(records, selection), *answered.stages, *action_stages),
        selection=selection,
        request=answered.request,
        reply=answered.reply,
        citations=answered.check,
        dropped=answered.dropped,
        action_request=acted.request if acted else None,
        proposal=acted.proposal if acted else None,
        decision=acted.decision if acted else None,
        losses=find_losses(needed, records, selection, answered.request, answered.check),
        notice=answered.notice,
        documents_in_action_request=acted.leaked if acted else (),
        gate=answered.gate,
        coverage=_coverage(records, selection, answered.request),
        action_reply=acted.reply if acted else None,
        action_notice=action_notice(acted) if acted else None,
    )


def _coverage(
    records: tuple[Record, ...], selection: EvidenceSelection, request: ModelRequest | None
) -> DocumentCoverage:
    """The turn's coverage record: the candidates' documents, each read when a passage of it was in the request.

    Only documents the caller may read are listed: the record travels with the answer, and naming a restricted
    document there would tell the caller what they may not see.
    """
    by_id = {r.id: r for r in records}
    readable = [r for r in records if selection.outcome(r.id).status is not EvidenceStatus.NOT_PERMITTED]
    sent = [by_id[i] for i in request.document_ids] if request is not None else []
    used = selection.used if request is not None else 0
    return passage_coverage([source_document(r) for r in readable], sent, soft_budget=selection.allowance, used=used)
