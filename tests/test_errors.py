"""The error tree: every error carries its message, field and record; a fixture error names its file and entry."""

from __future__ import annotations

from botie.errors import BotieError, FixtureError, InputError, RecordError


def test_an_error_keeps_message_field_and_record():
    err = RecordError("record r7: cost must be an int", field="cost", record="r7")
    assert (str(err), err.message, err.args, err.field, err.record) == (
        "record r7: cost must be an int",
        "record r7: cost must be an int",
        ("record r7: cost must be an int",),
        "cost",
        "r7",
    )
    assert isinstance(err, InputError) and isinstance(err, ValueError) and isinstance(err, BotieError)


def test_a_fixture_error_names_the_file_the_entry_the_field_and_the_record():
    err = FixtureError("entry 3 has no cost", path="fixtures/p2_seal.json", index=3, field="cost", record="tkt-1")
    assert (err.message, err.args, err.path, err.index, err.field, err.record) == (
        "entry 3 has no cost",
        ("entry 3 has no cost",),
        "fixtures/p2_seal.json",
        3,
        "cost",
        "tkt-1",
    )
    assert isinstance(err, RecordError)
