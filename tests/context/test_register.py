"""The document register: the revision in force comes from document control, not from what retrieval returned."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

import pytest

from botie.context.conversation import Conversation, TurnBranch
from botie.context.provenance import EvidenceStatus, select_evidence
from botie.context.records import Record
from botie.context.register import DocumentRegister, Revision
from botie.errors import FixtureError, RecordError
from botie.lessons.content.fixtures import fixture_path
from botie.lessons.content.scenarios import load_evidence_scenario

MANUAL = "docs://site-a/manuals/p2"
REV5 = "man-p2-r5-s3.2"
REV4_SECTIONS = ("man-p2-r4-s3.2", "man-p2-r4-s3.2.1", "man-p2-r4-t3.4-head", "man-p2-r4-t3.4-m12")


@pytest.fixture(scope="module")
def scenario():
    return load_evidence_scenario()


def _without_rev5(scenario):
    return tuple(r for r in scenario.candidates(0) if r.id != REV5)


def _pick(scenario, candidates, day, **kw):
    args = {"register": scenario.register, "observed_on": day, "budget": 10_000}
    args.update(kw)
    return select_evidence(candidates, scenario.allowed_assets, args.pop("budget"), floor=scenario.floor, **args)


# --- the register itself ------------------------------------------------------------------------


def test_the_revision_in_force_is_the_newest_effective_on_the_day(scenario):
    register = scenario.register
    assert register.in_force(MANUAL, dt.date(2026, 3, 31)) == Revision("rev 4", dt.date(2026, 1, 10))
    assert register.in_force(MANUAL, dt.date(2026, 4, 1)) == Revision("rev 5", dt.date(2026, 4, 1))
    assert register.in_force(MANUAL, dt.date(2024, 5, 31)) is None  # before rev 3: nothing in force yet
    assert register.versions_on(dt.date(2026, 4, 1))[MANUAL] == "rev 5"


@pytest.mark.parametrize(
    ("entries", "field"),
    [
        ({"d": []}, "revisions"),
        ({"d": [{"version": "a", "effective_date": "2026-01-01"}, {"version": "a", "effective_date": "2026-02-01"}]},
         "version"),
        ({"d": [{"version": "a", "effective_date": "2026-01-01"}, {"version": "b", "effective_date": "2026-01-01"}]},
         "effective_date"),
        ({"d": [{"version": "", "effective_date": "2026-01-01"}]}, "version"),
        ({"d": [{"version": "a", "effective_date": "soon"}]}, "effective_date"),
    ],
)  # fmt: skip
def test_a_register_with_no_order_to_read_is_bad_input_naming_the_document(entries, field):
    with pytest.raises(RecordError) as err:
        DocumentRegister.of(entries)
    assert (err.value.field, err.value.record) == (field, "d")


# --- the selector reads it ----------------------------------------------------------------------


def test_rev4_stays_in_force_before_rev5_when_rev5_was_not_retrieved(scenario):
    """Issue 31 item 4: on 2026-03-15 rev 4 §3.2 is current even though the chunk its link names is missing."""
    picked = _pick(scenario, _without_rev5(scenario), "2026-03-15")
    assert picked.outcome("man-p2-r4-s3.2").check != "freshness"
    assert picked.outcome("man-p2-r4-s3.2").status is EvidenceStatus.SELECTED
    assert set(REV4_SECTIONS) <= set(picked.selected_ids)


def test_no_rev4_chunk_is_sent_once_rev5_is_in_force_though_rev5_was_not_retrieved(scenario):
    """Issue 31 item 4: on 2026-06-01 rev 4's table and exception are out, though no rev 5 chunk came back."""
    picked = _pick(scenario, _without_rev5(scenario), "2026-06-01")
    for rid in REV4_SECTIONS:
        outcome = picked.outcome(rid)
        assert outcome.status is EvidenceStatus.SUPERSEDED, rid
        assert "replaced by rev 5, in force since 2026-04-01" in outcome.reason, outcome.reason
    assert not set(REV4_SECTIONS) & set(picked.selected_ids)


@pytest.mark.parametrize("day", ["2026-03-31", "2026-04-01"])
def test_with_or_without_the_rev5_chunk_the_same_revision_is_in_force(scenario, day):
    """Freshness no longer depends on retrieval: rev 4's sections get the same verdict either way."""
    full = _pick(scenario, scenario.candidates(0), day)
    partial = _pick(scenario, _without_rev5(scenario), day)
    for rid in REV4_SECTIONS:
        assert (full.outcome(rid).check == "freshness") == (partial.outcome(rid).check == "freshness"), rid


def test_a_chunk_without_a_document_is_refused_naming_record_and_field(scenario):
    stray = Record("stray-1", "P-2", "Gland nuts: 18 N·m.", 5, version="rev 4", score=0.9, trust="approved")
    with pytest.raises(RecordError) as err:
        _pick(scenario, (*scenario.candidates(0), stray), "2026-03-15")
    assert (err.value.field, err.value.record) == ("document", "stray-1")
    assert "stray-1" in str(err.value) and "no document" in str(err.value)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"document": "docs://nowhere"}, "document"),
        ({"version": "rev 9"}, "version"),
        ({"effective_date": dt.date(2026, 2, 2)}, "effective_date"),
    ],
)
def test_a_chunk_the_register_cannot_place_is_refused(scenario, change, field):
    bad = dataclasses.replace(scenario.candidates(0)[1], **change)
    with pytest.raises(RecordError) as err:
        _pick(scenario, (bad,), "2026-03-15")
    assert (err.value.field, err.value.record) == (field, bad.id)


def test_ingestion_refuses_a_scene_record_without_a_document(tmp_path):
    """The fixture loader is ingestion: a record of a registered scene with no document fails there, by name."""
    data = json.loads(fixture_path("manual_revisions.json").read_text(encoding="utf-8"))
    del data["records"][5]["document"]
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(FixtureError) as err:
        load_evidence_scenario(path)
    assert (err.value.field, err.value.record) == ("document", data["records"][5]["id"])
    assert "scene.json, record 5" in str(err.value)


# --- a conversation pins each document's revision -----------------------------------------------


def _ask(conversation, scenario, candidates, day):
    picked = _pick(scenario, candidates, day, budget=600)
    by_id = {r.id: r for r in candidates}
    in_force = scenario.register.versions_on(dt.date.fromisoformat(day))
    return conversation.ask("What torque?", [by_id[i] for i in picked.selected_ids], in_force=in_force)


def test_a_conversation_is_told_when_the_revision_in_force_changes(scenario):
    conversation = Conversation(ceiling=10_000)
    first = _ask(conversation, scenario, scenario.candidates(0), "2026-03-31")
    assert first.branch is TurnBranch.ASSEMBLED and "man-p2-r4-s3.2" in first.request.document_ids
    assert conversation.revisions[MANUAL] == "rev 4"
    second = _ask(conversation, scenario, scenario.candidates(0), "2026-04-01")
    assert second.branch is TurnBranch.VERSION_CHANGED and second.request is None
    assert (MANUAL, "rev 4", "rev 5") in second.changes
    assert f"{MANUAL}: rev 4 then, rev 5 now" in second.notice


def test_the_register_reports_the_change_even_when_no_rev5_chunk_is_offered(scenario):
    conversation = Conversation(ceiling=10_000)
    _ask(conversation, scenario, scenario.candidates(0), "2026-03-31")
    second = _ask(conversation, scenario, _without_rev5(scenario), "2026-04-01")
    assert second.branch is TurnBranch.VERSION_CHANGED
    assert (MANUAL, "rev 4", "rev 5") in second.changes


def test_a_section_carried_into_the_new_revision_is_not_a_second_reading():
    rev4 = Record("a-4", "P-2", "Old clause.", 3, document="m", version="rev 4", effective_date="2026-01-01",
                  carried_into=("rev 5",))  # fmt: skip
    rev5 = Record("b-5", "P-2", "New clause.", 3, document="m", version="rev 5", effective_date="2026-04-01")
    conversation = Conversation(ceiling=10_000)
    assert conversation.ask("Q", [rev4, rev5]).branch is TurnBranch.ASSEMBLED
    assert conversation.revisions == {"m": "rev 5"}


RIVALS_OF_BOTH = ("forum-8812", "note-anon-77", "tkt-5630")  # each marked against rev 4 and rev 5 of §3.2


@pytest.mark.parametrize("day", ["2026-03-10", "2026-03-15", "2026-03-31"])
@pytest.mark.parametrize("budget", [40, 120, 250, 10_000])
def test_a_disagreement_with_a_revision_not_in_force_decides_nothing_whether_or_not_it_was_retrieved(
    scenario, day, budget
):
    """Before 1 April rev 5 is not in force (the register says so), so a post that disagrees with it and with
    rev 4 goes in beside rev 4 whether or not retrieval returned rev 5's chunk: same outcomes, same pack."""
    full = _pick(scenario, scenario.candidates(0), day, budget=budget)
    partial = _pick(scenario, _without_rev5(scenario), day, budget=budget)
    for rid in RIVALS_OF_BOTH:
        assert partial.outcome(rid).status is full.outcome(rid).status, (rid, partial.outcome(rid).reason)
        assert partial.outcome(rid).status is not EvidenceStatus.CONTRADICTED, partial.outcome(rid).reason
    assert partial.selected_ids == tuple(i for i in full.selected_ids if i != REV5)


def test_without_a_register_a_missing_successor_still_keeps_the_lower_rivals_out(scenario):
    """A bare call cannot tell whether rev 5 is in force, so it plays safe: rev 4 is out, and so are its rivals."""
    bare = select_evidence(_without_rev5(scenario), scenario.allowed_assets, 10_000, observed_on="2026-03-15")
    for rid in RIVALS_OF_BOTH:
        assert bare.outcome(rid).status is EvidenceStatus.CONTRADICTED, rid
    assert bare.outcome("man-p2-r4-s3.2").status is EvidenceStatus.SUPERSEDED


# --- row 78 of the seed-rule table, whole ----------------------------------------------------------


def _unplaceable(scenario):
    """One chunk per way the register cannot place it, each with the field its refusal must name."""
    good = scenario.candidates(0)[1]
    stray = Record("stray-1", "P-2", "Gland nuts: 18 N·m.", 5, version="rev 4", score=0.9, trust="approved")
    return [
        (stray, "document"),
        (dataclasses.replace(good, id="bad-doc", document="docs://nowhere"), "document"),
        (dataclasses.replace(good, id="bad-rev", version="rev 9"), "version"),
        (dataclasses.replace(good, id="bad-date", effective_date=dt.date(2026, 2, 2)), "effective_date"),
    ]


@pytest.mark.parametrize(
    ("day", "in_force"),
    [("2026-01-10", "rev 4"), ("2026-03-31", "rev 4"), ("2026-04-01", "rev 5"), ("2026-09-30", "rev 5")],
)
def test_the_register_says_what_is_in_force_whatever_was_retrieved_and_refuses_what_it_cannot_place(
    scenario, day, in_force
):
    """Seed 002's controlled ingestion: on each day (a revision's first day and the day before the next
    included) the register's revision is the one sent, whether or not retrieval returned its chunks, and
    every chunk it cannot place is refused where it comes in, naming the chunk and the field."""
    for candidates in (scenario.candidates(0), _without_rev5(scenario)):
        sent = {r.id: r for r in candidates if r.id in _pick(scenario, candidates, day).selected_ids}
        assert {r.version for r in sent.values() if r.document == MANUAL} <= {in_force}, (day, sorted(sent))
        assert scenario.register.in_force(MANUAL, dt.date.fromisoformat(day)).version == in_force
    for bad, field in _unplaceable(scenario):
        with pytest.raises(RecordError) as err:
            _pick(scenario, (*scenario.candidates(0), bad), day)
        assert (err.value.field, err.value.record) == (field, bad.id)
