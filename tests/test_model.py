"""botie.model: run_turn takes any object with reply(request) -> Reply, not only the workshop's scripted model."""

from __future__ import annotations

from botie.context.records import Record
from botie.model import Reply, ToolProposal
from botie.turn import ActionRequest, TurnSetup, run_turn

DOC = Record(
    "m-1", "P-2", "Torque the seal bolts to 25 N·m.", 12, score=0.9, trust="approved", effective_date="2026-01-01"
)


class EchoModel:
    """Not a ScriptedModel: reads the request's parts, cites the first document whole, books on an action request."""

    def __init__(self) -> None:
        self.seen: list = []

    def reply(self, request) -> Reply:
        self.seen.append(request)
        if request.kind == "answer":
            first = request.documents[0]
            return Reply("25 N·m [1].", ({"id": first.id, "quote": first.text},))
        return Reply(
            "",
            (),
            ToolProposal(
                "propose_inspection",
                {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r1"},
            ),
        )


def test_a_model_of_our_own_answers_and_its_citation_is_checked():
    setup = TurnSetup("tech-1", ["P-2"], "2026-06-01", 100, ceiling=2000, schedule_assets=["P-2"])
    model = EchoModel()
    result = run_turn("What torque for the seal?", [DOC], setup, model)
    assert str(result.outcome) == "answered" and result.answer == "25 N·m [1]."
    assert result.context_ids == ("m-1",) and len(model.seen) == 1


def test_a_model_of_our_own_can_propose_and_the_decision_still_gates_it():
    setup = TurnSetup("tech-1", ["P-2"], "2026-06-01", 100, ceiling=2000, schedule_assets=["P-2"])
    result = run_turn("What torque?", [DOC], setup, EchoModel(), action=ActionRequest("book 20 minutes on P-2"))
    assert result.decision is not None
    assert str(result.decision.branch) == "needs_approval"


def test_a_proposal_prints_as_a_call_and_compares_by_canonical_arguments():
    from botie.model import ToolProposal

    shown = {"asset_id": "P-2", "duration_minutes": 20}
    proposal = ToolProposal("propose_inspection", shown)
    shown["duration_minutes"] = 45  # the proposal kept its own read-only copy
    assert str(proposal) == "propose_inspection(asset_id='P-2', duration_minutes=20)"
    assert proposal.key() == ("propose_inspection", '{"asset_id":"P-2","duration_minutes":20}')
    assert ToolProposal("propose_inspection", {"duration_minutes": 20.0, "asset_id": "P-2"}).key() != proposal.key()


class NoIdModel:
    """Cites a quote but forgets the id, and once offers a bare string as a citation: the model's mistakes."""

    def reply(self, request) -> Reply:
        return Reply("25 N·m [3].", ({"quote": "Torque the seal bolts"}, "m-1", {"id": "m-1", "quote": "25 N·m"}))


def test_a_citation_without_an_id_withholds_the_answer_instead_of_raising():
    setup = TurnSetup("tech-1", ["P-2"], "2026-06-01", 100, ceiling=2000, schedule_assets=["P-2"])
    result = run_turn("What torque?", [DOC], setup, NoIdModel())
    assert str(result.outcome) == "withheld" and result.answer is None
    assert result.notice == "answer withheld: missing id; expected an object with id and quote, got str"
    assert NoIdModel().reply("").citation_ids == ("m-1",)  # only the citation that names a document
