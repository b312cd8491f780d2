"""Botie: the deterministic layers around a language model, small enough to read.

Two halves. Which retrieved records may enter a model request (permission, budget,
freshness, trust, relevance, provenance, evidence rendering, citations, conversation,
memory, chunks, sub-questions), and when a model's proposed tool call may become an
action (validation, permission, approval bound to the payload, idempotent retries).
One turn (``run_turn``) joins them through any model.

This is the library's whole public API: ``__all__``, derived from the map of where each name lives. The
workshop's lesson machinery (checks, hints, progress, scenes, the scripted model) is
:mod:`botie.lessons`, the workshop's one front door (its panels included). Importing botie is cheap:
each name loads its module the first time it is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from botie._lazy import lazy_names

__version__ = "0.1.0"

#: Where each public name lives: a map of the package's two halves and the turn that joins them.
_HOMES: dict[str, tuple[str, ...]] = {
    # bad input raises from one tree; a denial or a conflict is a result, never one of these
    "botie.errors": (
        "BotieError",
        "InputError",
        "AssetsError",
        "RecordError",
        "FixtureError",
        "BudgetError",
        "PolicyError",
        "DecisionError",
        "ClockError",
        "StoreError",
        "StoreBusyError",
        "TokenizerError",
        "EvidenceError",
        "RequestTooLargeError",
        "CitationError",
        "SettingError",
    ),
    # which records may enter a request
    "botie.context.records": ("Record",),
    "botie.context.budget": ("Budget",),
    "botie.context.selection": ("Coverage", "Outcome", "Selection", "Status", "select", "permitted_only"),
    "botie.context.tokens": ("TokenCache", "count_tokens", "compare_density"),
    "botie.context.routing": (
        "ContextPlan",
        "DocumentCoverage",
        "Strategy",
        "execute_plan",
        "plan_context",
        "relevance_order",
        "share_of",
        "first_failing_turn",
    ),
    "botie.context.provenance": (
        "EvidenceSelection",
        "EvidenceStatus",
        "TRUST_LABELS",
        "Trust",
        "select_evidence",
        "trust_of",
    ),
    "botie.context.evidence": (
        "ModelRequest",
        "build_request",
        "parse_evidence",
        "render_evidence",
        "Message",
        "RequestKind",
        "document_tokens",
        "document_element",
        "DEFAULT_INSTRUCTIONS",
        "conflict_note",
        "conflicts_in",
        "new_fence",
        "region_closed_early",
    ),
    "botie.context.citations": (
        "CitationCheck",
        "CitationFailure",
        "verify_citations",
        "check_claims",
    ),
    "botie.context.conversation": ("Conversation",),
    "botie.context.register": ("DocumentRegister",),
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
    # a real model behind the same turn (the `models` extra: the SDK loads when a model is made)
    "botie.adapters": ("AnthropicModel", "OpenAIModel"),
}

__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())

if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors, which do not run __getattr__
    from botie.actions.canonical import (
        canonical_json as canonical_json,
        fingerprint as fingerprint,
    )
    from botie.actions.decision import (
        Approval as Approval,
        Branch as Branch,
        Check as Check,
        CheckName as CheckName,
        Decision as Decision,
        KeyState as KeyState,
        Receipt as Receipt,
        StoredRequest as StoredRequest,
        decide as decide,
    )
    from botie.actions.retry import (
        RetryRun as RetryRun,
        submit_with_retries as submit_with_retries,
    )
    from botie.actions.rules import (
        AssetRegister as AssetRegister,
        MaintenanceCalendar as MaintenanceCalendar,
    )
    from botie.actions.service import (
        DEFAULT_RETENTION as DEFAULT_RETENTION,
        InspectionService as InspectionService,
        JobOrder as JobOrder,
        Recovery as Recovery,
        RecoveryOutcome as RecoveryOutcome,
    )
    from botie.actions.stores import (
        AuditRecord as AuditRecord,
        Job as Job,
        MemoryStore as MemoryStore,
        SQLiteStore as SQLiteStore,
    )
    from botie.actions.tool import (
        INSPECTION_TOOL as INSPECTION_TOOL,
        FieldError as FieldError,
        Problem as Problem,
        inspection_tool as inspection_tool,
        validate_inspection as validate_inspection,
    )
    from botie.adapters import (
        AnthropicModel as AnthropicModel,
        OpenAIModel as OpenAIModel,
    )
    from botie.context.budget import (
        Budget as Budget,
    )
    from botie.context.chunks import (
        document_of as document_of,
        split_record as split_record,
        summary_of as summary_of,
    )
    from botie.context.citations import (
        CitationCheck as CitationCheck,
        CitationFailure as CitationFailure,
        check_claims as check_claims,
        verify_citations as verify_citations,
    )
    from botie.context.conversation import (
        Conversation as Conversation,
    )
    from botie.context.evidence import (
        DEFAULT_INSTRUCTIONS as DEFAULT_INSTRUCTIONS,
        Message as Message,
        ModelRequest as ModelRequest,
        RequestKind as RequestKind,
        build_request as build_request,
        conflict_note as conflict_note,
        conflicts_in as conflicts_in,
        document_element as document_element,
        document_tokens as document_tokens,
        new_fence as new_fence,
        parse_evidence as parse_evidence,
        region_closed_early as region_closed_early,
        render_evidence as render_evidence,
    )
    from botie.context.memory import (
        MemoryEntry as MemoryEntry,
        Origin as Origin,
        carry_forward as carry_forward,
    )
    from botie.context.provenance import (
        TRUST_LABELS as TRUST_LABELS,
        EvidenceSelection as EvidenceSelection,
        EvidenceStatus as EvidenceStatus,
        Trust as Trust,
        select_evidence as select_evidence,
        trust_of as trust_of,
    )
    from botie.context.records import (
        Record as Record,
    )
    from botie.context.register import (
        DocumentRegister as DocumentRegister,
    )
    from botie.context.routing import (
        ContextPlan as ContextPlan,
        DocumentCoverage as DocumentCoverage,
        Strategy as Strategy,
        execute_plan as execute_plan,
        first_failing_turn as first_failing_turn,
        plan_context as plan_context,
        relevance_order as relevance_order,
        share_of as share_of,
    )
    from botie.context.selection import (
        Coverage as Coverage,
        Outcome as Outcome,
        Selection as Selection,
        Status as Status,
        permitted_only as permitted_only,
        select as select,
    )
    from botie.context.subquestions import (
        SubQuestion as SubQuestion,
        select_per_subquestion as select_per_subquestion,
    )
    from botie.context.tokens import (
        TokenCache as TokenCache,
        compare_density as compare_density,
        count_tokens as count_tokens,
    )
    from botie.errors import (
        AssetsError as AssetsError,
        BotieError as BotieError,
        BudgetError as BudgetError,
        CitationError as CitationError,
        ClockError as ClockError,
        DecisionError as DecisionError,
        EvidenceError as EvidenceError,
        FixtureError as FixtureError,
        InputError as InputError,
        PolicyError as PolicyError,
        RecordError as RecordError,
        RequestTooLargeError as RequestTooLargeError,
        SettingError as SettingError,
        StoreBusyError as StoreBusyError,
        StoreError as StoreError,
        TokenizerError as TokenizerError,
    )
    from botie.model import (
        Model as Model,
        Reply as Reply,
        StopReason as StopReason,
        ToolProposal as ToolProposal,
        Usage as Usage,
        reply_fault as reply_fault,
    )
    from botie.turn import (
        ActionRequest as ActionRequest,
        Stage as Stage,
        TurnOutcome as TurnOutcome,
        TurnResult as TurnResult,
        TurnSetup as TurnSetup,
        run_turn as run_turn,
    )

#: The public API: every name in the map above, each written once (a test holds the
#: ``TYPE_CHECKING`` imports to the same names).
__all__ = [name for names in _HOMES.values() for name in names]
