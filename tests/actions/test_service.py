"""InspectionService: at most one job per (caller, request id), every decision audited, honest retry advice."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import sqlite3
import threading

import pytest

from botie.actions.decision import Approval, Branch, CheckName, KeyState, Verdict
from botie.actions.service import DEFAULT_RETENTION, InspectionService, JobOrder, RecoveryOutcome
from botie.actions.stores import AuditRecord, MemoryStore, SQLiteStore
from botie.errors import ClockError, StoreBusyError

ANA, BOB = "tech-ana", "tech-bob"
ALLOWED = ("P-2", "P-3")
P2 = {"asset_id": "P-2", "duration_minutes": 20, "request_id": "r7"}
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
        P2, caller=ANA, allowed_assets=["P-3"], approval=Approval(ANA, P2))
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


def test_a_clock_that_is_not_callable_is_an_error(store):
    with pytest.raises(ClockError):
        InspectionService(store, clock=START)


@pytest.mark.parametrize("retention", [dt.timedelta(0), dt.timedelta(hours=-1), 86400, "24h"])
def test_retention_must_be_a_positive_timedelta(store, retention):
    with pytest.raises(ClockError) as info:
        InspectionService(store, retention=retention)
    assert info.value.field == "retention"


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
    """Raises StoreBusyError for the first ``failures`` transactions, then behaves."""

    def __init__(self, failures: int) -> None:
        self.inner = MemoryStore()
        self.failures = failures
        self.attempts = 0

    @contextlib.contextmanager
    def transaction(self):
        self.attempts += 1
        if self.attempts <= self.failures:
            raise StoreBusyError("database is locked", field="store")
        with self.inner.transaction() as tx:
            yield tx


def test_a_busy_store_is_retried_and_then_succeeds():
    store = FlakyStore(failures=2)
    d = submit(InspectionService(store, attempts=3, backoff=0.001))
    assert d.branch is Branch.CREATE and store.attempts == 3


def test_a_store_that_stays_busy_is_unavailable_after_a_bounded_number_of_attempts():
    store = FlakyStore(failures=10**6)
    d = submit(InspectionService(store, attempts=4, backoff=0.001))
    assert d.branch is Branch.UNAVAILABLE and d.retryable and d.receipt is None
    assert store.attempts == 4
    assert d.checks[-1].name is CheckName.IDEMPOTENCY and "4 attempts" in d.reason


def test_a_refusal_stands_even_when_its_audit_cannot_be_written(caplog):
    d = submit(InspectionService(FlakyStore(failures=10**6), attempts=2, backoff=0.001), approval=None)
    assert d.branch is Branch.NEEDS_APPROVAL
    assert "audit record lost" in caplog.text


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


def test_downstream_create_then_reuse_calls_the_scheduler_once(booking, store, scheduler):
    d = submit(booking)
    assert d.branch is Branch.CREATE and d.receipt.external_ref == "ext-1"
    assert submit(booking).receipt == d.receipt
    assert len(scheduler.calls) == 1 and scheduler.calls[0].request_id == "r7"
    assert [a.outcome for a in store.audit_log()] == ["create", "reuse"]


def test_a_failing_downstream_is_unavailable_and_the_retry_uses_the_same_key(booking, store, scheduler):
    scheduler.fail_next = 1
    failed = submit(booking)
    assert failed.branch is Branch.UNAVAILABLE and failed.retryable and failed.receipt is None
    assert "ConnectionError" in failed.reason and "unreachable" not in failed.reason
    with store.transaction() as tx:
        assert tx.lookup(ANA, "r7").state is KeyState.FAILED
    retried = submit(booking)
    assert retried.branch is Branch.CREATE
    assert scheduler.calls[0].idempotency_key == scheduler.calls[1].idempotency_key
    assert len(scheduler.bookings) == 1 and len(store.jobs()) == 1


def test_a_failed_key_still_conflicts_with_a_different_payload(booking, scheduler):
    scheduler.fail_next = 1
    submit(booking)
    assert submit(booking, _with(duration_minutes=45)).branch is Branch.CONFLICT


def test_a_downstream_that_returns_nonsense_counts_as_a_failure(store, clock):
    service = InspectionService(store, clock=clock, downstream=lambda order: None)
    d = submit(service)
    assert d.branch is Branch.UNAVAILABLE and "TypeError" in d.reason


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
    assert settled.outcome is RecoveryOutcome.COMPLETED and settled.job_id == "job-1"
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
    with pytest.raises(ClockError):
        booking.recover(older_than=older_than)


def test_a_failed_reservation_is_replaced_when_the_service_books_locally(store, clock, scheduler):
    scheduler.fail_next = 1
    submit(InspectionService(store, clock=clock, downstream=scheduler))
    local = InspectionService(store, clock=clock)
    d = submit(local)
    assert d.branch is Branch.CREATE and d.receipt.external_ref is None
    assert submit(local).branch is Branch.REUSE and store.integrity_problems() == []


@pytest.mark.parametrize(
    ("options", "field"),
    [({"store": object()}, "store"), ({"downstream": "not callable"}, "downstream"), ({"attempts": 0}, "attempts"),
     ({"attempts": True}, "attempts")],
)
def test_a_misconfigured_service_raises_a_setting_error_naming_the_field(options, field):
    from botie.actions.stores import MemoryStore
    from botie.errors import InputError

    options = dict(options)  # a copy: popping from the parametrized dict would change a rerun (mutmut reruns)
    store = options.pop("store", MemoryStore())
    with pytest.raises(InputError) as caught:
        InspectionService(store, **options)
    assert caught.value.field == field
