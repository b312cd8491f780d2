"""The concept check across the room: counts before and after, the normalised gain over the learners who
answered both, the ideas that did not move first, no names, and the same figures as CSV."""

from __future__ import annotations

import csv
import io
import json
import re
from fractions import Fraction

from botie.lessons.exercises.concepts import CONCEPTS
from botie.lessons.room.room import CSV_COLUMNS, LOW_GAIN, concept_gains, concepts_csv, row_for
from botie.lessons.room.room_page import CSV_LINK, room_html
from tests.lessons.room.test_room import NOW

A, B, C = "tokens-not-words", "approval-one-payload", "citation-is-not-proof"


def _learner(name, before=None, after=None):
    """A learner's row; ``before`` and ``after`` map a concept to right (True) or missed (False)."""

    def check(answers):
        return {cid: {"choice": 1 if right else 0, "right": right, "at": "t"} for cid, right in answers.items()}

    concepts = {k: check(v) for k, v in (("before", before), ("after", after)) if v is not None}
    body = {"format": 1, "exercises": {}, "concepts": concepts}
    return row_for(name, running=True, status=200, body=json.dumps({"content": json.dumps(body)}))


def _room():
    # A: 1 of 4 right before, 3 of 4 after -> gain (3 - 1) / (4 - 1) = 2/3
    # B: 2 of 4 before, 2 of 4 after (one learned it, one lost it) -> gain 0
    # C: 4 of 4 before -> nothing to gain; the fifth learner took only the first check
    return [
        _learner("amaranth", {A: True, B: True, C: True}, {A: True, B: False, C: True}),
        _learner("bartholomew", {A: False, B: True, C: True}, {A: True, B: True, C: True}),
        _learner("cyprian", {A: False, B: False, C: True}, {A: True, B: True, C: True}),
        _learner("delphine", {A: False, B: False, C: True}, {A: False, B: False, C: True}),
        _learner("eleanor", {A: False, B: True, C: False}),
        row_for("fenwick", running=False, status=None),
    ]


def _by_id(gains):
    return {g.concept.id: g for g in gains}


def test_counts_before_and_after_and_the_gain_over_those_who_answered_both():
    gains = _by_id(concept_gains(_room()))
    a, b, c = gains[A], gains[B], gains[C]
    assert (a.before_answered, a.before_right, a.after_answered, a.after_right) == (5, 1, 4, 3)
    assert (a.both, a.both_before, a.both_after, a.gain) == (4, 1, 3, Fraction(2, 3))
    assert (b.both, b.both_before, b.both_after, b.gain, b.moved) == (4, 2, 2, Fraction(0), False)
    assert (c.both, c.both_before, c.gain, c.moved) == (4, 4, None, False)


def test_the_gain_is_after_minus_before_over_one_minus_before_in_shares():
    a = _by_id(concept_gains(_room()))[A]
    before, after = Fraction(a.both_before, a.both), Fraction(a.both_after, a.both)
    assert a.gain == (after - before) / (1 - before) == Fraction(2, 3)


def test_a_gain_under_three_tenths_did_not_move_and_three_tenths_did():
    three_in_ten = [_learner(f"l{i}", {A: i < 0}, {A: i < 3}) for i in range(10)]  # none right before, 3 after: 0.3
    two_in_ten = [_learner(f"l{i}", {A: False}, {A: i < 2}) for i in range(10)]  # none before, 2 after: 0.2
    assert _by_id(concept_gains(three_in_ten))[A].moved and _by_id(concept_gains(three_in_ten))[A].gain == LOW_GAIN
    assert not _by_id(concept_gains(two_in_ten))[A].moved and "a gain under 0.3" in room_html(two_in_ten, now=NOW)


def test_a_gain_can_be_negative_and_then_comes_first():
    room = [
        _learner("amaranth", {A: True, B: True}, {A: False, B: True}),
        _learner("bartholomew", {A: False, B: False}, {A: False, B: True}),
    ]
    gains = concept_gains(room)
    assert _by_id(gains)[A].gain == Fraction(-1, 1) and gains[0].concept.id == A


def test_the_ideas_that_did_not_move_come_first_then_those_without_a_second_answer_then_nothing_to_gain():
    order = [g.concept.id for g in concept_gains(_room())]
    assert order[:2] == [B, A]  # gain 0, then 2/3
    assert order[-1] == C  # everyone right before: nothing to gain
    assert set(order[2:-1]) == set(CONCEPTS) - {A, B, C}  # nobody answered these at all


def test_before_anyone_takes_the_second_check_the_first_stands_alone_least_known_first():
    room = [_learner("amaranth", {A: False, B: True}), _learner("bartholomew", {A: False, B: False})]
    gains = concept_gains(room)
    assert [g.concept.id for g in gains[:2]] == [A, B] and all(g.gain is None for g in gains)
    page = room_html(room, now=NOW)
    assert "The second check (end of lesson 06) has not been taken yet" in page


def test_the_page_shows_counts_as_text_the_gain_and_no_names():
    page = room_html(_room(), now=NOW)
    section = page[page.index("id='h-concepts'") :].split("</section>")[0]
    a = CONCEPTS[A]
    found = re.search(rf"<tr[^>]*><th scope='row'>{re.escape(a.idea)}.*?</tr>", section)
    assert found is not None
    row = found.group(0)
    assert (
        "1 of 5 (20%)" in row
        and "3 of 4 (75%)" in row
        and "+0.67" in row
        and "<td class='n'>4<br><span class='where'>right: 1 then 3</span></td>" in row
    )
    assert f"Did not move: {CONCEPTS[B].idea}." in section and "+0.00 (did not move)" in section
    assert "everyone was right before" in section
    assert not any(name in section for name in ("amaranth", "bartholomew", "cyprian", "delphine", "eleanor"))
    assert f"href='{CSV_LINK}'" in section
    assert section.index(CONCEPTS[B].idea) < section.index(a.idea) < section.index(CONCEPTS[C].idea)


def test_the_projector_view_of_the_concepts_has_no_names_and_nothing_else():
    page = room_html(_room(), now=NOW, projector=True, show="concepts")
    assert "What the room learned" in page and "+0.67" in page
    assert "Where the room is stuck" not in page and "What the room predicted" not in page
    assert not any(f">{name}<" in page for name in ("amaranth", "bartholomew", "cyprian", "delphine", "eleanor"))


def test_the_csv_has_the_same_figures_in_the_same_order_and_no_names():
    text = concepts_csv(_room())
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == len(CONCEPTS)
    assert [r["concept"] for r in rows] == [g.concept.id for g in concept_gains(_room())]
    a = next(r for r in rows if r["concept"] == A)
    assert (a["before_right"], a["before_answered"], a["after_right"], a["after_answered"]) == ("1", "5", "3", "4")
    assert (a["before_share"], a["after_share"], a["normalised_gain"]) == ("0.200", "0.750", "0.667")
    assert next(r for r in rows if r["concept"] == C)["normalised_gain"] == ""
    assert not any(name in text for name in ("amaranth", "delphine", "eleanor"))
