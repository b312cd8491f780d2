"""Conversation: one version of each document per conversation; every request reports its share of the ceiling."""

from __future__ import annotations

import dataclasses

import pytest

from botie.context.conversation import Conversation, TurnBranch
from botie.context.provenance import version_hash
from botie.context.records import Record
from botie.context.routing import alert_threshold
from botie.errors import RecordError, RequestTooLargeError

POLICY = Record("man-p2-r4-s3.2", "P-2", "Tighten the gland nuts to 18 N·m.", 12, version="rev 4")
TICKET = Record("tkt-5521", "P-2", "Seal replaced on 2026-03-14.", 10, version="closed")
EDITED = dataclasses.replace(POLICY, text="Tighten the gland nuts to 19 N·m.")


def test_the_first_turn_pins_each_document_it_uses():
    conv = Conversation(ceiling=10_000)
    turn = conv.ask("What torque?", [POLICY, TICKET])
    assert turn.branch is TurnBranch.ASSEMBLED
    assert turn.checks == ("versions", "assemble")
    assert dict(conv.pins) == {POLICY.id: version_hash(POLICY), TICKET.id: version_hash(TICKET)}
    assert turn.newly_pinned == (POLICY.id, TICKET.id)


def test_an_unchanged_document_goes_ahead_on_later_turns():
    conv = Conversation(ceiling=10_000)
    conv.ask("What torque?", [POLICY])
    conv.add_turn("What torque?", "18 N·m.")
    turn = conv.ask("And the maximum?", [POLICY])
    assert turn.branch is TurnBranch.ASSEMBLED and turn.newly_pinned == ()


def test_a_document_edited_between_turns_stops_the_turn_with_a_visible_notice():
    conv = Conversation(ceiling=10_000)
    conv.ask("What torque?", [POLICY])
    conv.add_turn("What torque?", "18 N·m.")
    turn = conv.ask("And after lapping?", [EDITED, TICKET])
    assert turn.branch is TurnBranch.VERSION_CHANGED
    assert turn.request is None  # no request mixing two versions is ever assembled
    assert turn.checks == ("versions",)
    (change,) = turn.changes
    assert change == (POLICY.id, version_hash(POLICY), version_hash(EDITED))
    assert turn.notice == (
        "A document changed after this conversation first read it (man-p2-r4-s3.2). Answers here stay with the "
        "version already read; open a fresh conversation to work from the current one."
    )


def test_the_pin_does_not_move_to_the_new_version():
    conv = Conversation(ceiling=10_000)
    conv.ask("Q1", [POLICY])
    conv.ask("Q2", [EDITED, TICKET])
    assert conv.pins[POLICY.id] == version_hash(POLICY)
    assert TICKET.id not in conv.pins  # nothing is pinned on a turn that did not go ahead
    assert conv.ask("Q3", [EDITED]).branch is TurnBranch.VERSION_CHANGED
    assert conv.ask("Q4", [POLICY]).branch is TurnBranch.ASSEMBLED


def test_a_new_conversation_uses_the_current_version():
    conv = Conversation(ceiling=10_000)
    conv.ask("Q1", [POLICY])
    fresh = Conversation(ceiling=10_000)
    assert fresh.ask("Q1", [EDITED]).branch is TurnBranch.ASSEMBLED


def test_a_relabelled_version_counts_as_a_change():
    conv = Conversation(ceiling=10_000)
    conv.ask("Q1", [POLICY])
    assert conv.ask("Q2", [dataclasses.replace(POLICY, version="rev 5")]).branch is TurnBranch.VERSION_CHANGED


def test_metadata_that_is_not_the_content_does_not_count_as_a_change():
    conv = Conversation(ceiling=10_000)
    conv.ask("Q1", [POLICY])
    rescored = dataclasses.replace(POLICY, score=0.2, cost=13)
    assert conv.ask("Q2", [rescored]).branch is TurnBranch.ASSEMBLED


def test_the_same_document_twice_in_one_turn_with_two_versions_is_a_change():
    conv = Conversation(ceiling=10_000)
    changes, unseen = conv.compare([POLICY, EDITED])
    assert [c.document_id for c in changes] == [POLICY.id]
    assert unseen == {POLICY.id: version_hash(POLICY)}


def test_every_request_reports_its_ratio_with_turns_and_answer_included():
    conv = Conversation(ceiling=10_000, answer_allowance=1_000)
    first = conv.ask("What torque?", [POLICY]).request
    conv.add_turn("What torque?", "Tighten to 18 N·m in a cross pattern. " * 20)
    second = conv.ask("And the maximum?", [POLICY]).request
    assert first is not None
    assert first.load == first.tokens + 1_000
    assert second is not None
    assert second.tokens > first.tokens  # the earlier turn is in the request, and paid for
    assert second.ratio == second.load / 10_000
    assert "User: What torque?" in second.text


def test_a_growing_conversation_raises_the_alert_at_70_percent():
    """Turns accumulate until the request plus answer allowance reach 1,400 of 2,000 tokens."""
    ceiling = 2_000
    conv = Conversation(ceiling=ceiling, answer_allowance=500)
    loads = []
    for n in range(20):
        request = conv.ask(f"Question {n}?", [POLICY]).request
        assert request is not None
        loads.append(request.load)
        if request.alert:
            break
        conv.add_turn(f"Question {n}?", "A long answer about gland nuts and torque. " * 8)
    assert request is not None
    assert request.alert and len(loads) > 1
    assert loads[-1] >= alert_threshold(ceiling) == 1_400
    assert all(load < 1_400 for load in loads[:-1])
    assert loads == sorted(loads)


def test_a_conversation_that_outgrows_the_ceiling_is_refused_not_trimmed():
    conv = Conversation(ceiling=600)
    with pytest.raises(RequestTooLargeError):
        for n in range(50):
            conv.ask(f"Q{n}", [POLICY])
            conv.add_turn(f"Q{n}", "answer " * 30)
    assert len(conv.history) < 50


def test_conversations_read_records_and_turns_are_text():
    conv = Conversation(ceiling=10_000)
    with pytest.raises(RecordError):
        conv.ask("Q", ["not a record"])
    with pytest.raises(RecordError):
        conv.add_turn("Q", None)


def test_a_turn_refused_as_too_large_pins_nothing():
    """Pins are saved only once the request was built: a refused turn must not fix a version nobody read."""
    conv = Conversation(ceiling=200)
    huge = Record("manual", "P-2", "gland nut torque " * 200, 600, version="rev 4")
    with pytest.raises(RequestTooLargeError):
        conv.ask("What torque?", [huge])
    assert dict(conv.pins) == {}
    short = dataclasses.replace(huge, text="Tighten to 19 N·m.")  # a different version of the same document
    turn = conv.ask("What torque?", [short])
    assert turn.branch is TurnBranch.ASSEMBLED and turn.newly_pinned == ("manual",)


def test_earlier_turns_sit_between_the_evidence_and_the_question():
    """Order: instructions, evidence, the conversation so far, then the question (written out by hand)."""
    conv = Conversation(ceiling=10_000, instructions="Answer from the documents only.")
    doc = Record("m1", "P-2", "torque 19 N·m", 5, version="r5", trust="approved")
    conv.add_turn("Which pump?", "P-2.")
    conv.add_turn("Its model?", "PX-200.")
    request = conv.ask("And the torque?", [doc]).request
    assert request is not None
    assert request.text == (
        "Answer from the documents only.\n\n"
        '<evidence>\n<document id="m1" asset="P-2" version="r5" trust="approved">\n'
        "torque 19 N·m\n</document>\n</evidence>\n\n"
        "User: Which pump?\nAssistant: P-2.\n\n"
        "User: Its model?\nAssistant: PX-200.\n\n"
        "Question: And the torque?"
    )


def test_two_changed_documents_are_both_named_in_the_notice():
    conv = Conversation(ceiling=10_000)
    conv.ask("Q1", [POLICY, TICKET])
    turn = conv.ask("Q2", [EDITED, dataclasses.replace(TICKET, text="Seal replaced on 2026-03-15.")])
    assert turn.newly_pinned == () and len(turn.changes) == 2
    assert turn.notice == (
        "Some documents changed after this conversation first read it (man-p2-r4-s3.2, tkt-5521). Answers here "
        "stay with the version already read; open a fresh conversation to work from the current one."
    )


def test_an_assembled_turn_has_no_changes_and_the_settings_reach_the_request():
    conv = Conversation(ceiling=10_000, alert_fraction=0.5)
    assert conv.answer_allowance is None  # none of its own: it takes the one each ask is given, else 0
    turn = conv.ask("What torque?", [POLICY])
    assert turn.changes == ()
    assert turn.request is not None
    assert (turn.request.answer_allowance, turn.request.alert_fraction, turn.request.alert_at) == (0, 0.5, 5_000)


def test_the_conversation_counts_with_its_own_encoding():
    from botie.errors import TokenizerError

    with pytest.raises(TokenizerError):
        Conversation(ceiling=10_000, encoding="no-such-encoding").ask("What torque?", [POLICY])


def test_bad_turns_and_records_name_the_field():
    conv = Conversation(ceiling=10_000)
    with pytest.raises(RecordError) as info:
        conv.add_turn("What torque?", None)
    assert (str(info.value), info.value.field) == ("a turn is a question and an answer, both str", "turn")
    with pytest.raises(RecordError) as info:
        conv.ask("What torque?", ["man-p2-r4-s3.2"])
    assert (str(info.value), info.value.field) == ("a conversation reads Records, got 'man-p2-r4-s3.2'", "record")


def test_a_conversation_without_an_allowance_of_its_own_takes_the_one_it_is_given_and_its_own_wins():
    conv = Conversation(ceiling=10_000)
    given = conv.ask("What torque?", [POLICY], answer_allowance=150).request
    own = Conversation(ceiling=10_000, answer_allowance=90)
    kept = own.ask("What torque?", [POLICY], answer_allowance=150).request
    assert given is not None and kept is not None
    assert (given.answer_allowance, kept.answer_allowance) == (150, 90)
    assert (conv.allowance(), own.allowance(), conv.allowance(7)) == (0, 90, 7)
