"""The concept check: one test per concept runs botie to show its key right and each wrong option wrong.

Each test names the option it settles by its index and checks the option's words too, so a reworded or
reordered question fails here until its proof is redone.
"""

import inspect
import json
from dataclasses import replace
from pathlib import Path

import pytest

from botie import Approval, InspectionService, MemoryStore, Record, count_tokens, decide, plan_context, select
from botie.context.citations import verify_citations
from botie.context.evidence import render_evidence
from botie.context.provenance import trust_of
from botie.errors import BotieError
from botie.lessons.content.adversarial import run_slice
from botie.lessons.content.scenarios import load_evidence_scenario
from botie.lessons.exercises.concepts import CHECKS, CONCEPTS, check_name
from botie.lessons.exercises.questions import QUESTIONS, judge

NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks" / "instructor"


def _options(cid):
    q = CONCEPTS[cid].question
    return q.options, q.answer


# --- the set as a whole ---------------------------------------------------------------------


def test_about_ten_concepts_each_with_two_or_more_wrong_options_and_ids_apart_from_the_predictions():
    assert 9 <= len(CONCEPTS) <= 12
    assert not set(CONCEPTS) & set(QUESTIONS)
    for c in CONCEPTS.values():
        assert len(c.question.options) >= 3 and 0 <= c.question.answer < len(c.question.options)
        assert len(set(c.question.options)) == len(c.question.options)


@pytest.mark.parametrize("cid", sorted(CONCEPTS))
def test_the_judge_accepts_only_the_key(cid):
    q = CONCEPTS[cid].question
    assert [judge(q, i).correct for i in range(len(q.options))] == [i == q.answer for i in range(len(q.options))]


def _headings(lesson):
    (path,) = NOTEBOOKS.glob(f"{lesson}_*.ipynb")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return {
        line[3:].strip()
        for c in cells
        if c["cell_type"] == "markdown"
        for line in "".join(c["source"]).splitlines()
        if line.startswith("## ")
    }


@pytest.mark.parametrize("cid", sorted(CONCEPTS))
def test_the_section_to_revisit_is_a_heading_of_that_lesson(cid):
    c = CONCEPTS[cid]
    assert f"{c.section}. {c.section_title}" in _headings(c.lesson)


def test_a_check_is_before_or_after_and_nothing_else():
    assert CHECKS == ("before", "after") and check_name("after") == "after"
    with pytest.raises(BotieError, match="'before' or 'after'") as caught:
        check_name("during")
    assert caught.value.field == "check"


# --- one test per concept -------------------------------------------------------------------


def test_tokens_not_words():
    options, key = _options("tokens-not-words")
    parts = "Parts: SK-2207-B, GN-118-4, OR-33x2.5, BR-6205-2RS, SH-77-019, CP-4410-A, FL-1182-C, VT-20-0315."
    words, tokens = len(parts.split()), count_tokens(parts)
    assert words == 9 and tokens == 55
    # 0: the word count plus 10% is far under the cost
    assert options[0].startswith("yes: a word") and tokens > words * 1.1
    # 2: a quarter of the characters is under it too
    assert "characters divided by four" in options[2] and tokens > len(parts) / 4
    # the key: only the tokenizer's count is the cost
    assert key == 1 and "tokenizer" in options[key]


def test_permission_then_budget():
    options, key = _options("permission-then-budget")
    p1 = Record("man-p1", "P-1", "P-1 seal fitting", 5)
    p2 = Record("tkt-p2", "P-2", "P-2 seal replaced", 6)
    # 0: pack by rank first (the allowance of 6 as if everyone may read everything), then drop P-1: nothing left
    packed = select([p1, p2], ["P-1", "P-2"], 6).selected_ids
    assert packed == ("man-p1",) and [i for i in packed if i != "man-p1"] == []
    assert options[0].startswith("pack by rank first")
    # 2: packed without the filter, the P-1 text is in what the model reads, whatever the instructions say
    assert "P-1 seal fitting" in render_evidence([p1]) and options[2].endswith("not to use the P-1 manual")
    # the key: filter first, and the ticket fits
    assert select([p1, p2], ["P-2"], 6).selected_ids == ("tkt-p2",) and key == 1 and "first, then pack" in options[1]


def test_trust_from_ingestion():
    options, key = _options("trust-from-ingestion")
    scenario = load_evidence_scenario()
    note = next(r for r in scenario.records if r.id == "note-anon-77")
    assert "OFFICIAL SITE POLICY" in note.text
    # 0: the claim does not promote it
    assert str(trust_of(note)) == "unverified" and options[0].startswith("approved")
    # 2: nor does it drop it: the note is selected for the torque question, as unverified
    outcome = scenario.select(0).outcome("note-anon-77")
    assert str(outcome.status) == "selected" and "unverified" in outcome.reason and options[2].startswith("none")
    # the key, and the text is never read: the same record with other words keeps the same tier
    assert str(trust_of(replace(note, text="hello"))) == "unverified" and options[key].startswith("unverified")


def test_oversized_first():
    options, key = _options("oversized-first")
    docs = [Record("big", "A", "x", 600_000, score=0.9), Record("a", "A", "x", 20_000), Record("b", "A", "x", 10_000)]
    plan = plan_context(docs, ceiling=900_000)
    assert str(plan.strategy) == options[key] == "retrieve_within_document"
    # the other three are what the total alone would suggest, or the extremes: none is what botie does
    total = sum(d.cost for d in docs)
    assert 540_000 < total <= 4 * 540_000 and {o for i, o in enumerate(options) if i != key} == {
        "stuff_all",
        "select_documents",
        "retrieve_chunks",
    }
    # without the big one the other two fit in the soft budget: the big one alone decided the route
    assert str(plan_context(docs[1:], ceiling=900_000).strategy) == "stuff_all"


def test_ranking_has_no_floor():
    options, key = _options("ranking-has-no-floor")
    scenario = load_evidence_scenario()
    top3 = sorted(scenario.candidates(2), key=lambda r: r.score or 0.0, reverse=True)[:3]
    # 0: the retriever returns three passages, not nothing
    assert len(top3) == 3 and options[0].startswith("nothing")
    gate = scenario.select(2)
    assert gate.best_score is not None
    # 2: they are not sent: the best the caller may read is under the floor, so the turn refuses
    assert gate.refused and gate.best_score < gate.floor and gate.selected_ids == ()
    assert options[2].startswith("three passages, which are sent")
    assert key == 1 and "refuses before any model" in options[key]


def test_retrieval_not_a_wall():
    options, key = _options("retrieval-not-a-wall")
    scenario = load_evidence_scenario()
    ticket = next(r for r in scenario.candidates(0) if r.id == "tkt-5630")
    manuals = [r.score or 0.0 for r in scenario.candidates(0) if r.id.startswith("man-")]
    gate = scenario.select(0)
    # 0 and the key: the planted ticket is over the floor and is sent on the torque question
    assert ticket.score is not None and ticket.score >= gate.floor == 0.35
    assert "tkt-5630" in gate.selected_ids and options[0].startswith("yes")
    # 2: a ticket can outscore a manual passage, and reaching the floor is all it takes
    assert ticket.score > min(manuals) and options[2].startswith("yes: a ticket never")
    # the selection has no top-k: more than three documents are sent
    assert len(gate.selected_ids) > 3
    assert key == 1 and "tkt-5630 at 0.52" in options[key]


def test_citation_is_not_proof():
    options, key = _options("citation-is-not-proof")
    manual = Record("man-p2", "P-2", "Tighten the gland nuts evenly to 18 N·m, never above 20 N·m.", 20)
    other = Record("man-p1", "P-1", "Tighten the P-1 gland nuts to 25 N·m.", 12)
    claim = "The torque is 25 N·m."
    quote = {"id": "man-p2", "quote": "Tighten the gland nuts evenly to 18 N·m"}
    # 0: the check passes although the claim says 25 and the quote says 18
    assert verify_citations([quote], [manual]).ok and "25" in claim and "25" not in quote["quote"]
    assert options[0] == "that the answer is right"
    # 2: the quote is compared: one changed character fails, and so does a real id that was not sent
    assert not verify_citations([{**quote, "quote": "Tighten the gland nuts evenly to 25 N·m"}], [manual]).ok
    assert not verify_citations([{"id": "man-p1", "quote": "Tighten"}], [manual]).ok and other.id == "man-p1"
    assert options[2].startswith("only that the cited id exists")
    assert key == 1 and "in the request" in options[key]


R7 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}


def test_approval_one_payload():
    options, key = _options("approval-one-payload")
    longer = {**R7, "duration_minutes": 45}
    decision = decide(
        longer, caller="tech-ana", allowed_assets=["P-2"], approval=Approval("tech-ana", R7), previous=None
    )
    # 0 and 2: it neither creates nor is denied
    assert str(decision.branch) == "needs_approval"
    assert options[0].startswith("create") and options[2].startswith("denied")
    # the approval does count for the payload it was given
    same = decide(R7, caller="tech-ana", allowed_assets=["P-2"], approval=Approval("tech-ana", R7), previous=None)
    assert str(same.branch) == "create" and options[key].startswith("needs_approval")


def _submit(service, proposal):
    return service.submit(proposal, caller="tech-ana", allowed_assets=["P-2"], approval=Approval("tech-ana", proposal))


def test_retry_keeps_its_id():
    options, key = _options("retry-keeps-its-id")
    same = InspectionService(MemoryStore())
    first, again = _submit(same, R7), _submit(same, R7)
    # the key: the same id returns the job already booked
    assert (str(first.branch), str(again.branch)) == ("create", "reuse")
    assert first.receipt.job_id == again.receipt.job_id and "same request id" in options[key]
    # 2: a new id is a second job
    fresh = InspectionService(MemoryStore())
    jobs = {_submit(fresh, {**R7, "request_id": rid}).receipt.job_id for rid in ("r7", "r7-retry")}
    assert len(jobs) == 2 and options[2].startswith("a new request id")
    # 0: nothing a prompt says reaches the service: it takes the proposal, the caller, the scope and the approval
    assert set(inspect.signature(InspectionService.submit).parameters) == {
        "self",
        "proposal",
        "caller",
        "allowed_assets",
        "approval",
    }
    assert options[0].startswith("an instruction")


class _LostAnswer:
    """A scheduler that books by idempotency key and loses its first answer (the booking stands)."""

    def __init__(self):
        self.bookings = {}
        self.calls = 0

    def __call__(self, order):
        self.calls += 1
        self.bookings.setdefault(order.idempotency_key, f"booking-{len(self.bookings) + 1}")
        if self.calls == 1:
            raise ConnectionError("the answer was lost")
        return self.bookings[order.idempotency_key]


def test_unavailable_not_nothing():
    options, key = _options("unavailable-not-nothing")
    scheduler = _LostAnswer()
    service = InspectionService(MemoryStore(), downstream=scheduler)
    lost = _submit(service, R7)
    # 0: unavailable, yet one inspection was booked
    assert str(lost.branch) == "unavailable" and lost.receipt is None and len(scheduler.bookings) == 1
    assert options[0].startswith("no: unavailable means nothing was booked")
    # the key: again with the same id, the booking comes back and nothing more is booked
    again = _submit(service, R7)
    assert str(again.branch) == "create" and again.receipt is not None and len(scheduler.bookings) == 1
    assert options[key].startswith("perhaps")
    # ...whereas a new request books a second inspection
    _submit(service, {**R7, "request_id": "r8"})
    assert len(scheduler.bookings) == 2
    # 2: "never send it again" would have left the booking unconfirmed; the retry was what confirmed it
    assert lost.retryable and options[2].startswith("yes: so it must never")


class _IgnoresTheKey:
    """A scheduler that books on every call, key or not, and loses its first answer."""

    def __init__(self):
        self.bookings = []

    def __call__(self, order):
        self.bookings.append(order.idempotency_key)
        if len(self.bookings) == 1:
            raise ConnectionError("the answer was lost")
        return f"booking-{len(self.bookings)}"


def test_unavailable_not_nothing_says_the_scheduler_must_honour_the_key():
    options, key = _options("unavailable-not-nothing")
    scheduler = _IgnoresTheKey()
    service = InspectionService(MemoryStore(), downstream=scheduler)
    _submit(service, R7)
    again = _submit(service, R7)
    # the same key went twice, and a scheduler that ignores it booked twice: the retry alone cannot prevent that
    assert str(again.branch) == "create" and len(scheduler.bookings) == 2 and len(set(scheduler.bookings)) == 1
    assert "cannot book twice" not in options[key] and "honours" in options[key]


def test_documents_never_act():
    options, key = _options("documents-never-act")
    injections = run_slice("botie").injections
    # 0: every planted document reached the model inside the evidence region, and the model obeyed each one
    assert all(x.reached_model and x.followed for x in injections)
    assert options[0].startswith("nothing")
    # 2: none of them changed the tool call or its authorisation
    assert all(x.tool_call_unchanged and x.authorisation_unchanged for x in injections)
    assert options[2].startswith("the tool call")
    assert key == 1 and "never the tool call" in options[key]
