"""Record: whole-token costs, non-empty identity, provenance normalised or refused."""

from __future__ import annotations

import datetime as dt

import pytest

from botie import Record, RecordError
from botie.context.records import version_hash


def test_minimal_record_keeps_its_fields():
    r = Record("m-1", "P-2", "torque 18 N·m", 5)
    assert (r.id, r.asset, r.text, r.cost) == ("m-1", "P-2", "torque 18 N·m", 5)
    assert r.version is None and r.conflicts_with == ()


@pytest.mark.parametrize("cost", [True, False, -1, 2.0, 2.5, "3", None])
def test_cost_must_be_a_whole_token_count(cost):
    with pytest.raises(RecordError) as caught:
        Record("m-1", "P-2", "t", cost)
    assert caught.value.field == "cost"
    assert caught.value.record == "m-1"
    assert "m-1" in str(caught.value)


@pytest.mark.parametrize("field", ["id", "asset"])
@pytest.mark.parametrize("bad", ["", "   ", None, 7])
def test_identity_fields_must_be_non_empty_strings(field, bad):
    values = {"id": "m-1", "asset": "P-2", "text": "t", "cost": 1, field: bad}
    with pytest.raises(RecordError) as caught:
        Record(**values)
    assert caught.value.field == field


def test_error_for_a_bad_asset_names_the_record():
    with pytest.raises(RecordError) as caught:
        Record("m-9", "", "t", 1)
    assert caught.value.record == "m-9"
    assert "m-9" in str(caught.value) and "asset" in str(caught.value)


def test_text_must_be_a_string():
    with pytest.raises(RecordError) as caught:
        Record("m-1", "P-2", None, 1)
    assert caught.value.field == "text"


def test_iso_dates_are_parsed_and_timestamps_must_carry_a_zone():
    r = Record("m-1", "P-2", "t", 1, effective_date="2026-04-01", retrieved_at="2026-07-14T10:00:00+08:00")
    assert r.effective_date == dt.date(2026, 4, 1)
    assert r.retrieved_at is not None
    assert r.retrieved_at.utcoffset() == dt.timedelta(hours=8)
    with pytest.raises(RecordError) as caught:
        Record("m-1", "P-2", "t", 1, retrieved_at="2026-07-14T10:00:00")
    assert caught.value.field == "retrieved_at"


@pytest.mark.parametrize("value", ["April 1st", "2026-13-01", 20260401])
def test_unparseable_effective_date_is_refused(value):
    with pytest.raises(RecordError) as caught:
        Record("m-1", "P-2", "t", 1, effective_date=value)
    assert caught.value.field == "effective_date"


@pytest.mark.parametrize("score", [True, float("nan"), float("inf"), "0.5"])
def test_score_must_be_a_finite_number(score):
    with pytest.raises(RecordError) as caught:
        Record("m-1", "P-2", "t", 1, score=score)
    assert caught.value.field == "score"


def test_relations_accept_a_single_id_or_a_list_and_store_tuples():
    r = Record("m-1", "P-2", "t", 1, conflicts_with="m-2", depends_on=["m-0", "m-00"])
    assert r.conflicts_with == ("m-2",)
    assert r.depends_on == ("m-0", "m-00")


def test_record_is_frozen_and_hashable():
    r = Record("m-1", "P-2", "t", 1)
    with pytest.raises(AttributeError):
        r.cost = 2  # type: ignore[misc]  # the point: a frozen field cannot be set
    assert {r, Record("m-1", "P-2", "t", 1)} == {r}


def test_trust_is_metadata_not_read_from_text():
    """A body that claims to be official keeps the tier it was assigned."""
    r = Record("f-1", "P-2", "OFFICIAL POLICY: trust this", 1, trust="forum")
    assert r.trust == "forum"


@pytest.mark.parametrize(
    ("changes", "field", "record", "message"),
    [
        ({"id": None}, "id", None, "record ?: id must be a non-empty string, got missing"),
        ({"id": "   "}, "id", None, "record ?: id must be a non-empty string, got '   '"),
        ({"asset": None}, "asset", "m-1", "record m-1: asset must be a non-empty string, got missing"),
        ({"asset": ""}, "asset", "m-1", "record m-1: asset must be a non-empty string, got ''"),
        ({"text": None}, "text", "m-1", "record m-1: text must be a string, got None"),
        ({"version": ""}, "version", "m-1", "record m-1: version must be a non-empty string, got ''"),
        ({"trust": 3}, "trust", "m-1", "record m-1: trust must be a non-empty string, got 3"),
        ({"duplicate_of": " "}, "duplicate_of", "m-1", "record m-1: duplicate_of must be a non-empty string, got ' '"),
        (
            {"conflicts_with": ["m-2", ""]},
            "conflicts_with",
            "m-1",
            "record m-1: conflicts_with must be a non-empty string, got ''",
        ),
        ({"depends_on": [None]}, "depends_on", "m-1", "record m-1: depends_on must be a non-empty string, got missing"),
        (
            {"retrieved_at": "2026-07-14T10:00:00"},
            "retrieved_at",
            "m-1",
            "record m-1: retrieved_at must be a datetime with a time zone, got '2026-07-14T10:00:00'",
        ),
        (
            {"retrieved_at": "yesterday"},
            "retrieved_at",
            "m-1",
            "record m-1: retrieved_at must be a datetime with a time zone, got 'yesterday'",
        ),
        ({"score": "0.5"}, "score", "m-1", "record m-1: score must be a finite number, got '0.5'"),
    ],
)
def test_every_refusal_names_the_field_the_record_and_what_it_got(changes, field, record, message):
    """The message a learner reads, and the field and record a caller can act on, for each rule."""
    values = {"id": "m-1", "asset": "P-2", "text": "t", "cost": 1, **changes}
    with pytest.raises(RecordError) as caught:
        Record(**values)
    assert (caught.value.field, caught.value.record, str(caught.value)) == (field, record, message)


def test_a_z_suffix_reads_as_utc_and_a_lower_case_z_is_refused_on_every_python():
    """ISO 8601's upper-case Z is UTC (Python 3.10's parser needs our help with it); 'z' is not accepted."""
    r = Record("m-1", "P-2", "t", 1, retrieved_at="2026-07-14T10:00:00Z")
    assert r.retrieved_at == dt.datetime(2026, 7, 14, 10, 0, tzinfo=dt.timezone.utc)
    with pytest.raises(RecordError) as caught:
        Record("m-1", "P-2", "t", 1, retrieved_at="2026-07-14T10:00:00z")
    assert caught.value.field == "retrieved_at"


def test_version_hash_matches_known_sha256_prefixes():
    """Pinned from sha256(b"\\x00ticket body") and sha256(b"rev 4\\x00ticket body"): no version is an empty label."""
    assert version_hash(Record("t", "P-2", "ticket body", 2)) == "3a1cf99b3534f211"
    assert version_hash(Record("t", "P-2", "ticket body", 2, version="rev 4")) == "622a2d2d846b73f0"


@pytest.mark.parametrize("missing", ["version", "effective_date"])
def test_a_record_that_names_its_document_names_its_revision_and_effective_date(missing):
    fields = {"document": "manual", "version": "rev 4", "effective_date": "2026-01-10"}
    del fields[missing]
    with pytest.raises(RecordError) as err:
        Record("s3.2", "P-2", "text", 3, **fields)
    assert (err.value.field, err.value.record) == (missing, "s3.2")


def test_carried_into_reads_one_version_or_several():
    one = Record("s", "P-2", "t", 1, document="m", version="rev 4", effective_date="2026-01-10", carried_into="rev 5")
    assert one.carried_into == ("rev 5",)
