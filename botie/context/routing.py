"""Count first, then route: choose a strategy that can hold the attachments, and account for all of them.

The cheapest way to respect a ceiling is to keep the front of the assembled
text and drop the rest. It never fails, and that is the problem: the dropped
documents leave no trace, so nobody (the user, the engineer, the model) can
tell that the answer came from a fraction of the evidence. Here the decision
happens before any prompt exists, from token counts alone, and whichever
strategy runs reports which documents it read in full and which it did not.

Two fractions of the same ceiling appear in this package and they measure
different things:

- :data:`SOFT_FRACTION` (60%) is how much of the ceiling the *documents* may
  claim when a conversation starts. The rest is for instructions, the turns
  still to come and the answer.
- :data:`ALERT_FRACTION` (70%) watches the *whole assembled request* (turns and
  answer allowance included) on every turn, and flags it when it gets close.

Reading them as one number gives an alert that never fires.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

from botie._checks import ceiling_tokens, exact_number, unit_fraction, whole_number
from botie._enum import ShortName
from botie.context.chunks import document_of
from botie.context.records import Record, unique_records
from botie.context.selection import Coverage, Selection, select
from botie.errors import BudgetError, PolicyError, RecordError, SettingError

__all__ = [
    "ALERT_FRACTION",
    "SELECT_FACTOR",
    "SOFT_FRACTION",
    "ContextPlan",
    "DocumentCoverage",
    "RouteCheck",
    "Strategy",
    "alert_threshold",
    "execute_plan",
    "first_failing_turn",
    "passage_coverage",
    "plan_context",
    "relevance_order",
    "share_of",
    "source_document",
]

#: The share of the ceiling the attached documents may claim.
SOFT_FRACTION = 0.6
#: The share of the ceiling at which an assembled request raises an alert.
ALERT_FRACTION = 0.7
#: How many soft budgets of documents whole-document selection still handles (a judgement, not a derivation).
SELECT_FACTOR = 4


class Strategy(ShortName):
    """How the attachments will reach the model."""

    STUFF_ALL = "stuff_all"  # everything fits: send every document whole
    SELECT_DOCUMENTS = "select_documents"  # send the most relevant whole documents that fit; the rest are not read
    RETRIEVE_WITHIN_DOCUMENT = "retrieve_within_document"  # one document alone is too big: retrieve passages
    RETRIEVE_CHUNKS = "retrieve_chunks"  # far too much in total: retrieve passages across all documents


def _plain(value: Fraction) -> str:
    """A fraction as a learner would write it: 4, 2.5."""
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def share_of(ceiling: int, fraction: float | Fraction, name: str = "fraction") -> int:
    """``ceiling * fraction`` in whole tokens, rounded down, computed exactly.

    ``900_000 * 0.6`` in floating point is not guaranteed to land on 540,000;
    here 0.6 is read as 6/10 and the product is exact. A fractional result is
    rounded down, so a share never exceeds what the fraction allows.
    """
    return math.floor(ceiling * exact_number(fraction, field=name))


def alert_threshold(ceiling: int, fraction: float | Fraction = ALERT_FRACTION) -> int:
    """The smallest load, in tokens, that is at or above ``fraction`` of the ceiling (exact, rounded up).

    With the default 70% of 900,000 that is 630,000 tokens.
    """
    ceiling = ceiling_tokens(ceiling)
    share = unit_fraction(fraction, field="alert_fraction", allow_zero=False)
    return math.ceil(ceiling * share)


class RouteCheck(NamedTuple):
    """One routing test, in the order it ran, and whether it decided the strategy."""

    name: str
    fired: bool
    detail: str


@dataclass(frozen=True)
class ContextPlan:
    """Where the attachments go, and why. ``checks`` is the path the decision took."""

    strategy: Strategy
    note: str
    checks: tuple[RouteCheck, ...]
    docs: tuple[Record, ...]
    ceiling: int
    soft_budget: int
    select_limit: int
    total: int
    oversized_ids: tuple[str, ...]

    @property
    def budget(self) -> int:
        """Tokens the documents may use: the soft budget."""
        return self.soft_budget


def _route_settings(ceiling: Any, soft_fraction: Any, select_factor: Any) -> tuple[int, Fraction, Fraction]:
    """The ceiling, the soft fraction and the select factor, checked and made exact."""
    ceiling = ceiling_tokens(ceiling)
    fraction = unit_fraction(soft_fraction, field="soft_fraction", allow_zero=False)
    factor = exact_number(select_factor, field="select_factor")
    if factor < 1:
        raise SettingError(f"select_factor must be at least 1, got {select_factor!r}", field="select_factor")
    return ceiling, fraction, factor


def _oversized_check(docs: Sequence[Record], soft: int, pct: str) -> RouteCheck:
    """The first check: is any one document above the soft budget? Its detail names the first such, or the largest."""
    big = next((d for d in docs if d.cost > soft), None)
    if big is not None:
        detail = f"{big.id} alone is {big.cost:,} tokens, above the {soft:,}-token soft budget ({pct})"
        return RouteCheck("oversized_document", True, detail)
    largest = max(docs, key=lambda d: d.cost, default=None)
    biggest = f"the largest is {largest.id} at {largest.cost:,}" if largest else "no documents"
    return RouteCheck("oversized_document", False, f"{biggest}; none is above {soft:,}")


def plan_context(
    docs: Iterable[Record],
    *,
    ceiling: int,
    soft_fraction: float = SOFT_FRACTION,
    select_factor: float = SELECT_FACTOR,
) -> ContextPlan:
    """Choose a strategy from the documents' token counts (``Record.cost`` is a whole document).

    The checks run in this order, and the order matters:

    1. **oversized document**: one document above the soft budget routes to
       ``retrieve_within_document``. This runs first because whole-document
       selection has nothing valid to offer then: its smallest choice, that
       document, is already too big. A huge document beside a few small ones
       can have a modest total and would otherwise slip into
       ``select_documents``.
    2. **total within the soft budget**: ``stuff_all``.
    3. **total within ``select_factor`` soft budgets**: ``select_documents``.
    4. otherwise ``retrieve_chunks``.

    The soft budget is ``ceiling * soft_fraction`` in whole tokens (see
    :func:`share_of`: exact, rounded down), so 60% of 900,000 is 540,000.
    """
    ceiling, fraction, factor = _route_settings(ceiling, soft_fraction, select_factor)
    docs = unique_records(docs, noun="document")
    soft = share_of(ceiling, fraction)
    limit = math.floor(soft * factor)
    total = sum(d.cost for d in docs)
    oversized = tuple(d.id for d in docs if d.cost > soft)
    pct = f"{float(fraction) * 100:g}% of {ceiling:,}"

    def plan(strategy: Strategy, note: str, checks: list[RouteCheck]) -> ContextPlan:
        return ContextPlan(strategy, note, tuple(checks), docs, ceiling, soft, limit, total, oversized)

    oversize_check = _oversized_check(docs, soft, pct)
    checks: list[RouteCheck] = [oversize_check]
    if oversize_check.fired:
        why = f"{oversize_check.detail}: no set of whole documents can include it, so retrieve passages within it"
        return plan(Strategy.RETRIEVE_WITHIN_DOCUMENT, why, checks)

    fits = total <= soft
    detail = f"{total:,} tokens in {len(docs)} documents {'<=' if fits else '>'} the {soft:,} soft budget"
    checks.append(RouteCheck("total_within_soft_budget", fits, detail))
    if fits:
        why = f"all {len(docs)} documents ({total:,} tokens) fit the {soft:,}-token soft budget ({pct}): send them"
        return plan(Strategy.STUFF_ALL, why, checks)

    selectable = total <= limit
    times = _plain(factor)
    detail = f"{total:,} tokens {'<=' if selectable else '>'} {limit:,} ({times} soft budgets)"
    checks.append(RouteCheck("total_within_select_limit", selectable, detail))
    if selectable:
        why = (
            f"{total:,} tokens is over the {soft:,}-token soft budget but within {times} of them: "
            "read the most relevant whole documents that fit; the rest are not read, and the coverage record names them"
        )
        return plan(Strategy.SELECT_DOCUMENTS, why, checks)
    why = (
        f"{total:,} tokens is more than {times} soft budgets ({limit:,}): too much to choose whole "
        "documents from, so retrieve passages across all of them"
    )
    return plan(Strategy.RETRIEVE_CHUNKS, why, checks)


@dataclass(frozen=True)
class DocumentCoverage:
    """What a strategy did with every attached document: read in full, or not read.

    The two buckets add up to ``documents_attached`` exactly: every document
    lands in one of them and only one. That identity is what lets a reader
    check the accounting against a number they know independently (how many
    files they attached). It proves nothing went missing; it cannot prove the
    best documents were chosen, which is why ``excluded_ids`` is listed too.

    The seed's record calls the second bucket "searched but not included"
    because its product searches what it does not read. Nothing here searches
    them under ``select_documents``, so the bucket says what it is: not read.
    (Under ``retrieve_*`` no document is read whole and passages are chosen
    from all of them afterwards, by :func:`botie.context.provenance.select_evidence`.
    Once they are, a document counts as read when a passage of it was sent:
    ``passage_ids`` lists those passages, and is None while none has been chosen.)
    """

    strategy: Strategy
    documents_attached: int
    documents_in_context: int
    documents_not_read: int
    excluded_ids: tuple[str, ...]
    token_budget_used: int
    soft_budget: int
    included_ids: tuple[str, ...]
    passage_ids: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        read, unread = self.documents_in_context, self.documents_not_read
        if read + unread != self.documents_attached or unread != len(self.excluded_ids):
            raise BudgetError(  # a broken invariant in our own code, never a result to show
                f"coverage does not add up: {read} + {unread} != {self.documents_attached}", field="coverage"
            )

    @property
    def unused(self) -> int:
        """Soft budget left over: whole documents cannot be split, so some room usually stays empty."""
        return self.soft_budget - self.token_budget_used

    def as_dict(self) -> dict[str, Any]:
        """The lesson's coverage record, ready to travel with the answer as JSON."""
        return {
            "strategy": self.strategy.value,
            "documents_attached": self.documents_attached,
            "documents_in_context": self.documents_in_context,
            "documents_not_read": self.documents_not_read,
            "excluded_ids": list(self.excluded_ids),
            "token_budget_used": self.token_budget_used,
        }

    def explain(self) -> str:
        read, unread, attached = self.documents_in_context, self.documents_not_read, self.documents_attached
        if self.passage_ids is not None:
            return self._explain_passages()
        counts = (
            f"{self.strategy}: {read} of {attached} documents read in full, {unread} not read "
            f"({read} + {unread} = {attached}); "
        )
        if self.strategy in (Strategy.RETRIEVE_CHUNKS, Strategy.RETRIEVE_WITHIN_DOCUMENT):
            # Nothing is read whole, but passages will still be sent: "0 tokens used" would read as "nothing sent".
            return counts + (
                f"no document is read whole; passages retrieved from them are chosen within the "
                f"{self.soft_budget:,}-token soft budget"
            )
        used = f"{self.token_budget_used:,} of {self.soft_budget:,} tokens used"
        if not unread:
            return counts + used
        return counts + (
            f"{used}; nothing searched the {unread} not read, so an answer inside one of them is not in this "
            "reply: their ids are listed"
        )

    def _explain_passages(self) -> str:
        read, unread, attached = self.documents_in_context, self.documents_not_read, self.documents_attached
        passages = len(self.passage_ids or ())
        text = (
            f"{self.strategy}: {read} of {attached} documents read through {passages} passage"
            f"{'' if passages == 1 else 's'}, {unread} not read ({read} + {unread} = {attached}); "
            f"{self.token_budget_used:,} of {self.soft_budget:,} tokens used"
        )
        if unread:
            text += f"; no passage of the {unread} not read was sent: their ids are listed"
        return text

    def counts(self) -> Coverage:
        """The same accounting as a :class:`botie.Coverage` (``in_context`` vs ``not_read``)."""
        outcomes = [(i, "in_context") for i in self.included_ids] + [(i, "not_read") for i in self.excluded_ids]
        return Coverage.of(outcomes, ("in_context", "not_read"), kept="in_context")


def execute_plan(
    plan: ContextPlan, *, policy: str = "prefix", passages: Iterable[Record] | None = None
) -> DocumentCoverage:
    """Carry out the whole-document part of a plan and return its coverage record.

    - ``stuff_all``: every document is read in full.
    - ``select_documents``: rank the documents by relevance (see
      :func:`relevance_order`) and read each whole one that fits the soft
      budget, via :func:`botie.select`. Attachment order never decides: the
      order files were uploaded says nothing about the question. The default
      ``"prefix"`` policy stops at the first document that does not fit (the
      rule of lesson 01), so every document read outranks every one only
      searched, and the room left over is smaller than the document it stopped
      at. ``"skip"`` steps over it and keeps looking instead. Either way the
      declined ones are not read, and the record lists them by id.
    - ``retrieve_*``: no document is read whole; passages from all of them are
      chosen later (see :func:`botie.context.provenance.select_evidence`). Pass
      the ``passages`` that were sent and each document with a passage among
      them counts as read (see :func:`passage_coverage`).

    ``included_ids`` is in reading order (most relevant first); ``excluded_ids``
    keeps attachment order, so a reader can tick them off against their files.
    """
    if not isinstance(plan, ContextPlan):
        raise PolicyError(f"execute_plan needs a ContextPlan from plan_context, got {plan!r:.80}", field="plan")
    whole = plan.strategy in (Strategy.STUFF_ALL, Strategy.SELECT_DOCUMENTS)
    if passages is not None:
        if whole:
            why = f"passages are chosen only under retrieve_*; {plan.strategy} reads whole documents"
            raise PolicyError(why, field="passages")
        return passage_coverage(plan.docs, passages, strategy=plan.strategy, soft_budget=plan.soft_budget)
    if plan.strategy is Strategy.STUFF_ALL:
        read_ids, used = tuple(d.id for d in plan.docs), plan.total
    elif plan.strategy is Strategy.SELECT_DOCUMENTS:
        selection = _pack_documents(plan, policy)
        read_ids, used = selection.selected_ids, selection.used
    else:
        read_ids, used = (), 0
    chosen = set(read_ids)
    excluded = tuple(d.id for d in plan.docs if d.id not in chosen)
    return DocumentCoverage(
        plan.strategy, len(plan.docs), len(read_ids), len(excluded), excluded, used, plan.soft_budget, read_ids
    )


def source_document(passage: Record) -> str:
    """The document a passage belongs to: its ``document`` field, else what its id says (``doc#part2`` -> ``doc``)."""
    return passage.document if passage.document is not None else document_of(passage.id)


def passage_coverage(
    documents: Iterable[Record | str],
    passages: Iterable[Record],
    *,
    strategy: Strategy = Strategy.RETRIEVE_CHUNKS,
    soft_budget: int,
    used: int | None = None,
) -> DocumentCoverage:
    """The coverage record once passages were sent: a document with a passage among them was read, the rest not.

    ``documents`` are the attached documents (records, whose ids are the document names, or the names);
    ``used`` is what the passages cost as sent (default: the sum of their costs). A passage whose document
    was not attached is broken accounting, raised naming the passage.
    """
    names = tuple(dict.fromkeys(d.id if isinstance(d, Record) else d for d in documents))
    sent = unique_records(passages, noun="passage")
    read: list[str] = []
    for p in sent:
        name = source_document(p)
        if name not in names:
            raise RecordError(
                f"record {p.id}: belongs to {name}, which is not among the attached documents",
                field="document",
                record=p.id,
            )
        if name not in read:
            read.append(name)
    excluded = tuple(d for d in names if d not in read)
    spent = sum(p.cost for p in sent) if used is None else used
    ids = tuple(p.id for p in sent)
    return DocumentCoverage(
        strategy, len(names), len(read), len(excluded), excluded, spent, soft_budget, tuple(read), ids
    )


def relevance_order(docs: Iterable[Record]) -> tuple[Record, ...]:
    """The documents most relevant first: by ``score``, highest first.

    A document without a score has no claim to relevance, so it goes after
    every scored one. Ties (equal scores, or no score at all) are broken by
    id, never by position, so shuffling the attachments cannot change which
    documents are read.
    """

    def key(doc: Record) -> tuple[bool, float, str]:
        return (doc.score is None, -(doc.score or 0.0), doc.id)

    return tuple(sorted(docs, key=key))


def _pack_documents(plan: ContextPlan, policy: str) -> Selection:
    # The user attached every one of these documents, so permission is not the
    # question here: allow exactly the assets present, and let select() pack.
    return select(relevance_order(plan.docs), {d.asset for d in plan.docs}, plan.soft_budget, policy=policy)


def first_failing_turn(ceiling: int, soft_fraction: float | Fraction, *, per_turn: int, fixed: int = 0) -> int:
    """The first turn whose request no longer fits when the documents claim ``soft_fraction`` of the ceiling.

    Turn ``n`` needs the documents (the soft budget, fully used), ``fixed``
    tokens that every turn carries (instructions and the room kept for the
    answer) and ``n * per_turn`` tokens of conversation: each turn adds its
    question and answer to the history the next one re-sends. The answer is
    the smallest ``n`` at which that sum exceeds the ceiling, so 1 means the
    very first turn already fails: what happens when the documents may take
    the whole ceiling and nothing is reserved for the rest.
    """
    ceiling = ceiling_tokens(ceiling)
    whole_number(per_turn, field="per_turn", least=1, what="a whole number of tokens")
    whole_number(fixed, field="fixed", what="a whole number of tokens")
    fraction = unit_fraction(soft_fraction, field="soft_fraction", allow_zero=False)
    room = ceiling - share_of(ceiling, fraction) - fixed  # what is left for the conversation itself
    return room // per_turn + 1 if room >= 0 else 1
