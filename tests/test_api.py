"""The public API: every name botie promises exists, with the stated shape, and each front door writes
each name once."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

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


def _type_checking_names(package) -> list[str]:
    """The names a front door's ``if TYPE_CHECKING:`` block imports, in the order written."""
    tree = ast.parse(Path(package.__file__).read_text(encoding="utf-8"))
    (block,) = [n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)]
    return [alias.name for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names]


def _homes(package) -> dict[str, str]:
    return {name: module for module, names in package._HOMES.items() for name in names}


def _front_doors():
    import botie.lessons

    return (botie, botie.lessons)


def test_every_contract_name_is_exported():
    assert CONTRACT <= set(botie.__all__)


@pytest.mark.parametrize("package", _front_doors(), ids=lambda p: p.__name__)
def test_a_front_door_writes_each_name_once_and_its_type_checking_block_names_the_same(package):
    """``__all__`` is derived from the map of homes; the ``TYPE_CHECKING`` imports (for type checkers) must
    name exactly the same names, each from the module the map gives, and once."""
    assert len(package.__all__) == len(set(package.__all__))
    assert package.__all__ == list(_homes(package))
    written = _type_checking_names(package)
    assert sorted(written) == sorted(package.__all__)
    tree = ast.parse(Path(package.__file__).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module != "botie._lazy" and node.module != "__future__":
            for alias in node.names:
                if alias.name != "TYPE_CHECKING":
                    assert _homes(package)[alias.name] == node.module, alias.name


def test_the_guard_sees_a_name_missing_from_the_type_checking_block(tmp_path, monkeypatch):
    """Guard the guard: a front door whose map gains a name the block does not import fails the comparison."""
    import types

    fake = types.SimpleNamespace(__file__=botie.__file__, _HOMES={**botie._HOMES, "botie.extra": ("extra",)})
    assert sorted(_type_checking_names(fake)) != sorted(_homes(fake))


def test_the_library_and_the_workshop_share_no_name():
    import botie.lessons

    assert not set(botie.__all__) & set(botie.lessons.__all__)
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
    assert schema is not None
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"asset_id", "duration_minutes", "start", "request_id"}
