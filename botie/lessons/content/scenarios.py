"""Lesson scenarios: who asks, when, under which floor and budget, over which candidates.

A scenario file (``fixtures/manual_revisions.json``) holds the trusted state of
one scene and the questions asked in it, each with retrieval's scores for every
record. Loading one is lesson machinery; the selector it feeds is the library.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from botie._checks import as_date, unit_interval
from botie.context.budget import Budget
from botie.context.provenance import EvidenceSelection, select_evidence
from botie.context.records import Record
from botie.context.register import DocumentRegister
from botie.errors import FixtureError, PolicyError, RecordError
from botie.lessons.content.fixtures import fixture_path, load_records, load_register, registered

__all__ = [
    "EvidenceScenario",
    "FixtureQuestion",
    "attachments",
    "load_evidence_scenario",
    "rescored",
    "stored_previous",
]


def rescored(records: Iterable[Record], scores: Mapping[str, float]) -> tuple[Record, ...]:
    """The same records with the relevance scores retrieval gave them for another question.

    Scores belong to a question, not to a record; every other field is kept.
    A record missing from ``scores`` is an error, not a silent zero.
    """
    out = []
    for r in records:
        if r.id not in scores:
            raise RecordError(f"record {r.id}: no score given for this question", field="score", record=r.id)
        out.append(replace(r, score=scores[r.id]))
    return tuple(out)


@dataclass(frozen=True)
class FixtureQuestion:
    """A question the scenario can ask, the chunks that answer it, and retrieval's scores for it."""

    question: str
    answered_by: tuple[str, ...]
    scores: Mapping[str, float]
    note: str = ""


@dataclass(frozen=True)
class EvidenceScenario:
    """A selection scenario: who asks, when, under which floor and budget, over which candidates."""

    observed_on: _dt.date
    caller: str
    allowed_assets: tuple[str, ...]
    floor: float
    budget: Budget
    records: tuple[Record, ...]
    questions: tuple[FixtureQuestion, ...]
    #: Document control's register (trusted state, like the date): the revision in force on a day comes from
    #: here, whatever retrieval returned. None for a scene that names no register.
    register: DocumentRegister | None = None

    def candidates(self, question: int = 0) -> tuple[Record, ...]:
        """The records, scored for question number ``question``."""
        return rescored(self.records, self.questions[question].scores)

    def select(self, question: int = 0, **overrides: Any) -> EvidenceSelection:
        """Run :func:`select_evidence` on one question; keyword arguments override the scenario."""
        args: dict[str, Any] = {
            "candidates": self.candidates(question),
            "allowed_assets": self.allowed_assets,
            "budget": self.budget,
            "observed_on": self.observed_on,
            "floor": self.floor,
            "register": self.register,
        }
        args.update(overrides)
        return select_evidence(**args)


def load_evidence_scenario(path: str | os.PathLike[str] = "manual_revisions.json") -> EvidenceScenario:
    """Load a scenario such as ``fixtures/manual_revisions.json`` (a bare name is looked up there)."""
    path = Path(path)
    if not path.exists() and len(path.parts) == 1:
        path = fixture_path(str(path))
    records = load_records(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise FixtureError(f"{path.name}: expected an object with a scenario and its records", path=str(path))
    register = None
    if "register" in data:  # the scene names its register: every record must be placed in it
        register = load_register(path)
        records = registered(records, register, path)
    try:
        questions = tuple(_question(q, records, path) for q in data["questions"])
        return EvidenceScenario(
            observed_on=as_date(data["observed_on"], field="observed_on"),
            caller=str(data["caller"]),
            allowed_assets=tuple(data["allowed_assets"]),
            floor=unit_interval(data["relevance_floor"], field="relevance_floor"),
            budget=Budget(**data["budget"]),
            records=records,
            questions=questions,
            register=register,
        )
    except KeyError as exc:
        name = exc.args[0]
        raise FixtureError(f"{path.name}: missing field {name!r}", path=str(path), field=name) from exc


def _question(entry: Mapping[str, Any], records: Sequence[Record], path: Path) -> FixtureQuestion:
    scores = dict(entry.get("scores") or {r.id: r.score for r in records})
    unknown = sorted(set(scores).difference(r.id for r in records))
    missing = [r.id for r in records if r.id not in scores]
    if unknown or missing:
        bad = unknown[0] if unknown else missing[0]
        raise FixtureError(
            f"{path.name}: question {entry.get('question')!r} must score every record exactly once ({bad})",
            path=str(path),
            field="scores",
            record=bad,
        )
    answered_by = tuple(entry["answered_by"])
    note = str(entry.get("note", ""))
    return FixtureQuestion(str(entry["question"]), answered_by, MappingProxyType(scores), note)


# --- generated scenes for the panels ---------------------------------------------


def attachments(count: int, size: int, largest: int) -> tuple[Record, ...]:
    """``count`` documents: the largest first, then ``count - 1`` of ``size`` tokens each."""
    if count <= 0:
        return ()
    rest = tuple(Record(f"doc-{i:03d}", "attachments", f"attachment {i}", size) for i in range(2, count + 1))
    return (Record("doc-001", "attachments", "the largest attachment", largest), *rest)


#: The job the decision panel's stored request created.
STORED_JOB = "job-1"

#: What the decision panel can say is stored under the request id.
PREVIOUS_KINDS = ("none", "same", "different")


def stored_previous(proposal: Mapping[str, Any], choice: str) -> Mapping[str, Any] | None:
    """The payload the lesson stores under the proposal's request id: none, the same one, or a different one.

    "different" changes the duration by ten minutes and stays within 1..60,
    so the stored request is itself valid and differs in exactly one field.
    """
    if choice not in PREVIOUS_KINDS:
        raise PolicyError(f"choice must be one of {', '.join(PREVIOUS_KINDS)}; got {choice!r}", field="previous")
    if choice == "none":
        return None
    if choice == "same":
        return dict(proposal)
    minutes = proposal["duration_minutes"]
    return {**proposal, "duration_minutes": minutes + 10 if minutes <= 50 else minutes - 10}
