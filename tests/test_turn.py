"""One turn from question to action: the stages, the outcome, and where missing evidence was lost."""

from __future__ import annotations

import dataclasses

import pytest

from botie.actions.decision import Approval
from botie.context.conversation import Conversation
from botie.lessons.fixtures import fixture_path, load_records
from botie.lessons.scenarios import load_evidence_scenario
from botie.lessons.scripted import ActionScript, AnswerScript, ScriptedModel, ToolProposal, load_scripted_model
from botie.turn import ActionRequest, Stage, StageStatus, TurnOutcome, TurnSetup, run_turn

PAYLOAD = {"asset_id": "P-2", "duration_minutes": 20, "request_id": "r7"}
MESSAGE = "Please book a 20-minute inspection of P-2 to check the gland nuts (request r7)."


@pytest.fixture(scope="module")
def scenario():
    return load_evidence_scenario()


@pytest.fixture(scope="module")
def model():
    return load_scripted_model()


@pytest.fixture
def setup(scenario):
    return TurnSetup.from_scenario(scenario)


@pytest.fixture
def action():
    return ActionRequest(MESSAGE, Approval("tech-ana", PAYLOAD))


def torque(scenario):
    return scenario.questions[0]


class Unreachable(ScriptedModel):
    """A model that must never be asked (a refusal happens before any model call)."""

    def reply(self, request):
        raise AssertionError("the model was called")


def test_the_happy_path_answers_and_books(scenario, setup, model, action):
    q = torque(scenario)
    r = run_turn(q.question, scenario.candidates(0), setup, model, action=action, needed=q.answered_by)
    assert r.outcome is TurnOutcome.ANSWERED and r.answer.startswith("Tighten the P-2 gland nuts")
    assert [s.stage for s in r.stages] == list(Stage)
    assert all(s.status is StageStatus.PASSED for s in r.stages)
    assert str(r.decision.branch) == "create" and r.tool_call[0] == "propose_inspection"
    assert set(q.answered_by) <= set(r.context_ids) and r.losses == ()
    assert r.documents_in_action_request == () and r.dropped is None


def test_the_stages_narrow_the_documents_step_by_step(scenario, setup, model):
    r = run_turn(torque(scenario).question, scenario.candidates(0), setup, model)
    counts = [len(r.stage(s).ids) for s in (Stage.CANDIDATES, Stage.PERMITTED, Stage.FRESH, Stage.FIT)]
    assert counts == [16, 15, 11, 7]
    assert "vendor-p2-seal-design not_permitted" in r.stage(Stage.PERMITTED).detail
    assert "man-p2-r5-s3.2 not_yet_effective" in r.stage(Stage.FRESH).detail
    assert r.stage(Stage.PROPOSAL).status is StageStatus.SKIPPED
    trace = r.trace()
    assert trace.splitlines()[0].startswith("candidates  passed   16")
    assert trace.endswith("-> answered")


def test_a_refusal_calls_no_model_and_still_handles_the_action(scenario, setup, action, model):
    q = scenario.questions[2]
    r = run_turn(q.question, scenario.candidates(2), setup, Unreachable(actions=model.actions), action=None)
    assert r.outcome is TurnOutcome.REFUSED and r.request is None and r.reply is None
    assert "0.11 is below the 0.35 floor" in r.notice
    assert r.stage(Stage.FIT).status is StageStatus.FAILED
    assert r.stage(Stage.ANSWER).status is StageStatus.SKIPPED
    booked = run_turn(q.question, scenario.candidates(2), setup, model, action=action)
    assert booked.outcome is TurnOutcome.REFUSED and str(booked.decision.branch) == "create"


def test_a_quote_that_is_not_in_the_source_withholds_the_answer(scenario, setup, model):
    q = torque(scenario)
    misquote = AnswerScript("18 N·m", (("man-p2-r4-s3.2", "tighten the gland nuts to 18 N·m"),))
    wrong = model.with_(answers={q.question: misquote})
    r = run_turn(q.question, scenario.candidates(0), setup, wrong, needed=q.answered_by)
    assert r.outcome is TurnOutcome.WITHHELD and r.answer is None
    assert "does not appear verbatim" in r.notice
    (loss,) = r.losses
    assert (loss.record_id, loss.stage, loss.kind) == ("man-p2-r4-s3.2", Stage.CITATIONS, "fact not in the text")


def test_a_cited_document_that_did_not_fit_is_traced_to_the_fit_stage(scenario, setup, model):
    q = torque(scenario)
    r = run_turn(q.question, scenario.candidates(0), setup.with_(budget=150), model, needed=q.answered_by)
    assert r.outcome is TurnOutcome.WITHHELD
    lost = {x.record_id: x for x in r.losses}
    assert lost["man-p2-r4-s3.2.1"].stage is Stage.FIT and lost["man-p2-r4-s3.2.1"].kind == "did not fit"


def test_a_needed_dependency_below_the_floor_is_lost_at_the_relevance_stage_not_at_fit(scenario, setup, model):
    """At 150 tokens the table heading (score 0.22) is not brought along, so the 0.35 floor is what dropped it."""
    q = torque(scenario)
    r = run_turn(q.question, scenario.candidates(0), setup.with_(budget=150), model, needed=q.answered_by)
    head = {x.record_id: x for x in r.losses}["man-p2-r4-t3.4-head"]
    assert (head.stage, head.kind) == (Stage.RELEVANT, "below the relevance floor")
    assert "score 0.22 is below the 0.35 floor" in head.detail
    relevant = r.stage(Stage.RELEVANT)
    assert "man-p2-r4-t3.4-head" not in relevant.ids and "man-p2-r4-t3.4-m12" in relevant.ids
    assert relevant.detail.endswith("(floor 0.35)")


def test_the_relevance_stage_runs_between_fresh_and_fit():
    names = [str(stage) for stage in Stage]
    assert names[names.index("fresh") + 1:names.index("fit")] == ["relevant"]


def test_a_document_retrieval_never_returned_is_a_missing_candidate(scenario, setup, model):
    q = torque(scenario)
    candidates = [r for r in scenario.candidates(0) if r.id != "man-p2-r4-s3.2.1"]
    r = run_turn(q.question, candidates, setup, model, needed=q.answered_by)
    assert r.outcome is TurnOutcome.WITHHELD
    (loss,) = r.losses
    assert (loss.record_id, loss.stage, loss.kind) == ("man-p2-r4-s3.2.1", Stage.CANDIDATES, "missing candidate")


def test_needed_documents_the_caller_may_not_read_are_not_authorised(scenario, setup, model):
    q = torque(scenario)
    r = run_turn(q.question, scenario.candidates(0), setup.with_(allowed_assets=("P-3",)), model,
                 needed=q.answered_by)
    assert r.outcome is TurnOutcome.REFUSED
    assert {x.stage for x in r.losses} == {Stage.PERMITTED}
    assert {x.kind for x in r.losses} == {"not authorised"}


def test_a_revision_not_yet_in_force_is_not_current(scenario, setup, model):
    r = run_turn(torque(scenario).question, scenario.candidates(0), setup, model, needed=["man-p2-r5-s3.2"])
    (loss,) = r.losses
    assert (loss.stage, loss.kind) == (Stage.FRESH, "not current") and "2026-04-01" in loss.detail


def test_a_tool_call_suggested_while_reading_is_dropped(scenario, setup, model, action):
    q = torque(scenario)
    r = run_turn(q.question, scenario.candidates(0), setup, model.with_(gullible=True), action=action)
    assert r.dropped is not None and r.dropped.arguments["duration_minutes"] == 60
    assert "dropped, never carried out" in r.stage(Stage.ANSWER).detail
    assert dict(r.proposal.arguments) == PAYLOAD and str(r.decision.branch) == "create"


def test_the_action_request_holds_no_document_text(scenario, setup, model, action):
    planted = load_records(fixture_path("scripted_turns.json"))
    candidates = (*scenario.candidates(0), *planted)
    r = run_turn(torque(scenario).question, candidates, setup, model.with_(gullible=True), action=action)
    assert r.documents_in_action_request == ()
    assert "<evidence>\n</evidence>" in r.action_request.text
    for doc in candidates:
        assert doc.text not in r.action_request.text


def test_a_tool_the_turn_does_not_offer_never_reaches_the_decision(scenario, setup, model):
    refund = ToolProposal("refund_customer", {"order_id": "1"})
    rogue = model.with_(actions={"refund": ActionScript(refund)})
    r = run_turn(torque(scenario).question, scenario.candidates(0), setup, rogue,
                 action=ActionRequest("please refund order 1"))
    assert r.decision is None and r.tool_call is None
    assert r.stage(Stage.PROPOSAL).status is StageStatus.FAILED
    assert "refund_customer is not a tool this turn offers" in r.stage(Stage.PROPOSAL).detail


def test_no_proposal_means_nothing_to_decide(scenario, setup, model):
    r = run_turn(torque(scenario).question, scenario.candidates(0), setup, model,
                 action=ActionRequest("please do something vague"))
    assert r.proposal is None and r.decision is None
    assert r.stage(Stage.DECISION).status is StageStatus.SKIPPED


def test_without_an_approval_the_decision_asks_for_one(scenario, setup, model):
    r = run_turn(torque(scenario).question, scenario.candidates(0), setup, model, action=ActionRequest(MESSAGE))
    assert str(r.decision.branch) == "needs_approval"
    assert r.stage(Stage.DECISION).status is StageStatus.FAILED


def test_an_edited_document_stops_the_next_turn_of_a_conversation(scenario, setup, model):
    q = torque(scenario)
    conversation = Conversation(ceiling=setup.ceiling, answer_allowance=setup.answer_allowance)
    first = run_turn(q.question, scenario.candidates(0), setup, model, conversation=conversation)
    assert first.outcome is TurnOutcome.ANSWERED
    edited = [dataclasses.replace(r, text=r.text.replace("18 N·m", "17 N·m")) if r.id == "man-p2-r4-s3.2" else r
              for r in scenario.candidates(0)]
    second = run_turn(q.question, edited, setup, model, conversation=conversation, needed=q.answered_by)
    assert second.outcome is TurnOutcome.STOPPED and "man-p2-r4-s3.2" in second.notice
    assert second.stage(Stage.REQUEST).ids == ("man-p2-r4-s3.2",)
    assert {x.stage for x in second.losses} == {Stage.REQUEST}


def test_a_request_over_the_ceiling_is_refused_whole(scenario, setup, model):
    r = run_turn(torque(scenario).question, scenario.candidates(0), setup.with_(ceiling=500), model)
    assert r.outcome is TurnOutcome.TOO_LARGE and r.request is None
    assert "nothing was cut" in r.notice


def test_setup_refuses_a_bare_string_and_candidates_must_be_records(scenario, setup, model):
    with pytest.raises(TypeError):
        TurnSetup("tech-ana", "P-2", "2026-03-15", 250)
    from botie import RecordError

    with pytest.raises(RecordError):
        run_turn("q", ["not a record"], setup, model)
