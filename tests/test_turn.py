"""One turn from question to action: the stages, the outcome, and where missing evidence was lost."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

import pytest
from hypothesis import given

from botie.actions.decision import Approval, StoredRequest
from botie.actions.service import InspectionService
from botie.actions.stores.memory import MemoryStore
from botie.context.budget import Budget
from botie.context.conversation import Conversation
from botie.context.records import Record
from botie.context.tokens import count_tokens
from botie.errors import BotieError
from botie.lessons.content.fixtures import fixture_path, load_records
from botie.lessons.content.scenarios import load_evidence_scenario
from botie.lessons.content.scripted import ActionScript, AnswerScript, ScriptedModel, ToolProposal, load_scripted_model
from botie.model import Reply
from botie.turn import (
    ActionRequest,
    Loss,
    Stage,
    StageResult,
    StageStatus,
    TurnOutcome,
    TurnSetup,
    action_instructions,
    run_turn,
)
from tests.strategies import OBSERVED_ON, events, examples, turn_budget_cases, turn_budget_labels

PAYLOAD = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
#: Lesson 06's budget: the seven documents as sent, tags and conflict notes included, are 575 tokens; 950 - 200 - 150
#: leaves 600 for them.
BUDGET = Budget(950, 200, 150)
MESSAGE = "Please book a 20-minute inspection of P-2 to check the gland nuts (request r7)."


@pytest.fixture(scope="module")
def scenario():
    return load_evidence_scenario()


@pytest.fixture(scope="module")
def model():
    return load_scripted_model()


@pytest.fixture
def setup(scenario):
    return TurnSetup.from_scenario(scenario, budget=BUDGET, schedule_assets=("P-2", "P-3"))


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
    assert r.answer is not None
    assert r.outcome is TurnOutcome.ANSWERED and r.answer.startswith("Tighten the P-2 gland nuts")
    assert [s.stage for s in r.stages] == list(Stage)
    assert all(s.status is StageStatus.PASSED for s in r.stages)
    assert r.decision is not None
    assert r.tool_call is not None
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
    assert r.notice is not None
    assert "0.11 is below the 0.35 floor" in r.notice
    assert r.stage(Stage.FIT).status is StageStatus.FAILED
    assert r.stage(Stage.ANSWER).status is StageStatus.SKIPPED
    booked = run_turn(q.question, scenario.candidates(2), setup, model, action=action)
    assert booked.decision is not None
    assert booked.outcome is TurnOutcome.REFUSED and str(booked.decision.branch) == "create"


def test_a_quote_that_is_not_in_the_source_withholds_the_answer(scenario, setup, model):
    q = torque(scenario)
    misquote = AnswerScript("18 N·m", (("man-p2-r4-s3.2", "tighten the gland nuts to 18 N·m"),))
    wrong = model.with_(answers={q.question: misquote})
    r = run_turn(q.question, scenario.candidates(0), setup, wrong, needed=q.answered_by)
    assert r.outcome is TurnOutcome.WITHHELD and r.answer is None
    assert r.notice is not None
    assert "does not appear verbatim" in r.notice
    (loss,) = r.losses
    # 18 N·m is in rev 4's text; only the words differ, so the trace does not call it a missing fact.
    assert (loss.record_id, loss.stage, loss.kind) == ("man-p2-r4-s3.2", Stage.CITATIONS, "quote not verbatim")


def test_a_quote_stating_a_figure_the_source_lacks_is_traced_as_a_fact_not_in_the_text(scenario, setup, model):
    q = torque(scenario)
    invented = AnswerScript("30 N·m", (("man-p2-r4-s3.2", "tighten the gland nuts to 30 N·m"),))
    r = run_turn(q.question, scenario.candidates(0), setup, model.with_(answers={q.question: invented}))
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
    assert names[names.index("fresh") + 1 : names.index("fit")] == ["relevant"]


def test_a_document_retrieval_never_returned_is_a_missing_candidate(scenario, setup, model):
    q = torque(scenario)
    candidates = [r for r in scenario.candidates(0) if r.id != "man-p2-r4-s3.2.1"]
    r = run_turn(q.question, candidates, setup, model, needed=q.answered_by)
    assert r.outcome is TurnOutcome.WITHHELD
    (loss,) = r.losses
    assert (loss.record_id, loss.stage, loss.kind) == ("man-p2-r4-s3.2.1", Stage.CANDIDATES, "missing candidate")


def test_needed_documents_the_caller_may_not_read_are_not_authorised(scenario, setup, model):
    q = torque(scenario)
    r = run_turn(q.question, scenario.candidates(0), setup.with_(allowed_assets=("P-3",)), model, needed=q.answered_by)
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
    assert r.decision is not None
    assert r.proposal is not None
    assert dict(r.proposal.arguments) == PAYLOAD and str(r.decision.branch) == "create"


def test_the_action_request_holds_no_document_text(scenario, setup, model, action):
    planted = load_records(fixture_path("scripted_turns.json"))
    candidates = (*scenario.candidates(0), *planted)
    r = run_turn(torque(scenario).question, candidates, setup, model.with_(gullible=True), action=action)
    assert r.documents_in_action_request == ()
    assert r.action_request is not None
    assert "<evidence>\n</evidence>" in r.action_request.text
    for doc in candidates:
        assert doc.text not in r.action_request.text


def test_a_tool_the_turn_does_not_offer_never_reaches_the_decision(scenario, setup, model):
    closing = ToolProposal("close_work_order", {"work_order_id": "1"})
    rogue = model.with_(actions={"close work order": ActionScript(closing)})
    r = run_turn(
        torque(scenario).question,
        scenario.candidates(0),
        setup,
        rogue,
        action=ActionRequest("please close work order 1"),
    )
    assert r.decision is not None
    assert str(r.decision.branch) == "invalid" and [e.field for e in r.decision.errors] == ["tool"]
    assert [str(c.name) for c in r.decision.checks if str(c.verdict) != "not_reached"] == ["validation"]
    assert r.stage(Stage.DECISION).status is StageStatus.FAILED
    assert "'close_work_order' is not a tool this turn offers" in r.stage(Stage.DECISION).detail


def test_no_proposal_means_nothing_to_decide(scenario, setup, model):
    r = run_turn(
        torque(scenario).question,
        scenario.candidates(0),
        setup,
        model,
        action=ActionRequest("please do something vague"),
    )
    assert r.proposal is None and r.decision is None
    assert r.stage(Stage.DECISION).status is StageStatus.SKIPPED


def test_without_an_approval_the_decision_asks_for_one(scenario, setup, model):
    r = run_turn(torque(scenario).question, scenario.candidates(0), setup, model, action=ActionRequest(MESSAGE))
    assert r.decision is not None
    assert str(r.decision.branch) == "needs_approval"
    assert r.stage(Stage.DECISION).status is StageStatus.FAILED


def test_an_edited_document_stops_the_next_turn_of_a_conversation(scenario, setup, model):
    q = torque(scenario)
    conversation = Conversation(ceiling=setup.ceiling, answer_allowance=setup.answer_allowance)
    first = run_turn(q.question, scenario.candidates(0), setup, model, conversation=conversation)
    assert first.outcome is TurnOutcome.ANSWERED
    edited = [
        dataclasses.replace(r, text=r.text.replace("18 N·m", "17 N·m")) if r.id == "man-p2-r4-s3.2" else r
        for r in scenario.candidates(0)
    ]
    second = run_turn(q.question, edited, setup, model, conversation=conversation, needed=q.answered_by)
    assert second.notice is not None
    assert second.outcome is TurnOutcome.STOPPED and "man-p2-r4-s3.2" in second.notice
    assert second.stage(Stage.REQUEST).ids == ("man-p2-r4-s3.2",)
    assert {x.stage for x in second.losses} == {Stage.REQUEST}


@pytest.mark.parametrize("rev5_retrieved", [True, False])
def test_a_new_revision_in_force_stops_the_next_turn_instead_of_being_sent(scenario, setup, model, rev5_retrieved):
    """Issue 31 item 4: turn 1 on 2026-03-31 reads rev 4; on 2026-04-01 rev 5 is in force, and the conversation
    pinned rev 4, so turn 2 stops and says which document moved, whether or not retrieval returned rev 5."""
    q = torque(scenario)
    conversation = Conversation(ceiling=setup.ceiling, answer_allowance=setup.answer_allowance)
    first = run_turn(q.question, scenario.candidates(0), setup.with_(observed_on="2026-03-31"), model,
                     conversation=conversation)  # fmt: skip
    assert "man-p2-r4-s3.2" in first.context_ids and "man-p2-r5-s3.2" not in first.context_ids
    later = [r for r in scenario.candidates(0) if rev5_retrieved or r.id != "man-p2-r5-s3.2"]
    second = run_turn(q.question, later, setup.with_(observed_on="2026-04-01"), model, conversation=conversation)
    assert second.outcome is TurnOutcome.STOPPED and second.request is None
    assert second.notice is not None
    assert "docs://site-a/manuals/p2: rev 4 then, rev 5 now" in second.notice
    assert conversation.revisions["docs://site-a/manuals/p2"] == "rev 4"


def test_run_turn_returns_the_coverage_record_with_the_answer(scenario, setup, model):
    """Issue 31 item 8: the record travels with the answer; a document is read when a passage of it was sent."""
    r = run_turn(torque(scenario).question, scenario.candidates(0), setup, model)
    assert r.outcome is TurnOutcome.ANSWERED
    coverage = r.coverage
    by_id = {x.id: x for x in scenario.candidates(0)}
    read = {by_id[i].document for i in r.context_ids}
    assert coverage is not None
    assert set(coverage.included_ids) == read and coverage.documents_in_context == len(read) > 0
    assert coverage.passage_ids == r.context_ids
    assert coverage.token_budget_used == r.selection.used > 0
    assert coverage.documents_in_context + coverage.documents_not_read == coverage.documents_attached
    # The vendor file is VENDOR-P2's, which this caller may not read: the record does not name it.
    assert "vendor://seals/p2/design" not in (*coverage.included_ids, *coverage.excluded_ids)
    assert "docs://site-a/manuals/p3" in coverage.excluded_ids


def test_a_refused_turn_reports_every_readable_document_as_not_read(scenario, setup, model):
    r = run_turn(scenario.questions[2].question, scenario.candidates(2), setup, model)
    assert r.outcome is TurnOutcome.REFUSED
    assert r.coverage is not None
    assert r.coverage.documents_in_context == 0 and r.coverage.token_budget_used == 0
    assert r.coverage.documents_not_read == r.coverage.documents_attached > 0


def test_a_request_over_the_ceiling_is_refused_whole(scenario, setup, model):
    r = run_turn(torque(scenario).question, scenario.candidates(0), setup.with_(ceiling=500), model)
    assert r.outcome is TurnOutcome.TOO_LARGE and r.request is None
    assert r.notice is not None
    assert "nothing was cut" in r.notice


def test_setup_refuses_a_bare_string_and_candidates_must_be_records(scenario, setup, model):
    with pytest.raises(TypeError):
        TurnSetup("tech-ana", "P-2", "2026-03-15", 250)
    from botie import RecordError

    with pytest.raises(RecordError):
        run_turn("q", ["not a record"], setup, model)


_BAD_SETTINGS = [
    ("budget", -5),
    ("budget", True),
    ("budget", 2.5),
    ("ceiling", 0),
    ("ceiling", "1200"),
    ("floor", 1.5),
    ("caller", "   "),
    ("observed_on", "soon"),
    ("tools", "inspection"),
    ("tools", ("",)),
    ("register", "the register"),
]


@pytest.mark.parametrize(("field", "value"), _BAD_SETTINGS, ids=[f"{f}={v!r}" for f, v in _BAD_SETTINGS])
def test_a_setup_refuses_each_bad_setting_when_built_naming_its_field(field, value):
    """Refused at construction, as a BotieError naming the field, not later inside a turn."""
    good = {"caller": "tech-ana", "allowed_assets": ("P-2",), "observed_on": "2026-03-15", "budget": 250}
    with pytest.raises(BotieError) as raised:
        TurnSetup(**{**good, field: value})
    assert raised.value.field == field
    assert field in str(raised.value)


def test_a_setup_accepts_the_edges_of_each_setting():
    """The refusals above stop at the boundary: a zero budget, a ceiling of one, floors 0 and 1, a Budget."""
    good = {"caller": "tech-ana", "allowed_assets": ("P-2",), "observed_on": datetime.date(2026, 3, 15), "budget": 250}
    edges: list[dict[str, Any]] = [
        {"budget": 0},
        {"budget": Budget(400, 100, 150)},
        {"ceiling": 1},
        {"floor": 0.0},
        {"floor": 1.0},
    ]
    for changes in edges:
        setup = TurnSetup(**{**good, **changes})
        assert all(getattr(setup, k) == v for k, v in changes.items()), changes


# --- a small world of our own: every stage's words, written out by hand ----------------------------------


def _doc(rid, *, asset="P-2", text=None, score=0.8, effective="2026-01-01"):
    return Record(rid, asset, text or f"Notes on {rid}.", 10, score=score, effective_date=effective)


SEAL = _doc("seal", text="Torque the seal bolts to 25 N·m.", score=0.9)
GLAND = _doc("gland", text="Check the gland for leaks.", score=0.6)
VENDOR = _doc("vendor", asset="K-7", score=0.95)  # not the caller's asset
DRAFT = _doc("draft", effective="2026-09-01")  # not in force on the observation date
FAINT = _doc("faint", score=0.2)  # below the 0.35 floor
WORLD = [SEAL, GLAND, VENDOR, DRAFT, FAINT]
BOOK = ToolProposal("propose_inspection", PAYLOAD)
CITES_SEAL = Reply("25 N·m [1].", ({"id": "seal", "quote": "Torque the seal bolts to 25 N·m."},))


class Desk:
    """Answers document requests with one reply, and the action request with one proposal (or none)."""

    def __init__(self, answer=CITES_SEAL, action=BOOK):
        self.answer, self.action = answer, action

    def reply(self, request):
        if request.kind == "action":
            return Reply("", (), self.action)
        return self.answer


def _setup(**changes):
    setup = TurnSetup(
        "tech-ana", ["P-2"], "2026-06-01", 100, ceiling=2000, answer_allowance=77, schedule_assets=("P-2",)
    )
    return setup.with_(**changes)


def _book(previous=None):
    return ActionRequest("book 20 minutes on P-2 as r7", Approval("tech-ana", PAYLOAD), previous)


def _rows(stages):
    return [(str(s.stage), str(s.status), s.ids, s.detail) for s in stages]


def test_an_answered_and_booked_turn_reads_stage_by_stage():
    service = InspectionService(
        MemoryStore(), clock=lambda: datetime.datetime(2026, 6, 1, 9, tzinfo=datetime.timezone.utc)
    )
    r = run_turn("What torque?", WORLD, _setup(), Desk(), action=_book(), service=service)
    assert _rows(r.stages[:5]) == [
        ("candidates", "passed", ("seal", "gland", "vendor", "draft", "faint"), "5 candidates retrieved"),
        ("permitted", "passed", ("seal", "gland", "draft", "faint"), "vendor not_permitted"),
        ("fresh", "passed", ("seal", "gland", "faint"), "draft not_yet_effective"),
        ("relevant", "passed", ("seal", "gland"), "faint below_floor (floor 0.35)"),
        ("fit", "passed", ("seal", "gland"), "2 documents in the pack, 81 of 100 tokens as sent, tags included"),
    ]
    assert r.request is not None
    assert r.stages[5] == StageResult(Stage.REQUEST, StageStatus.PASSED, ("seal", "gland"), r.request.report())
    assert _rows(r.stages[6:]) == [
        ("answer", "passed", ("seal",), "1 citation"),
        (
            "citations",
            "passed",
            ("seal", "gland"),
            "1 quote checked: each is verbatim in a document that was sent (no asset named); "
            "each of 1 sentence cites a quote holding its figures",
        ),
        (
            "proposal",
            "passed",
            (),
            "propose_inspection(asset_id='P-2', duration_minutes=20, start='2026-04-02T09:00Z', request_id='r7'), "
            "from a request with 0 documents in it",
        ),
        (
            "decision",
            "passed",
            (),
            "create: nothing is stored under r7 for tech-ana: this is a new booking; booked job-1",
        ),
    ]
    assert r.citations is not None
    assert (r.question, r.answer, r.selection.selected_ids, r.citations.ok) == (
        "What torque?",
        "25 N·m [1].",
        ("seal", "gland"),
        True,
    )


def test_both_requests_keep_the_setups_answer_allowance_and_the_action_request_its_instructions():
    r = run_turn("What torque?", WORLD, _setup(), Desk(), action=_book())
    assert r.request is not None
    assert r.action_request is not None
    assert r.request.answer_allowance == 77 and r.action_request.answer_allowance == 77
    assert r.action_request is not None
    assert r.action_request.text.startswith("You are Botie. The signed-in technician is asking for an action.")


def test_the_setups_floor_reaches_the_selector():
    r = run_turn("What torque?", WORLD, _setup(floor=0.1, budget=120), Desk())
    assert r.stage(Stage.FIT).ids == ("seal", "gland", "faint")
    assert r.stage(Stage.FIT).detail == "3 documents in the pack, 115 of 120 tokens as sent, tags included"
    assert r.stage(Stage.RELEVANT).detail == "nothing removed (floor 0.10)"


def test_a_reused_request_is_a_passed_decision_naming_the_earlier_job():
    r = run_turn("What torque?", WORLD, _setup(), Desk(), action=_book(StoredRequest.settled(PAYLOAD, "job-1")))
    assert r.stage(Stage.DECISION) == StageResult(
        Stage.DECISION,
        StageStatus.PASSED,
        (),
        "reuse: r7 already created job-1 with this exact payload: returning job-1 instead of booking again",
    )


def test_a_refusal_reads_stage_by_stage_and_its_trace_shows_no_count_for_skipped_stages():
    r = run_turn("What torque?", [FAINT], _setup(), Desk(), needed=["faint"])
    refusal = "best score 0.20 is below the 0.35 floor: the documents do not appear to contain an answer"
    before = "not run: refused before any model was called"
    assert _rows(r.stages[3:]) == [
        ("relevant", "failed", (), "faint below_floor (floor 0.35)"),
        ("fit", "failed", (), f"refused: {refusal}"),
        ("request", "skipped", (), before),
        ("answer", "skipped", (), before),
        ("citations", "skipped", (), before),
        ("proposal", "skipped", (), "no action was asked for"),
        ("decision", "skipped", (), "no action was asked for"),
    ]
    assert (r.action_request, r.proposal, r.decision, r.documents_in_action_request) == (None, None, None, ())
    assert r.trace() == "\n".join(
        [
            "candidates  passed    1  1 candidate retrieved",
            "permitted   passed    1  nothing removed",
            "fresh       passed    1  nothing removed",
            "relevant    failed    0  faint below_floor (floor 0.35)",
            f"fit         failed    0  refused: {refusal}",
            f"request     skipped      {before}",
            f"answer      skipped      {before}",
            f"citations   skipped      {before}",
            "proposal    skipped      no action was asked for",
            "decision    skipped      no action was asked for",
            "-> refused",
        ]
    )
    assert r.losses == (
        Loss("faint", Stage.RELEVANT, "below the relevance floor", "below_floor: score 0.20 is below the 0.35 floor"),
    )


@pytest.mark.parametrize(
    ("candidates", "kept"),
    [([], ["failed", "failed", "failed"]), ([VENDOR], ["passed", "failed", "failed"])],
    ids=["nothing-retrieved", "nothing-permitted"],
)
def test_a_stage_with_no_document_left_has_failed(candidates, kept):
    r = run_turn("What torque?", candidates, _setup(), Desk())
    assert [str(s.status) for s in r.stages[:3]] == kept
    assert r.stage(Stage.FRESH).detail == "nothing removed"
    assert r.stage(Stage.CANDIDATES).detail == f"{len(candidates)} candidate{'' if candidates else 's'} retrieved"


def test_no_proposal_fails_the_proposal_stage_and_leaves_nothing_to_decide():
    r = run_turn("What torque?", WORLD, _setup(), Desk(action=None), action=_book())
    assert _rows(r.stages[8:]) == [
        ("proposal", "failed", (), "the model proposed no tool call"),
        ("decision", "skipped", (), "nothing to decide"),
    ]


@pytest.mark.parametrize(
    ("tools", "offered"),
    [(("propose_inspection", "lookup_manual"), "propose_inspection, lookup_manual"), ((), "none")],
)
def test_an_unoffered_tool_names_the_tools_that_are_offered(tools, offered):
    closing = ToolProposal("close_work_order", {"work_order_id": "1"})
    r = run_turn("What torque?", WORLD, _setup(tools=tools), Desk(action=closing), action=_book())
    assert _rows(r.stages[8:]) == [
        ("proposal", "passed", (), "close_work_order(work_order_id='1'), from a request with 0 documents in it"),
        ("decision", "failed", (), f"invalid: 'close_work_order' is not a tool this turn offers ({offered})"),
    ]


@pytest.mark.parametrize(
    ("proposal", "branch"),
    [(None, None), (ToolProposal("close_work_order", {"work_order_id": "1"}), "invalid")],
    ids=["no-proposal", "unoffered-tool"],
)
def test_a_proposal_that_fails_still_shows_the_request_sent_what_came_back_and_any_pasted_document(proposal, branch):
    """No call: nothing decided; an unoffered tool: invalid. Either way the result keeps the request and the leak."""
    pasted = ActionRequest(f"book 20 minutes on P-2 as r7. {GLAND.text}", Approval("tech-ana", PAYLOAD))
    r = run_turn("What torque?", WORLD, _setup(), Desk(action=proposal), action=pasted)
    assert (None if r.decision is None else str(r.decision.branch)) == branch and r.proposal == proposal
    assert r.action_request is not None and pasted.message in r.action_request.text
    assert r.documents_in_action_request == ("gland",)


def test_a_withheld_answer_keeps_the_reply_and_says_every_failure_in_order():
    misread = Reply(
        "18 N·m [1].",
        ({"id": "seal", "quote": "18 N·m"}, {"id": "vendor", "quote": "x"}),
        BOOK,
        obeyed=("skip-approval", "book-60"),
    )
    r = run_turn("What torque?", WORLD, _setup(), Desk(misread))
    notice = (
        "answer withheld: the quote '18 N·m' does not appear verbatim in seal, and neither does 18; "
        "vendor did not enter the context"
    )
    assert (r.notice, r.reply, r.dropped) == (notice, misread, BOOK)
    assert _rows(r.stages[6:8]) == [
        (
            "answer",
            "passed",
            ("seal", "vendor"),
            "2 citations; the model followed a planted instruction: skip-approval, book-60; "
            "suggested propose_inspection(asset_id='P-2', duration_minutes=20, start='2026-04-02T09:00Z', "
            "request_id='r7') "
            "while reading documents: dropped, never carried out",
        ),
        ("citations", "failed", ("seal", "gland"), notice),
    ]


def test_two_verified_quotes_are_counted_in_the_plural():
    both = Reply("25 N·m, then check [1][2].", ({"id": "seal", "quote": "25 N·m"}, {"id": "gland", "quote": "leaks"}))
    r = run_turn("What torque?", WORLD, _setup(), Desk(both))
    assert r.stage(Stage.CITATIONS).detail == (
        "2 quotes checked: each is verbatim in a document that was sent (no asset named); "
        "each of 1 sentence cites a quote holding its figures"
    )


def test_each_needed_or_cited_document_is_traced_to_the_stage_that_lost_it():
    """Every stage the seed lists: retrieved, authorised, current, relevant, fitted, sent, cited. A malformed
    citation (no id) names no document; the ones after it are still traced."""
    cites = Reply("x", ({"id": "", "quote": "x"}, {"id": "vendor", "quote": "x"}, {"id": "seal", "quote": "18 N·m"}))
    needed = ["ghost", "vendor", "draft", "faint", "gland"]
    r = run_turn("What torque?", WORLD, _setup(budget=46), Desk(cites), needed=needed)
    assert r.explain_losses() == "\n".join(
        [
            "ghost: lost at candidates (missing candidate): retrieval never returned it",
            "vendor: lost at permitted (not authorised): not_permitted: K-7 is not in your allowed assets",
            "draft: lost at fresh (not current): not_yet_effective: effective from 2026-09-01, "
            "after the observation date 2026-06-01",
            "faint: lost at relevant (below the relevance floor): below_floor: score 0.20 is below the 0.35 floor",
            "gland: lost at fit (did not fit): over_budget: rank 2 (score 0.60, unverified): 42 + 39 = 81 exceeds "
            "the 46-token allowance; stopped here",
            "seal: lost at citations (fact not in the text): the quote '18 N·m' does not appear verbatim in seal, "
            "and neither does 18",
        ]
    )
    assert [x.record_id for x in r.losses] == ["ghost", "vendor", "draft", "faint", "gland", "seal"]
    unsent = run_turn("What torque?", WORLD, _setup(ceiling=100), Desk(), needed=["seal"])
    assert unsent.losses == (Loss("seal", Stage.REQUEST, "never sent", "selected, but the request was not sent"),)


def test_a_cited_document_that_was_never_sent_is_traced_to_where_it_went():
    r = run_turn("What torque?", WORLD, _setup(), Desk(Reply("x", ({"id": "draft", "quote": "x"},))))
    assert r.losses == (
        Loss(
            "draft",
            Stage.FRESH,
            "not current",
            "not_yet_effective: effective from 2026-09-01, after the observation date 2026-06-01",
        ),
    )


def test_a_request_over_the_ceiling_keeps_its_documents_in_the_trace_and_skips_the_answer():
    r = run_turn("What torque?", WORLD, _setup(ceiling=100), Desk(), needed=["seal"])
    assert r.stage(Stage.REQUEST) == StageResult(Stage.REQUEST, StageStatus.FAILED, ("seal", "gland"), r.notice)
    assert r.notice is not None
    assert r.notice.startswith("the request needs ") and r.notice.endswith(
        "nothing was cut: select or retrieve fewer documents first"
    )
    assert _rows(r.stages[6:8]) == [
        ("answer", "skipped", (), "not run: no request was sent"),
        ("citations", "skipped", (), "not run: no request was sent"),
    ]
    assert r.losses == (Loss("seal", Stage.REQUEST, "never sent", "selected, but the request was not sent"),)


def test_a_stopped_conversation_names_the_changed_document_at_the_request_stage():
    conversation = Conversation(ceiling=2000, answer_allowance=77)
    run_turn("What torque?", WORLD, _setup(), Desk(), conversation=conversation)
    edited = [dataclasses.replace(SEAL, text="Torque the seal bolts to 27 N·m."), *WORLD[1:]]
    r = run_turn("What torque?", edited, _setup(), Desk(), conversation=conversation)
    assert r.stage(Stage.REQUEST) == StageResult(Stage.REQUEST, StageStatus.FAILED, ("seal",), r.notice)
    assert r.notice is not None
    assert r.notice.startswith("A document changed after this conversation first read it (seal).")


def test_nothing_lost_is_said_in_words_and_an_unknown_stage_is_a_key_error():
    r = run_turn("What torque?", WORLD, _setup(), Desk(), needed=["seal"])
    assert r.explain_losses() == "nothing the answer needed went missing"
    with pytest.raises(KeyError) as info:
        r.stage("billing")
    assert info.value.args == ("billing",)


def test_the_action_instructions_state_the_assets_in_order_and_the_request_lists_the_offered_tool_sorted():
    text = action_instructions(_setup(schedule_assets=["P-3", "P-2"]))
    intro, facts = text.split("\n")
    assert intro == (
        "You are Botie. The signed-in technician is asking for an action. Propose at most one call of a "
        "tool listed below, or none. Take the arguments from the technician's own message and the facts "
        "in this request; this request contains no documents."
    )
    assert facts == "Signed in: tech-ana. May schedule: P-3, P-2."
    bare = action_instructions(_setup(schedule_assets=[], tools=()))
    assert bare.split("\n")[1:] == ["Signed in: tech-ana. May schedule: nothing."]
    r = run_turn("What torque?", WORLD, _setup(), Desk(), action=_book())
    assert r.action_request is not None
    tools_line = r.action_request.text.split("\n")[2]
    assert tools_line.startswith('Tools: [{"description": "Book an on-site inspection')  # keys sorted
    assert [t["name"] for t in r.action_request.tools] == ["propose_inspection"]
    assert str(r.action_request.kind) == "action" and r.action_request.documents == ()
    bare_turn = run_turn("What torque?", WORLD, _setup(tools=()), Desk(), action=_book())
    assert bare_turn.action_request is not None
    assert bare_turn.action_request.tools == () and "Tools:" not in bare_turn.action_request.text


def test_setup_keeps_assets_and_tools_as_tuples_in_the_order_given():
    setup = TurnSetup("tech-ana", ["P-3", "P-2"], "2026-06-01", 100, tools=["propose_inspection"])
    assert (setup.allowed_assets, setup.tools) == (("P-3", "P-2"), ("propose_inspection",))


def test_every_document_a_stage_removes_is_named_in_turn():
    pump = _doc("pump", asset="K-9")
    r = run_turn("What torque?", [VENDOR, SEAL, pump], _setup(), Desk())
    assert r.stage(Stage.PERMITTED).detail == "vendor not_permitted; pump not_permitted"


def test_documents_in_play_are_counted_only_where_the_ids_are_the_documents_going_forward():
    """The trace and the turn panel show one count per document stage: the answer's ids (what it cited) and
    the citation check's (what it checked against) are not documents still in play, nor is a skipped stage."""
    r = run_turn("What torque?", WORLD, _setup(), Desk(), action=_book())
    counts = {str(s.stage): s.documents_in_play for s in r.stages}
    assert counts == {
        "candidates": 5,
        "permitted": 4,
        "fresh": 3,
        "relevant": 2,
        "fit": 2,
        "request": 2,
        "answer": None,
        "citations": None,
        "proposal": None,
        "decision": None,
    }
    refused = run_turn("What torque?", [FAINT], _setup(), Desk(), needed=["faint"])
    assert refused.stage(Stage.REQUEST).documents_in_play is None  # skipped
    assert refused.stage(Stage.RELEVANT).documents_in_play == 0  # failed: nothing left, which is a count


# --- bad model output is a result: every malformed reply, and what it becomes ------------------------------

from botie.model import StopReason, arguments_from_json  # noqa: E402

CUT = "Tighten the seal bolts to 25 N·m, except when the faces were lapped on site, in which case"

#: name, reply to the answer request, reply to the action request (None: the ordinary one), expected:
#: ("outcome", outcome, field named in the notice) or ("decision", "invalid", field) or ("proposal", first word)
MALFORMED = [
    (
        "tool call with no input",
        None,
        Reply("", (), ToolProposal("propose_inspection", None)),
        ("decision", "invalid", "arguments"),
    ),
    (
        "input given as a string",
        None,
        Reply("", (), ToolProposal("propose_inspection", "P-2, 20 minutes, r7")),
        ("decision", "invalid", "arguments"),
    ),
    (
        "OpenAI arguments 'null'",
        None,
        Reply("", (), ToolProposal("propose_inspection", arguments_from_json("null"))),
        ("decision", "invalid", "arguments"),
    ),
    (
        "arguments that are not JSON",
        None,
        Reply("", (), ToolProposal("propose_inspection", arguments_from_json('{"asset_id": "P-2", "dur'))),
        ("decision", "invalid", "arguments"),
    ),
    (
        "unknown tool",
        None,
        Reply("", (), ToolProposal("close_work_order", {"work_order_id": "1"})),
        ("decision", "invalid", "tool"),
    ),
    (
        "extra field",
        None,
        Reply("", (), ToolProposal("propose_inspection", {**PAYLOAD, "approved_by": "boss"})),
        ("decision", "invalid", "approved_by"),
    ),
    (
        "wrong types",
        None,
        Reply("", (), ToolProposal("propose_inspection", {**PAYLOAD, "duration_minutes": "20"})),
        ("decision", "invalid", "duration_minutes"),
    ),
    (
        "a proposal given as a dict, input missing",
        None,
        Reply("", (), {"name": "propose_inspection"}),
        ("decision", "invalid", "arguments"),
    ),
    (
        "a tool call that is not a call",
        None,
        Reply("", (), tool_calls=("propose_inspection",)),
        ("decision", "invalid", "proposal"),
    ),
    (
        "the action reply is not a Reply",
        None,
        {"tool": "propose_inspection", "arguments": PAYLOAD},
        ("decision", "invalid", "reply"),
    ),
    (
        "cut off mid tool call",
        None,
        Reply(
            "",
            (),
            ToolProposal("propose_inspection", arguments_from_json('{"asset_id": "P-2", "durat')),
            stop_reason=StopReason.MAX_TOKENS,
        ),
        ("proposal", "truncated"),
    ),
    (
        "refused the action",
        None,
        Reply("", (), stop_reason=StopReason.REFUSAL, refusal="I won't book that."),
        ("proposal", "model_refused"),
    ),
    ("two tool calls", None, Reply("", (), tool_calls=(BOOK, BOOK)), ("proposal", "the model proposed 2")),
    ("empty content", Reply("", ()), None, ("outcome", "empty", "answer")),
    ("whitespace only", Reply("  \n", ()), None, ("outcome", "empty", "answer")),
    (
        "refusal",
        Reply("", (), stop_reason="refusal", refusal="I can't help with that."),
        None,
        ("outcome", "model_refused", "stop_reason"),
    ),
    (
        "cut off at max_tokens",
        Reply(CUT, CITES_SEAL.citations, stop_reason=StopReason.MAX_TOKENS),
        None,
        ("outcome", "truncated", "stop_reason"),
    ),
    ("Reply(citations=None)", Reply("25 N·m", None), None, ("outcome", "malformed", "citations")),
    ("citations as one string", Reply("25 N·m", "seal"), None, ("outcome", "malformed", "citations")),
    ("Reply(answer=None)", Reply(None, CITES_SEAL.citations), None, ("outcome", "malformed", "answer")),
    ("the answer reply is not a Reply", "25 N·m", None, ("outcome", "malformed", "reply")),
    (
        "the documents do not answer this",
        Reply("The documents do not answer this question.", ()),
        None,
        ("outcome", "no_answer", "answer"),
    ),
]


@pytest.mark.parametrize(("answer", "acted", "expected"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_model_output_is_a_named_result_never_an_exception(answer, acted, expected):
    desk = Desk(answer=answer if answer is not None else CITES_SEAL)
    if acted is not None:
        desk.reply = lambda request: acted if request.kind == "action" else CITES_SEAL
    r = run_turn("What torque?", WORLD, _setup(), desk, action=_book())
    where = expected[0]
    if where == "outcome":
        outcome, field = expected[1:]
        assert str(r.outcome) == outcome and r.answer is None
        assert r.notice and r.stage(Stage.ANSWER).status is StageStatus.FAILED
        assert r.stage(Stage.ANSWER).detail.startswith(f"{outcome} ({field}): ")
        assert r.stage(Stage.CITATIONS).status is StageStatus.SKIPPED and r.citations is None
    elif where == "decision":
        branch, field = expected[1:]
        assert r.outcome is TurnOutcome.ANSWERED
        assert r.decision is not None
        assert str(r.decision.branch) == branch and field in [e.field for e in r.decision.errors]
        assert r.stage(Stage.DECISION).status is StageStatus.FAILED
    else:
        assert r.decision is None and r.stage(Stage.DECISION).status is StageStatus.SKIPPED
        assert r.stage(Stage.PROPOSAL).status is StageStatus.FAILED
        assert r.stage(Stage.PROPOSAL).detail.startswith(expected[1])


def test_the_malformed_table_covers_at_least_twelve_cases_on_both_requests():
    assert len(MALFORMED) >= 12
    assert {m[3][0] for m in MALFORMED} == {"outcome", "decision", "proposal"}


def test_four_failures_that_once_shared_one_notice_now_say_which():
    notices = {}
    for name, reply in [
        ("empty", Reply("", ())),
        ("refused", Reply("", (), stop_reason="refusal", refusal="No.")),
        ("cut", Reply(CUT, (), stop_reason="max_tokens")),
        ("absent", Reply("The documents do not answer this.", ())),
    ]:
        notices[name] = run_turn("What torque?", WORLD, _setup(), Desk(answer=reply)).notice
    assert notices == {
        "empty": "the model returned an empty answer",
        "refused": "the model declined to answer: No.",
        "cut": "the answer was cut off at the output allowance of 77 tokens; a cut answer can lose its exception",
        "absent": "the model says the documents do not answer this: The documents do not answer this.",
    }


def test_an_answer_that_cites_something_is_checked_even_if_it_mentions_what_the_documents_do_not_say():
    hedged = Reply("25 N·m [1]. The documents do not say how often [1].", CITES_SEAL.citations)
    r = run_turn("What torque?", WORLD, _setup(), Desk(answer=hedged))
    assert r.outcome is TurnOutcome.ANSWERED


# --- counted as sent ------------------------------------------------------------------------------------


SEAL_HASH = "d1c6301ca82bc00d"  # the version shown for SEAL, which has no label


def test_each_document_costs_its_element_tags_included_not_its_declared_text_cost():
    seal = (
        '<document id="seal" asset="P-2" version="sha:'
        + SEAL_HASH
        + '">\nTorque the seal bolts to 25 N·m.\n</document>\n'
    )
    assert count_tokens(seal) == 42 and SEAL.cost == 10
    r = run_turn("What torque?", [SEAL], _setup(), Desk())
    assert r.selection.used == 42


def test_a_selection_that_fits_gives_a_request_that_fits_the_budgets_total(scenario, model):
    """Lesson 06's pack: 575 tokens as sent (465 of documents, 110 of three conflict notes) plus 138 for the rest
    is the 713-token request, exactly."""
    setup = TurnSetup.from_scenario(scenario, budget=BUDGET)
    r = run_turn(scenario.questions[0].question, scenario.candidates(0), setup, model)
    assert r.request is not None
    assert (r.selection.used, r.request.tokens) == (575, 713)
    assert r.request.tokens + BUDGET.output_reserve <= BUDGET.total


def test_the_scenarios_own_budget_no_longer_passes_a_pack_whose_tags_do_not_fit(scenario, model):
    """Counted on text alone, 7 documents were 243 of 250 tokens, but the request was 669 + 150 against 600."""
    r = run_turn(scenario.questions[0].question, scenario.candidates(0), TurnSetup.from_scenario(scenario), model)
    assert r.selection.allowance == 250 and r.selection.used <= 250
    assert r.request is not None
    assert r.request.tokens + scenario.budget.output_reserve <= scenario.budget.total


def test_instructions_larger_than_the_input_reserve_shrink_the_room_for_documents():
    from botie.context.budget import Budget

    tight = Budget(250, 10, 50)  # 190 for evidence on paper; the frame alone counts far more than 10
    r = run_turn("What torque?", WORLD, _setup(budget=tight, answer_allowance=None), Desk())  # sends the reserve, 50
    assert r.selection.allowance < tight.evidence
    assert r.request is None or r.request.tokens + 50 <= 250


def test_a_disagreement_carried_by_a_copy_is_paid_for_so_a_selection_that_fits_gives_a_request_that_fits():
    # c2 is a copy of c0 and names c0 and c1 as rivals: the copy gives way, c0 takes over its disagreement with
    # c1, and the request carries a note for that pair. The note must be charged when the selection is made.
    records = [
        Record("c0", "P-1", "", 0, trust="approved", score=1.0),
        Record("c1", "P-1", "", 0, trust="approved", score=1.0),
        Record("c2", "P-1", "", 0, trust="approved", duplicate_of="c0", conflicts_with=("c0", "c1")),
    ]
    budget = Budget(187, 0, 0)
    setup = TurnSetup("tech-ana", ("P-1",), OBSERVED_ON, budget, ceiling=100_000, answer_allowance=0)
    r = run_turn("What torque do the gland nuts need?", records, setup, Plain())
    assert r.selection.conflicts and set(r.selection.conflicts[0].ids) == {"c0", "c1"}
    if r.selection.selected_ids:
        assert r.request is not None and r.request.tokens <= budget.total
    else:
        assert r.outcome is not TurnOutcome.TOO_LARGE


def test_a_counter_that_does_not_add_up_is_caught_by_the_total_on_the_request_as_built():
    from botie.context.budget import Budget

    calls = []

    def odd(text):  # cheap for small pieces, dear for the whole: no selection can trust it
        calls.append(text)
        return 1 if len(text) < 400 else 10_000

    r = run_turn("What torque?", WORLD, _setup(budget=Budget(600, 200, 150), counter=odd, ceiling=100_000), Desk())
    assert r.notice is not None
    assert r.outcome is TurnOutcome.TOO_LARGE and "over the budget's total of 600" in r.notice


class Plain:
    """Answers anything with one uncited sentence: the property is about the request, not the answer."""

    def reply(self, request):
        return Reply("Seen.", ())


@examples(150)
@given(turn_budget_cases())
def test_property_when_the_selection_fits_the_request_as_built_is_within_the_total(case):
    records, allowed, budget = case
    setup = TurnSetup("tech-ana", allowed, OBSERVED_ON, budget, ceiling=100_000, answer_allowance=budget.output_reserve)
    r = run_turn("What torque do the gland nuts need?", records, setup, Plain())
    events(turn_budget_labels(r))
    if r.selection.selected_ids:  # the selection says these fit: then the request as built does
        assert r.outcome is not TurnOutcome.TOO_LARGE and r.request is not None
    else:  # too large only when the request without any document is already over the total
        assert r.notice is not None
        assert r.outcome is not TurnOutcome.TOO_LARGE or "over the budget's total" in r.notice
    if r.request is not None:
        assert r.request.tokens + budget.output_reserve <= budget.total
        assert r.selection.used <= r.selection.allowance <= budget.evidence


def test_the_action_request_counts_the_tool_definitions_it_sends():
    r = run_turn("What torque?", WORLD, _setup(), Desk(), action=_book())
    bare = run_turn("What torque?", WORLD, _setup(tools=()), Desk(), action=_book())
    assert r.action_request is not None
    tools_line = next(line for line in r.action_request.text.splitlines() if line.startswith("Tools: "))
    assert r.action_request.tokens == count_tokens(r.action_request.text)
    # about 275 tokens on every action call, now inside the count the ceiling check uses
    assert bare.action_request is not None
    assert 250 < r.action_request.tokens - bare.action_request.tokens <= count_tokens("\n" + tools_line)


# --- the last gate: nothing the caller may not read reaches the model, whatever chose it -------------------


class Watching(Desk):
    """A Desk that remembers every request it was handed."""

    def __init__(self):
        super().__init__()
        self.requests = []

    def reply(self, request):
        self.requests.append(request)
        return super().reply(request)


def test_a_restricted_record_smuggled_past_selection_never_reaches_the_model(monkeypatch):
    import botie.turn.answer as turn_module
    from botie import RecordError
    from botie.context.provenance import select_evidence as honest  # what botie.turn.answer calls

    def smuggling(records, allowed_assets, allowance, **kwargs):
        chosen = honest(records, allowed_assets, allowance, **kwargs)
        return dataclasses.replace(chosen, selected_ids=(*chosen.selected_ids, "vendor"))

    monkeypatch.setattr(turn_module, "select_evidence", smuggling)
    secret = dataclasses.replace(VENDOR, text="K-7 vendor price list: confidential.")
    model = Watching()
    with pytest.raises(RecordError) as caught:
        run_turn("What torque?", [SEAL, GLAND, secret], _setup(), model)
    assert model.requests == []
    assert caught.value.record == "vendor"
    assert "confidential" not in str(caught.value)


# --- a flagged conflict reaches the model: the selector never chooses, and neither does the request silently ----


def test_every_conflict_flagged_between_two_sent_documents_is_a_note_in_the_request_the_model_reads(scenario):
    from botie.context.evidence import conflicts_in

    seen = []

    class Reading(Desk):
        def reply(self, request):
            seen.append(request)
            return super().reply(request)

    setup = TurnSetup.from_scenario(scenario, budget=BUDGET)
    r = run_turn(torque(scenario).question, scenario.candidates(0), setup, Reading())
    flagged = {tuple(sorted(c.ids)) for c in r.selection.conflicts if c.in_context}
    assert flagged == {
        ("forum-8812", "man-p2-r4-s3.2"),
        ("man-p2-r4-s3.2", "note-anon-77"),
        ("man-p2-r4-s3.2", "tkt-5630"),
    }
    (asked,) = seen
    assert set(conflicts_in(asked.evidence)) == flagged
    assert '<conflict between="man-p2-r4-s3.2" and="note-anon-77">they disagree' in asked.text


def test_a_conflict_whose_other_side_was_not_sent_is_not_noted_and_the_notes_are_paid_for_in_the_fit(scenario):
    from botie.context.evidence import conflicts_in

    tight = TurnSetup.from_scenario(scenario, budget=Budget(850, 200, 150))
    r = run_turn(torque(scenario).question, scenario.candidates(0), tight, Desk())
    assert "tkt-5630" not in r.context_ids  # with its note it no longer fits the 500 tokens
    assert r.request is not None
    assert ("man-p2-r4-s3.2", "tkt-5630") not in conflicts_in(r.request.evidence)
    assert len(conflicts_in(r.request.evidence)) == 2
    assert r.request.tokens == r.selection.used + 138 and r.request.tokens + 150 <= 850


@pytest.mark.parametrize(
    "approval",
    [Approval("tech-ana", PAYLOAD), None, Approval("tech-ana", PAYLOAD | {"duration_minutes": 60})],
    ids=["approved", "no-approval", "approved-for-60"],
)
def test_planted_documents_change_no_tool_no_argument_and_no_authorisation(scenario, setup, model, approval):
    """With a model that obeys what it reads, adding the planted documents leaves the proposal and the whole
    decision path exactly as they were: document text selects no tool, supplies no argument, authorises nothing."""
    planted = load_records(fixture_path("scripted_turns.json"))
    gullible = model.with_(gullible=True)
    request = ActionRequest(MESSAGE, approval)
    plain = run_turn(torque(scenario).question, scenario.candidates(0), setup, gullible, action=request)
    poisoned = run_turn(torque(scenario).question, (*scenario.candidates(0), *planted), setup, gullible, action=request)
    # the planted documents were read, and obeyed, while answering ...
    assert {"tkt-5712", "forum-9020"} <= set(poisoned.context_ids)
    assert poisoned.reply is not None
    assert "claims an authorisation" in poisoned.reply.obeyed
    # ... and the action step is exactly what it was without them
    assert poisoned.proposal is not None
    assert poisoned.proposal == plain.proposal and dict(poisoned.proposal.arguments) == PAYLOAD
    assert poisoned.decision is not None
    assert plain.decision is not None
    assert (poisoned.decision.branch, poisoned.decision.checks) == (plain.decision.branch, plain.decision.checks)
    assert str(plain.decision.branch) == ("create" if approval == Approval("tech-ana", PAYLOAD) else "needs_approval")


def test_the_request_that_reads_documents_offers_no_tool_whatever_the_question_or_the_documents(scenario, setup, model):
    """Answering from manuals needs no write tool: on every question that reaches a model, with or without the
    planted documents and an action to follow, the reading request lists no tool and names none in its text."""
    planted = load_records(fixture_path("scripted_turns.json"))
    asked = 0
    for q, question in enumerate(scenario.questions):
        for candidates in (scenario.candidates(q), (*scenario.candidates(q), *planted)):
            for action in (None, ActionRequest(MESSAGE, Approval("tech-ana", PAYLOAD))):
                r = run_turn(question.question, candidates, setup, model.with_(gullible=True), action=action)
                if r.request is None:
                    continue  # refused before any model was asked
                asked += 1
                assert r.request.tools == () and "Tools:" not in r.request.text, (q, action)
                assert "propose_inspection" not in r.request.text, (q, action)
                if action is not None:
                    assert r.action_request is not None
                    assert [t["name"] for t in r.action_request.tools] == ["propose_inspection"]
    assert asked >= 8  # the reading request was really built on most paths


# --- one answer allowance: the budget's output reserve is the max_tokens every request sends --------------------


def test_by_default_both_requests_send_the_budgets_output_reserve_as_the_allowance(scenario, model, action):
    setup = TurnSetup.from_scenario(scenario, budget=Budget(900, 200, 120), schedule_assets=("P-2",))
    r = run_turn(torque(scenario).question, scenario.candidates(0), setup, model, action=action)
    assert r.request is not None and r.action_request is not None
    assert r.request.answer_allowance == 120 == r.action_request.answer_allowance
    assert _setup(answer_allowance=None).answer_max_tokens == 150  # an int budget keeps no reserve: 150


def test_an_allowance_above_the_output_reserve_is_an_error_naming_both(scenario):
    from botie.errors import BudgetError

    with pytest.raises(BudgetError, match=r"\(400 tokens, sent as max_tokens\).*output reserve \(150\)") as raised:
        TurnSetup.from_scenario(scenario, budget=BUDGET, answer_allowance=400)
    assert raised.value.field == "answer_allowance"
    assert TurnSetup.from_scenario(scenario, budget=BUDGET, answer_allowance=150).answer_max_tokens == 150


def test_a_conversation_takes_the_setups_allowance_and_carries_the_conflict_notes(scenario, model):
    from botie.context.evidence import conflicts_in

    setup = TurnSetup.from_scenario(scenario, budget=BUDGET)
    conversation = Conversation(ceiling=setup.ceiling)
    r = run_turn(torque(scenario).question, scenario.candidates(0), setup, model, conversation=conversation)
    plain = run_turn(torque(scenario).question, scenario.candidates(0), setup, model)
    assert r.request is not None and plain.request is not None
    assert r.request.answer_allowance == 150 and r.request.text == plain.request.text
    assert len(conflicts_in(r.request.evidence)) == 3


def test_a_conversations_own_allowance_above_the_reserve_is_an_error_naming_both(scenario, model):
    from botie.errors import BudgetError

    setup = TurnSetup.from_scenario(scenario, budget=BUDGET)
    with pytest.raises(BudgetError, match=r"conversation's answer allowance \(400 .*reserve \(150\)"):
        run_turn(
            "What torque?",
            scenario.candidates(0),
            setup,
            model,
            conversation=Conversation(ceiling=1_200, answer_allowance=400),
        )


def test_an_action_request_over_the_ceiling_is_not_sent_and_the_checked_answer_stands():
    """Before: build_request's RequestTooLargeError escaped run_turn and the answer was lost with it."""
    asked = []

    class Counting(Desk):
        def reply(self, request):
            asked.append(request.kind)
            return super().reply(request)

    long = ActionRequest("book 20 minutes on P-2 as r7 " + "and check the seal again " * 400, None)
    r = run_turn("What torque?", WORLD, _setup(), Counting(), action=long)
    assert r.outcome is TurnOutcome.ANSWERED and r.answer is not None and asked == ["answer"]
    proposal = r.stage("proposal")
    assert proposal.status is StageStatus.FAILED and proposal.detail.startswith("too_large")
    assert "nothing was sent, proposed or decided" in proposal.detail and r.decision is None
