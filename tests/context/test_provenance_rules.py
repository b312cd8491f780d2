"""botie/context/provenance/rules.py: each evidence predicate states its invariant once, here.

Expected values are written out by hand from the records each test builds, never computed by the rules.
"""

from __future__ import annotations

import datetime as dt

import pytest

from botie import Record
from botie.context.provenance import EvidenceStatus, select_evidence
from botie.context.provenance.rules import (
    Standing,
    clears_floor,
    copy_chain,
    disagreements,
    may_name,
    not_yet_effective,
    of_revision,
    original_of,
    register_standing,
    revisions_in_force,
    superseded_in,
    travels_with,
)
from botie.context.register import DocumentRegister
from botie.errors import RecordError

JAN, FEB, APR = dt.date(2026, 1, 10), dt.date(2026, 2, 1), dt.date(2026, 4, 1)


def rec(rid: str, **meta) -> Record:
    return Record(rid, meta.pop("asset", "P-2"), f"text of {rid}", meta.pop("cost", 10), **meta)


def by_id(*records: Record) -> dict[str, Record]:
    return {r.id: r for r in records}


# --- the original a copy stands for ---------------------------------------------------------------------------


def test_a_chain_of_three_copies_leads_every_link_to_the_one_original():
    """c3 copies c2, which copies c1, which copies m: each of them stands for m, and m for itself."""
    found = by_id(rec("m"), rec("c1", duplicate_of="m"), rec("c2", duplicate_of="c1"), rec("c3", duplicate_of="c2"))
    assert copy_chain("c3", found) == ("c2", "c1", "m")
    assert [original_of(rid, found) for rid in ("c3", "c2", "c1", "m")] == ["m", "m", "m", "m"]


def test_a_chain_ends_at_a_link_that_was_not_retrieved_and_that_link_is_the_original():
    found = by_id(rec("c2", duplicate_of="c1"), rec("c1", duplicate_of="gone"))
    assert copy_chain("c2", found) == ("c1", "gone")
    assert original_of("c2", found) == "gone"


def test_a_cycle_of_copies_stops_before_it_repeats_itself():
    """a -> b -> c -> a: the walk names each other link once and never comes back to where it started."""
    found = by_id(rec("a", duplicate_of="b"), rec("b", duplicate_of="c"), rec("c", duplicate_of="a"))
    assert copy_chain("a", found) == ("b", "c")
    assert original_of("a", found) == "c"


def test_a_record_that_copies_nothing_or_is_unknown_is_its_own_original():
    assert original_of("m", by_id(rec("m"))) == "m"
    assert original_of("never-seen", {}) == "never-seen"


def test_the_selector_keeps_one_of_a_chain_of_copies_and_names_the_original_at_its_end():
    """What the predicate says is what the selector does: the chain's three copies are duplicates of m."""
    chain = [rec("m", score=0.9), rec("c1", duplicate_of="m", score=0.8)]
    chain += [rec("c2", duplicate_of="c1", score=0.8), rec("c3", duplicate_of="c2", score=0.8)]
    selection = select_evidence(chain, ["P-2"], 100, observed_on=JAN)
    assert selection.selected_ids == ("m",)
    for copy in ("c1", "c2", "c3"):
        assert selection.outcome(copy).status is EvidenceStatus.DUPLICATE
        assert selection.outcome(copy).reason.startswith("duplicate of m,")


# --- the relevance floor --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "clears"),
    [(0.35, True), (0.3500001, True), (0.3499999, False), (None, False), (1.0, True), (0.0, False)],
)
def test_a_score_exactly_at_the_floor_clears_it_and_no_score_clears_nothing(score, clears):
    assert clears_floor(rec("r", score=score), 0.35) is clears


def test_with_a_floor_of_zero_any_score_clears_it_but_a_missing_score_still_does_not():
    assert clears_floor(rec("r", score=0.0), 0.0) is True
    assert clears_floor(rec("r"), 0.0) is False


# --- the revision in force ------------------------------------------------------------------------------------

REGISTER = DocumentRegister.of(
    {
        "docs://p2": [
            {"version": "rev 4", "effective_date": "2026-01-10"},
            {"version": "rev 5", "effective_date": "2026-04-01"},
        ]
    }
)


def chunk(rid: str, version: str, when: dt.date, **meta) -> Record:
    return rec(rid, document="docs://p2", version=version, effective_date=when, **meta)


def test_with_a_register_the_revision_in_force_is_the_registers_on_each_side_of_its_date():
    rev4, rev5 = chunk("r4", "rev 4", JAN), chunk("r5", "rev 5", APR)
    before, on = dt.date(2026, 3, 31), APR
    assert register_standing(rev4, REGISTER, before) is None
    assert register_standing(rev5, REGISTER, before) == Standing(EvidenceStatus.NOT_YET_EFFECTIVE, "rev 5", APR)
    assert register_standing(rev4, REGISTER, on) == Standing(EvidenceStatus.SUPERSEDED, "rev 5", APR)
    assert register_standing(rev5, REGISTER, on) is None


def test_a_section_carried_into_the_newer_revision_stays_in_force_with_or_without_a_register():
    kept = chunk("r4-kept", "rev 4", JAN, carried_into=("rev 5",))
    assert of_revision(kept, "rev 5") and of_revision(kept, "rev 4") and not of_revision(kept, "rev 6")
    assert register_standing(kept, REGISTER, APR) is None
    assert superseded_in(kept, {"docs://p2": ("rev 5", APR)}) is None


def test_a_chunk_the_register_cannot_place_is_bad_input_named():
    with pytest.raises(RecordError) as caught:
        register_standing(chunk("r9", "rev 9", JAN), REGISTER, APR)
    assert caught.value.field == "version" and caught.value.record == "r9"


def test_without_a_register_the_candidates_newest_revision_not_after_the_day_is_in_force():
    rev4, rev5 = chunk("r4", "rev 4", JAN), chunk("r5", "rev 5", APR)
    assert revisions_in_force([rev4, rev5], dt.date(2026, 3, 31)) == {"docs://p2": ("rev 4", JAN)}
    assert revisions_in_force([rev4, rev5], APR) == {"docs://p2": ("rev 5", APR)}
    assert revisions_in_force([rev5], JAN) == {}
    assert superseded_in(rev4, {"docs://p2": ("rev 5", APR)}) == Standing(EvidenceStatus.SUPERSEDED, "rev 5", APR)
    assert not_yet_effective(rev5, dt.date(2026, 3, 31)) and not not_yet_effective(rev5, APR)
    assert not not_yet_effective(rec("undated"), JAN)


def test_without_a_register_two_revisions_on_one_day_are_bad_input_named():
    with pytest.raises(RecordError) as caught:
        revisions_in_force([chunk("a", "rev 4", JAN), chunk("b", "rev 5", JAN)], APR)
    assert caught.value.field == "effective_date" and caught.value.record == "b"


# --- rivals ---------------------------------------------------------------------------------------------------


def test_a_disagreement_written_on_one_side_counts_both_ways_round():
    a, b, c = rec("a", conflicts_with=("b",)), rec("b"), rec("c", conflicts_with=("a",))
    assert disagreements([a, b, c]) == (("a", "b"), ("c", "a"), ("b", "a"), ("a", "c"))
    assert disagreements([b]) == ()


@pytest.mark.parametrize(
    ("x", "other", "must"),
    [
        ("reviewed", "approved", True),  # two high tiers: both or neither
        ("approved", "reviewed", True),
        ("internal", "approved", True),  # a lower tier goes only alongside the higher
        ("approved", "internal", False),  # the higher may go in alone
        ("community", "community", True),  # one tier: as trusted, so it comes along
        ("community", "unverified", False),
    ],
)
def test_a_rival_travels_with_a_record_when_both_are_high_or_it_is_at_least_as_trusted(x, other, must):
    assert travels_with(rec("x", trust=x), rec("o", trust=other)) is must


# --- what a reason may name -----------------------------------------------------------------------------------


def test_a_reason_never_names_a_record_the_caller_may_not_read_and_may_name_one_never_retrieved():
    found = by_id(rec("mine", asset="P-2"), rec("vendor", asset="VENDOR-P2"))
    allowed = frozenset({"P-2"})
    assert may_name("mine", found, allowed) is True
    assert may_name("vendor", found, allowed) is False
    assert may_name("vendor", found, frozenset({"P-2", "VENDOR-P2"})) is True
    assert may_name("not-retrieved", found, allowed) is True


def test_the_selector_names_an_unreadable_original_in_no_copys_reason():
    """The copy stands in for an original on an asset the caller may not read: neither reason names it."""
    records = [rec("secret", asset="VENDOR-P2", score=0.9), rec("copy", duplicate_of="secret", score=0.8)]
    selection = select_evidence(records, ["P-2"], 100, observed_on=JAN)
    assert selection.selected_ids == ("copy",)
    assert "secret" not in selection.outcome("copy").reason
    assert "may not read" in selection.outcome("copy").reason
