"""Botie: the deterministic layers around a language model, small enough to read.

Two halves. Which retrieved records may enter a model request (permission, budget,
freshness, trust, relevance, provenance, evidence rendering, citations, conversation,
memory, chunks, sub-questions), and when a model's proposed tool call may become an
action (validation, permission, approval bound to the payload, idempotent retries).
One turn (``run_turn``) joins them through any model.

This is the library's whole public API: ``__all__``, pinned by ``tests/test_api.py``. The
workshop's lesson machinery (checks, hints, progress, scenes, the scripted model) is
:mod:`botie.lessons`; the panels are :mod:`botie.ui`. Importing botie is cheap: only the
error tree loads at once; every other name loads its module the first time it is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from botie._lazy import lazy_names
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

#: Where each public name lives: a map of the package's two halves and the turn that joins them.
_HOMES: dict[str, tuple[str, ...]] = {
    # which records may enter a request
    "botie.context.records": ("Record",),
    "botie.context.budget": ("Budget",),
    "botie.context.selection": ("Coverage", "Outcome", "Selection", "Status", "select", "permitted_only"),
    "botie.context.tokens": (
        "TokenCache",
        "count_tokens",
    ),
    "botie.context.routing": (
        "ContextPlan",
        "DocumentCoverage",
        "Strategy",
        "execute_plan",
        "plan_context",
    ),
    "botie.context.provenance": (
        "EvidenceSelection",
        "EvidenceStatus",
        "Trust",
        "select_evidence",
    ),
    "botie.context.evidence": (
        "ModelRequest",
        "build_request",
        "parse_evidence",
        "render_evidence",
        "Message",
        "RequestKind",
        "document_tokens",
    ),
    "botie.context.citations": (
        "CitationCheck",
        "CitationFailure",
        "verify_citations",
    ),
    "botie.context.conversation": ("Conversation",),
    "botie.context.chunks": (
        "document_of",
        "split_record",
        "summary_of",
    ),
    "botie.context.memory": (
        "MemoryEntry",
        "Origin",
        "carry_forward",
    ),
    "botie.context.subquestions": (
        "SubQuestion",
        "select_per_subquestion",
    ),
    # when a proposal may become an action
    "botie.actions.canonical": (
        "canonical_json",
        "fingerprint",
    ),
    "botie.actions.tool": ("INSPECTION_TOOL", "FieldError", "Problem", "validate_inspection", "inspection_tool"),
    "botie.actions.decision": (
        "Approval",
        "Branch",
        "Check",
        "CheckName",
        "Decision",
        "KeyState",
        "Receipt",
        "StoredRequest",
        "decide",
    ),
    "botie.actions.rules": ("AssetRegister", "MaintenanceCalendar"),
    "botie.actions.stores": (
        "AuditRecord",
        "Job",
        "MemoryStore",
        "SQLiteStore",
    ),
    "botie.actions.service": (
        "DEFAULT_RETENTION",
        "InspectionService",
        "JobOrder",
        "Recovery",
        "RecoveryOutcome",
    ),
    "botie.actions.retry": (
        "RetryRun",
        "submit_with_retries",
    ),
    # one turn across both halves, through any model
    "botie.model": ("Model", "Reply", "ToolProposal", "StopReason", "Usage", "reply_fault"),
    "botie.turn": (
        "ActionRequest",
        "Stage",
        "TurnOutcome",
        "TurnResult",
        "TurnSetup",
        "run_turn",
    ),
}

__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())

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
    from botie.actions.retry import RetryRun, submit_with_retries
    from botie.actions.rules import AssetRegister, MaintenanceCalendar
    from botie.actions.service import DEFAULT_RETENTION, InspectionService, JobOrder, Recovery, RecoveryOutcome
    from botie.actions.stores import AuditRecord, Job, MemoryStore, SQLiteStore
    from botie.actions.tool import INSPECTION_TOOL, FieldError, Problem, inspection_tool, validate_inspection
    from botie.context.budget import Budget
    from botie.context.chunks import document_of, split_record, summary_of
    from botie.context.citations import CitationCheck, CitationFailure, verify_citations
    from botie.context.conversation import Conversation
    from botie.context.evidence import (
        Message,
        ModelRequest,
        RequestKind,
        build_request,
        document_tokens,
        parse_evidence,
        render_evidence,
    )
    from botie.context.memory import MemoryEntry, Origin, carry_forward
    from botie.context.provenance import EvidenceSelection, EvidenceStatus, Trust, select_evidence
    from botie.context.records import Record
    from botie.context.routing import ContextPlan, DocumentCoverage, Strategy, execute_plan, plan_context
    from botie.context.selection import Coverage, Outcome, Selection, Status, permitted_only, select
    from botie.context.subquestions import SubQuestion, select_per_subquestion
    from botie.context.tokens import TokenCache, count_tokens
    from botie.model import Model, Reply, StopReason, ToolProposal, Usage, reply_fault
    from botie.turn import ActionRequest, Stage, TurnOutcome, TurnResult, TurnSetup, run_turn

__all__ = [
    "AssetsError",
    "BotieError",
    "BudgetError",
    "CitationError",
    "ClockError",
    "DecisionError",
    "EvidenceError",
    "FixtureError",
    "InputError",
    "PolicyError",
    "RecordError",
    "RequestTooLargeError",
    "SettingError",
    "StoreBusyError",
    "StoreError",
    "TokenizerError",
    "Record",
    "Budget",
    "Coverage",
    "Outcome",
    "Selection",
    "Status",
    "select",
    "TokenCache",
    "count_tokens",
    "ContextPlan",
    "DocumentCoverage",
    "Strategy",
    "execute_plan",
    "plan_context",
    "EvidenceSelection",
    "EvidenceStatus",
    "Trust",
    "select_evidence",
    "ModelRequest",
    "build_request",
    "parse_evidence",
    "render_evidence",
    "CitationCheck",
    "CitationFailure",
    "verify_citations",
    "Conversation",
    "document_of",
    "split_record",
    "summary_of",
    "MemoryEntry",
    "Origin",
    "carry_forward",
    "SubQuestion",
    "select_per_subquestion",
    "canonical_json",
    "fingerprint",
    "INSPECTION_TOOL",
    "FieldError",
    "Problem",
    "validate_inspection",
    "Approval",
    "Branch",
    "Check",
    "CheckName",
    "Decision",
    "KeyState",
    "Receipt",
    "StoredRequest",
    "decide",
    "AssetRegister",
    "MaintenanceCalendar",
    "AuditRecord",
    "Job",
    "MemoryStore",
    "SQLiteStore",
    "DEFAULT_RETENTION",
    "InspectionService",
    "JobOrder",
    "Recovery",
    "RecoveryOutcome",
    "RetryRun",
    "submit_with_retries",
    "Model",
    "Reply",
    "ToolProposal",
    "ActionRequest",
    "Stage",
    "TurnOutcome",
    "TurnResult",
    "TurnSetup",
    "run_turn",
    "Message",
    "RequestKind",
    "document_tokens",
    "permitted_only",
    "inspection_tool",
    "StopReason",
    "Usage",
    "reply_fault",
]
