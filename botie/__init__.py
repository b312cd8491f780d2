"""Botie: the deterministic layers around a language model, small enough to read.

Two halves. Which retrieved records may enter a model request (permission,
budget, freshness, trust, relevance, provenance, citations), and when a
model's proposed tool call may become an action (validation, permission,
approval bound to the payload, idempotent retries).

The public API is ``__all__`` (pinned by ``tests/test_api.py``). Importing
botie stays cheap: no tokenizer, no widgets, no plotting happen here.
"""

from __future__ import annotations

from .budget import Budget
from .citations import CitationCheck, CitationFailure, verify_citations
from .conversation import Conversation
from .decision import Approval, Branch, Decision, Receipt, StoredRequest, decide
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
from .provenance import EvidenceSelection, EvidenceStatus, Trust, select_evidence
from .records import Record
from .routing import ContextPlan, DocumentCoverage, Strategy, execute_plan, plan_context
from .selection import Coverage, Outcome, Selection, Status, select
from .service import InspectionService
from .sqlite_store import SQLiteStore
from .stores import MemoryStore
from .tokens import TokenCache, count_tokens
from .tool import INSPECTION_TOOL, FieldError, validate_inspection

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
    # actions: tool, decision, stores, service
    "INSPECTION_TOOL",
    "Approval",
    "Branch",
    "Decision",
    "FieldError",
    "InspectionService",
    "MemoryStore",
    "Receipt",
    "SQLiteStore",
    "StoredRequest",
    "decide",
    "validate_inspection",
]
