"""Botie: the deterministic layers around a language model, small enough to read.

Two halves. Which retrieved records may enter a model request (permission,
budget, freshness, trust, relevance, provenance, citations), and when a
model's proposed tool call may become an action (validation, permission,
approval bound to the payload, idempotent retries).

The public API is ``__all__`` (pinned by ``tests/test_api.py``). Importing
botie is cheap: only the error tree loads at once; every other name loads its
module the first time it is used (``botie.select`` imports
``botie.context.selection`` then). No tokenizer, widgets or plotting either way.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from botie.errors import (
    AssetsError,
    BotieError,
    BudgetError,
    CitationError,
    ClockError,
    DecisionError,
    EvidenceError,
    FixtureError,
    InputError,
    PolicyError,
    RecordError,
    RequestTooLargeError,
    SettingError,
    StoreBusyError,
    StoreError,
    TokenizerError,
)

__version__ = "0.1.0"

#: Where each public name lives. Read it as a map of the package: the library's two halves,
#: one turn across them, and the lesson machinery exported for notebooks.
_HOMES: dict[str, tuple[str, ...]] = {
    # which records may enter a request
    "botie.context.records": ("Record",),
    "botie.context.budget": ("Budget",),
    "botie.context.selection": ("Coverage", "Outcome", "Selection", "Status", "select"),
    "botie.context.tokens": ("TokenCache", "count_tokens"),
    "botie.context.routing": ("ContextPlan", "DocumentCoverage", "Strategy", "execute_plan", "plan_context"),
    "botie.context.provenance": ("EvidenceSelection", "EvidenceStatus", "Trust", "select_evidence"),
    "botie.context.evidence": ("ModelRequest", "build_request", "parse_evidence", "render_evidence"),
    "botie.context.citations": ("CitationCheck", "CitationFailure", "verify_citations"),
    "botie.context.conversation": ("Conversation",),
    # when a proposal may become an action
    "botie.actions.canonical": ("canonical_json", "fingerprint"),
    "botie.actions.tool": ("INSPECTION_TOOL", "FieldError", "Problem", "validate_inspection"),
    "botie.actions.decision": (
        "Approval", "Branch", "Check", "CheckName", "Decision", "KeyState", "Receipt", "StoredRequest", "decide",
    ),
    "botie.actions.stores": ("AuditRecord", "Job", "MemoryStore", "SQLiteStore"),
    "botie.actions.service": ("DEFAULT_RETENTION", "InspectionService", "JobOrder", "Recovery", "RecoveryOutcome"),
    # one turn across both halves, through any model
    "botie.model": ("Model", "Reply", "ToolProposal"),
    "botie.turn": ("ActionRequest", "Stage", "TurnOutcome", "TurnResult", "TurnSetup", "run_turn"),
    # the workshop's lesson machinery, for notebooks and people following along
    "botie.lessons.fixtures": ("Scene", "fixture_path", "load_records", "load_scene"),
    "botie.lessons.scripted": ("ScriptedModel", "load_scripted_model"),
    "botie.lessons.loading": ("DocumentTool", "FailureInjector", "LatencyModel", "compare_loading"),
    "botie.lessons.adversarial": ("SliceSet", "compare_designs", "run_slice"),
    "botie.lessons.progress": ("show_progress",),
    "botie.lessons.reset": ("reset_exercise",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    """Load a public name's module on first use (PEP 562), then keep the name here."""
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'botie' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors, which do not run __getattr__
    from botie.actions.canonical import canonical_json, fingerprint
    from botie.actions.decision import (
        Approval,
        Branch,
        Check,
        CheckName,
        Decision,
        KeyState,
        Receipt,
        StoredRequest,
        decide,
    )
    from botie.actions.service import DEFAULT_RETENTION, InspectionService, JobOrder, Recovery, RecoveryOutcome
    from botie.actions.stores import AuditRecord, Job, MemoryStore, SQLiteStore
    from botie.actions.tool import INSPECTION_TOOL, FieldError, Problem, validate_inspection
    from botie.context.budget import Budget
    from botie.context.citations import CitationCheck, CitationFailure, verify_citations
    from botie.context.conversation import Conversation
    from botie.context.evidence import ModelRequest, build_request, parse_evidence, render_evidence
    from botie.context.provenance import EvidenceSelection, EvidenceStatus, Trust, select_evidence
    from botie.context.records import Record
    from botie.context.routing import ContextPlan, DocumentCoverage, Strategy, execute_plan, plan_context
    from botie.context.selection import Coverage, Outcome, Selection, Status, select
    from botie.context.tokens import TokenCache, count_tokens
    from botie.lessons.adversarial import SliceSet, compare_designs, run_slice
    from botie.lessons.fixtures import Scene, fixture_path, load_records, load_scene
    from botie.lessons.loading import DocumentTool, FailureInjector, LatencyModel, compare_loading
    from botie.lessons.progress import show_progress
    from botie.lessons.reset import reset_exercise
    from botie.lessons.scripted import ScriptedModel, load_scripted_model
    from botie.model import Model, Reply, ToolProposal
    from botie.turn import ActionRequest, Stage, TurnOutcome, TurnResult, TurnSetup, run_turn

__all__ = [
    # errors
    "AssetsError",
    "BotieError",
    "InputError",
    "BudgetError",
    "CitationError",
    "ClockError",
    "DecisionError",
    "EvidenceError",
    "FixtureError",
    "PolicyError",
    "RecordError",
    "RequestTooLargeError",
    "SettingError",
    "StoreBusyError",
    "StoreError",
    "TokenizerError",
    # records, budget, selection
    "Budget",
    "Coverage",
    "Outcome",
    "Record",
    "Scene",
    "Selection",
    "Status",
    "fixture_path",
    "load_records",
    "load_scene",
    "select",
    # evidence: provenance, tokens, routing, rendering, citations, turns
    "CitationCheck",
    "CitationFailure",
    "ContextPlan",
    "Conversation",
    "DocumentCoverage",
    "EvidenceSelection",
    "EvidenceStatus",
    "ModelRequest",
    "Strategy",
    "TokenCache",
    "Trust",
    "build_request",
    "count_tokens",
    "execute_plan",
    "parse_evidence",
    "plan_context",
    "render_evidence",
    "select_evidence",
    "verify_citations",
    # one whole turn: scripted model, loading strategies, the adversarial slice
    "ActionRequest",
    "DocumentTool",
    "Model",
    "Reply",
    "FailureInjector",
    "LatencyModel",
    "ScriptedModel",
    "SliceSet",
    "Stage",
    "ToolProposal",
    "TurnOutcome",
    "TurnResult",
    "TurnSetup",
    "compare_designs",
    "compare_loading",
    "load_scripted_model",
    "run_slice",
    "run_turn",
    # actions: tool, decision, stores, service
    "DEFAULT_RETENTION",
    "INSPECTION_TOOL",
    "Approval",
    "AuditRecord",
    "Branch",
    "Check",
    "CheckName",
    "Decision",
    "FieldError",
    "InspectionService",
    "Job",
    "JobOrder",
    "KeyState",
    "MemoryStore",
    "Problem",
    "Receipt",
    "Recovery",
    "RecoveryOutcome",
    "SQLiteStore",
    "StoredRequest",
    "canonical_json",
    "decide",
    "fingerprint",
    "validate_inspection",
]
