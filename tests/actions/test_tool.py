"""propose_inspection: a tool definition a model API accepts, and a hand-written validator that agrees with it."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest
from hypothesis import given, strategies as st
from jsonschema import Draft7Validator, Draft202012Validator

from botie.actions.tool import (
    ARGUMENTS,
    FIELDS,
    INSPECTION_TOOL,
    MAX_MINUTES,
    MIN_MINUTES,
    FieldError,
    Problem,
    parse_start,
    validate_inspection,
)
from tests.strategies import argument_labels, events, examples, inspection_arguments, json_values, valid_proposals

SCHEMA = INSPECTION_TOOL["input_schema"]
SCHEMA_VALIDATOR = Draft202012Validator(SCHEMA)


def _proposal(**changes):
    base = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
    base.update(changes)
    return base


def _without(name):
    p = _proposal()
    del p[name]
    return p


# --- the definition ---------------------------------------------------------------


def test_schema_is_valid_under_jsonschemas_own_meta_schemas():
    Draft202012Validator.check_schema(SCHEMA)
    Draft7Validator.check_schema(SCHEMA)  # many model APIs still speak draft 7


def test_definition_has_name_description_and_a_closed_object_schema():
    assert INSPECTION_TOOL["name"] == "propose_inspection"
    assert SCHEMA["type"] == "object"
    assert SCHEMA["additionalProperties"] is False
    assert sorted(SCHEMA["required"]) == sorted(FIELDS) == sorted(SCHEMA["properties"])
    minutes = SCHEMA["properties"]["duration_minutes"]
    assert (minutes["type"], minutes["minimum"], minutes["maximum"]) == ("integer", MIN_MINUTES, MAX_MINUTES)
    for name in ("asset_id", "request_id"):
        assert SCHEMA["properties"][name] | {"description": ""} == {"type": "string", "minLength": 1, "description": ""}


def test_description_states_the_units_and_the_effect():
    text = INSPECTION_TOOL["description"]
    assert "minutes" in text and "1 through 60" in text
    assert "reserves a technician" in text  # the effect
    assert "nothing is booked" in text  # ... and when it does not happen
    assert "retry" in text  # how request_id is meant to be used


def test_definition_round_trips_through_json():
    assert json.loads(json.dumps(INSPECTION_TOOL)) == INSPECTION_TOOL


# --- the lesson's table and its neighbours ----------------------------------------


def test_lesson_table_20_true_0_and_2_5():
    verdicts = [validate_inspection(_proposal(duration_minutes=v)) == () for v in [20, True, 0, 2.5]]
    assert verdicts == [True, False, False, False]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (True, Problem.WRONG_TYPE),
        (False, Problem.WRONG_TYPE),
        (20.0, Problem.WRONG_TYPE),
        (2.5, Problem.WRONG_TYPE),
        ("20", Problem.WRONG_TYPE),
        (None, Problem.WRONG_TYPE),
        (float("nan"), Problem.WRONG_TYPE),
        (0, Problem.OUT_OF_RANGE),
        (-1, Problem.OUT_OF_RANGE),
        (61, Problem.OUT_OF_RANGE),
        (10**100, Problem.OUT_OF_RANGE),
        (-(10**100), Problem.OUT_OF_RANGE),
    ],
)
def test_duration_rejects(value, problem):
    (error,) = validate_inspection(_proposal(duration_minutes=value))
    assert (error.field, error.problem) == ("duration_minutes", problem)


@pytest.mark.parametrize("value", [1, 20, 60])
def test_duration_accepts_whole_minutes_from_1_through_60(value):
    assert validate_inspection(_proposal(duration_minutes=value)) == ()


def test_twenty_point_zero_gets_a_repair_hint():
    (error,) = validate_inspection(_proposal(duration_minutes=20.0))
    assert error.message.endswith("write 20")


@pytest.mark.parametrize("value", [10**5000, -(10**5000), 2**65], ids=["1e5000", "-1e5000", "2**65"])
def test_huge_int_is_reported_without_flooding_the_message(value):
    (error,) = validate_inspection(_proposal(duration_minutes=value))
    assert error.problem is Problem.OUT_OF_RANGE
    assert len(error.message) < 200 and "bits" in error.message


@pytest.mark.parametrize("name", ["asset_id", "request_id"])
@pytest.mark.parametrize(
    ("value", "problem"),
    [("", Problem.EMPTY), (7, Problem.WRONG_TYPE), (None, Problem.WRONG_TYPE), (["P-2"], Problem.WRONG_TYPE)],
)
def test_ids_must_be_non_empty_text(name, value, problem):
    (error,) = validate_inspection(_proposal(**{name: value}))
    assert (error.field, error.problem) == (name, problem)


@pytest.mark.parametrize("name", FIELDS)
def test_a_missing_field_is_reported_by_name(name):
    (error,) = validate_inspection(_without(name))
    assert (error.field, error.problem) == (name, Problem.MISSING)


def test_admin_field_is_refused_not_honoured():
    (error,) = validate_inspection(_proposal(admin=True))
    assert (error.field, error.problem) == ("admin", Problem.UNEXPECTED)
    assert "grants nothing" in error.message


def test_one_error_per_problem_in_a_stable_order():
    errors = validate_inspection(
        {"duration_minutes": True, "start": "2026-04-02T09:00Z", "request_id": "", "zeta": 1, "admin": 1}
    )
    assert [(e.field, e.problem) for e in errors] == [
        ("asset_id", Problem.MISSING),
        ("duration_minutes", Problem.WRONG_TYPE),
        ("request_id", Problem.EMPTY),
        ("admin", Problem.UNEXPECTED),
        ("zeta", Problem.UNEXPECTED),
    ]


@pytest.mark.parametrize("arguments", [None, "asset_id=P-2", ["P-2", 20, "r7"], 20, b"{}"])
def test_non_object_arguments_are_an_error_value_not_a_traceback(arguments):
    (error,) = validate_inspection(arguments)
    assert isinstance(error, FieldError)
    assert (error.field, error.problem) == (ARGUMENTS, Problem.NOT_AN_OBJECT)


def test_non_string_keys_are_reported_as_unexpected():
    (error,) = validate_inspection(_proposal() | {1: "x"})
    assert (error.field, error.problem) == ("1", Problem.UNEXPECTED)


def test_an_empty_extra_key_is_still_readable():
    (error,) = validate_inspection(_proposal() | {"": None})
    assert error.field == "" and error.message.startswith("'' is not an argument")


@examples(500)
@given(valid_proposals())
def test_every_valid_proposal_passes_both(arguments):
    assert validate_inspection(arguments) == ()
    assert SCHEMA_VALIDATOR.is_valid(arguments)


@examples(500)
@given(inspection_arguments())
def test_every_error_names_a_field_and_says_something(arguments):
    events(argument_labels(arguments))
    for error in validate_inspection(arguments):
        assert isinstance(error.field, str)
        named = repr(error.field) if error.problem is Problem.UNEXPECTED else error.field
        assert error.message.startswith(("the arguments", named))
        assert str(error) == error.message


# --- differential: the hand-written rules against jsonschema -----------------------


def _schema_fields(arguments) -> set[str]:
    """The fields jsonschema complains about, in our vocabulary."""
    fields: set[str] = set()
    for error in SCHEMA_VALIDATOR.iter_errors(arguments):
        if not error.path and error.validator == "type":
            fields.add(ARGUMENTS)
        elif error.validator == "required":
            fields.update(name for name in error.validator_value if name not in arguments)
        elif error.validator == "additionalProperties":
            fields.update(name for name in arguments if name not in SCHEMA["properties"])
        else:
            fields.add(error.path[0])
    return fields


def _blank(value) -> bool:
    return type(value) is str and value != "" and not value.strip()


def _is_documented_difference(arguments, ours: set[str], theirs: set[str]) -> bool:
    """The two places we may differ: jsonschema counts 20.0 as an integer (we want an int), and the schema states
    start's spelling in words only (we refuse any other spelling, and any moment that does not exist), and an id of
    spaces only."""
    value = arguments.get("duration_minutes") if isinstance(arguments, dict) else None
    start = arguments.get("start") if isinstance(arguments, dict) else None
    allowed = set()
    if type(value) is float and value.is_integer() and MIN_MINUTES <= value <= MAX_MINUTES:
        allowed.add("duration_minutes")
    if type(start) is str and parse_start(start) is None:
        allowed.add("start")
    # an id of spaces only names nothing: we refuse it as empty, the schema (minLength 1, no pattern) accepts it
    allowed.update(f for f in ("asset_id", "request_id") if isinstance(arguments, dict) and _blank(arguments.get(f)))
    return bool(ours - theirs) and ours - theirs <= allowed and theirs <= ours


@pytest.mark.slow
@examples(2000)
@given(inspection_arguments())
def test_hand_written_validator_agrees_with_jsonschema_except_whole_floats(arguments):
    events(argument_labels(arguments))
    ours = {e.field for e in validate_inspection(arguments)}
    theirs = _schema_fields(arguments)
    if ours != theirs:
        assert _is_documented_difference(arguments, ours, theirs), (arguments, ours, theirs)


@examples(500)
@given(st.integers(min_value=MIN_MINUTES, max_value=MAX_MINUTES).map(float))
def test_documented_difference_whole_floats_pass_jsonschema_and_fail_ours(value):
    arguments = _proposal(duration_minutes=value)
    assert SCHEMA_VALIDATOR.is_valid(arguments)
    (error,) = validate_inspection(arguments)
    assert (error.field, error.problem) == ("duration_minutes", Problem.WRONG_TYPE)


def test_true_is_refused_by_both():
    arguments = _proposal(duration_minutes=True)
    assert not SCHEMA_VALIDATOR.is_valid(arguments)
    assert validate_inspection(arguments)


@examples(500)
@given(json_values)
def test_any_json_value_yields_errors_never_an_exception(value):
    assert isinstance(validate_inspection(value), tuple)


# --- the messages a model reads back, written out by hand ---------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (_proposal(asset_id=7), "asset_id must be text such as 'P-2', got 7 (int)"),
        (_proposal(asset_id=""), "asset_id must not be empty; give a value such as 'P-2'"),
        (_proposal(request_id=""), "request_id must not be empty; give a value such as 'r7'"),
        (
            _proposal(duration_minutes="20"),
            "duration_minutes must be a whole number of minutes (an int), got '20' (str)",
        ),
        (
            _proposal(duration_minutes=2.5),
            "duration_minutes must be a whole number of minutes (an int), got 2.5 (float)",
        ),
        (_proposal(duration_minutes=61), "duration_minutes must be from 1 through 60 minutes, got 61 (int)"),
        (_without("request_id"), "request_id is missing; propose_inspection requires it"),
        (
            _proposal(admin=True),
            "'admin' is not an argument of propose_inspection; remove it (an extra field grants nothing)",
        ),
        (20, "the arguments must be an object with asset_id, duration_minutes, start, request_id; got 20 (int)"),
    ],
    ids=[
        "wrong-type",
        "empty-asset",
        "empty-request",
        "text-minutes",
        "fraction",
        "over-60",
        "missing",
        "extra",
        "not-an-object",
    ],
)
def test_each_problem_has_one_exact_message(arguments, message):
    """Only a whole float earns the "write N" hint; every message shows the value and its type."""
    (error,) = validate_inspection(arguments)
    assert error.message == message


def test_a_shown_value_is_clipped_only_past_40_characters():
    """A repr of exactly 40 characters is shown whole; at 41 it keeps 39 and ends with an ellipsis."""
    (whole,) = validate_inspection(_proposal(asset_id=["x" * 36]))  # ['x…x'] with 36 x: 40 characters
    assert whole.message == f"asset_id must be text such as 'P-2', got ['{'x' * 36}'] (list)"
    (clipped,) = validate_inspection(_proposal(asset_id=["x" * 37]))  # 41: the first 39 are kept
    assert clipped.message == f"asset_id must be text such as 'P-2', got ['{'x' * 37}… (list)"


def test_an_int_is_written_out_up_to_64_bits_and_summarised_beyond():
    (written,) = validate_inspection(_proposal(duration_minutes=2**63))  # 64 bits
    assert written.message == "duration_minutes must be from 1 through 60 minutes, got 9223372036854775808 (int)"
    (summarised,) = validate_inspection(_proposal(duration_minutes=2**64))  # 65 bits
    assert summarised.message == "duration_minutes must be from 1 through 60 minutes, got an int of 65 bits"


def test_any_mapping_is_read_as_an_object_not_only_a_dict():
    """A read-only mapping (what a frozen proposal holds) is validated field by field, like a dict."""
    assert validate_inspection(MappingProxyType(_proposal())) == ()
    (error,) = validate_inspection(MappingProxyType(_proposal(admin=True)))
    assert (error.field, error.problem) == ("admin", Problem.UNEXPECTED)


# --- fresh definitions in each API's shape ------------------------------------------------------------

from botie.actions.tool import STRICT_REFUSES, inspection_tool  # noqa: E402


def test_the_shared_definition_refuses_every_change_in_place():
    schema = INSPECTION_TOOL["input_schema"]
    for attempt in (
        lambda: INSPECTION_TOOL.__setitem__("name", "x"),
        lambda: INSPECTION_TOOL.pop("description"),
        lambda: schema["properties"]["asset_id"].update(minLength=0),
        lambda: schema["required"].append("admin"),
        lambda: schema["required"].__setitem__(0, "admin"),
    ):
        with pytest.raises(TypeError, match="read-only"):
            attempt()
    assert schema["required"] == ["asset_id", "duration_minutes", "start", "request_id"]


def test_a_conversion_changed_in_place_leaves_the_shared_definition_alone():
    for shape in ("anthropic", "openai", "responses"):
        for strict in (False, True):
            tool = inspection_tool(shape, strict=strict)
            params = tool.get("input_schema") or tool.get("parameters") or tool["function"]["parameters"]
            params["properties"]["asset_id"]["type"] = "integer"
            params["required"].append("admin")
    assert INSPECTION_TOOL["input_schema"]["properties"]["asset_id"]["type"] == "string"
    assert inspection_tool()["input_schema"]["required"] == ["asset_id", "duration_minutes", "start", "request_id"]


def test_each_shape_has_the_fields_its_api_reads():
    anthropic, chat, responses = (inspection_tool(s) for s in ("anthropic", "openai", "responses"))
    assert sorted(anthropic) == ["description", "input_schema", "name"]
    assert sorted(chat) == ["function", "type"] and chat["type"] == "function"
    assert sorted(chat["function"]) == ["description", "name", "parameters", "strict"]
    assert sorted(responses) == ["description", "name", "parameters", "strict", "type"]
    assert chat["function"]["parameters"] == responses["parameters"] == dict(INSPECTION_TOOL["input_schema"])
    assert chat["function"]["strict"] is False and responses["strict"] is False


def test_the_strict_variant_drops_exactly_the_bounds_strict_mode_refuses_and_says_strict():
    text = json.dumps(inspection_tool("openai", strict=True))
    assert not any(f'"{k}"' in text for k in STRICT_REFUSES)
    strict = inspection_tool("responses", strict=True)
    assert strict["strict"] is True and strict["parameters"]["additionalProperties"] is False
    assert strict["parameters"]["properties"]["duration_minutes"] == {
        "type": "integer",
        "description": "Length of the visit in whole minutes (1-60).",
    }
    assert inspection_tool("anthropic", strict=True)["strict"] is True
    assert '"minimum": 1' in json.dumps(INSPECTION_TOOL)  # the shared one keeps its bounds


def test_an_unknown_shape_is_refused_by_name():
    with pytest.raises(ValueError, match="anthropic, openai, responses"):
        inspection_tool("gemini")


# --- start: when the visit begins, the one argument the maintenance calendar needs ---------------------------


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (None, Problem.WRONG_TYPE),
        (900, Problem.WRONG_TYPE),
        ("", Problem.EMPTY),
        ("2026-04-02 09:00", Problem.BAD_FORMAT),  # a space, no Z
        ("2026-04-02T09:00", Problem.BAD_FORMAT),  # no time zone: whose nine o'clock?
        ("2026-04-02T09:00+01:00", Problem.BAD_FORMAT),  # an offset: one spelling only, UTC
        ("2026-04-02T09:00:00Z", Problem.BAD_FORMAT),  # seconds
        ("2026-4-2T9:00Z", Problem.BAD_FORMAT),  # unpadded, which strptime alone would take
        ("２０２６-04-02T09:00Z", Problem.BAD_FORMAT),  # full-width digits, which \d would take
        ("2026-02-30T09:00Z", Problem.BAD_FORMAT),  # the right shape, no such day
        ("2026-04-02T24:00Z", Problem.BAD_FORMAT),  # no such hour
        ("2026-04-02T09:00Z\n", Problem.BAD_FORMAT),  # a trailing newline, which $ would let through
    ],
)
def test_start_is_a_real_utc_minute_written_one_way(value, problem):
    (error,) = validate_inspection(_proposal(start=value))
    assert (error.field, error.problem) == ("start", problem)
    assert error.message.startswith("start must")


def test_a_bad_start_names_the_format_and_an_example_and_a_missing_one_is_named():
    (error,) = validate_inspection(_proposal(start="2 April, 9am"))
    assert error.message == (
        "start must be a real UTC time written YYYY-MM-DDTHH:MMZ, such as '2026-04-02T09:00Z'; got '2 April, 9am' (str)"
    )
    missing = {k: v for k, v in _proposal().items() if k != "start"}
    assert [(e.field, e.problem) for e in validate_inspection(missing)] == [("start", Problem.MISSING)]


def test_the_schema_describes_start_with_its_format_and_requires_it():
    start = SCHEMA["properties"]["start"]
    assert start["type"] == "string" and "UTC" in start["description"] and "YYYY-MM-DDTHH:MMZ" in start["description"]
    assert "start" in SCHEMA["required"] and "the asset exists and is free then" in INSPECTION_TOOL["description"]
    assert "pattern" not in start  # the spelling is stated in words; validate_inspection enforces it
    checker = Draft202012Validator(SCHEMA)
    assert checker.is_valid(_proposal()) and not checker.is_valid(_proposal(start=900))
    assert checker.is_valid(_proposal(start="2026-04-02 09:00")) and validate_inspection(_proposal(start="x"))
