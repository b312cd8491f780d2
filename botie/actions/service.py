"""The inspection service: turn a decision into at most one job, however often the request arrives.

:func:`botie.actions.decision.decide` says which branch a supplied state should take.
:class:`InspectionService` supplies the state and acts on the answer:

* It screens first (:func:`~botie.actions.decision.screen`), without touching
  the store: a malformed, refused or unapproved proposal never reads anything
  stored, so it cannot leak it.
* Business rules (``asset_register``, ``calendar``: see :mod:`botie.actions.rules`)
  are checked inside the transaction, after the stored request: a retry of
  a booking already made reuses it, a retry of an attempt whose outcome is
  unknown tries again under its key, and only a new booking must name an
  asset in the register and fit a free maintenance window.
* Then, in one store transaction, it looks up the key (caller, request id),
  decides with what is stored (the one call to :func:`decide`; an expired key
  is handed over as an :class:`~botie.actions.decision.ExpiredKey`), and either creates the job together
  with its receipt, or returns the earlier receipt, or reports a conflict.
  Keys are scoped to the caller: two callers may both use ``r7``.
* Keys expire after ``retention`` (default 24 hours, the window Stripe
  documents for its idempotency keys). After that, the same request id is a
  new request. Only settled keys expire; a pending one waits for recovery.
* Every decision leaves an audit record: who, which branch, when, and the job
  id when the caller was entitled to see it. No payloads, no reasons.
* A busy database is retried a bounded number of times, then reported as
  ``unavailable`` (retryable). Nothing else is retried: a malformed, denied
  or conflicting request would only get the same answer again.

When creating the job means calling another service (``downstream``), one
transaction cannot cover both sides, and a crash can fall between the call
and the receipt. The service then reserves the key first (pending), calls
the downstream with the key's token as *its* idempotency key, and completes
the receipt in a second transaction. The calendar is told of the visit when
the key is reserved, so the slot stays held while the outcome is unknown
(pending, or failed: the scheduler may have booked it and lost the reply),
and no other request id can take it. A request that finds its key pending is
told ``in_progress`` (the IETF Idempotency-Key draft answers 409 Conflict
here). :meth:`InspectionService.recover` settles reservations left behind by
a crash. This is a documented protocol, not a distributed transaction: it
relies on the downstream honouring the token, so that a repeated call books
nothing twice. What only the service learns after deciding (a busy store, a
failed downstream call, a booking too busy to record) is decided in
:mod:`botie.actions.outcomes`; the service stores and calls, and rewrites no decision.
"""

from __future__ import annotations

import datetime as _dt
import logging
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from botie._checks import aware_datetime, has_text, whole_number
from botie._enum import ShortName
from botie.actions import outcomes
from botie.actions.canonical import fingerprint
from botie.actions.decision import (
    Approval,
    Branch,
    Decision,
    ExpiredKey,
    KeyState,
    Receipt,
    StoredRequest,
    allowed_set,
    decide,
    screen,
)
from botie.actions.rules import (
    AssetRegister,
    MaintenanceCalendar,
    forget_booking,
    need_calendar,
    need_register,
    note_booking,
)
from botie.actions.stores.base import AuditRecord, Reservation, Store, Transaction
from botie.actions.tool import parse_start
from botie.errors import ClockError, SettingError, StoreBusyError

__all__ = [
    "DEFAULT_RETENTION",
    "InspectionService",
    "JobOrder",
    "Recovery",
    "RecoveryOutcome",
]

#: How long a settled key is remembered: 24 hours, as Stripe keeps idempotency keys.
DEFAULT_RETENTION = _dt.timedelta(hours=24)

_log = logging.getLogger(__name__)
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class JobOrder:
    """What the downstream service is asked to book, and the key it must deduplicate on.

    ``idempotency_key`` is the same on every call for one reservation
    (first attempt, retries, recovery), so a downstream that honours it books
    one inspection however many times it is called.
    """

    idempotency_key: str
    caller: str
    request_id: str
    asset_id: str
    duration_minutes: int
    start: str


#: The downstream call: book the order, return the booking's id (a non-empty str), or raise.
Downstream = Callable[[JobOrder], str]


class RecoveryOutcome(ShortName):
    """What :meth:`InspectionService.recover` did with one unsettled key."""

    COMPLETED = "completed"  # the downstream call was repeated and the receipt completed
    ALREADY_SETTLED = "already_settled"  # the original attempt finished first
    FAILED = "failed"  # the repeated call failed too; the key is marked failed
    MARKED_FAILED = "marked_failed"  # not retried; the caller's next retry will try again


@dataclass(frozen=True, slots=True)
class Recovery:
    """One settled reservation: which key, what happened, and the job id if there is one now."""

    caller: str
    request_id: str
    outcome: RecoveryOutcome
    job_id: str | None = None


def _utc_now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def _need_duration(value: Any, name: str, *, allow_zero: bool) -> _dt.timedelta:
    if (
        not isinstance(value, _dt.timedelta)
        or value < _dt.timedelta(0)
        or (value == _dt.timedelta(0) and not allow_zero)
    ):
        least = "zero or more" if allow_zero else "more than zero"
        raise ClockError(f"{name} must be a timedelta of {least}, got {value!r}", field=name)
    return value


@dataclass(frozen=True, slots=True)
class _FromNow:
    """A calendar as seen at ``now``: a visit starting earlier is in the past; anything else, the calendar says."""

    calendar: MaintenanceCalendar
    now: _dt.datetime

    def unavailable(self, asset_id: str, start: _dt.datetime, minutes: int) -> str | None:
        if start < self.now:
            when, now = start.astimezone(_dt.timezone.utc), self.now.astimezone(_dt.timezone.utc)
            return f"{when:%Y-%m-%d %H:%M} UTC is in the past (it is {now:%Y-%m-%d %H:%M} UTC): choose a later start"
        return self.calendar.unavailable(asset_id, start, minutes)


def _visit(payload: Mapping[str, Any]) -> tuple[str, _dt.datetime, int]:
    """The asset, start and minutes of a validated proposal, as a calendar takes them."""
    start = parse_start(payload["start"])
    assert start is not None  # validated before anything is created or reserved
    return payload["asset_id"], start, payload["duration_minutes"]


class InspectionService:
    """Accept ``propose_inspection`` calls and create at most one job per (caller, request id).

    ``store`` is a :class:`~botie.actions.stores.memory.MemoryStore` or
    :class:`~botie.actions.stores.sqlite.SQLiteStore`. ``clock`` is a zero-argument
    callable returning an aware datetime (default: now, in UTC); a naive
    datetime raises :class:`~botie.errors.ClockError`. ``retention`` is how
    long a settled key is remembered (default :data:`DEFAULT_RETENTION`).
    ``downstream``, if given, is called to book each new job (see the module
    notes). ``attempts`` bounds how often a busy store is tried before the
    request is answered ``unavailable``; ``backoff`` is the first pause
    between attempts, doubled each time. ``approvers`` is the approval
    policy handed to :func:`~botie.actions.decision.decide`: for each caller,
    who besides them may approve (default: nobody). ``asset_register`` and
    ``calendar`` are the business rules checked before a new booking (see
    :mod:`botie.actions.rules`); without them, that check is not made.
    """

    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], _dt.datetime] | None = None,
        retention: _dt.timedelta | None = None,
        downstream: Downstream | None = None,
        attempts: int = 4,
        backoff: float = 0.01,
        approvers: Mapping[str, Iterable[str]] | None = None,
        asset_register: AssetRegister | None = None,
        calendar: MaintenanceCalendar | None = None,
    ) -> None:
        if not callable(getattr(store, "transaction", None)):
            raise SettingError(
                f"store must offer transaction() (a MemoryStore or SQLiteStore), got {store!r}", field="store"
            )
        if clock is not None and not callable(clock):
            raise ClockError(
                f"clock must be a zero-argument callable returning a datetime, got {clock!r}", field="clock"
            )
        if downstream is not None and not callable(downstream):
            raise SettingError(f"downstream must be callable, got {downstream!r}", field="downstream")
        whole_number(attempts, field="attempts", least=1)
        self.store = store
        self.clock = clock or _utc_now
        self.retention = (
            DEFAULT_RETENTION if retention is None else _need_duration(retention, "retention", allow_zero=False)
        )
        self.downstream = downstream
        self.attempts = attempts
        self.backoff = backoff
        self.approvers = approvers  # who may approve for whom (decide() reads it; None: the caller alone)
        self.asset_register = need_register(asset_register)
        self.calendar = need_calendar(calendar)

    # -- small helpers -------------------------------------------------------------------

    def _now(self) -> _dt.datetime:
        now = self.clock()
        try:
            return aware_datetime(now, field="clock", error=ClockError)
        except ClockError:  # the shared rule, said as what the clock should have returned
            raise ClockError(f"the clock must return a datetime with a time zone, got {now!r}", field="clock") from None

    def _retrying(self, work: Callable[[], _T]) -> _T:
        """Run ``work`` (one whole transaction), trying a busy store ``attempts`` times in all."""
        for attempt in range(1, self.attempts):
            try:
                return work()
            except StoreBusyError:
                time.sleep(self.backoff * 2 ** (attempt - 1))
        return work()  # the last attempt: a store still busy now raises StoreBusyError to the caller

    def _audit(self, tx: Transaction, now: _dt.datetime, caller: str, request_id: Any, decision: Decision) -> None:
        rid = request_id if type(request_id) is str else None
        job = decision.receipt.job_id if decision.receipt is not None else None
        tx.audit(AuditRecord(now, caller, rid, decision.branch.value, job))

    # -- submit --------------------------------------------------------------------------

    def submit(
        self,
        proposal: Any,
        *,
        caller: str,
        allowed_assets: Iterable[str],
        approval: Approval | None,
    ) -> Decision:
        """Decide, act on the decision, record it, and return it.

        ``receipt.job_id`` is set on ``create`` and ``reuse``, and is the same
        on every reuse of the key. ``decision.retryable`` says whether sending
        the same request again later may help (``in_progress``, ``unavailable``).
        """
        allowed = allowed_set(allowed_assets)
        now = self._now()
        screened = screen(proposal, caller=caller, allowed_assets=allowed, approval=approval, **self._policy(now))
        if screened.refusal is not None:  # decided without the store, so nothing stored is read
            return self._refuse(screened.refusal, caller, proposal, now)
        payload = dict(screened.payload)
        try:
            decision, token = self._retrying(lambda: self._settle(payload, caller, allowed, approval, now))
        except StoreBusyError:
            return outcomes.store_busy(screened, self.attempts)
        if token is None:
            return decision
        return self._book_downstream(decision, payload, caller, token)

    def _policy(self, now: _dt.datetime) -> dict[str, Any]:
        """What :func:`decide` takes from the service's setup: the approval policy and the business rules.

        The calendar is asked through :class:`_FromNow`, so a visit that would start before the service's
        clock is refused as in the past, not as a visit no window covers.
        """
        calendar = None if self.calendar is None else _FromNow(self.calendar, now)
        return {"approvers": self.approvers, "asset_register": self.asset_register, "calendar": calendar}

    def _refuse(self, decision: Decision, caller: str, proposal: Any, now: _dt.datetime) -> Decision:
        """Record a refusal that was decided without reading the store (invalid, denied, needs approval)."""
        request_id = proposal.get("request_id") if isinstance(proposal, Mapping) else None

        def record() -> None:
            with self.store.transaction() as tx:
                self._audit(tx, now, caller, request_id, decision)

        try:
            self._retrying(record)
        except StoreBusyError:
            # A refusal changes nothing, so it still stands; only its audit line is missing. Say so loudly.
            _log.warning("audit record lost (store busy): %s %s by %s", decision.branch, request_id, caller)
        return decision

    def _settle(
        self,
        payload: dict[str, Any],
        caller: str,
        allowed: frozenset[str],
        approval: Approval | None,
        now: _dt.datetime,
    ) -> tuple[Decision, str | None]:
        """One transaction: look up the key, decide with it, create or reserve, audit.

        Returns the decision and, when a downstream call must follow, the token
        of the reservation just made (None otherwise).
        """
        told: list[Mapping[str, Any]] = []  # visits the calendar learnt in this transaction
        try:
            return self._settle_in(payload, caller, allowed, approval, now, told)
        except BaseException:
            for visit in told:  # rolled back: the calendar must not keep a visit with no job behind it
                forget_booking(self.calendar, *_visit(visit))
            raise

    def _settle_in(
        self,
        payload: dict[str, Any],
        caller: str,
        allowed: frozenset[str],
        approval: Approval | None,
        now: _dt.datetime,
        told: list[Mapping[str, Any]],
    ) -> tuple[Decision, str | None]:
        """The transaction of :meth:`_settle`; the visits it tells the calendar of are added to ``told``."""
        rid = payload["request_id"]
        with self.store.transaction() as tx:
            previous = tx.lookup(caller, rid)
            stored: StoredRequest | ExpiredKey | None = previous
            last_used = self._expired_use(previous, now)
            if last_used is not None:  # past its retention: the key is free again, and the decision says so
                tx.forget(caller, rid)
                previous, stored = None, ExpiredKey(last_used, self.retention)
            decision = decide(
                payload, caller=caller, allowed_assets=allowed, approval=approval, previous=stored, **self._policy(now)
            )
            token = None
            if decision.branch is Branch.CREATE:
                decision, token = self._create(tx, decision, previous, payload, caller, now, told)
            if token is None:  # a reservation is audited once its downstream call has settled
                self._audit(tx, now, caller, rid, decision)
            return decision, token

    def _create(
        self,
        tx: Transaction,
        decision: Decision,
        previous: StoredRequest | None,
        payload: dict[str, Any],
        caller: str,
        now: _dt.datetime,
        told: list[Mapping[str, Any]],
    ) -> tuple[Decision, str | None]:
        """Create the job now; or, with a downstream, reserve the key and return the token to call with."""
        rid = payload["request_id"]
        if self.downstream is None:
            if previous is not None:  # a failed reservation left behind by a setup that had a downstream
                tx.forget(caller, rid)
            receipt = tx.create(caller, payload, fingerprint(payload), now)
            if previous is None:  # (a failed reservation's slot was held when it was made)
                self._tell_calendar(payload, told)
            return decision.with_receipt(receipt), None
        if previous is not None:  # the earlier attempt failed: try again under the same key and token (slot held)
            return decision, tx.retake(caller, rid)
        token = uuid.uuid4().hex
        tx.reserve(caller, payload, fingerprint(payload), now, token)
        self._tell_calendar(payload, told)  # held from now: the scheduler may book it even if its answer is lost
        return decision, token

    def _tell_calendar(self, payload: Mapping[str, Any], told: list[Mapping[str, Any]]) -> None:
        """Tell a calendar that learns bookings of the visit, in the transaction making its job or reserving its key
        (so no other request takes the slot meanwhile); ``told`` lets a rollback take it back."""
        if note_booking(self.calendar, *_visit(payload)):
            told.append(payload)

    def _expired_use(self, previous: StoredRequest | None, now: _dt.datetime) -> _dt.datetime | None:
        """When ``previous`` was stored, if it is done and that is beyond the retention (its key expired)."""
        if previous is None or previous.state is not KeyState.DONE or previous.stored_at is None:
            return None
        return previous.stored_at if previous.stored_at <= now - self.retention else None

    # -- the downstream protocol -----------------------------------------------------------

    def _book_downstream(self, decision: Decision, payload: dict[str, Any], caller: str, token: str) -> Decision:
        rid = payload["request_id"]
        order = JobOrder(token, caller, rid, payload["asset_id"], payload["duration_minutes"], payload["start"])
        try:
            external_ref = self._call(order)
        except Exception as exc:  # any failure downstream: the outcome there is unknown
            failed = outcomes.downstream_failed(decision, exc)
            self._finish(lambda tx: tx.mark_failed(caller, rid, token), caller, rid, failed)
            return failed
        return self._complete(decision, payload, caller, rid, token, external_ref)

    def _call(self, order: JobOrder) -> str:
        # Only a reservation leads here, and the service reserves a key only when it has a downstream.
        assert self.downstream is not None
        external_ref = self.downstream(order)
        if not has_text(external_ref):
            raise TypeError(f"the downstream must return the booking's id as a non-empty str, got {external_ref!r}")
        return external_ref

    def _complete(
        self, decision: Decision, payload: dict[str, Any], caller: str, rid: str, token: str, external_ref: str
    ) -> Decision:
        def work() -> Decision:
            now = self._now()
            with self.store.transaction() as tx:
                receipt = tx.complete(caller, rid, token, external_ref, now)
                if receipt is not None:  # (its slot was held in the calendar when the key was reserved)
                    done = decision.with_receipt(receipt)
                else:  # recovery settled this key while the downstream was answering us
                    stored = tx.lookup(caller, rid)
                    done = outcomes.settled_meanwhile(decision, stored)
                self._audit(tx, now, caller, rid, done)
                return done

        try:
            return self._retrying(work)
        except StoreBusyError:
            # The key stays pending with its token; recover() will complete it (the downstream deduplicates).
            return outcomes.unrecorded(decision)

    def _finish(self, write: Callable[[Transaction], None], caller: str, rid: str, decision: Decision) -> None:
        def work() -> None:
            now = self._now()
            with self.store.transaction() as tx:
                write(tx)
                self._audit(tx, now, caller, rid, decision)

        try:
            self._retrying(work)
        except StoreBusyError:
            _log.warning(
                "could not record %s for %s/%s (store busy); recover() will settle it", decision.branch, caller, rid
            )

    # -- recovery --------------------------------------------------------------------------

    def recover(self, *, older_than: _dt.timedelta, retry: bool = True) -> tuple[Recovery, ...]:
        """Settle reservations left pending (a crash between the downstream call and the receipt).

        Every pending or failed key reserved at least ``older_than`` ago is
        settled. With ``retry`` (and a downstream), the call is repeated with
        the reservation's own token, so a booking the crashed attempt did make
        comes back instead of being made twice, and the receipt is completed.
        Without ``retry`` the key is only marked failed, and the caller's next
        retry with the same request id tries again under the same key.

        Choose ``older_than`` well beyond the downstream's own timeout, so that
        no attempt still in flight is treated as crashed.
        """
        older_than = _need_duration(older_than, "older_than", allow_zero=True)
        now = self._now()

        def find() -> list[Reservation]:
            with self.store.transaction() as tx:
                return tx.reservations(now - older_than)

        return tuple(self._settle_reservation(r, retry) for r in self._retrying(find))

    def _settle_reservation(self, r: Reservation, retry: bool) -> Recovery:
        def mark_failed(tx: Transaction, now: _dt.datetime) -> None:
            tx.mark_failed(r.caller, r.request_id, r.token)

        if not retry or self.downstream is None:
            return self._record_recovery(r, RecoveryOutcome.MARKED_FAILED, mark_failed)
        p = r.payload
        order = JobOrder(r.token, r.caller, r.request_id, p["asset_id"], p["duration_minutes"], p["start"])
        try:
            external_ref = self._call(order)
        except Exception:
            return self._record_recovery(r, RecoveryOutcome.FAILED, mark_failed)

        def complete(tx: Transaction, now: _dt.datetime) -> Receipt | None:
            return tx.complete(r.caller, r.request_id, r.token, external_ref, now)

        return self._record_recovery(r, RecoveryOutcome.COMPLETED, complete)

    def _record_recovery(
        self, r: Reservation, outcome: RecoveryOutcome, write: Callable[[Transaction, _dt.datetime], Receipt | None]
    ) -> Recovery:
        def work() -> Recovery:
            now = self._now()
            with self.store.transaction() as tx:
                receipt = write(tx, now)
                result = outcome
                if outcome is RecoveryOutcome.COMPLETED and receipt is None:
                    result = RecoveryOutcome.ALREADY_SETTLED
                job = receipt.job_id if receipt is not None else None
                tx.audit(AuditRecord(now, r.caller, r.request_id, f"recovery_{result}", job))
                return Recovery(r.caller, r.request_id, result, job)

        return self._retrying(work)
