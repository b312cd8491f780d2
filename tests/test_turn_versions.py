"""The version half of the property over paths: no request holds a revision not in force on the turn's day.

Over lesson 02's scene, for random questions, days (many within a few days of a revision change, on
either side), budgets and chunks that retrieval left out, with and without a conversation that read the
manual on an earlier day: every document in every request sent is the revision the register has in force
on that turn's day (or a section ingestion marked as carried into it).
"""

from __future__ import annotations

from hypothesis import given

from botie.context.conversation import Conversation
from botie.context.register import DocumentRegister
from botie.lessons.content.scenarios import load_evidence_scenario
from botie.lessons.content.scripted import load_scripted_model
from botie.turn import TurnOutcome, TurnSetup, run_turn
from tests.strategies import events, examples, register_turn_cases, revision_labels

SCENARIO = load_evidence_scenario()
MODEL = load_scripted_model()


def _scene_register() -> DocumentRegister:
    register = SCENARIO.register
    assert register is not None  # the scene names its register
    return register


REGISTER = _scene_register()


def _not_in_force(request, day) -> list[str]:
    """The ids in the request whose revision is not the one in force on ``day``."""
    by_id = {r.id: r for r in SCENARIO.records}
    wrong = []
    for rid in request.document_ids if request is not None else ():
        record = by_id[rid]
        current = REGISTER.in_force(record.document, day)
        if current is None or (record.version != current.version and current.version not in record.carried_into):
            wrong.append(f"{rid} ({record.version}) on {day}")
    return wrong


@examples(150)
@given(register_turn_cases())
def test_property_no_request_holds_a_revision_not_in_force(case):
    question = SCENARIO.questions[case["question"]]
    candidates = [r for r in SCENARIO.candidates(case["question"]) if r.id not in case["dropped"]]
    setup = TurnSetup.from_scenario(SCENARIO, budget=case["budget"], observed_on=case["day"])
    conversation = None
    if case["earlier"] is not None:
        conversation = Conversation(ceiling=setup.ceiling, answer_allowance=setup.answer_allowance)
        first = run_turn(question.question, candidates, setup.with_(observed_on=case["earlier"]), MODEL,
                         conversation=conversation)  # fmt: skip
        assert _not_in_force(first.request, case["earlier"]) == []
        conversation.add_turn(question.question, first.answer or "")
    r = run_turn(question.question, candidates, setup, MODEL, conversation=conversation)
    events(revision_labels(case) | {str(r.outcome)})
    assert _not_in_force(r.request, case["day"]) == []
    if r.outcome is TurnOutcome.STOPPED:
        assert r.notice is not None
        assert conversation is not None and "changed after this conversation first read it" in r.notice
