"""The public API: every name in the design card's contract exists, with the stated shape."""

from __future__ import annotations

import inspect

import botie

CONTRACT = {
    "Record",
    "RecordError",
    "Budget",
    "BudgetError",
    "BotieError",
    "select",
    "Selection",
    "count_tokens",
    "plan_context",
    "render_evidence",
    "verify_citations",
    "INSPECTION_TOOL",
    "validate_inspection",
    "Approval",
    "decide",
    "Decision",
    "MemoryStore",
    "SQLiteStore",
    "InspectionService",
}


#: The library's whole public API, written out: a name added or dropped is a decision, made here too.
LIBRARY_API = {
    # errors
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
    # which records may enter a request
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
    # when a proposal may become an action
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
    # one turn through any model
    "StopReason",
    "Usage",
    "reply_fault",
    "Message",
    "RequestKind",
    "document_tokens",
    "permitted_only",
    "inspection_tool",
    "Model",
    "Reply",
    "ToolProposal",
    "ActionRequest",
    "Stage",
    "TurnOutcome",
    "TurnResult",
    "TurnSetup",
    "run_turn",
}

#: What a notebook calls from the lesson machinery: checks, hints, progress, reset, the lessons' worlds.
LESSON_API = {
    "check",
    "hint",
    "show_progress",
    "reset_exercise",
    "Scene",
    "fixture_path",
    "load_records",
    "load_scene",
    "EvidenceScenario",
    "load_evidence_scenario",
    "load_booking_rules",
    "ScriptedModel",
    "load_scripted_model",
    "DocumentTool",
    "FailureInjector",
    "LatencyModel",
    "compare_loading",
    "SliceSet",
    "compare_designs",
    "run_slice",
    "run_capstone",
}


def test_every_contract_name_is_exported():
    assert CONTRACT <= set(botie.__all__)


def test_the_library_exports_exactly_its_api_once():
    assert len(botie.__all__) == len(set(botie.__all__))
    assert set(botie.__all__) == LIBRARY_API


def test_the_lesson_package_exports_exactly_what_notebooks_call_and_nothing_of_the_library():
    import botie.lessons

    assert len(botie.lessons.__all__) == len(set(botie.lessons.__all__))
    assert set(botie.lessons.__all__) == LESSON_API
    assert not LESSON_API & LIBRARY_API
    assert [name for name in botie.lessons.__all__ if not hasattr(botie.lessons, name)] == []


def test_an_unknown_name_is_an_attribute_error_naming_the_package():
    import botie.lessons

    for package in (botie, botie.lessons):
        try:
            package.no_such_name  # noqa: B018
        except AttributeError as exc:
            assert f"module {package.__name__!r} has no attribute 'no_such_name'" in str(exc)
        else:  # pragma: no cover - the test fails here
            raise AssertionError("no AttributeError")


def test_all_lists_only_names_that_exist():
    missing = [name for name in botie.__all__ if not hasattr(botie, name)]
    assert missing == []


def test_errors_form_one_tree_of_value_errors():
    assert issubclass(botie.RecordError, botie.BotieError)
    assert issubclass(botie.RecordError, ValueError)
    assert issubclass(botie.BudgetError, botie.BotieError)
    assert issubclass(botie.BudgetError, ValueError)


def _params(fn):
    return inspect.signature(fn).parameters


def test_record_signature_matches_the_contract():
    params = _params(botie.Record)
    assert list(params)[:4] == ["id", "asset", "text", "cost"]
    keyword_only = {"version", "location", "source_uri", "effective_date", "retrieved_at", "trust", "score"}
    assert all(params[name].kind is inspect.Parameter.KEYWORD_ONLY for name in keyword_only)
    assert all(params[name].default is None for name in keyword_only)


def test_select_signature_matches_the_contract():
    params = _params(botie.select)
    assert list(params)[:3] == ["records", "allowed_assets", "budget"]
    assert params["policy"].default == "prefix"
    assert params["policy"].kind is inspect.Parameter.KEYWORD_ONLY


def test_count_tokens_defaults_to_cl100k_base():
    assert _params(botie.count_tokens)["encoding"].default == "cl100k_base"


def test_plan_context_defaults_match_the_lesson():
    params = _params(botie.plan_context)
    assert params["ceiling"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["soft_fraction"].default == 0.6
    assert params["select_factor"].default == 4


def test_decide_takes_the_trusted_inputs_by_keyword():
    params = _params(botie.decide)
    for name in ("caller", "allowed_assets", "approval", "previous"):
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY


def test_inspection_service_injects_clock_and_retention():
    params = _params(botie.InspectionService)
    assert params["clock"].default is None and params["retention"].default is None
    submit = _params(botie.InspectionService.submit)
    for name in ("caller", "allowed_assets", "approval"):
        assert submit[name].kind is inspect.Parameter.KEYWORD_ONLY


def test_inspection_tool_is_named_and_closed():
    tool = botie.INSPECTION_TOOL
    assert tool["name"] == "propose_inspection"
    schema = tool.get("input_schema") or tool.get("parameters")
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"asset_id", "duration_minutes", "start", "request_id"}
