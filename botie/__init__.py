"""Botie: the deterministic layers around a language model, small enough to read.

Two halves. Which retrieved records may enter a model request (permission,
budget, freshness, trust, relevance, provenance, citations), and when a
model's proposed tool call may become an action (validation, permission,
approval bound to the payload, idempotent retries).

The public API is ``__all__`` (pinned by ``tests/test_api.py``). Importing
botie stays cheap: no tokenizer, no widgets, no plotting happen here.
"""

from __future__ import annotations

# when a proposal may become an action
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

# which records may enter a request
from botie.context.budget import Budget
from botie.context.citations import CitationCheck, CitationFailure, verify_citations
from botie.context.conversation import Conversation
from botie.context.evidence import ModelRequest, build_request, parse_evidence, render_evidence
from botie.context.provenance import EvidenceSelection, EvidenceStatus, Trust, select_evidence
from botie.context.records import Record
from botie.context.routing import ContextPlan, DocumentCoverage, Strategy, execute_plan, plan_context
from botie.context.selection import Coverage, Outcome, Selection, Status, select
from botie.context.tokens import TokenCache, count_tokens

# errors
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

# the workshop's lesson machinery, exported for notebooks and people following along
from botie.lessons.adversarial import SliceSet, compare_designs, run_slice
from botie.lessons.fixtures import Scene, fixture_path, load_records, load_scene
from botie.lessons.loading import DocumentTool, FailureInjector, LatencyModel, compare_loading
from botie.lessons.scripted import ScriptedModel, load_scripted_model

# one turn across both halves, through any model
from botie.model import Model, Reply, ToolProposal
from botie.turn import ActionRequest, Stage, TurnOutcome, TurnResult, TurnSetup, run_turn

__version__ = "0.1.0"

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
