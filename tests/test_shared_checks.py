"""botie._checks: each shared input rule, once; every caller raises the same error for the same input."""

from __future__ import annotations

import datetime as dt

import pytest

import botie
from botie._checks import (
    allowed_set,
    as_date,
    aware_datetime,
    ceiling_tokens,
    digest,
    has_text,
    non_empty_text,
    unit_interval,
)
from botie.context import routing
from botie.context.records import Record, unique_records
from botie.errors import AssetsError, BudgetError, InputError, RecordError, SettingError
from botie.lessons import DocumentTool


def test_a_bare_string_of_assets_is_refused_with_the_field_named():
    with pytest.raises(AssetsError, match=r"not a single string \('P-2'\)") as caught:
        allowed_set("P-2")
    assert caught.value.field == "allowed_assets"
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, InputError)


def test_allowed_assets_keep_exact_strings():
    assert allowed_set(["P-2", "p-2"]) == frozenset({"P-2", "p-2"})
    with pytest.raises(AssetsError):
        allowed_set(7)


A, B = Record("a", "P-2", "x", 1), Record("b", "P-2", "y", 1)


@pytest.mark.parametrize(
    "call",
    [
        lambda v: botie.select([A], v, 10),
        lambda v: botie.decide(
            {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r1"},
            caller="u",
            allowed_assets=v,
            approval=None,
            previous=None,
        ),
        lambda v: botie.select_evidence([A], v, 10, observed_on="2026-01-01"),
        lambda v: botie.TurnSetup("u", v, "2026-01-01", 10),
        lambda v: DocumentTool([A], allowed_assets=v, observed_on="2026-03-15", max_tokens=10),
    ],
    ids=["select", "decide", "select_evidence", "TurnSetup", "DocumentTool"],
)
def test_every_caller_refuses_a_bare_string_with_one_message(call):
    with pytest.raises(AssetsError) as caught:
        call("P-2")
    assert (
        str(caught.value) == "allowed_assets must be a collection of asset ids such as ['P-2'], "
        "not a single string ('P-2')"
    )


def test_unique_records_names_the_duplicate_and_the_bad_entry():
    assert unique_records([A, B]) == (A, B)
    with pytest.raises(RecordError, match="record a: duplicate id") as dup:
        unique_records([A, B, A])
    assert (dup.value.field, dup.value.record) == ("id", "a")
    with pytest.raises(RecordError, match="document 1 is not a Record") as bad:
        unique_records([A, {"id": "b"}], noun="document")
    assert (bad.value.field, bad.value.record) == ("record", "1")


@pytest.mark.parametrize(
    "call",
    [
        lambda rs: botie.select(rs, ["P-2"], 10),
        lambda rs: botie.select_evidence(rs, ["P-2"], 10, observed_on="2026-01-01"),
        lambda rs: botie.plan_context(rs, ceiling=100),
    ],
    ids=["select", "select_evidence", "plan_context"],
)
def test_every_caller_refuses_duplicate_ids_the_same_way(call):
    with pytest.raises(RecordError, match=r"^record a: duplicate id \(ids must be unique\)$"):
        call([A, B, A])


@pytest.mark.parametrize("bad", [0, -1, True, 1.0, "900000", None])
def test_a_ceiling_is_a_whole_positive_number_of_tokens(bad):
    with pytest.raises(BudgetError, match="ceiling must be a whole number of tokens") as caught:
        ceiling_tokens(bad)
    assert caught.value.field == "ceiling"


@pytest.mark.parametrize(
    "call",
    [lambda c: botie.plan_context([], ceiling=c), lambda c: botie.build_request("q", [], ceiling=c)],
    ids=["plan_context", "build_request"],
)
def test_both_ceiling_callers_share_the_rule(call):
    assert ceiling_tokens(1) == 1
    with pytest.raises(BudgetError, match=r"^ceiling must be a whole number of tokens \(an int >= 1\), got True$"):
        call(True)


def test_dates_read_the_same_for_records_and_settings():
    assert as_date("2026-04-01", field="observed_on") == dt.date(2026, 4, 1)
    assert as_date(dt.datetime(2026, 4, 1, 23, 59), field="observed_on") == dt.date(2026, 4, 1)
    with pytest.raises(SettingError, match="observed_on must be a date") as setting:
        as_date("April", field="observed_on")
    assert setting.value.record is None
    with pytest.raises(RecordError, match="record m1: effective_date must be a date") as rec:
        Record("m1", "P-2", "x", 1, effective_date="01/04/2026")
    assert (rec.value.field, rec.value.record) == ("effective_date", "m1")


@pytest.mark.parametrize("bad", [-0.1, 1.5, True, float("nan"), "0.3"])
def test_a_unit_interval_setting_names_its_field(bad):
    with pytest.raises(SettingError, match="floor must be a number from 0 to 1") as caught:
        unit_interval(bad, field="floor")
    assert caught.value.field == "floor"
    with pytest.raises(SettingError, match="band must be a number above 0 and at most 1"):
        unit_interval(0, field="band", allow_zero=False)


def test_digest_is_sha256_of_the_utf8_bytes_and_keeps_lone_surrogates():
    # Known vector: SHA-256("abc").
    assert digest("abc").hex() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert digest("\ud800") != digest("\udc00")


def test_version_hash_changes_with_the_version_or_the_text_and_separates_them():
    from botie.context.records import version_hash

    base = Record("m", "P-2", "2 bar", 1, version="v1")
    assert version_hash(base) != version_hash(Record("m", "P-2", "2 bar", 1, version="v2"))
    assert version_hash(base) != version_hash(Record("m", "P-2", " bar", 1, version="v12"))
    assert len(version_hash(base)) == 16


# --- messages and fields, written out by hand (each was once free to change unnoticed) ---------------


def test_a_value_that_cannot_be_iterated_is_an_assets_error_naming_the_field():
    from botie._checks import allowed_set
    from botie.errors import AssetsError

    with pytest.raises(AssetsError) as info:
        allowed_set(42)
    assert info.value.field == "allowed_assets"
    assert str(info.value) == "allowed_assets must be a collection of asset ids such as ['P-2'], got 42"


def test_the_default_noun_for_an_entry_is_candidate():
    from botie.context.records import unique_records

    with pytest.raises(RecordError) as info:
        unique_records(["not a record"])
    assert str(info.value) == "candidate 0 is not a Record: 'not a record'"


def test_a_setting_date_error_has_no_record_prefix():
    from botie._checks import as_date
    from botie.errors import SettingError

    with pytest.raises(SettingError) as info:
        as_date("15 March", field="observed_on")
    assert str(info.value) == "observed_on must be a date (YYYY-MM-DD), got '15 March'"
    with pytest.raises(RecordError) as record_info:
        as_date("15 March", field="effective_date", record="r7")
    assert str(record_info.value) == "record r7: effective_date must be a date (YYYY-MM-DD), got '15 March'"


def test_one_is_inside_the_unit_interval():
    from botie._checks import unit_interval

    assert unit_interval(1, field="floor") == 1.0
    assert unit_interval(0, field="floor") == 0.0


def test_the_duplicate_named_is_the_first_id_met_a_second_time():
    """In a, b, b, a the id b repeats first (at the third entry), so b is named, not the first entry a."""
    with pytest.raises(RecordError) as info:
        unique_records([A, B, B, A])
    assert (str(info.value), info.value.record) == ("record b: duplicate id (ids must be unique)", "b")


# --- whole numbers: one rule for token counts, sizes and attempts ---------------------------------


def test_a_whole_number_is_returned_as_given_and_its_least_value_is_allowed():
    from botie._checks import whole_number

    assert whole_number(0, field="trials") == 0  # the default least is 0
    assert whole_number(1, field="limit", least=1) == 1
    assert whole_number(7, field="limit", least=1) == 7


@pytest.mark.parametrize("bad", [-1, True, False, 2.0, "3", None])
def test_a_whole_number_refuses_bool_float_text_and_values_below_the_least(bad):
    from botie._checks import whole_number

    with pytest.raises(SettingError) as info:
        whole_number(bad, field="trials")
    assert (str(info.value), info.value.field, info.value.record) == (
        f"trials must be a whole number (an int >= 0), got {bad!r}",
        "trials",
        None,
    )


def test_a_whole_number_below_a_least_of_one_names_the_least():
    from botie._checks import whole_number

    with pytest.raises(SettingError, match=r"^limit must be a whole number \(an int >= 1\), got 0$"):
        whole_number(0, field="limit", least=1)


def test_a_record_field_names_the_record_in_the_message_and_on_the_error():
    from botie._checks import whole_number

    with pytest.raises(RecordError) as info:
        whole_number(-2, field="cost", what="a whole number of tokens", error=RecordError, record="m1")
    assert str(info.value) == "record m1: cost must be a whole number of tokens (an int >= 0), got -2"
    assert (info.value.field, info.value.record) == ("cost", "m1")


def test_where_replaces_the_record_prefix_and_an_empty_where_gives_none():
    from botie._checks import whole_number

    with pytest.raises(BudgetError) as named:
        whole_number(-1, field="budget", error=BudgetError, where="sub-question 'q'")
    assert str(named.value) == "sub-question 'q': budget must be a whole number (an int >= 0), got -1"
    with pytest.raises(RecordError) as bare:
        whole_number(0, field="max_tokens", least=1, error=RecordError, record="m1", where="")
    assert str(bare.value) == "max_tokens must be a whole number (an int >= 1), got 0"
    assert bare.value.record == "m1"


@pytest.mark.parametrize(
    "call, error, field, record, message",
    [
        (
            lambda: Record("m1", "P-2", "x", -1),
            RecordError,
            "cost",
            "m1",
            "record m1: cost must be a whole number of tokens (an int >= 0), got -1",
        ),
        (
            lambda: botie.Budget(10, True, 0),
            BudgetError,
            "input_reserve",
            None,
            "input_reserve must be a whole number of tokens (an int >= 0), got True",
        ),
        (
            lambda: botie.select([], ["P-2"], 2.0),
            BudgetError,
            "budget",
            None,
            "budget must be a Budget or a whole number of tokens (an int >= 0), got 2.0",
        ),
        (
            lambda: botie.build_request("q", [], ceiling=100, answer_allowance=-1),
            BudgetError,
            "answer_allowance",
            None,
            "answer_allowance must be a whole number of tokens (an int >= 0), got -1",
        ),
        (
            lambda: botie.split_record(A, 0),
            RecordError,
            "max_tokens",
            "a",
            "max_tokens must be a whole number of tokens (an int >= 1), got 0",
        ),
        (
            lambda: botie.TokenCache(max_entries=0),
            botie.TokenizerError,
            "max_entries",
            None,
            "max_entries must be a whole number (an int >= 1), got 0",
        ),
        (
            lambda: routing.first_failing_turn(100, 0.5, per_turn=0),
            SettingError,
            "per_turn",
            None,
            "per_turn must be a whole number of tokens (an int >= 1), got 0",
        ),
        (
            lambda: routing.first_failing_turn(100, 0.5, per_turn=1, fixed=-1),
            SettingError,
            "fixed",
            None,
            "fixed must be a whole number of tokens (an int >= 0), got -1",
        ),
        (
            lambda: botie.submit_with_retries(lambda: None, limit=0),  # type: ignore[return-value]
            SettingError,
            "limit",
            None,
            "limit must be a whole number (an int >= 1), got 0",
        ),
        (
            lambda: botie.InspectionService(botie.MemoryStore(), attempts=0),
            SettingError,
            "attempts",
            None,
            "attempts must be a whole number (an int >= 1), got 0",
        ),
        (
            lambda: DocumentTool([A], allowed_assets=["P-2"], observed_on="2026-03-15", max_tokens=-1),
            SettingError,
            "max_tokens",
            None,
            "max_tokens must be a whole number of tokens (an int >= 0), got -1",
        ),
    ],
    ids=[
        "record cost",
        "budget",
        "select",
        "build_request",
        "split_record",
        "TokenCache",
        "per_turn",
        "fixed",
        "retries",
        "service",
        "DocumentTool",
    ],
)
def test_every_whole_number_caller_keeps_its_error_field_and_record(call, error, field, record, message):
    with pytest.raises(error) as info:
        call()
    assert (str(info.value), info.value.field, info.value.record) == (message, field, record)


# --- numbers read exactly, and shares of a whole -----------------------------------------------


def test_an_exact_number_reads_a_float_as_the_decimal_typed():
    from decimal import Decimal
    from fractions import Fraction

    from botie._checks import exact_number

    assert exact_number(0.6, field="f") == Fraction(3, 5)  # not the binary 0.59999...
    assert exact_number(0.1, field="f") == Fraction(1, 10)
    assert exact_number(4, field="f") == 4 and exact_number(Fraction(2, 3), field="f") == Fraction(2, 3)
    assert exact_number(Decimal("2.5"), field="f") == Fraction(5, 2)


@pytest.mark.parametrize(
    "bad, message",
    [
        (True, "select_factor must be a number, got True"),
        ("4", "select_factor must be a number, got '4'"),
        (float("inf"), "select_factor must be finite, got inf"),
        (float("nan"), "select_factor must be finite, got nan"),
    ],
)
def test_an_exact_number_refuses_bool_text_and_the_infinite(bad, message):
    from botie._checks import exact_number

    with pytest.raises(SettingError) as info:
        exact_number(bad, field="select_factor")
    assert (str(info.value), info.value.field) == (message, "select_factor")


def test_a_decimal_infinity_or_nan_is_refused_as_a_setting_not_a_crash():
    from decimal import Decimal

    from botie._checks import exact_number

    for bad in (Decimal("Infinity"), Decimal("NaN")):
        with pytest.raises(SettingError, match="must be finite"):
            exact_number(bad, field="soft_fraction")


def test_a_unit_fraction_keeps_its_ends_and_is_exact():
    from fractions import Fraction

    from botie._checks import unit_fraction

    assert unit_fraction(0, field="floor") == 0  # zero is allowed by default
    assert unit_fraction(1, field="floor") == 1
    assert unit_fraction(0.7, field="alert_fraction", allow_zero=False) == Fraction(7, 10)
    assert unit_fraction(1, field="soft_fraction", allow_zero=False) == 1


@pytest.mark.parametrize("bad", [0, -0.5, 1.01, "0.6", True, float("nan")])
def test_a_share_above_zero_refuses_zero_and_everything_outside_with_one_message(bad):
    from botie._checks import unit_fraction

    with pytest.raises(SettingError) as info:
        unit_fraction(bad, field="soft_fraction", allow_zero=False)
    assert (str(info.value), info.value.field) == (
        f"soft_fraction must be a number above 0 and at most 1, got {bad!r}",
        "soft_fraction",
    )


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda v: botie.plan_context([], ceiling=100, soft_fraction=v), "soft_fraction"),
        (lambda v: routing.alert_threshold(100, v), "alert_fraction"),
        (lambda v: routing.first_failing_turn(100, v, per_turn=1), "soft_fraction"),
    ],
    ids=["plan_context", "alert_threshold", "first_failing_turn"],
)
def test_every_share_caller_refuses_the_same_range_the_same_way(call, field):
    with pytest.raises(SettingError) as info:
        call(1.5)
    assert (str(info.value), info.value.field) == (f"{field} must be a number above 0 and at most 1, got 1.5", field)


def test_a_failure_rate_is_a_unit_interval_setting():
    from botie.lessons import FailureInjector

    assert FailureInjector(1).rate == 1.0 and FailureInjector(0).rate == 0.0
    with pytest.raises(SettingError) as info:
        FailureInjector(1.5)
    assert (str(info.value), info.value.field) == ("failure_rate must be a number from 0 to 1, got 1.5", "failure_rate")


def test_unique_records_names_the_first_problem_met_reading_in_order():
    with pytest.raises(RecordError, match=r"^record a: duplicate id") as dup:
        unique_records([A, A, "not a record"])
    assert dup.value.record == "a"
    with pytest.raises(RecordError, match=r"^candidate 0 is not a Record") as bad:
        unique_records(["not a record", A, A])
    assert bad.value.record == "0"


@pytest.mark.parametrize("bad", ["", "   ", "\t\n", None, 3, b"P-2"])
def test_non_empty_text_refuses_blank_and_non_str_naming_the_field_and_record(bad):
    with pytest.raises(RecordError, match=r"^record r1: asset must be a non-empty string") as caught:
        non_empty_text(bad, field="asset", record="r1", error=RecordError)
    assert (caught.value.field, caught.value.record) == ("asset", "r1")


def test_non_empty_text_returns_the_value_unchanged():
    """Permission compares exact strings, so the check never strips what it accepts."""
    assert non_empty_text(" P-2", field="asset") == " P-2"


@pytest.mark.parametrize(
    ("value", "expected"),
    [("P-2", True), (" P-2 ", True), ("", False), (" \t\n", False), (None, False), (3, False), (b"P-2", False)],
)
def test_has_text_is_true_only_for_a_str_with_something_besides_white_space(value, expected):
    assert has_text(value) is expected


def test_aware_datetime_starts_its_message_with_where_when_given():
    with pytest.raises(InputError) as caught:
        aware_datetime(dt.datetime(2026, 3, 1), field="written_at", record="k", where="memory entry k")
    assert str(caught.value).startswith("memory entry k: written_at must be a datetime with a time zone")
    assert (caught.value.field, caught.value.record) == ("written_at", "k")


def test_aware_datetime_refuses_naive_and_non_datetimes_and_parses_only_when_asked():
    utc = dt.timezone.utc
    assert aware_datetime(dt.datetime(2026, 3, 1, tzinfo=utc), field="now") == dt.datetime(2026, 3, 1, tzinfo=utc)
    assert aware_datetime("2026-03-01T00:00Z", field="t", parse=True) == dt.datetime(2026, 3, 1, tzinfo=utc)
    for bad in (dt.datetime(2026, 3, 1), dt.date(2026, 3, 1), "2026-03-01T00:00Z", None):
        with pytest.raises(InputError, match="now must be a datetime with a time zone") as caught:
            aware_datetime(bad, field="now")
        assert caught.value.field == "now"
    with pytest.raises(InputError, match="with a time zone"):
        aware_datetime("2026-03-01T00:00", field="t", parse=True)
