"""One question, several needs: select evidence per sub-question, and send only what each one needs.

"What torque do the gland nuts need, and when was the seal last replaced?"
asks for two facts. Ranked as one question, the passages about torque fill
the budget and the ticket that dates the replacement never gets in. Split
into sub-questions, each one gets its own candidates (retrieval's scores for
*that* need), its own small budget and its own refusal when nothing answers
it. The request then carries the union of the picks: the minimum that covers
every need, each record once.

The checks inside each sub-question are :func:`select_evidence`'s, unchanged
(permission, freshness, duplicates, floor, ranking, completeness, packing);
this module only composes them and keeps the accounts.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from botie._checks import whole_number
from botie.context.budget import Budget
from botie.context.provenance import DEFAULT_FLOOR, EvidenceSelection, select_evidence
from botie.context.records import Record
from botie.context.register import DocumentRegister
from botie.errors import BudgetError, InputError

__all__ = ["SubQuestion", "SubquestionPack", "select_per_subquestion"]


class SubQuestion(NamedTuple):
    """One need: its text, retrieval's candidates for it (scored for it), and the room it may take."""

    question: str
    candidates: Sequence[Record]
    budget: Budget | int


class _Part(NamedTuple):
    question: str
    selection: EvidenceSelection


@dataclass(frozen=True)
class SubquestionPack:
    """Each sub-question's selection, and the request they add up to."""

    parts: tuple[_Part, ...]
    selected_ids: tuple[str, ...]  # the union, in sub-question order, each id once
    used: int  # tokens of the distinct records sent

    @property
    def gaps(self) -> tuple[str, ...]:
        """Sub-questions nothing answered: say so, rather than let another need's evidence stand in."""
        return tuple(p.question for p in self.parts if p.selection.refused)

    def explain(self) -> str:
        lines = []
        for p in self.parts:
            s = p.selection
            got = f"refused: {s.refusal}" if s.refused else f"{', '.join(s.selected_ids)} ({s.used} tokens)"
            lines.append(f"{p.question}\n  -> {got}")
        lines.append(f"sent: {len(self.selected_ids)} records, {self.used} tokens")
        return "\n".join(lines)


def select_per_subquestion(
    subquestions: Iterable[SubQuestion],
    allowed_assets: Iterable[str],
    *,
    observed_on: _dt.date | str,
    floor: float = DEFAULT_FLOOR,
    band: float = 0.1,
    register: DocumentRegister | None = None,
) -> SubquestionPack:
    """Run :func:`select_evidence` once per sub-question and pack the union of what each selected.

    ``register`` is passed on: with it, the revision in force is document control's, whatever retrieval returned.
    """
    parts: list[_Part] = []
    cost: dict[str, int] = {}
    allowed = tuple(allowed_assets) if not isinstance(allowed_assets, str) else allowed_assets
    for sub in subquestions:
        if not isinstance(sub, SubQuestion):
            raise InputError(f"expected SubQuestion values, got {sub!r:.80}", field="subquestions")
        if not isinstance(sub.budget, Budget):
            what = "a Budget or a whole number of tokens"
            whole_number(
                sub.budget, field="budget", what=what, error=BudgetError, where=f"sub-question {sub.question!r}"
            )
        selection = select_evidence(
            sub.candidates, allowed, sub.budget, observed_on=observed_on, floor=floor, band=band, register=register
        )
        parts.append(_Part(sub.question, selection))
        by_id = {r.id: r for r in sub.candidates}
        for rid in selection.selected_ids:
            cost.setdefault(rid, by_id[rid].cost)
    if not parts:
        raise InputError("at least one sub-question is needed", field="subquestions")
    return SubquestionPack(tuple(parts), tuple(cost), sum(cost.values()))
