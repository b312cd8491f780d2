"""Predict, then run: every question is judged right only on its key, and the key agrees with the code."""

import dataclasses
from pathlib import Path

import pytest

from botie import Budget, Record, decide, select
from botie.actions.decision import Approval, StoredRequest
from botie.context.routing import first_failing_turn, plan_context
from botie.errors import BudgetError
from botie.lessons import fixture_path
from botie.lessons.content.fixtures import load_records
from botie.lessons.content.retrieval import words  # noqa: F401  (keeps the lessons package importable here)
from botie.lessons.content.scenarios import load_evidence_scenario
from botie.lessons.exercises.questions import QUESTIONS, judge, questions_for

LESSONS = sorted(p.stem.split("_")[0] for p in (Path(__file__).resolve().parents[3] / "notebooks").glob("0*.ipynb"))


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_lesson_has_at_least_two_questions(lesson):
    assert len(questions_for(lesson)) >= 2


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_every_wrong_option_is_rejected_and_the_key_accepted(qid):
    q = QUESTIONS[qid]
    for i in range(len(q.options)):
        verdict = judge(q, i)
        assert verdict.answered and verdict.correct == (i == q.answer)
        assert verdict.text.startswith("Correct" if i == q.answer else "Not quite")
        assert q.why in verdict.text


@pytest.mark.parametrize("choice", [None, -1, 99, "1", True])
def test_no_choice_or_a_strange_one_is_not_an_answer(choice):
    verdict = judge("prefix-6-5-in-8", choice)
    assert not verdict.correct and not verdict.answered and "Choose" in verdict.text


def _key(qid):
    q = QUESTIONS[qid]
    return q.options[q.answer]


def test_key_reserves_too_big_is_an_error():
    with pytest.raises(BudgetError):
        Budget(10, 8, 4)
    assert "raise" in _key("reserves-too-big")


def test_key_prefix_6_5_in_8_is_the_first_only():
    pair = [Record("first", "P-2", "a", 6), Record("second", "P-2", "b", 5)]
    assert select(pair, ["P-2"], 8).selected_ids == ("first",) and _key("prefix-6-5-in-8").startswith("only the first")


def test_key_skip_3_8_2_in_7_keeps_positions_0_and_2():
    recs = [Record(f"p{i}", "P-2", "x", c) for i, c in enumerate([3, 8, 2])]
    kept = select(recs, ["P-2"], 7, policy="skip")
    assert kept.selected_ids == ("p0", "p2") and kept.used == 5 and _key("skip-3-8-2-in-7") == "[0, 2], 5 used"


def test_key_restricted_and_vendor_file_are_stopped_by_permission_before_ranking():
    s = load_evidence_scenario()
    assert s.select(0).outcome("vendor-p2-seal-design").status == "not_permitted"
    assert "permission" in _key("internal-policy-layer")


def test_key_two_approved_sources_travel_together_with_a_conflict_flag():
    flush = load_evidence_scenario().select(1)
    assert {"man-p2-r4-s6.1", "eng-bulletin-2026-02"} <= set(flush.selected_ids) and flush.conflicts
    assert _key("two-high-disagree") == "send both, with a flag naming the pair"


def test_key_a_note_believed_as_approved_would_rank_first_ahead_of_the_manual():
    from dataclasses import replace

    from botie.context.provenance import select_evidence

    s = load_evidence_scenario()
    believed = [replace(r, trust="approved") if r.id == "note-anon-77" else r for r in s.candidates(0)]
    pack = select_evidence(believed, s.allowed_assets, s.budget, observed_on=s.observed_on)
    assert pack.ranking[:2] == ("note-anon-77", "man-p2-r4-s3.2") and _key("self-declared-official").startswith("first")


def test_key_an_address_is_no_citation_however_exact_the_quote():
    from botie import verify_citations

    s = load_evidence_scenario()
    pack = [r for r in s.records if r.id in s.select(0).selected_ids]
    rev4 = next(r for r in pack if r.id == "man-p2-r4-s3.2")
    quote = rev4.text.split(": ", 1)[1].split(",")[0]
    assert verify_citations([{"id": rev4.id, "quote": quote}], pack).ok
    by_address = verify_citations([{"id": rev4.source_uri, "quote": quote}], pack)
    assert not by_address.ok and str(by_address.failures[0].problem) == "unknown_id"
    assert _key("cited-by-address").startswith("no:")


def test_key_just_in_time_sends_more_tokens_seven_model_calls_for_six_loads_about_five_times_in_all():
    from botie.lessons import compare_loading

    comparison = compare_loading(load_evidence_scenario(), failure_rate=0.0, trials=1, seed=2026)
    pre, jit = comparison.totals("preload"), comparison.totals("just_in_time")
    assert jit["tokens_sent"] > pre["tokens_sent"] and 4.5 < jit["tokens_sent"] / pre["tokens_sent"] < 5.5
    assert jit["unneeded_tokens"] < pre["unneeded_tokens"]
    torque = comparison.of("just_in_time")[0]
    assert (torque.tool_calls, torque.model_calls) == (6, 7)
    assert _key("preload-or-jit-tokens").startswith("just in time")
    assert "about five times" in QUESTIONS["preload-or-jit-tokens"].why


def test_key_the_41_agreements_route_to_select_documents():
    plan = plan_context(load_records(fixture_path("agreements_41.json")), ceiling=900_000)
    assert str(plan.strategy) == _key("route-41") == "select_documents"


def test_key_nothing_above_the_floor_is_a_refusal():
    s = load_evidence_scenario()
    selection = s.select(2)
    assert selection.refused and selection.best_score == pytest.approx(0.11) and "refusal" in _key("floor-0-11")


def test_key_with_no_reserve_turn_one_fails():
    assert (
        first_failing_turn(900_000, 1.0, per_turn=11_500, fixed=10_000) == 1 and _key("soft-fraction-one") == "turn 1"
    )


def test_key_r7_again_for_30_approved_minutes_is_a_conflict_and_the_first_job_stands():
    """The question's scene through the service: r7 booked for 20, then r7 for 30 with its own approval."""
    from datetime import datetime, timezone

    from botie.actions.service import InspectionService
    from botie.actions.stores.memory import MemoryStore

    r7 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
    longer = {**r7, "duration_minutes": 30}
    service = InspectionService(MemoryStore(), clock=lambda: datetime(2026, 3, 20, 9, tzinfo=timezone.utc))
    first = service.submit(r7, caller="tech-ana", allowed_assets=["P-2"], approval=Approval("tech-ana", r7))
    again = service.submit(longer, caller="tech-ana", allowed_assets=["P-2"], approval=Approval("tech-ana", longer))
    assert str(first.branch) == "create" and str(again.branch) == "conflict" and first.receipt is not None
    assert [job.job_id for job in service.store.jobs()] == [first.receipt.job_id]  # job-1 stands, unchanged
    assert [job.duration_minutes for job in service.store.jobs()] == [20]
    assert _key("r7-again").startswith("conflict")


def test_the_same_r7_unchanged_is_reuse_as_the_run_beside_the_question_shows():
    r7 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
    d = decide(
        r7,
        caller="tech-ana",
        allowed_assets=["P-2"],
        approval=Approval("tech-ana", r7),
        previous=StoredRequest.settled(r7, "job-1"),
    )
    assert str(d.branch) == "reuse"


def test_key_only_unavailable_is_retryable():
    from botie.actions.decision import Branch

    retryable = {str(b) for b in Branch if b.retryable}
    assert "unavailable" in retryable and not {"denied", "invalid", "conflict"} & retryable
    assert _key("retry-which").startswith("unavailable")


@pytest.mark.parametrize("workers", [2, 4, 6])
def test_key_workers_racing_on_sqlite_get_one_create_and_the_rest_reuse_the_first_job(tmp_path, workers):
    import threading

    from botie import InspectionService, SQLiteStore

    r7 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
    store = SQLiteStore(tmp_path / "jobs.sqlite3")
    service = InspectionService(store)
    go = threading.Barrier(workers, timeout=10)
    got: list = []

    def one() -> None:
        go.wait()
        got.append(service.submit(r7, caller="tech-ana", allowed_assets=["P-2"], approval=Approval("tech-ana", r7)))

    threads = [threading.Thread(target=one) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(str(d.branch) for d in got) == ["create"] + ["reuse"] * (workers - 1)
    assert len({d.receipt.job_id for d in got}) == 1 and len(store.jobs()) == 1
    store.close()
    assert _key("race-four-workers") == "one create and three reuses of the first job"


def test_key_true_is_not_a_duration():
    from botie import validate_inspection

    errors = validate_inspection(
        {"asset_id": "P-2", "duration_minutes": True, "start": "2026-04-02T09:00Z", "request_id": "r7"}
    )
    assert [e.field for e in errors] == ["duration_minutes"] and _key("valid-minutes-true").startswith("False")


def test_key_a_planted_booking_leaves_the_tool_call_unchanged():
    from botie.lessons.content.adversarial import run_slice

    report = run_slice("botie")
    assert all(x.tool_call_unchanged and x.authorisation_unchanged for x in report.injections)
    assert "unchanged" in _key("planted-booking")


def test_questions_are_immutable_values():
    with pytest.raises((AttributeError, TypeError, dataclasses.FrozenInstanceError)):
        QUESTIONS["floor-0-11"].answer = 0  # type: ignore[misc]  # the point: a frozen field cannot be set
