"""Where the evidence an answer needed went missing: never retrieved, not authorised, not current, below the
relevance floor, did not fit, never sent, or the quoted fact is not in the text.

Used only to explain a turn, never to decide anything in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from botie.context.citations import CitationCheck, CitationFailure, CitationProblem
from botie.context.evidence import ModelRequest
from botie.context.provenance import EvidenceSelection
from botie.context.records import Record
from botie.turn.types import LOSS_KIND, STAGE_OF_CHECK, Loss, Stage

__all__ = ["find_losses"]


def _citation_loss(rid: str, failure: CitationFailure) -> Loss:
    """A paraphrased quote, or one about another asset, is not a missing fact: the trace names which failed."""
    kinds = {CitationProblem.NOT_VERBATIM: "quote not verbatim", CitationProblem.WRONG_ASSET: "about another asset"}
    return Loss(rid, Stage.CITATIONS, kinds.get(failure.problem, LOSS_KIND[Stage.CITATIONS]), failure.reason)


def find_losses(
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
        stage = STAGE_OF_CHECK.get(o.check)
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
