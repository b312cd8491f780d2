"""Answer the concept check, keep the answers, and compare the two checks idea by idea.

The questions are :mod:`botie.lessons.exercises.concepts`; the widget in :mod:`botie.lessons.ui.concepts`
calls :func:`answer_check` and renders :class:`ConceptReport`. Nothing here draws anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, NamedTuple

from botie.lessons.exercises.concepts import CONCEPTS, Concept, check_name
from botie.lessons.exercises.questions import judge
from botie.lessons.learner.progress import ConceptAnswer, load, progress_path, record_concepts

__all__ = ["CheckSaved", "ConceptLine", "ConceptReport", "answer_check", "report_from", "show_concepts", "stored"]


class CheckSaved(NamedTuple):
    """What one press of the save button did: the answers the check holds now, and what is still open."""

    check: str
    answers: dict[str, ConceptAnswer]
    new: int  # answers this press added (a question answered before keeps its first answer)
    unanswered: tuple[str, ...]  # question ids with no answer yet, in the check's order
    saved: bool  # False when recording is off or the file could not be written


def answer_check(check: str, choices: Mapping[str, Any]) -> CheckSaved:
    """Judge the chosen options (question id -> option index, or None) and keep them under ``check``.

    A question with no option chosen is not an answer and is not kept; one answered before keeps its
    first answer, so a second press (or a second run of the cell) changes nothing already saved.
    """
    check = check_name(check)
    when = datetime.now(timezone.utc).isoformat(timespec="seconds")
    given = {}
    for cid, choice in choices.items():
        concept = CONCEPTS[cid]
        verdict = judge(concept.question, choice)
        if verdict.answered:
            given[cid] = ConceptAnswer(choice, verdict.correct, when)
    before = stored().get(check, {})
    kept, saved = record_concepts(check, given)
    new = sum(1 for cid in kept if cid not in before)
    return CheckSaved(check, kept, new, tuple(cid for cid in CONCEPTS if cid not in kept), saved)


def stored() -> dict[str, dict[str, ConceptAnswer]]:
    """The concept answers in the learner's progress file (empty when there is none or recording is off)."""
    path = progress_path()
    return {} if path is None else load(path).concepts


class ConceptLine(NamedTuple):
    """One idea: right (True), missed (False) or not answered (None), in each check."""

    concept: Concept
    before: bool | None
    after: bool | None


def _mark(value: bool | None) -> str:
    return "not answered" if value is None else "right" if value else "missed"


@dataclass(frozen=True)
class ConceptReport:
    """The learner's two checks side by side, and the ideas to revisit once the second is taken."""

    lines: tuple[ConceptLine, ...]

    @property
    def after_taken(self) -> bool:
        return any(line.after is not None for line in self.lines)

    @property
    def revisit(self) -> tuple[Concept, ...]:
        """Ideas not right in the second check (nothing until it has been taken)."""
        return tuple(line.concept for line in self.lines if self.after_taken and line.after is not True)

    def right(self, check: str) -> int:
        return sum(1 for line in self.lines if getattr(line, check_name(check)) is True)

    def summary(self) -> str:
        n = len(self.lines)
        if not self.after_taken:
            return f"First check: {self.right('before')} of {n} right. The second check ends lesson 06."
        return (
            f"Right before: {self.right('before')} of {n}; after: {self.right('after')} of {n}. "
            f"{len(self.revisit)} {'idea' if len(self.revisit) == 1 else 'ideas'} to revisit."
        )

    def text(self) -> str:
        width = max(len(line.concept.idea) for line in self.lines)
        rows = [f"{'idea':<{width}}  {'before':<13}after"]
        rows += [f"{ln.concept.idea:<{width}}  {_mark(ln.before):<13}{_mark(ln.after)}" for ln in self.lines]
        rows.append(self.summary())
        for c in self.revisit:
            q = c.question
            rows.append(f"Revisit {c.revisit} ({c.idea}). The answer: {q.options[q.answer]}. {q.why}")
        return "\n".join(rows)


def report_from(answers: Mapping[str, Mapping[str, ConceptAnswer]]) -> ConceptReport:
    """The report for stored answers (check -> question id -> answer), every concept in the check's order."""

    def right(check: str, cid: str) -> bool | None:
        answer = answers.get(check, {}).get(cid)
        return None if answer is None else answer.right

    return ConceptReport(tuple(ConceptLine(c, right("before", c.id), right("after", c.id)) for c in CONCEPTS.values()))


def show_concepts() -> None:
    """Print your two concept checks side by side, and what to revisit. Never raises."""
    report = report_from(stored())
    if not any(line.before is not None or line.after is not None for line in report.lines):
        print("No concept check answered yet: the first is at the start of lesson 00.")
        return
    print(report.text())
