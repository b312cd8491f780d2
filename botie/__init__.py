"""Botie: the deterministic layers around a language model, small enough to read.

Two halves. Which retrieved records may enter a model request (permission,
budget, freshness, trust, relevance, provenance, citations), and when a
model's proposed tool call may become an action (validation, permission,
approval bound to the payload, idempotent retries).

The public API is ``__all__`` (pinned by ``tests/test_api.py``). Importing
botie stays cheap: no tokenizer, no widgets, no plotting happen here.
"""

from __future__ import annotations

from .adversarial import SliceSet, compare_designs, run_slice
from .budget import Budget
from .canonical import canonical_json, fingerprint
from .citations import CitationCheck, CitationFailure, verify_citations
from .conversation import Conversation
from .decision import Approval, Branch, Check, CheckName, Decision, KeyState, Receipt, StoredRequest, decide
from .errors import (
    BotieError,
    BudgetError,
    CitationError,
    ClockError,
    DecisionError,
    EvidenceError,
    FixtureError,
    PolicyError,
    RecordError,
    RequestTooLargeError,
    SettingError,
    StoreBusyError,
    StoreError,
    TokenizerError,
)
from .evidence import ModelRequest, build_request, parse_evidence, render_evidence
from .fixtures import Scene, fixture_path, load_records, load_scene
from .loading import DocumentTool, FailureInjector, LatencyModel, compare_loading
from .provenance import EvidenceSelection, EvidenceStatus, Trust, select_evidence
from .records import Record
from .routing import ContextPlan, DocumentCoverage, Strategy, execute_plan, plan_context
from .scripted import ScriptedModel, ToolProposal, load_scripted_model
from .selection import Coverage, Outcome, Selection, Status, select
from .service import DEFAULT_RETENTION, InspectionService, JobOrder, Recovery, RecoveryOutcome
from .sqlite_store import SQLiteStore
from .stores import AuditRecord, Job, MemoryStore
from .tokens import TokenCache, count_tokens
from .tool import INSPECTION_TOOL, FieldError, Problem, validate_inspection
from .turn import ActionRequest, Stage, TurnOutcome, TurnResult, TurnSetup, run_turn

__version__ = "0.1.0"

__all__ = [
    # errors
    "BotieError",
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
