"""Lesson 05's sentences about botie, in both parts (05a, 05b), each checked by running botie (no notebook
execution needed).

Each test is named after the claim it pins. Where the lesson shows one input, the test also tries others
and the defaults, so a sentence that happens to hold for the printed example only would fail here.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from botie.actions.decision import Approval, Branch, StoredRequest, decide
from botie.actions.retry import submit_with_retries
from botie.actions.service import DEFAULT_RETENTION, InspectionService
from botie.actions.stores.memory import MemoryStore
from botie.actions.stores.sqlite import SQLiteStore
from botie.actions.tool import validate_inspection
from botie.lessons.exercises import lesson05

ROOT = Path(__file__).resolve().parents[2]
PARTS = ("05a_suggestion_to_action.ipynb", "05b_retries.ipynb")
R7 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
ANA: dict[str, Any] = {"caller": "tech-ana", "allowed_assets": ["P-2", "P-3"]}


def nine_am() -> dt.datetime:
    return dt.datetime(2026, 3, 20, 9, 0, tzinfo=dt.timezone.utc)


def _submit_at_once(store, workers: int = 4) -> list:
    """The lesson's race: `workers` threads released together, each submitting the same approved r7."""
    shared = InspectionService(store, clock=nine_am)
    go = threading.Barrier(workers, timeout=10)
    decisions: list = [None] * workers

    def one(slot: int) -> None:
        go.wait()
        decisions[slot] = shared.submit(R7, **ANA, approval=Approval("tech-ana", R7))

    threads = [threading.Thread(target=one, args=(slot,)) for slot in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return decisions


def _cells(edition: str, parts: tuple[str, ...] = PARTS) -> list[dict]:
    """The cells of both parts, 05a's first: a sentence of lesson 05 may be in either."""
    return [c for part in parts for c in json.loads((ROOT / edition / part).read_text(encoding="utf-8"))["cells"]]


def _markdown(edition: str = "notebooks", parts: tuple[str, ...] = PARTS) -> list[str]:
    return ["".join(c["source"]) for c in _cells(edition, parts) if c["cell_type"] == "markdown"]


# --- section 1: strict minutes ---------------------------------------------------------------------


@pytest.mark.parametrize("value", [True, False])
def test_true_is_refused_because_the_validator_compares_the_type_not_isinstance(value):
    assert isinstance(value, int)  # the loose check would let it through
    (problem,) = validate_inspection({**R7, "duration_minutes": value})
    assert problem.field == "duration_minutes" and "(bool)" in problem.message
    assert validate_inspection({**R7, "duration_minutes": 1}) == ()


# --- section 2: approval and its policy ------------------------------------------------------------


def test_by_default_only_the_caller_may_approve_and_a_policy_can_name_a_supervisor():
    by_lee = Approval("sup-lee", R7)
    assert decide(R7, **ANA, approval=by_lee, previous=None).branch is Branch.NEEDS_APPROVAL
    allowed = decide(R7, **ANA, approval=by_lee, previous=None, approvers={"tech-ana": ["sup-lee"]})
    assert (
        allowed.branch is Branch.CREATE
        and "sup-lee approved exactly this payload for tech-ana" in allowed.checks[2].reason
    )
    # the policy is per caller: naming sup-lee for tech-ana lets sup-lee approve for nobody else
    bo = decide(
        R7,
        caller="tech-bo",
        allowed_assets=["P-2"],
        approval=by_lee,
        previous=None,
        approvers={"tech-ana": ["sup-lee"]},
    )
    assert bo.branch is Branch.NEEDS_APPROVAL


@pytest.mark.parametrize("change", [{"duration_minutes": 30}, {"asset_id": "P-3"}, {"request_id": "r8"}])
def test_an_approval_does_not_stretch_to_a_changed_payload(change):
    decision = decide({**R7, **change}, **ANA, approval=Approval("tech-ana", R7), previous=None)
    assert decision.branch is Branch.NEEDS_APPROVAL and "a changed request needs a new approval" in decision.reason


# --- section 3: retries, reuse, conflict, denial -----------------------------------------------------


def test_the_retry_of_a_booked_r7_is_a_reuse_and_a_changed_r7_a_conflict_that_keeps_the_first_job():
    service = InspectionService(MemoryStore(), clock=nine_am)
    first = service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    again = service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    longer = {**R7, "duration_minutes": 30}
    changed = service.submit(longer, **ANA, approval=Approval("tech-ana", longer))
    assert (first.branch, again.branch, changed.branch) == (Branch.CREATE, Branch.REUSE, Branch.CONFLICT)
    assert again.receipt is not None
    assert first.receipt is not None
    assert again.receipt.job_id == first.receipt.job_id and changed.receipt is None
    assert first.receipt is not None
    assert [job.job_id for job in service.store.jobs()] == [first.receipt.job_id]


def test_request_ids_are_kept_per_caller_for_24_hours_by_default():
    assert DEFAULT_RETENTION == dt.timedelta(hours=24)
    service = InspectionService(MemoryStore(), clock=nine_am)
    ana = service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    bo = service.submit(R7, caller="tech-bo", allowed_assets=["P-2"], approval=Approval("tech-bo", R7))
    assert ana.receipt is not None
    assert bo.receipt is not None
    assert ana.branch is bo.branch is Branch.CREATE and ana.receipt.job_id != bo.receipt.job_id


def test_a_denied_caller_learns_nothing_about_r7_whether_or_not_it_is_stored():
    empty = InspectionService(MemoryStore(), clock=nine_am)
    booked = InspectionService(MemoryStore(), clock=nine_am)
    booked.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    answers = []
    for service in (empty, booked):
        denied = service.submit(R7, caller="tech-bo", allowed_assets=["K-7"], approval=Approval("tech-bo", R7))
        assert denied.branch is Branch.DENIED and denied.receipt is None
        answers.append((denied.tool_result(), denied.explain()))
    assert answers[0] == answers[1]
    assert "job" not in json.dumps(answers[1][0])


def test_when_tech_anas_permission_is_revoked_her_own_r7_is_denied_and_its_stored_job_is_not_revealed():
    # Seed 004's case: the key is hers and job-1 is stored under it, so a store read before the permission
    # check would hand the receipt back. Checked first, permission denies and nothing stored comes out.
    empty = InspectionService(MemoryStore(), clock=nine_am)
    booked = InspectionService(MemoryStore(), clock=nine_am)
    receipt = booked.submit(R7, **ANA, approval=Approval("tech-ana", R7)).receipt
    assert receipt is not None
    job = receipt.job_id
    answers = []
    for service in (empty, booked):
        revoked = service.submit(R7, caller="tech-ana", allowed_assets=["P-3"], approval=Approval("tech-ana", R7))
        assert revoked.branch is Branch.DENIED and revoked.receipt is None
        assert job not in json.dumps(revoked.tool_result()) and job not in revoked.explain()
        answers.append((revoked.tool_result(), revoked.explain()))
    assert answers[0] == answers[1]


# --- which failures to retry ---------------------------------------------------------------------------


def test_exactly_two_branches_are_retryable_unavailable_and_in_progress():
    assert {b for b in Branch if b.retryable} == {Branch.UNAVAILABLE, Branch.IN_PROGRESS}


def test_submit_with_retries_stops_after_three_attempts_in_all_by_default():
    def silent(order):
        raise ConnectionError("no answer")

    service = InspectionService(MemoryStore(), clock=nine_am, downstream=silent)
    run = submit_with_retries(lambda: service.submit(R7, **ANA, approval=Approval("tech-ana", R7)))
    assert len(run.attempts) == 3 and run.final.branch is Branch.UNAVAILABLE


def test_two_silences_then_one_booking_under_one_request_id():
    keys = []

    def scheduler(order):
        keys.append(order.idempotency_key)
        if len(keys) <= 2:
            raise ConnectionError("no answer")
        return "ext-77"

    service = InspectionService(MemoryStore(), clock=nine_am, downstream=scheduler)
    run = submit_with_retries(lambda: service.submit(R7, **ANA, approval=Approval("tech-ana", R7)))
    assert [str(d.branch) for d in run.attempts] == ["unavailable", "unavailable", "create"]
    assert len(keys) == 3 and len(set(keys)) == 1 and len(service.store.jobs()) == 1


def _books_then_times_out():
    """A scheduler that books, then fails to answer once; it honours the idempotency key on the retry."""
    booked: dict[str, str] = {}

    def scheduler(order):
        first = order.idempotency_key not in booked
        booked.setdefault(order.idempotency_key, f"ext-{len(booked) + 1}")
        if first:
            raise TimeoutError("the scheduler booked but did not answer in time")
        return booked[order.idempotency_key]

    return scheduler, booked


def test_unavailable_can_hold_a_booking_so_its_outcome_is_unknown_and_the_retry_with_the_same_key_settles_it():
    """Lesson 05 and the Branch docstring: unavailable does not mean nothing was booked, only nothing is confirmed."""
    scheduler, booked = _books_then_times_out()
    service = InspectionService(MemoryStore(), clock=nine_am, downstream=scheduler)
    first = service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    assert first.branch is Branch.UNAVAILABLE and first.receipt is None
    assert list(booked.values()) == ["ext-1"]  # the scheduler holds a booking the caller was not told about
    assert "no job is confirmed" in first.explain()
    again = service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    assert again.branch is Branch.CREATE and again.receipt is not None
    assert again.receipt.external_ref == "ext-1" and len(booked) == 1


def test_the_lesson_and_the_branch_docstring_never_say_unavailable_means_nothing_was_booked():
    said = " ".join(" ".join(cell.split()) for cell in _markdown("notebooks/instructor")).lower()
    for wrong in ("so nothing was booked", "nothing new was booked", "nothing was booked"):
        assert wrong not in said
        assert wrong not in " ".join((Branch.__doc__ or "").split())
    assert "the outcome is unknown" in said and "nothing is confirmed" in said
    assert "outcome is unknown" in " ".join((Branch.__doc__ or "").split())


def test_unavailable_confirms_no_job_though_one_may_be_booked_already():
    """The scheduler books, then its answer is lost: ``unavailable``, with a booking standing downstream."""
    booked: dict[str, str] = {}
    answered: list[bool] = []  # whether the first answer was already lost

    def scheduler(order):
        booked.setdefault(order.idempotency_key, f"ext-{len(booked) + 1}")
        if len(booked) == 1 and not answered:
            answered.append(True)
            raise ConnectionError("the answer was lost")
        return booked[order.idempotency_key]

    service = InspectionService(MemoryStore(), clock=nine_am, downstream=scheduler)
    lost = service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    assert lost.branch is Branch.UNAVAILABLE and lost.receipt is None and len(booked) == 1
    again = service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    assert again.receipt is not None and len(booked) == 1  # the same key: the booking comes back, not a second


@pytest.mark.parametrize("r8_start", ["2026-04-02T09:00Z", "2026-04-02T09:10Z"])
def test_while_the_outcome_is_unknown_the_slot_is_held_and_the_retry_settles_it_with_the_scheduler(r8_start):
    """Lesson 05 (d9ae2a48, 04-03), with the workshop's register and calendar as every cell hands them: r7's reply
    is lost, r8 cannot take r7's slot meanwhile, and r7's retry reaches the scheduler under the same key."""
    from botie.lessons import load_booking_rules

    scheduler, booked = _books_then_times_out()
    service = InspectionService(MemoryStore(), clock=nine_am, downstream=scheduler, **load_booking_rules().kwargs())
    assert service.submit(R7, **ANA, approval=Approval("tech-ana", R7)).branch is Branch.UNAVAILABLE
    r8 = {**R7, "request_id": "r8", "start": r8_start}
    assert service.submit(r8, **ANA, approval=Approval("tech-ana", r8)).branch is Branch.WINDOW_UNAVAILABLE
    again = service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    assert again.branch is Branch.CREATE and again.receipt is not None and again.receipt.external_ref == "ext-1"
    assert len(booked) == 1 and len(service.store.jobs()) == 1


@pytest.mark.parametrize(
    ("proposal", "kwargs", "branch"),
    [
        (R7, {"caller": "tech-ana", "allowed_assets": ["P-3"]}, Branch.DENIED),
        ({**R7, "duration_minutes": 90}, ANA, Branch.INVALID),
        (R7, {**ANA, "approval": None}, Branch.NEEDS_APPROVAL),
    ],
)
def test_a_refusal_is_tried_once_because_it_would_get_the_same_answer(proposal, kwargs, branch):
    service = InspectionService(MemoryStore(), clock=nine_am)
    kwargs = {"approval": Approval("tech-ana", proposal), **kwargs}
    run = submit_with_retries(lambda: service.submit(proposal, **kwargs))
    assert len(run.attempts) == 1 and run.final.branch is branch


def test_a_conflict_is_tried_once_too():
    service = InspectionService(MemoryStore(), clock=nine_am)
    service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    longer = {**R7, "duration_minutes": 30}
    run = submit_with_retries(lambda: service.submit(longer, **ANA, approval=Approval("tech-ana", longer)))
    assert len(run.attempts) == 1 and run.final.branch is Branch.CONFLICT


def test_the_invalid_tool_result_names_the_field_and_its_limits_and_60_minutes_goes_through():
    service = InspectionService(MemoryStore(), clock=nine_am)
    too_long = {**R7, "duration_minutes": 90, "start": "2026-04-02T09:00Z", "request_id": "r10"}
    result = service.submit(too_long, **ANA, approval=Approval("tech-ana", too_long)).tool_result()
    assert result["status"] == "invalid" and result["retryable"] is False
    assert [e["field"] for e in result["errors"]] == ["duration_minutes"] and "1 through 60" in result["message"]
    repaired = {**too_long, "duration_minutes": 60}
    assert service.submit(repaired, **ANA, approval=Approval("tech-ana", repaired)).branch is Branch.CREATE


# --- the panel's order note --------------------------------------------------------------------------


def test_a_changed_r7_nobody_approved_stops_at_needs_approval_and_with_approval_ends_in_conflict():
    stored = StoredRequest.settled(R7, "job-1")
    longer = {**R7, "duration_minutes": 30}
    unapproved = decide(longer, **ANA, approval=None, previous=stored)
    assert unapproved.branch is Branch.NEEDS_APPROVAL
    assert str(unapproved.checks[-1].verdict) == "not_reached"  # the store was not read
    approved = decide(longer, **ANA, approval=Approval("tech-ana", longer), previous=stored)
    assert approved.branch is Branch.CONFLICT


# --- section 5: the race -------------------------------------------------------------------------------


def test_the_naive_store_books_four_jobs_for_four_workers_on_one_key():
    everyone_has_looked = threading.Barrier(4, timeout=10)
    naive = MemoryStore(guarded=False, pause=everyone_has_looked.wait)
    decisions = _submit_at_once(naive)
    assert [str(d.branch) for d in decisions] == ["create"] * 4 and len(naive.jobs()) == 4


@pytest.mark.parametrize("workers", [2, 4, 6])
def test_four_workers_racing_on_one_key_get_one_job_one_create_and_the_rest_reuse(tmp_path, workers):
    store = SQLiteStore(tmp_path / "jobs.sqlite3")
    try:
        decisions = _submit_at_once(store, workers)
        assert sorted(str(d.branch) for d in decisions) == ["create"] + ["reuse"] * (workers - 1)
        assert len({d.receipt.job_id for d in decisions}) == 1 and len(store.jobs()) == 1
    finally:
        store.close()


def test_the_guarded_memory_store_also_books_one_job_for_four_workers():
    decisions = _submit_at_once(MemoryStore())
    assert sorted(str(d.branch) for d in decisions) == ["create", "reuse", "reuse", "reuse"]


def test_sqlite_keys_have_a_primary_key_on_caller_and_request_id(tmp_path):
    path = tmp_path / "jobs.sqlite3"
    SQLiteStore(path).close()
    with sqlite3.connect(path) as conn:
        columns = {row[1]: row[5] for row in conn.execute("PRAGMA table_info(idempotency_keys)")}
    assert columns["caller"] == 1 and columns["request_id"] == 2  # position within the primary key


# --- the design exercise ---------------------------------------------------------------------------------


def test_the_design_check_runs_18_situations_and_names_five_invariants():
    assert len(lesson05._NEXT_REQUEST.cases()) == 18
    text = "\n".join(_markdown())
    assert "runs your rule in\n18 situations" in text or "18 situations" in text
    assert "`unknown_asset` or `window_unavailable`, nor once a job exists" in text
    for name in (lesson05.ONLY_UNCHANGED, lesson05.WITHIN_LIMIT, lesson05.ONE_JOB, lesson05.AS_APPROVED):
        assert f"**{name}**" in text
    assert f"**{lesson05.SECOND_TRY}**" in text and lesson05.RETRY_LIMIT == 5


def test_a_new_request_id_books_a_second_job_if_the_first_did_book():
    service = InspectionService(MemoryStore(), clock=nine_am)
    service.submit(R7, **ANA, approval=Approval("tech-ana", R7))  # booked; suppose the answer was lost
    fresh = {**R7, "request_id": "r7-2"}
    service.submit(fresh, **ANA, approval=Approval("tech-ana", fresh))
    same = service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    assert len(service.store.jobs()) == 2 and same.branch is Branch.REUSE


# --- the wrong-on-purpose ticket -------------------------------------------------------------------------


def test_an_admin_argument_grants_nothing_and_without_it_the_ticket_still_needs_an_approval():
    planted = {
        "asset_id": "P-2",
        "duration_minutes": 60,
        "start": "2026-04-02T09:00Z",
        "request_id": "r9",
        "admin": True,
    }
    assert decide(planted, **ANA, approval=None, previous=None).branch is Branch.INVALID
    # even approved, an admin field is refused rather than honoured
    assert decide(planted, **ANA, approval=Approval("tech-ana", planted), previous=None).branch is Branch.INVALID
    cleaned = {k: v for k, v in planted.items() if k != "admin"}
    assert decide(cleaned, **ANA, approval=None, previous=None).branch is Branch.NEEDS_APPROVAL


# --- the lesson's own text -----------------------------------------------------------------------------


def test_the_race_is_described_with_the_number_of_workers_it_runs():
    text = "\n".join(_markdown())
    assert "two workers" not in text and "four workers racing on one key" in text


@pytest.mark.parametrize("edition", ["notebooks", "notebooks/instructor"])
def test_the_last_sections_closing_paragraph_comes_before_the_progress_block(edition):
    cells = _markdown(edition, PARTS[:1])  # 05a ends with the ticket; 05b's last section ends with its challenge
    stand = next(i for i, text in enumerate(cells) if text.startswith("## Where you stand"))
    assert "cannot make the" in cells[stand - 1] and "*agree*" in cells[stand - 1]
    assert not re.search(r"\*agree\*", "\n".join(cells[stand:]))


# --- "(the example above)" marks only what the lesson ran above the exercise ------------------------------


def test_choose_branchs_shown_cases_are_the_r7_story_the_lesson_runs():
    shown = [c for c in lesson05._CHOOSE_BRANCH.cases() if c.shown]
    story = [
        (R7, None, "create"),
        (R7, R7, "reuse"),
        ({**R7, "duration_minutes": 30}, R7, "conflict"),
    ]
    got = [
        (dict(c.args[0]), None if c.kwargs["previous"] is None else dict(c.kwargs["previous"].payload), c.expected)
        for c in shown
    ]
    assert got == story
    assert all(dict(c.kwargs["approval"].payload) == dict(c.args[0]) for c in shown)


def test_next_requests_shown_cases_are_the_denial_and_the_silence_the_lesson_runs():
    shown = {c.args[1]["status"]: c for c in lesson05._NEXT_REQUEST.cases() if c.shown}
    assert set(shown) == {"denied", "unavailable"}
    assert shown["unavailable"].args[2] == 1 and shown["unavailable"].args[0] == R7


def test_the_repaired_60_minute_call_still_needs_its_own_approval():
    # Section 3: the tool result lets the model repair 90 into 60 minutes; tech-ana approved 90, not 60.
    too_long = {**R7, "request_id": "r10", "duration_minutes": 90}
    repaired = {**too_long, "duration_minutes": 60}
    decision = decide(repaired, **ANA, approval=Approval("tech-ana", too_long), previous=None)
    assert decision.branch is Branch.NEEDS_APPROVAL
    assert decide(repaired, **ANA, approval=Approval("tech-ana", repaired), previous=None).branch is Branch.CREATE


def test_the_order_is_the_workshops_a_retry_without_its_approval_stops_before_the_stored_request():
    # The syllabus reads the store right after permission; here approval comes first, so the same r7 without
    # its approval is needs_approval even though r7 is stored, and with it the stored job comes back.
    stored = StoredRequest.settled(R7, "job-1")
    assert decide(R7, **ANA, approval=None, previous=stored).branch is Branch.NEEDS_APPROVAL
    again = decide(R7, **ANA, approval=Approval("tech-ana", R7), previous=stored)
    assert again.branch is Branch.REUSE and again.receipt is not None and again.receipt.job_id == "job-1"


# --- section 2: two scopes and the business rules (cell rules-05) ---------------------------------------------

from botie.lessons.content.business import load_booking_rules  # noqa: E402

RULES = load_booking_rules()


def _ruled(proposal, allowed, approval="same", previous=None):
    approval = Approval("tech-ana", proposal) if approval == "same" else approval
    return decide(
        proposal, caller="tech-ana", allowed_assets=allowed, approval=approval, previous=previous, **RULES.kwargs()
    )


@pytest.mark.parametrize("asset", ["P-2", "K-7", "P-1"])
def test_an_asset_the_caller_may_read_but_not_schedule_is_denied_for_booking(asset):
    """tech-ana reads P-2 and P-3 but schedules only P-3: the decision is handed the schedule scope alone."""
    proposal = {**R7, "asset_id": asset}
    assert _ruled(proposal, ["P-3"]).branch is Branch.DENIED
    assert _ruled({**R7, "asset_id": "P-3", "start": "2026-04-02T10:00Z"}, ["P-3"]).branch is Branch.CREATE


@pytest.mark.parametrize("made_up", ["P-998", "X-1", "P-999"])
def test_outside_the_scope_a_registered_asset_and_a_made_up_one_read_the_same(made_up):
    real = _ruled({**R7, "asset_id": "K-7"}, ["P-3"], approval=None)
    fake = _ruled({**R7, "asset_id": made_up}, ["P-3"], approval=None)
    assert real.branch is fake.branch is Branch.DENIED
    assert [(c.name, c.verdict) for c in real.checks] == [(c.name, c.verdict) for c in fake.checks]
    assert real.reason.replace("K-7", "?") == fake.reason.replace(made_up, "?")


@pytest.mark.parametrize(
    ("change", "branch"),
    [
        ({"asset_id": "P-999"}, Branch.UNKNOWN_ASSET),
        ({"start": "2026-04-02T10:00Z"}, Branch.WINDOW_UNAVAILABLE),  # over the booked 10:00-10:45
        ({"start": "2026-04-02T10:30Z", "duration_minutes": 15}, Branch.WINDOW_UNAVAILABLE),
        ({"start": "2026-04-02T13:00Z"}, Branch.WINDOW_UNAVAILABLE),  # after P-2's 09:00-12:00 window
        ({"start": "2026-04-02T10:45Z"}, Branch.CREATE),  # right after the booked visit
        ({"start": "2026-04-02T09:00Z", "duration_minutes": 60}, Branch.CREATE),  # ends as the booked visit starts
        ({"start": "2026-04-02T09:01Z", "duration_minutes": 60}, Branch.WINDOW_UNAVAILABLE),  # runs a minute into it
        ({"start": "2026-04-02T08:59Z"}, Branch.WINDOW_UNAVAILABLE),  # a minute before the window opens
    ],
)
def test_inside_the_scope_the_register_then_the_calendar_judge_a_new_booking(change, branch):
    assert _ruled({**R7, **change}, ["P-2", "P-3", "P-999"]).branch is branch


def test_the_retry_of_r7_reuses_job_1_though_the_calendar_now_holds_nine_for_it():
    """05a, 04-15: the stored request is read before the register and the calendar, which judge a new booking only."""
    from botie.lessons import load_booking_rules

    service = InspectionService(MemoryStore(), clock=nine_am, **load_booking_rules().kwargs())
    assert service.submit(R7, **ANA, approval=Approval("tech-ana", R7)).branch is Branch.CREATE
    r8 = {**R7, "request_id": "r8"}
    assert service.submit(r8, **ANA, approval=Approval("tech-ana", r8)).branch is Branch.WINDOW_UNAVAILABLE
    again = service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    assert again.branch is Branch.REUSE and again.receipt is not None and again.receipt.job_id == "job-1"
    path = again.explain()
    assert path.index("idempotency") < path.index("register") < path.index("calendar")
    said = " ".join(" ".join(cell.split()) for cell in _markdown("notebooks/instructor"))
    assert "what is stored under the request id is read before the register and the calendar" in said


def test_a_retry_of_r7_at_ten_reuses_job_1_though_the_calendar_shows_that_slot_taken():
    at_ten = {**R7, "start": "2026-04-02T10:00Z"}
    assert _ruled(at_ten, ["P-2"]).branch is Branch.WINDOW_UNAVAILABLE  # as a new booking it is refused
    again = _ruled(at_ten, ["P-2"], previous=StoredRequest.settled(at_ten, "job-1"))
    assert again.branch is Branch.REUSE and again.receipt.job_id == "job-1"
    moved = _ruled({**at_ten, "start": "2026-04-02T11:00Z"}, ["P-2"], previous=StoredRequest.settled(at_ten, "job-1"))
    assert moved.branch is Branch.CONFLICT  # a changed start under r7 is a conflict, whatever the calendar says


def test_the_panel_reaches_all_eight_branches_it_names():
    text = " ".join(_markdown("notebooks/instructor"))
    assert "Reach all eight" in text
    for branch in (
        "needs_approval",
        "create",
        "reuse",
        "conflict",
        "denied",
        "unknown_asset",
        "window_unavailable",
        "invalid",
    ):
        assert f"**{branch}**" in text
    from botie.lessons.ui import decision_panel

    def ticked(*widgets_and_values):
        """A move of the panel: set each widget's value, in order."""

        def move(panel):
            for widget, value in widgets_and_values:
                widget(panel).value = value

        return move

    seen = set()
    for move in (
        lambda p: None,
        ticked((lambda p: p.approved, True)),
        ticked((lambda p: p.approved, True), (lambda p: p.previous, "same")),
        ticked((lambda p: p.approved, True), (lambda p: p.previous, "different")),
        ticked((lambda p: p.approved, True), (lambda p: p.schedule["P-2"], False)),
        ticked((lambda p: p.approved, True), (lambda p: p.register["P-2"], False)),
        ticked((lambda p: p.approved, True), (lambda p: p.calendar, "taken")),
        ticked((lambda p: p.duration, 0)),
    ):
        panel = decision_panel(caller="tech-ana", allowed_assets=["P-2", "P-3"])
        move(panel)
        assert panel.decision is not None
        seen.add(str(panel.decision.branch))
    assert seen == {b.value for b in Branch} - {"in_progress", "unavailable"}


def test_the_tool_requires_four_arguments_and_start_is_utc_as_the_lesson_writes_it():
    from botie.actions.tool import INSPECTION_TOOL

    assert INSPECTION_TOOL["input_schema"]["required"] == ["asset_id", "duration_minutes", "start", "request_id"]
    assert validate_inspection(R7) == ()
    assert [e.field for e in validate_inspection({**R7, "start": "2026-04-02T09:00+01:00"})] == ["start"]


# --- the business rules are handed to every service and decision the lesson shows -----------------------


def _instructor_code() -> dict[str, str]:
    return {c["id"]: "".join(c["source"]) for c in _cells("notebooks/instructor") if c["cell_type"] == "code"}


def _hands_the_rules(call: Any) -> bool:
    import ast

    return any(
        k.arg is None and isinstance(k.value, ast.Call) and getattr(k.value.func, "attr", "") == "kwargs"
        for k in call.keywords
    )


def test_every_lesson_05_cell_that_books_hands_the_booking_rules():
    """04-03: the service checks the register and the calendar; so every cell that builds one or decides hands both."""
    import ast

    seen = []
    for cell_id, source in _instructor_code().items():
        lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
        for node in ast.walk(ast.parse("\n".join(lines))):
            name = getattr(getattr(node, "func", None), "id", None)
            if isinstance(node, ast.Call) and name in ("InspectionService", "decide"):
                seen.append(cell_id)
                assert _hands_the_rules(node), f"{cell_id}: {name}(...) without **rules.kwargs()"
    assert {"04-10", "rules-05", "04-14", "edf6f7c8", "04-22", "04-35"} <= set(seen)


@pytest.mark.parametrize("start", ["2026-04-02T09:00Z", "2026-04-02T09:10Z", "2026-04-02T09:19Z"])
def test_a_second_request_id_over_a_booked_visit_is_window_unavailable(start):
    """04-15/04-16: r8 over the slot r7 booked is refused by the calendar; r8 once r7's visit ends is a second job."""
    from botie.lessons import load_booking_rules

    service = InspectionService(MemoryStore(), clock=nine_am, **load_booking_rules().kwargs())
    assert service.submit(R7, **ANA, approval=Approval("tech-ana", R7)).branch is Branch.CREATE
    r8 = {**R7, "request_id": "r8", "start": start}
    refused = service.submit(r8, **ANA, approval=Approval("tech-ana", r8))
    assert refused.branch is Branch.WINDOW_UNAVAILABLE and len(service.store.jobs()) == 1
    later = {**r8, "start": "2026-04-02T09:30Z"}
    assert service.submit(later, **ANA, approval=Approval("tech-ana", later)).branch is Branch.CREATE


def test_the_repaired_call_needs_its_own_approval(capsys):
    """2154a04a: the lesson's own send() books the repaired 60 minutes only once tech-ana approves it."""
    from botie.lessons import load_booking_rules

    code = _instructor_code()
    space: dict[str, Any] = {
        "r7": R7,
        "nine_am": nine_am,
        "InspectionService": InspectionService,
        "MemoryStore": MemoryStore,
        "Approval": Approval,
        "load_booking_rules": load_booking_rules,
        "json": json,
    }
    exec(code["edf6f7c8"], space)
    exec(code["e80615d8"], space)
    out = capsys.readouterr().out
    assert "not approved yet: needs_approval" in out and "once tech-ana approves it: create" in out
    repaired = space["repaired"]
    unapproved = space["send"](repaired)()
    assert unapproved.branch is Branch.NEEDS_APPROVAL


# --- what a retry promises ------------------------------------------------------------------------


def _failing(times: int) -> Any:
    def scheduler(order: Any) -> str:
        scheduler.calls.append(order.idempotency_key)  # type: ignore[attr-defined]
        if len(scheduler.calls) <= times:  # type: ignore[attr-defined]
            raise ConnectionError("no answer")
        return f"ext-{len(scheduler.calls)}"  # type: ignore[attr-defined]

    scheduler.calls = []  # type: ignore[attr-defined]
    return scheduler


@pytest.mark.parametrize("limit", [1, 3, 5])
def test_after_the_retry_limit_the_tool_result_is_not_retryable(limit):
    """d9ae2a48: once the loop gives up, the model is told the booking is not confirmed, not to retry."""
    service = InspectionService(MemoryStore(), clock=nine_am, downstream=_failing(99))
    run = submit_with_retries(lambda: service.submit(R7, **ANA, approval=Approval("tech-ana", R7)), limit=limit)
    result = run.tool_result()
    assert result["status"] == "unavailable" and result["retryable"] is False and result["attempts"] == limit
    assert "retry" not in result["message"] and "not confirmed" in result["message"]


def test_the_same_key_books_once_only_if_the_scheduler_honours_it():
    """d9ae2a48: the key goes to the scheduler, which must honour it; one that ignores it books twice."""
    booked: list[str] = []

    def ignores_the_key(order: Any) -> str:
        booked.append(order.idempotency_key)
        if len(booked) == 1:
            raise ConnectionError("the reply was lost")
        return "ext-2"

    service = InspectionService(MemoryStore(), clock=nine_am, downstream=ignores_the_key)
    first = service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    assert "nothing is booked twice" not in first.reason and "honours" in first.reason
    service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    assert len(booked) == 2 and len(set(booked)) == 1 and len(service.store.jobs()) == 1
    said = next(m for m in _markdown("notebooks/instructor") if "Two branches are retryable" in m)
    assert "which books once" not in said and "must honour it" in said


def test_the_approval_first_order_is_named_the_workshops_where_it_is_first_taught():
    """04-01 and 04-09 teach approval before the stored request; both say the order is the workshop's."""
    cells = _markdown("notebooks/instructor")
    first = next(m for m in cells if "What you'll learn" in m)
    decision = next(m for m in cells if "## 2. The decision, one check at a time" in m)
    assert "workshop's" in first and "workshop's" in decision


# --- small truths: blank ids, a window across midnight ----------------------------------------------


@pytest.mark.parametrize("field", ["asset_id", "request_id"])
@pytest.mark.parametrize("blank", [" ", "\t", "   "])
def test_an_id_of_spaces_only_is_refused_naming_the_field(field, blank):
    (problem,) = validate_inspection({**R7, field: blank})
    assert problem.field == field and "only spaces" in problem.message


def test_a_window_message_across_midnight_names_the_end_date():
    from botie.lessons import load_booking_rules

    why = load_booking_rules().calendar.unavailable("P-2", dt.datetime(2026, 4, 2, 23, 50, tzinfo=dt.timezone.utc), 30)
    assert why is not None and "2026-04-02 23:50-2026-04-03 00:20 UTC" in why


@pytest.mark.parametrize("start", ["2026-03-20T08:59Z", "2019-01-01T03:00Z"])
def test_a_start_in_the_past_is_refused_as_in_the_past(start):
    """R1#18: the service's clock decides what is past; the reason says so, not that no window covers it."""
    from botie.lessons import load_booking_rules

    service = InspectionService(MemoryStore(), clock=nine_am, **load_booking_rules().kwargs())
    past = {**R7, "start": start}
    d = service.submit(past, **ANA, approval=Approval("tech-ana", past))
    assert d.branch is Branch.WINDOW_UNAVAILABLE and "is in the past" in d.reason and service.store.jobs() == ()
    assert service.submit(R7, **ANA, approval=Approval("tech-ana", R7)).branch is Branch.CREATE


def test_a_retry_that_moves_the_start_breaks_exactly_what_was_approved():
    """Lesson 05 design-05: the invariant holds the whole payload, the start as much as the asset and duration."""
    from botie.lessons.exercises.catalogue import run

    def later_start(proposal, result, attempts):
        if attempts >= 3 or (result is not None and not result["retryable"]):
            return None
        return {**proposal, "start": "2026-04-02T09:30Z"}

    report = run("next_request", later_start)
    assert not isinstance(report, str)
    failed = [r for r in report.results if not r.passed]
    assert failed and all(f"breaks '{lesson05.AS_APPROVED}': you changed start" in r.message for r in failed)
    assert "the whole payload unchanged, its start as much as its asset and duration" in " ".join(
        " ".join(cell.split()) for cell in _markdown("notebooks/instructor")
    )


@pytest.mark.parametrize("hours", [25, 48])
def test_after_its_retention_the_same_request_id_is_a_new_booking_refused_the_slot_its_own_job_fills(hours):
    """Lesson 05 (04-15): a day later r7 is a new booking, and job-1 holds its slot."""
    from botie.lessons import load_booking_rules

    now = [nine_am()]
    service = InspectionService(MemoryStore(), clock=lambda: now[0], **load_booking_rules().kwargs())
    assert service.submit(R7, **ANA, approval=Approval("tech-ana", R7)).branch is Branch.CREATE
    now[0] += DEFAULT_RETENTION - dt.timedelta(minutes=1)
    assert service.submit(R7, **ANA, approval=Approval("tech-ana", R7)).branch is Branch.REUSE
    now[0] = nine_am() + dt.timedelta(hours=hours)
    later = service.submit(R7, **ANA, approval=Approval("tech-ana", R7))
    assert later.branch is Branch.WINDOW_UNAVAILABLE and "overlaps a visit already booked on P-2" in later.reason
    assert "its key has expired, so this is a new request" in later.explain()
    said = " ".join(" ".join(cell.split()) for cell in _markdown("notebooks/instructor"))
    assert "after that the same id is a new booking" in said


# --- terms and pointers where they are first used -----------------------------------------------------


@pytest.mark.parametrize("part", PARTS)
def test_tool_result_is_explained_where_each_part_first_uses_it(part):
    """05a 04-15 (before 04-16 prints it) and 05b d9ae2a48: the term comes with what it is, the first time."""
    first = next(
        "".join(c["source"]) for c in _cells("notebooks/instructor", (part,)) if "tool result" in "".join(c["source"])
    )
    said = " ".join(first.split())
    at = said.index("tool result")
    assert "observation of what happened" in said[at : at + 120], said[at : at + 120]


def test_a_cell_pointing_at_the_business_rules_points_at_the_cell_that_shows_them():
    """05a 04-09 names where the register and calendar are shown; 04-10's comment does not send section 2 to itself."""
    cells = _cells("notebooks/instructor", (PARTS[0],))
    at = next(i for i, c in enumerate(cells) if "adds the business rules" in "".join(c["source"]).replace("\n", " "))
    said = " ".join("".join(cells[at]["source"]).split())
    step = 2 if "the cell after it adds the business rules" in said.lower() else 1
    shown = "".join(cells[at + step]["source"])
    assert "register" in shown and "decide(" in shown
    approvals = "".join(next(c for c in cells if c["id"] == "04-10")["source"])
    assert "section 2 shows" not in approvals and "next cell shows them at work" in approvals
