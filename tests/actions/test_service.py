"""InspectionService: at most one job per (caller, request id), every decision audited, honest retry advice."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import sqlite3
import threading
import time

import pytest

from botie.actions.decision import Approval, Branch, Check, CheckName, KeyState, Verdict
from botie.actions.service import DEFAULT_RETENTION, InspectionService, JobOrder, Recovery, RecoveryOutcome
from botie.actions.stores import AuditRecord, MemoryStore, SQLiteStore
from botie.errors import ClockError, StoreBusyError

ANA, BOB = "tech-ana", "tech-bob"
ALLOWED = ("P-2", "P-3")
P2 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
WAIT = 10  # seconds; only ever reached if something is broken, so no test can hang


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: dt.datetime = START) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        self.now += dt.timedelta(**kwargs)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def service(store, clock):
    return InspectionService(store, clock=clock)


def _with(**changes):
    return P2 | changes


def _path(decision):
    """Each check's name and verdict, in order: the shape of the path without its wording."""
    return [(str(c.name), str(c.verdict)) for c in decision.checks]


#: The path of a request that passed validation, permission and approval and was stopped at the store.
STOPPED_AT_THE_STORE = [
    ("validation", "passed"),
    ("permission", "passed"),
    ("approval", "passed"),
    ("idempotency", "failed"),
]


def submit(service, proposal=P2, *, caller=ANA, allowed=ALLOWED, approval="same"):
    if approval == "same":
        approval = Approval(caller, proposal)
    return service.submit(proposal, caller=caller, allowed_assets=allowed, approval=approval)


# --- the branches ------------------------------------------------------------------------


def test_create_returns_a_receipt_with_a_job_id(service):
    d = submit(service)
    assert d.branch is Branch.CREATE and d.ok and not d.retryable
    assert d.receipt.job_id == "job-1" and d.receipt.created_at == START
    assert [c.verdict for c in d.checks] == [Verdict.PASSED] * 4


def test_r7_again_with_the_same_payload_reuses_the_first_job(service, store):
    first = submit(service)
    for _ in range(3):
        again = submit(service)
        assert again.branch is Branch.REUSE
        assert again.receipt == first.receipt  # the same job id on every reuse
    assert len(store.jobs()) == 1


def test_r7_with_a_different_payload_is_a_conflict_and_the_old_job_is_intact(service, store):
    first = submit(service)
    d = submit(service, _with(duration_minutes=30))
    assert d.branch is Branch.CONFLICT and d.receipt is None and not d.retryable
    assert "duration_minutes=20 but the proposal says 30" in d.reason
    (job,) = store.jobs()
    assert (job.job_id, job.duration_minutes) == (first.receipt.job_id, 20)
    assert submit(service).receipt == first.receipt  # the original request still reuses its job


class _Told:
    """A calendar with room for every visit that writes down each booking it is told of (and each taken back)."""

    def __init__(self):
        self.told = []

    def unavailable(self, asset_id, start, minutes):
        return None

    def book(self, asset_id, start, minutes):
        self.told.append(("book", asset_id, start, minutes))

    def unbook(self, asset_id, start, minutes):
        self.told.append(("unbook", asset_id, start, minutes))


def _stored(store, caller, request_id):
    with store.transaction() as tx:
        return tx.lookup(caller, request_id)


@pytest.mark.parametrize("change", [{"duration_minutes": 30}, {"asset_id": "P-3"}, {"start": "2026-04-02T11:00Z"}])
def test_the_same_request_id_with_a_different_payload_is_a_conflict_through_the_service_and_the_first_request_stands(
    store, clock, change
):
    """Seed row 69, through the service and its store: the changed r7 books nothing (no job, no visit told to the
    calendar, no audit line with a job), and the store still holds r7's first payload and its job."""
    calendar = _Told()
    service = InspectionService(store, clock=clock, calendar=calendar)
    first = submit(service)
    before = _stored(store, ANA, "r7")
    clock.advance(minutes=5)
    d = submit(service, _with(**change))
    assert d.branch is Branch.CONFLICT and d.receipt is None, d.reason
    assert "the first request stands" in d.reason
    assert [j.job_id for j in store.jobs()] == [first.receipt.job_id]  # nothing new is booked
    assert calendar.told == [("book", "P-2", dt.datetime(2026, 4, 2, 9, 0, tzinfo=dt.timezone.utc), 20)]
    assert _stored(store, ANA, "r7") == before and dict(before.payload) == P2  # the first request stands
    assert store.audit_log()[-1].outcome == "conflict" and store.audit_log()[-1].job_id is None


def test_a_new_request_id_with_the_same_payload_is_a_second_legitimate_job(service, store):
    first = submit(service)
    second = submit(service, _with(request_id="r8"))
    assert second.branch is Branch.CREATE
    assert second.receipt.job_id != first.receipt.job_id
    assert len(store.jobs()) == 2


def test_the_same_request_id_from_two_callers_makes_two_jobs_and_neither_sees_the_other(service, store):
    ana = submit(service, caller=ANA)
    bob = submit(service, caller=BOB)
    assert (ana.branch, bob.branch) == (Branch.CREATE, Branch.CREATE)
    assert ana.receipt.job_id != bob.receipt.job_id
    assert submit(service, caller=BOB).receipt == bob.receipt
    assert submit(service, caller=ANA).receipt == ana.receipt
    # bob changing "his" r7 conflicts with his own request only; ana's job is never mentioned
    conflict = submit(service, _with(duration_minutes=45), caller=BOB)
    assert conflict.branch is Branch.CONFLICT and ana.receipt.job_id not in conflict.explain()
    assert {j.caller for j in store.jobs()} == {ANA, BOB}


@pytest.mark.parametrize(
    "approval",
    [None, Approval(BOB, P2), Approval(ANA, _with(duration_minutes=30)), Approval(ANA, _with(asset_id="P-3"))],
    ids=["none", "another-actor", "another-duration", "another-asset"],
)
def test_an_approval_for_something_else_needs_approval_and_books_nothing(service, store, approval):
    d = submit(service, approval=approval)
    assert d.branch is Branch.NEEDS_APPROVAL and d.receipt is None and not d.retryable
    assert store.jobs() == ()


def test_invalid_proposal_reports_repairable_fields_and_books_nothing(service, store):
    d = submit(service, _with(duration_minutes=20.0, admin=True), approval=None)
    assert d.branch is Branch.INVALID and not d.retryable
    assert [e.field for e in d.errors] == ["duration_minutes", "admin"]
    assert store.jobs() == ()


def test_denied_says_nothing_about_what_is_stored(service):
    """Permission is checked at execution time: a caller who lost access learns nothing about r7."""
    submit(service, allowed=["P-2"])
    d = submit(service, allowed=["P-3"])  # ana's permissions changed since r7 was booked
    assert d.branch is Branch.DENIED and d.receipt is None and not d.retryable
    assert "job-" not in d.explain()
    never_stored = InspectionService(MemoryStore()).submit(
        P2, caller=ANA, allowed_assets=["P-3"], approval=Approval(ANA, P2)
    )
    assert never_stored == d  # indistinguishable from "there is no r7 at all"


class SpyStore:
    """A store that records every Transaction method the service calls."""

    def __init__(self) -> None:
        self.inner = MemoryStore()
        self.calls: list[str] = []

    @contextlib.contextmanager
    def transaction(self):
        with self.inner.transaction() as tx:
            yield Spy(tx, self.calls)


class Spy:
    def __init__(self, tx, calls):
        self._tx, self._calls = tx, calls

    def __getattr__(self, name):
        self._calls.append(name)
        return getattr(self._tx, name)


@pytest.mark.parametrize(
    ("proposal", "allowed", "approval", "branch"),
    [
        (_with(asset_id="K-7"), ALLOWED, "same", Branch.DENIED),
        (P2, ALLOWED, None, Branch.NEEDS_APPROVAL),
        (_with(duration_minutes=True), ALLOWED, None, Branch.INVALID),
    ],
)
def test_refusals_never_read_the_store_only_audit(proposal, allowed, approval, branch):
    spy = SpyStore()
    d = submit(InspectionService(spy), proposal, allowed=allowed, approval=approval)
    assert d.branch is branch
    assert spy.calls == ["audit"]


def test_a_refusal_without_a_readable_request_id_is_audited_without_one(service, store):
    """Only a str request id reaches the audit: not a list's contents, not a number."""
    assert submit(service, ["r7"], approval=None).branch is Branch.INVALID  # not an object at all
    assert submit(service, _with(request_id=42), approval=None).branch is Branch.INVALID
    assert [(r.request_id, r.outcome) for r in store.audit_log()] == [(None, "invalid"), (None, "invalid")]


def test_a_permitted_approved_request_reads_then_writes():
    spy = SpyStore()
    submit(InspectionService(spy))
    assert spy.calls == ["lookup", "create", "audit"]


def test_a_bare_string_allowed_list_is_a_type_error(service):
    with pytest.raises(TypeError):
        submit(service, allowed="P-2")


# --- retention and the clock -----------------------------------------------------------------


def test_default_retention_is_24_hours(store):
    assert InspectionService(store).retention == DEFAULT_RETENTION == dt.timedelta(hours=24)


def test_a_key_within_retention_reuses_and_an_expired_key_creates(service, store, clock):
    first = submit(service)
    clock.advance(hours=23, minutes=59)
    assert submit(service).branch is Branch.REUSE
    clock.advance(minutes=1)  # exactly 24 hours after the key was stored: it has expired
    fresh = submit(service)
    assert fresh.branch is Branch.CREATE and fresh.receipt.job_id != first.receipt.job_id
    assert "expired" in fresh.reason
    assert submit(service).receipt == fresh.receipt  # and the new key is remembered from now
    assert len(store.jobs()) == 2 and store.integrity_problems() == []


def test_an_expired_key_says_in_utc_when_it_was_last_used_and_passes_every_check(service, clock, machine_in_tokyo):
    submit(service)
    clock.advance(hours=24)
    fresh = submit(service)
    assert _path(fresh) == [(name, "passed") for name in ("validation", "permission", "approval", "idempotency")]
    assert fresh.reason == (
        "r7 was last used at 2026-03-02 09:00 UTC, beyond the 1 day, 0:00:00 retention: "
        "its key has expired, so this is a new request"
    )


def test_an_expired_key_with_a_different_payload_is_a_new_request_not_a_conflict(service, clock):
    submit(service)
    clock.advance(hours=25)
    assert submit(service, _with(duration_minutes=45)).branch is Branch.CREATE


def test_retention_is_configurable(store, clock):
    service = InspectionService(store, clock=clock, retention=dt.timedelta(minutes=10))
    submit(service)
    clock.advance(minutes=10)
    assert submit(service).branch is Branch.CREATE


def test_default_clock_is_aware_utc(store):
    d = submit(InspectionService(store))
    assert d.receipt.created_at.utcoffset() == dt.timedelta(0)


@pytest.mark.parametrize("value", [dt.datetime(2026, 3, 2, 9, 0), "2026-03-02T09:00Z", 1772442000])
def test_a_clock_that_returns_a_naive_or_non_datetime_is_an_error(store, value):
    service = InspectionService(store, clock=lambda: value)
    with pytest.raises(ClockError) as info:
        submit(service)
    assert info.value.field == "clock"
    assert str(info.value) == f"the clock must return a datetime with a time zone, got {value!r}"


def test_a_clock_that_is_not_callable_is_an_error(store):
    with pytest.raises(ClockError):
        InspectionService(store, clock=START)


@pytest.mark.parametrize("retention", [dt.timedelta(0), dt.timedelta(hours=-1), 86400, "24h"])
def test_retention_must_be_a_positive_timedelta(store, retention):
    with pytest.raises(ClockError) as info:
        InspectionService(store, retention=retention)
    assert info.value.field == "retention"
    assert str(info.value) == f"retention must be a timedelta of more than zero, got {retention!r}"


def test_a_clock_in_another_time_zone_is_fine(store):
    tokyo = dt.timezone(dt.timedelta(hours=9))
    clock = Clock(START.astimezone(tokyo))
    service = InspectionService(store, clock=clock)
    first = submit(service)
    clock.advance(hours=24)
    assert submit(service).receipt.job_id != first.receipt.job_id


# --- the audit trail ------------------------------------------------------------------------


def test_every_decision_is_audited_with_who_what_when_and_nothing_else(service, store, clock):
    submit(service)  # create
    clock.advance(seconds=1)
    submit(service)  # reuse
    submit(service, _with(duration_minutes=30))  # conflict
    submit(service, _with(asset_id="K-7"))  # denied
    submit(service, approval=None)  # needs approval
    submit(service, {"asset_id": "P-2"}, approval=None)  # invalid, no request id at all
    log = store.audit_log()
    assert [(r.caller, r.request_id, r.outcome, r.job_id) for r in log] == [
        (ANA, "r7", "create", "job-1"),
        (ANA, "r7", "reuse", "job-1"),
        (ANA, "r7", "conflict", None),
        (ANA, "r7", "denied", None),
        (ANA, "r7", "needs_approval", None),
        (ANA, None, "invalid", None),
    ]
    assert [r.at for r in log[:2]] == [START, START + dt.timedelta(seconds=1)]
    assert [f.name for f in dataclasses.fields(AuditRecord)] == ["at", "caller", "request_id", "outcome", "job_id"]


# --- busy stores: bounded retry --------------------------------------------------------------


class FlakyStore:
    """Raises StoreBusyError for the first ``failures`` transactions, and for every one while ``locked``."""

    def __init__(self, failures: int = 0) -> None:
        self.inner = MemoryStore()
        self.failures = failures
        self.locked = False
        self.attempts = 0

    @contextlib.contextmanager
    def transaction(self):
        self.attempts += 1
        if self.attempts <= self.failures or self.locked:
            raise StoreBusyError("database is locked", field="store")
        with self.inner.transaction() as tx:
            yield tx


def test_a_busy_store_is_retried_and_then_succeeds():
    store = FlakyStore(failures=2)
    d = submit(InspectionService(store, attempts=3, backoff=0.001))
    assert d.branch is Branch.CREATE and store.attempts == 3


def test_a_store_that_stays_busy_is_unavailable_after_a_bounded_number_of_attempts(monkeypatch):
    """The pause doubles from ``backoff`` between attempts, and there is none after the last one."""
    pauses: list[float] = []
    monkeypatch.setattr(time, "sleep", pauses.append)
    store = FlakyStore(failures=10**6)
    d = submit(InspectionService(store, attempts=4, backoff=0.5))
    assert d.branch is Branch.UNAVAILABLE and d.retryable and d.receipt is None and d.errors == ()
    assert store.attempts == 4 and pauses == [0.5, 1.0, 2.0]
    assert _path(d) == STOPPED_AT_THE_STORE
    assert d.reason == (
        "the store stayed busy through 4 attempts, so nothing was written; retry later with the same request id"
    )


def test_a_refusal_stands_even_when_its_audit_cannot_be_written(caplog):
    d = submit(InspectionService(FlakyStore(failures=10**6), attempts=2, backoff=0.001), approval=None)
    assert d.branch is Branch.NEEDS_APPROVAL
    assert caplog.messages == ["audit record lost (store busy): needs_approval r7 by tech-ana"]


def test_a_real_sqlite_lock_gives_unavailable_then_the_retry_creates(tmp_path):
    path = tmp_path / "botie.db"
    with SQLiteStore(path, timeout=0.02) as store:
        service = InspectionService(store, attempts=3, backoff=0.001)
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            busy = submit(service)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert busy.branch is Branch.UNAVAILABLE and busy.retryable
        assert store.jobs() == ()
        assert submit(service).branch is Branch.CREATE


# --- an external downstream: reserve, call, complete -------------------------------------------


class Scheduler:
    """A fake scheduling service that honours idempotency keys, as the protocol requires."""

    def __init__(self) -> None:
        self.bookings: dict[str, str] = {}
        self.calls: list[JobOrder] = []
        self.fail_next = 0
        self.crash_after_booking = False
        self.entered = threading.Event()
        self.release: threading.Event | None = None

    def __call__(self, order: JobOrder) -> str:
        self.calls.append(order)
        self.entered.set()
        first = len(self.calls) == 1
        if first and self.release is not None and not self.release.wait(WAIT):  # only the first call hangs
            raise TimeoutError("scheduler hung")
        if self.fail_next:
            self.fail_next -= 1
            raise ConnectionError("scheduler unreachable")
        ref = self.bookings.setdefault(order.idempotency_key, f"ext-{len(self.bookings) + 1}")
        if self.crash_after_booking:
            raise Crash  # the process dies after the booking, before the receipt
        return ref


class Crash(BaseException):
    """Stands in for the process dying: not an Exception, so nothing catches it."""


@pytest.fixture
def scheduler():
    return Scheduler()


@pytest.fixture
def booking(store, clock, scheduler):
    return InspectionService(store, clock=clock, downstream=scheduler)


def _order_fields(order):
    """A JobOrder without its idempotency key, which is random."""
    return (order.caller, order.request_id, order.asset_id, order.duration_minutes)


def _audit_rows(store):
    return [(r.caller, r.request_id, r.outcome, r.job_id) for r in store.audit_log()]


def test_downstream_create_then_reuse_calls_the_scheduler_once(booking, store, scheduler):
    d = submit(booking)
    assert d.branch is Branch.CREATE and d.receipt.external_ref == "ext-1"
    assert submit(booking).receipt == d.receipt
    assert [_order_fields(o) for o in scheduler.calls] == [(ANA, "r7", "P-2", 20)]
    assert _audit_rows(store) == [(ANA, "r7", "create", "job-1"), (ANA, "r7", "reuse", "job-1")]


def test_a_failing_downstream_is_unavailable_and_the_retry_uses_the_same_key(booking, store, scheduler):
    scheduler.fail_next = 1
    failed = submit(booking)
    assert failed.branch is Branch.UNAVAILABLE and failed.retryable and failed.receipt is None
    assert _path(failed) == STOPPED_AT_THE_STORE
    assert "ConnectionError" in failed.reason and "unreachable" not in failed.reason
    with store.transaction() as tx:
        assert tx.lookup(ANA, "r7").state is KeyState.FAILED
    retried = submit(booking)
    assert retried.branch is Branch.CREATE
    assert scheduler.calls[0].idempotency_key == scheduler.calls[1].idempotency_key
    assert len(scheduler.bookings) == 1 and len(store.jobs()) == 1
    assert _audit_rows(store) == [(ANA, "r7", "unavailable", None), (ANA, "r7", "create", "job-1")]


def test_a_failed_key_still_conflicts_with_a_different_payload(booking, scheduler):
    scheduler.fail_next = 1
    submit(booking)
    assert submit(booking, _with(duration_minutes=45)).branch is Branch.CONFLICT


@pytest.mark.parametrize("nonsense", [None, "", 42])
def test_a_downstream_that_returns_nonsense_counts_as_a_failure(store, clock, nonsense):
    """A booking id is a non-empty str: None, the empty text and a number are all refused."""
    service = InspectionService(store, clock=clock, downstream=lambda order: nonsense)
    d = submit(service)
    assert d.branch is Branch.UNAVAILABLE and "TypeError" in d.reason
    assert store.jobs() == ()


def test_a_hanging_downstream_makes_the_same_key_in_progress_until_it_answers(booking, store, scheduler):
    scheduler.release = threading.Event()
    results = []
    worker = threading.Thread(target=lambda: results.append(submit(booking)))
    worker.start()
    try:
        assert scheduler.entered.wait(WAIT)
        waiting = submit(booking)
        assert waiting.branch is Branch.IN_PROGRESS and waiting.retryable and waiting.receipt is None
        assert submit(booking, _with(duration_minutes=45)).branch is Branch.CONFLICT
    finally:
        scheduler.release.set()
        worker.join(WAIT)
    assert not worker.is_alive()
    assert results[0].branch is Branch.CREATE
    assert submit(booking).receipt == results[0].receipt
    assert len(scheduler.calls) == 1


def test_recover_completes_a_reservation_left_by_a_crash(booking, store, scheduler, clock):
    scheduler.crash_after_booking = True
    with pytest.raises(Crash):
        submit(booking)
    scheduler.crash_after_booking = False
    assert submit(booking).branch is Branch.IN_PROGRESS  # the key is held; nobody books it again
    assert booking.recover(older_than=dt.timedelta(minutes=5)) == ()  # too recent to be declared dead
    clock.advance(minutes=6)
    (settled,) = booking.recover(older_than=dt.timedelta(minutes=5))
    assert settled == Recovery(ANA, "r7", RecoveryOutcome.COMPLETED, "job-1")
    assert scheduler.calls[1] == scheduler.calls[0]  # the very same order, key included
    assert store.audit_log()[-1] == AuditRecord(clock.now, ANA, "r7", "recovery_completed", "job-1")
    d = submit(booking)
    assert d.branch is Branch.REUSE and d.receipt.external_ref == "ext-1"
    assert len(scheduler.bookings) == 1  # the crashed attempt's booking came back; none was added
    assert store.integrity_problems() == []
    assert "recovery_completed" in [a.outcome for a in store.audit_log()]


def test_a_pending_key_never_expires_however_old(booking, store, scheduler, clock):
    """Only settled keys expire: forgetting a pending one would book the inspection twice downstream."""
    scheduler.crash_after_booking = True
    with pytest.raises(Crash):
        submit(booking)
    scheduler.crash_after_booking = False
    clock.advance(hours=25)  # beyond the 24-hour retention
    d = submit(booking)
    assert d.branch is Branch.IN_PROGRESS and d.receipt is None
    assert len(scheduler.calls) == 1 and len(store.jobs()) == 0
    with store.transaction() as tx:
        assert tx.lookup(ANA, "r7").state is KeyState.PENDING


def test_a_failed_key_never_expires_and_its_retry_reuses_the_token(booking, store, scheduler, clock):
    """A failed attempt's outcome downstream is unknown, so even a day later the retry sends the same key."""
    scheduler.fail_next = 1
    assert submit(booking).branch is Branch.UNAVAILABLE
    clock.advance(hours=25)
    retried = submit(booking)
    assert retried.branch is Branch.CREATE and "expired" not in retried.reason
    assert scheduler.calls[0].idempotency_key == scheduler.calls[1].idempotency_key


def test_recover_without_retry_marks_failed_and_the_callers_retry_books(booking, store, scheduler, clock):
    scheduler.crash_after_booking = True
    with pytest.raises(Crash):
        submit(booking)
    scheduler.crash_after_booking = False
    (marked,) = booking.recover(older_than=dt.timedelta(0), retry=False)
    assert marked.outcome is RecoveryOutcome.MARKED_FAILED and marked.job_id is None
    d = submit(booking)
    assert d.branch is Branch.CREATE and d.receipt.external_ref == "ext-1"
    assert len(scheduler.bookings) == 1


def test_recover_reports_a_downstream_that_still_fails(booking, store, scheduler):
    scheduler.fail_next = 2
    submit(booking)  # fails: the key is marked failed
    (again,) = booking.recover(older_than=dt.timedelta(0))
    assert again.outcome is RecoveryOutcome.FAILED
    with store.transaction() as tx:
        assert tx.lookup(ANA, "r7").state is KeyState.FAILED
    assert submit(booking).branch is Branch.CREATE


def test_recovery_racing_a_slow_original_attempt_settles_the_key_once(booking, store, scheduler):
    """Recovery repeats the call while the original still hangs; whoever records second reuses the job."""
    scheduler.release = threading.Event()
    results = []
    worker = threading.Thread(target=lambda: results.append(submit(booking)))
    worker.start()
    try:
        assert scheduler.entered.wait(WAIT)
        (settled,) = booking.recover(older_than=dt.timedelta(0))  # the original is still waiting
    finally:
        scheduler.release.set()
        worker.join(WAIT)
    assert not worker.is_alive()
    assert settled.outcome is RecoveryOutcome.COMPLETED
    (original,) = results
    assert original.branch is Branch.REUSE and original.receipt.job_id == settled.job_id
    assert "recovery recorded" in original.reason
    assert len(store.jobs()) == 1 and len(scheduler.bookings) == 1 and len(scheduler.calls) == 2


@pytest.mark.parametrize("older_than", [dt.timedelta(minutes=-1), 60])
def test_recover_needs_a_non_negative_timedelta(booking, older_than):
    with pytest.raises(ClockError) as info:
        booking.recover(older_than=older_than)
    assert info.value.field == "older_than"
    assert str(info.value) == f"older_than must be a timedelta of zero or more, got {older_than!r}"


def test_a_failed_reservation_is_replaced_when_the_service_books_locally(store, clock, scheduler):
    scheduler.fail_next = 1
    submit(InspectionService(store, clock=clock, downstream=scheduler))
    local = InspectionService(store, clock=clock)
    d = submit(local)
    assert d.branch is Branch.CREATE and d.receipt.external_ref is None
    assert submit(local).branch is Branch.REUSE and store.integrity_problems() == []


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"store": object()}, "store"),
        ({"downstream": "not callable"}, "downstream"),
        ({"attempts": 0}, "attempts"),
        ({"attempts": True}, "attempts"),
    ],
)
def test_a_misconfigured_service_raises_a_setting_error_naming_the_field(options, field):
    from botie.actions.stores import MemoryStore
    from botie.errors import InputError

    options = dict(options)  # a copy: popping from the parametrized dict would change a rerun (mutmut reruns)
    store = options.pop("store", MemoryStore())
    with pytest.raises(InputError) as caught:
        InspectionService(store, **options)
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("options", "error", "field", "message"),
    [
        ({"store": 7}, "SettingError", "store", "store must offer transaction() (a MemoryStore or SQLiteStore), got 7"),
        (
            {"clock": "noon"},
            "ClockError",
            "clock",
            "clock must be a zero-argument callable returning a datetime, got 'noon'",
        ),
        ({"downstream": 3}, "SettingError", "downstream", "downstream must be callable, got 3"),
        ({"attempts": 0}, "SettingError", "attempts", "attempts must be a whole number (an int >= 1), got 0"),
    ],
)
def test_each_misconfiguration_says_what_it_got_in_its_own_words(options, error, field, message):
    from botie import errors
    from botie.actions.stores import MemoryStore

    options = dict(options)
    store = options.pop("store", MemoryStore())
    with pytest.raises(getattr(errors, error)) as caught:
        InspectionService(store, **options)
    assert (str(caught.value), caught.value.field) == (message, field)


def test_by_default_a_busy_store_is_tried_four_times_starting_with_a_10_ms_pause():
    from botie.actions.stores import MemoryStore

    service = InspectionService(MemoryStore())
    assert (service.attempts, service.backoff) == (4, 0.01)


# --- what happens between the downstream call and the receipt ------------------------------------


def _complete_elsewhere(store, order, now):
    """Another worker (recovery, or the original attempt) completes this very reservation first."""
    with store.transaction() as tx:
        tx.complete(order.caller, order.request_id, order.idempotency_key, "ext-1", now)


def test_a_key_recovery_completes_during_the_call_is_reused_with_recoverys_job(store, clock):
    def downstream(order):
        _complete_elsewhere(store, order, clock())
        return "ext-1"

    d = submit(InspectionService(store, clock=clock, downstream=downstream))
    assert d.branch is Branch.REUSE and d.receipt.job_id == "job-1"
    reason = "recovery recorded job-1 for this key while the booking was confirmed: returning job-1"
    assert d.checks[-1] == Check(CheckName.IDEMPOTENCY, Verdict.PASSED, reason)
    assert len(store.jobs()) == 1 and _audit_rows(store) == [(ANA, "r7", "reuse", "job-1")]


def test_a_key_dropped_during_the_call_is_unavailable_not_a_second_job(store, clock):
    def downstream(order):
        with store.transaction() as tx:
            tx.forget(order.caller, order.request_id)
        return "ext-1"

    d = submit(InspectionService(store, clock=clock, downstream=downstream))
    assert d.branch is Branch.UNAVAILABLE and d.retryable and d.receipt is None
    assert _path(d) == STOPPED_AT_THE_STORE
    assert d.reason == "this key was settled elsewhere while the booking was confirmed; retry with the same request id"
    assert store.jobs() == () and _audit_rows(store) == [(ANA, "r7", "unavailable", None)]


def test_a_booking_the_store_is_too_busy_to_record_is_in_progress_until_recovery_completes_it(clock):
    store = FlakyStore()
    calls = []

    def downstream(order):
        calls.append(order)
        if len(calls) == 1:
            store.locked = True  # another writer holds the database while the booking is confirmed
        return "ext-1"

    service = InspectionService(store, clock=clock, downstream=downstream, attempts=3, backoff=0)
    d = submit(service)
    assert d.branch is Branch.IN_PROGRESS and d.retryable and d.receipt is None and d.errors == ()
    assert _path(d) == STOPPED_AT_THE_STORE
    assert d.reason == (
        "the booking was made but the store was too busy to record it; ask again with the same request id shortly"
    )
    assert store.attempts == 1 + 3  # the reservation, then three tries to record the booking
    store.locked = False
    assert service.recover(older_than=dt.timedelta(0)) == (Recovery(ANA, "r7", RecoveryOutcome.COMPLETED, "job-1"),)
    assert calls[1] == calls[0] and submit(service).branch is Branch.REUSE


def test_a_failure_the_store_is_too_busy_to_record_is_logged_for_recovery(clock, caplog):
    store = FlakyStore()

    def downstream(order):
        store.locked = True
        raise ConnectionError("scheduler unreachable")

    d = submit(InspectionService(store, clock=clock, downstream=downstream, attempts=2, backoff=0))
    assert d.branch is Branch.UNAVAILABLE
    assert caplog.messages == ["could not record unavailable for tech-ana/r7 (store busy); recover() will settle it"]


def test_recovery_that_finds_the_original_attempt_finished_first_reports_already_settled(store, clock):
    calls = []

    def downstream(order):
        calls.append(order)
        if len(calls) == 1:
            raise Crash
        _complete_elsewhere(store, order, clock())  # the original attempt was alive after all
        return "ext-1"

    service = InspectionService(store, clock=clock, downstream=downstream)
    with pytest.raises(Crash):
        submit(service)
    assert service.recover(older_than=dt.timedelta(0)) == (Recovery(ANA, "r7", RecoveryOutcome.ALREADY_SETTLED, None),)
    assert store.audit_log() == (AuditRecord(START, ANA, "r7", "recovery_already_settled", None),)
    assert len(store.jobs()) == 1


# The SHA-256 of P2's canonical text:
# '{"asset_id":"P-2","duration_minutes":20,"request_id":"r7","start":"2026-04-02T09:00Z"}'.
P2_FINGERPRINT = "719dc72796bd6888b29fa9228a7801582c105e284b86ab3b51ce0e7bc1d8a73d"


@pytest.mark.parametrize("downstream", [None, lambda order: "ext-1"], ids=["local", "downstream"])
def test_the_key_and_the_receipt_keep_the_payloads_fingerprint(tmp_path, clock, downstream):
    """An auditor reading the database can tell which payload created each job."""
    with SQLiteStore(tmp_path / "botie.db") as store:
        assert submit(InspectionService(store, clock=clock, downstream=downstream)).branch is Branch.CREATE
    raw = sqlite3.connect(tmp_path / "botie.db")
    rows = [raw.execute(f"SELECT fingerprint FROM {table}").fetchall() for table in ("receipts", "idempotency_keys")]
    raw.close()
    assert rows == [[(P2_FINGERPRINT,)], [(P2_FINGERPRINT,)]]


def test_the_service_applies_its_approval_policy_to_every_request(store, clock):
    """A supervisor the policy names may approve for tech-ana; without the policy the same approval books nothing."""
    strict = InspectionService(store, clock=clock)
    assert submit(strict, approval=Approval("sup-lee", P2)).branch is Branch.NEEDS_APPROVAL
    assert store.jobs() == ()
    policy = InspectionService(store, clock=clock, approvers={ANA: ["sup-lee"]})
    d = submit(policy, approval=Approval("sup-lee", P2))
    assert d.branch is Branch.CREATE and d.receipt is not None
    assert "sup-lee approved exactly this payload for tech-ana" in d.explain()


def test_a_key_belongs_to_one_caller_and_lasts_the_retention_period_from_its_own_first_use(service, store, clock):
    """Scope and retention together: bob's r7, stored twelve hours after ana's, neither reuses her job nor
    shares her expiry; each key expires 24 hours after it was stored, on its own clock."""
    ana = submit(service, caller=ANA)
    clock.advance(hours=12)
    bob = submit(service, caller=BOB)
    assert (ana.branch, bob.branch) == (Branch.CREATE, Branch.CREATE)
    assert bob.receipt.job_id != ana.receipt.job_id
    clock.advance(hours=11, minutes=59)  # 23:59 after ana's, 11:59 after bob's: both still kept
    assert submit(service, caller=ANA).receipt == ana.receipt
    assert submit(service, caller=BOB).receipt == bob.receipt
    clock.advance(minutes=1)  # ana's key is exactly 24 hours old; bob's is 12
    ana_again = submit(service, caller=ANA)
    assert ana_again.branch is Branch.CREATE and "expired" in ana_again.reason
    assert submit(service, caller=BOB).receipt == bob.receipt
    clock.advance(hours=12)  # now bob's is 24 hours old too
    bob_again = submit(service, caller=BOB)
    assert bob_again.branch is Branch.CREATE
    assert bob_again.receipt.job_id not in {ana.receipt.job_id, bob.receipt.job_id, ana_again.receipt.job_id}
    assert submit(service, caller=ANA).receipt == ana_again.receipt  # ana's new key, 12 hours old, is kept
    assert len(store.jobs()) == 4
