"""Fixture loading: the lesson scene loads, and a bad entry is named by file, index and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from botie import FixtureError, RecordError, Status, select
from botie.lessons import fixture_path, load_records, load_scene


@pytest.fixture
def scene():
    return load_scene(fixture_path("p2_seal.json"))


def test_scene_has_the_lesson_budget_and_at_least_ten_candidates(scene):
    assert (scene.budget.total, scene.budget.input_reserve, scene.budget.output_reserve) == (20, 8, 4)
    assert len(scene.records) >= 10
    assert len({r.asset for r in scene.records}) >= 3


def test_every_candidate_carries_provenance(scene):
    for r in scene.records:
        assert r.version and r.location and r.source_uri, r.id


def test_scene_contains_the_cases_the_lesson_needs(scene):
    sel = select(scene.records, scene.allowed_assets, scene.budget)
    statuses = {o.record_id: o.status for o in sel.outcomes}
    # a relevant-looking passage about a different pump, refused on permission
    assert statuses["man-p1-r2-s3.2"] is Status.NOT_PERMITTED
    # a restricted manual
    assert statuses["man-k7-r1-s4"] is Status.NOT_PERMITTED
    # a passage that fills the remaining room exactly under the default budget
    assert "fills the 8-token allowance exactly" in sel.outcome("tkt-5521").reason
    # a ticket that addresses the assistant is just evidence text
    ticket = next(r for r in scene.records if r.id == "tkt-5630")
    assert "Assistant" in ticket.text
    assert set(Status) == set(statuses.values())


def test_scene_lists_a_question_no_permitted_record_answers():
    data = json.loads(fixture_path("p2_seal.json").read_text())
    assert any(q["answered_by"] == [] for q in data["questions"])


def _write(tmp_path, payload):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(payload))
    return path


def test_bad_entry_is_reported_by_file_index_and_field(tmp_path):
    path = _write(
        tmp_path,
        [{"id": "a", "asset": "P-2", "text": "t", "cost": 1}, {"id": "b", "asset": "P-2", "text": "t", "cost": True}],
    )
    with pytest.raises(FixtureError) as caught:
        load_records(path)
    err = caught.value
    assert (err.index, err.field, err.record) == (1, "cost", "b")
    assert "bad.json, record 1" in str(err)
    assert isinstance(err, RecordError)


def test_missing_and_unknown_fields_are_named(tmp_path):
    with pytest.raises(FixtureError) as caught:
        load_records(_write(tmp_path, [{"id": "a", "asset": "P-2", "text": "t"}]))
    assert caught.value.field == "cost"
    with pytest.raises(FixtureError) as caught:
        load_records(_write(tmp_path, [{"id": "a", "asset": "P-2", "text": "t", "cost": 1, "admin": True}]))
    assert caught.value.field == "admin"


def test_duplicate_ids_in_a_fixture_are_named(tmp_path):
    entry = {"id": "a", "asset": "P-2", "text": "t", "cost": 1}
    with pytest.raises(FixtureError) as caught:
        load_records(_write(tmp_path, [entry, entry]))
    assert (caught.value.index, caught.value.field) == (1, "id")


def test_invalid_json_is_a_fixture_error(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    with pytest.raises(FixtureError, match="not valid JSON"):
        load_records(path)


def test_scene_with_reserves_over_total_is_a_fixture_error(tmp_path):
    data = json.loads(fixture_path("p2_seal.json").read_text())
    data["budget"]["input_reserve"] = 30
    with pytest.raises(FixtureError) as caught:
        load_scene(_write(tmp_path, data))
    assert caught.value.field == "input_reserve"


def test_unknown_fixture_name_says_where_it_looked():
    with pytest.raises(FileNotFoundError, match="no fixture named"):
        fixture_path("nope.json")


def _record_fixtures() -> list[Path]:
    """Every fixture that holds records (a list, or an object with "records"); booking_rules.json holds none."""
    paths = sorted(Path(fixture_path("p2_seal.json")).parent.glob("*.json"))
    return [p for p in paths if not isinstance(data := json.loads(p.read_text()), dict) or "records" in data]


def test_an_id_in_two_fixtures_names_the_same_record():
    """One id, one record: an id that appears in two fixtures has the same asset and text in both.

    Lessons pass records from one scene to another (lesson 03 renders lesson 02's tickets beside a planted one);
    if an id meant two different texts, a citation by id could point at words the reader never saw. Costs may
    differ: lesson 01's scene counts in small invented units on purpose.
    """
    seen: dict[str, tuple[str, str, str]] = {}
    clashes = []
    for path in _record_fixtures():
        for record in load_records(path):
            first = seen.setdefault(record.id, (path.name, record.asset, record.text))
            if (first[1], first[2]) != (record.asset, record.text):
                clashes.append(f"{record.id}: {first[0]} and {path.name} disagree")
    assert len(seen) > 60  # all four fixtures were read, not just one
    assert clashes == []


def test_every_record_in_every_fixture_carries_the_minimum_provenance():
    """A stable id, a source version, an effective date, a trust label and a permission requirement (its asset)."""
    missing = []
    for path in _record_fixtures():
        for record in load_records(path):
            for name in ("version", "effective_date", "trust", "asset"):
                if getattr(record, name) is None:
                    missing.append(f"{path.name}: {record.id} has no {name}")
    assert missing == []


def test_an_id_in_two_fixtures_carries_the_same_provenance():
    """tkt-5630 in lesson 01's scene and in lesson 02's is one ticket: same version, date and tier."""
    seen: dict[str, tuple] = {}
    for path in _record_fixtures():
        for r in load_records(path):
            label = (r.version, r.effective_date, r.trust)
            assert seen.setdefault(r.id, label) == label, (path.name, r.id)
