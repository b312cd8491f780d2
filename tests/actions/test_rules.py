"""Business rules before a booking: the asset register and the maintenance calendar, and where they sit in decide."""

from __future__ import annotations

import contextlib
import datetime as dt

import pytest
from hypothesis import given, strategies as st

from botie.actions.decision import Approval, Branch, CheckName, StoredRequest, Verdict, decide
from botie.actions.service import InspectionService
from botie.actions.stores.memory import MemoryStore
from botie.errors import DecisionError, StoreBusyError
from botie.lessons.content.business import MemoryCalendar, load_booking_rules
from tests.strategies import DECIDER, decision_cases, events, examples

ANA = DECIDER
SCOPE = ("P-2", "P-3", "P-999")  # trusted state may name an asset the register does not know
P2 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
RULES = load_booking_rules()
ORDER = [
    CheckName.VALIDATION,
    CheckName.PERMISSION,
    CheckName.APPROVAL,
    CheckName.IDEMPOTENCY,
    CheckName.REGISTER,
    CheckName.CALENDAR,
]


def _with(**changes):
    return P2 | changes


def _decide(proposal=P2, *, allowed=SCOPE, approval="same", previous=None, **rules):
    if approval == "same":
        approval = Approval(ANA, proposal)
    rules = rules or RULES.kwargs()
    return decide(proposal, caller=ANA, allowed_assets=allowed, approval=approval, previous=previous, **rules)


class Full:
    """A calendar with no room at all: every visit is refused."""

    def unavailable(self, asset_id, start, minutes):
        return f"{asset_id} has no free window at {start:%H:%M}"


def _nine():
    return dt.datetime(2026, 3, 20, 9, 0, tzinfo=dt.timezone.utc)


# --- the two new branches -------------------------------------------------------------------


def test_an_asset_in_scope_but_in_no_register_is_unknown_asset_and_nothing_is_created():
    d = _decide(_with(asset_id="P-999"))
    assert d.branch is Branch.UNKNOWN_ASSET and d.receipt is None
    assert [c.name for c in d.checks] == ORDER
    assert [str(c.verdict) for c in d.checks] == ["passed"] * 4 + ["failed", "not_reached"]
    assert d.reason == "P-999 is not in the asset register"
    assert d.tool_result() == {"status": "unknown_asset", "retryable": False, "message": d.reason}


@pytest.mark.parametrize(
    ("start", "minutes", "why"),
    [
        ("2026-04-02T13:00Z", 20, "no maintenance window of P-2 covers 2026-04-02 13:00-13:20 UTC"),
        ("2026-04-02T11:50Z", 20, "no maintenance window of P-2 covers 2026-04-02 11:50-12:10 UTC"),  # runs past
        ("2026-04-02T09:50Z", 20, "2026-04-02 09:50-10:10 UTC overlaps a visit already booked on P-2"),
        ("2026-04-02T10:40Z", 5, "2026-04-02 10:40-10:45 UTC overlaps a visit already booked on P-2"),
    ],
)
def test_a_visit_outside_every_window_or_over_a_booked_one_is_window_unavailable(start, minutes, why):
    d = _decide(_with(start=start, duration_minutes=minutes))
    assert d.branch is Branch.WINDOW_UNAVAILABLE and d.receipt is None
    assert [str(c.verdict) for c in d.checks] == ["passed"] * 5 + ["failed"]
    assert d.reason.startswith(why)
    assert not d.retryable


@pytest.mark.parametrize(
    ("start", "minutes"), [("2026-04-02T09:00Z", 60), ("2026-04-02T10:45Z", 60), ("2026-04-03T11:00Z", 60)]
)
def test_a_visit_inside_a_window_and_clear_of_booked_visits_is_created(start, minutes):
    d = _decide(_with(start=start, duration_minutes=minutes))
    assert d.branch is Branch.CREATE
    assert [str(c.verdict) for c in d.checks] == ["passed"] * 6
    assert d.reason.startswith("a maintenance window of P-2 is open and free")


# --- the order, and what a denial reveals ---------------------------------------------------------


def test_an_asset_outside_the_schedule_scope_is_denied_alike_whether_or_not_it_exists():
    """K-7 is in the register and P-998 in none: a caller who may not schedule either cannot tell them apart."""
    real, made_up = _decide(_with(asset_id="K-7")), _decide(_with(asset_id="P-998"))
    assert real.branch is made_up.branch is Branch.DENIED
    assert real.reason.replace("K-7", "X") == made_up.reason.replace("P-998", "X")
    assert [(c.name, c.verdict, c.reason) for c in real.checks[2:]] == [
        (c.name, c.verdict, c.reason) for c in made_up.checks[2:]
    ]
    assert "register" not in real.reason


def test_the_rules_judge_only_a_new_booking_so_a_retry_reuses_and_a_change_conflicts():
    """r7 booked job-1 in this window; the calendar now shows the window full (job-1 fills it): r7 again reuses."""
    done = StoredRequest.settled(P2, "job-1")
    again = _decide(previous=done, asset_register=frozenset(), calendar=Full())
    assert again.branch is Branch.REUSE and again.receipt.job_id == "job-1"
    assert [str(c.verdict) for c in again.checks][-2:] == ["not_reached", "not_reached"]
    assert again.reason.startswith("r7 already created job-1")
    changed = _decide(_with(duration_minutes=30), previous=done, asset_register=frozenset(), calendar=Full())
    assert changed.branch is Branch.CONFLICT


def test_approval_comes_before_the_rules_and_the_rules_before_create():
    unapproved = _decide(_with(asset_id="P-999"), approval=None)
    assert unapproved.branch is Branch.NEEDS_APPROVAL
    assert [str(c.verdict) for c in unapproved.checks][-3:] == ["not_reached"] * 3
    both_fail = _decide(_with(asset_id="P-999"), calendar=Full(), asset_register=RULES.register)
    assert both_fail.branch is Branch.UNKNOWN_ASSET  # the register is asked first


def test_without_a_register_or_calendar_their_checks_are_left_out_of_the_path():
    d = decide(
        _with(asset_id="P-999"),
        caller=ANA,
        allowed_assets=SCOPE,
        approval=Approval(ANA, _with(asset_id="P-999")),
        previous=None,
    )
    assert d.branch is Branch.CREATE and [c.name for c in d.checks] == ORDER[:4]
    only_calendar = _decide(calendar=Full())
    assert [c.name for c in only_calendar.checks] == [*ORDER[:4], CheckName.CALENDAR]


@pytest.mark.parametrize(
    ("rules", "field"),
    [
        ({"asset_register": "P-2"}, "asset_register"),
        ({"asset_register": 7}, "asset_register"),
        ({"calendar": {"P-2": []}}, "calendar"),
    ],
)
def test_a_register_or_calendar_that_cannot_answer_raises_naming_it(rules, field):
    with pytest.raises(DecisionError) as caught:
        _decide(**rules)
    assert caught.value.field == field


def test_a_calendar_that_answers_with_something_other_than_a_reason_raises():
    class Odd:
        def unavailable(self, asset_id, start, minutes):
            return False

    with pytest.raises(DecisionError, match="reason or None"):
        _decide(calendar=Odd())


@examples(300)
@given(decision_cases(), st.frozensets(st.sampled_from(["P-1", "P-2", "P-3", "K-7"])), st.booleans())
def test_property_the_rules_change_only_a_create(inputs, register, full):
    """With any register and calendar, every branch but create is as without them; a new booking becomes a rule
    branch exactly when its rule fails, the register first; a retry of a failed attempt is not new and stays create."""
    proposal, allowed, approval, previous = inputs
    bare = decide(proposal, caller=ANA, allowed_assets=allowed, approval=approval, previous=previous)
    calendar = Full() if full else MemoryCalendar()
    ruled = decide(
        proposal,
        caller=ANA,
        allowed_assets=allowed,
        approval=approval,
        previous=previous,
        asset_register=register,
        calendar=calendar,
    )
    events({f"branch {ruled.branch}"})
    if bare.branch is not Branch.CREATE or previous is not None:
        assert ruled.branch is bare.branch and ruled.receipt == bare.receipt
        assert all(c.verdict is Verdict.NOT_REACHED for c in ruled.checks[4:])
    elif proposal["asset_id"] not in register:
        assert ruled.branch is Branch.UNKNOWN_ASSET
    else:  # an empty MemoryCalendar has no windows at all, so both calendars refuse
        assert ruled.branch is Branch.WINDOW_UNAVAILABLE
    assert len(ruled.checks) == 6 and ruled.checks[:4][:1] == bare.checks[:1]


# --- the service checks them too ---------------------------------------------------------------------


def _service(store=None, **rules):
    return InspectionService(store or MemoryStore(), clock=_nine, **(rules or load_booking_rules().kwargs()))


def _submit(service, proposal=P2):
    return service.submit(proposal, caller=ANA, allowed_assets=SCOPE, approval=Approval(ANA, proposal))


def test_the_service_books_nothing_for_an_unknown_asset_or_a_taken_window_and_audits_each():
    service = _service()
    unknown = _submit(service, _with(asset_id="P-999"))
    taken = _submit(service, _with(start="2026-04-02T10:00Z", request_id="r8"))
    assert (unknown.branch, taken.branch) == (Branch.UNKNOWN_ASSET, Branch.WINDOW_UNAVAILABLE)
    assert service.store.jobs() == ()
    assert [a.outcome for a in service.store.audit_log()] == ["unknown_asset", "window_unavailable"]
    assert _submit(service).branch is Branch.CREATE and len(service.store.jobs()) == 1


def test_the_service_reuses_a_booking_whose_window_has_since_filled():
    class Filling:
        """Free until the first booking, full after it: as a real calendar would show job-1 in its window."""

        def __init__(self):
            self.full = False

        def unavailable(self, asset_id, start, minutes):
            return "that window is taken" if self.full else None

    calendar = Filling()
    service = _service(asset_register=RULES.register, calendar=calendar)
    first = _submit(service)
    calendar.full = True
    again = _submit(service)
    assert (first.branch, again.branch) == (Branch.CREATE, Branch.REUSE)
    assert again.receipt.job_id == first.receipt.job_id and len(service.store.jobs()) == 1
    assert _submit(service, _with(request_id="r8")).branch is Branch.WINDOW_UNAVAILABLE


def test_a_service_whose_store_is_busy_says_the_rules_were_not_reached():
    from botie.errors import StoreBusyError

    class Busy(MemoryStore):
        def transaction(self):
            raise StoreBusyError("busy")

    d = InspectionService(Busy(), clock=_nine, attempts=1, **load_booking_rules().kwargs()).submit(
        _with(asset_id="P-999"), caller=ANA, allowed_assets=SCOPE, approval=Approval(ANA, _with(asset_id="P-999"))
    )
    assert d.branch is Branch.UNAVAILABLE and d.retryable
    assert [str(c.verdict) for c in d.checks][-3:] == ["failed", "not_reached", "not_reached"]
    assert d.reason.startswith("the store stayed busy")


def test_the_downstream_is_told_when_the_visit_starts():
    orders = []

    def downstream(order):
        orders.append(order)
        return "ext-1"

    service = InspectionService(MemoryStore(), clock=_nine, downstream=downstream, **load_booking_rules().kwargs())
    assert _submit(service).branch is Branch.CREATE
    assert [(o.asset_id, o.duration_minutes, o.start) for o in orders] == [("P-2", 20, "2026-04-02T09:00Z")]


def test_the_workshop_calendar_learns_each_booking_the_service_makes():
    """r7 books 09:00-09:20 on P-2; r8 at the same start, or overlapping it, is refused; P-3 then is free."""
    service = _service()
    assert _submit(service).branch is Branch.CREATE
    for change in ({}, {"start": "2026-04-02T09:10Z"}):
        d = _submit(service, _with(request_id="r8", **change))
        assert d.branch is Branch.WINDOW_UNAVAILABLE and "overlaps a visit already booked on P-2" in d.reason
    assert _submit(service, _with(request_id="r9", start="2026-04-02T09:20Z")).branch is Branch.CREATE
    assert len(service.store.jobs()) == 2


def test_a_retry_of_an_attempt_whose_outcome_is_unknown_is_not_judged_as_a_new_booking():
    """r7 failed downstream (the scheduler may have booked it): its retry creates under the same key, though the
    register and calendar would now refuse it; a new r8 would not be let through."""
    failed = StoredRequest(P2, state="failed")
    again = _decide(previous=failed, asset_register=frozenset(), calendar=Full())
    assert again.branch is Branch.CREATE and "same key" in again.reason
    assert [(c.name, c.verdict) for c in again.checks[-2:]] == [
        (CheckName.REGISTER, Verdict.NOT_REACHED),
        (CheckName.CALENDAR, Verdict.NOT_REACHED),
    ]
    assert "not a new booking" in again.checks[-1].reason
    assert _decide(_with(request_id="r8"), calendar=Full()).branch is Branch.WINDOW_UNAVAILABLE


def _lose_first_reply():
    calls = []

    def downstream(order):
        calls.append(order.idempotency_key)
        if len(calls) == 1:
            raise ConnectionError("the reply was lost")
        return f"ext-{len(calls)}"

    return downstream, calls


@pytest.mark.parametrize("start", ["2026-04-02T09:00Z", "2026-04-02T09:10Z", "2026-04-02T09:19Z"])
def test_a_slot_is_held_while_its_booking_outcome_is_unknown_and_the_retry_still_reaches_the_scheduler(start):
    """The scheduler loses r7's reply: r8 overlapping it is refused, and r7's retry goes out under the same key."""
    downstream, calls = _lose_first_reply()
    service = InspectionService(MemoryStore(), clock=_nine, downstream=downstream, **load_booking_rules().kwargs())
    assert _submit(service).branch is Branch.UNAVAILABLE
    other = _submit(service, _with(request_id="r8", start=start))
    assert other.branch is Branch.WINDOW_UNAVAILABLE and "overlaps a visit already booked on P-2" in other.reason
    retry = _submit(service)
    assert retry.branch is Branch.CREATE and retry.receipt.external_ref == "ext-2"
    assert len(calls) == 2 and calls[0] == calls[1]  # the same key went out twice: one booking if honoured
    assert [j.job_id for j in service.store.jobs()] == [retry.receipt.job_id]
    assert _submit(service, _with(request_id="r9", start="2026-04-02T09:20Z")).branch is Branch.CREATE


def test_a_slot_is_held_from_the_reservation_while_the_scheduler_is_still_answering():
    """While r7's call is in flight (its key pending), r8 at the same slot is refused."""
    seen = []
    service = None

    def downstream(order):
        seen.append(_submit(service, _with(request_id="r8")))
        return "ext-1"

    service = InspectionService(MemoryStore(), clock=_nine, downstream=downstream, **load_booking_rules().kwargs())
    assert _submit(service).branch is Branch.CREATE
    assert [d.branch for d in seen] == [Branch.WINDOW_UNAVAILABLE]
    assert len(service.store.jobs()) == 1


def test_a_window_message_that_crosses_midnight_names_both_dates():
    late = MemoryCalendar({"P-2": ()}).unavailable("P-2", dt.datetime(2026, 4, 2, 23, 50, tzinfo=dt.timezone.utc), 20)
    assert late is not None and "2026-04-02 23:50-2026-04-03 00:10 UTC" in late


class _BusyOnce(MemoryStore):
    """The first transaction of the service's own is refused as busy at ``point``: its first audit, or its commit.

    Either way the store rolls the whole transaction back, as SQLite does when its lock cannot be had.
    """

    def __init__(self, point):
        super().__init__()
        self.point, self.refused = point, 0

    @contextlib.contextmanager
    def transaction(self):
        with super().transaction() as tx:
            first = self.refused == 0
            if first and self.point == "audit":
                real = tx.audit

                def audit(record):
                    self.refused += 1
                    tx.audit = real
                    raise StoreBusyError("database is locked", field="store")

                tx.audit = audit
            yield tx
            if first and self.point == "commit":
                self.refused += 1
                raise StoreBusyError("database is locked", field="store")


@pytest.mark.parametrize(
    ("point", "downstream"), [("audit", None), ("commit", None), ("commit", lambda order: "ext-1")]
)
def test_a_booking_rolled_back_by_a_busy_store_leaves_the_calendar_as_it_was(point, downstream):
    """The first attempt at r7 is rolled back (busy); the service's own retry books it, and the calendar holds that
    one visit: a rolled-back attempt left no visit behind to refuse the retry or block the slot with no job."""
    rules = load_booking_rules()
    store = _BusyOnce(point)
    service = InspectionService(store, clock=_nine, backoff=0, downstream=downstream, **rules.kwargs())
    d = _submit(service)
    assert store.refused == 1 and d.branch is Branch.CREATE, d.reason
    assert [j.job_id for j in store.jobs()] == [d.receipt.job_id]
    nine = dt.datetime(2026, 4, 2, 9, 0, tzinfo=dt.timezone.utc)
    assert rules.calendar.made == {"P-2": [(nine, nine + dt.timedelta(minutes=20))]}


# --- a calendar that books offers book and unbook, checked when the service is built ----------------------------


class _Free:
    """A read-only calendar with room for everything: it is asked, never told."""

    def unavailable(self, asset_id, start, minutes):
        return None


class _BookOnly(_Free):
    def book(self, asset_id, start, minutes):
        raise AssertionError("a service refused at construction never books")


class _UnbookOnly(_Free):
    def unbook(self, asset_id, start, minutes):
        raise AssertionError("a service refused at construction never unbooks")


@pytest.mark.parametrize(("calendar", "missing"), [(_BookOnly(), "unbook"), (_UnbookOnly(), "book")])
def test_a_calendar_offering_book_without_unbook_or_the_reverse_is_refused_when_the_service_is_built(calendar, missing):
    """With book alone, a rolled-back booking would keep a visit no job stands for; the service refuses it up front."""
    with pytest.raises(DecisionError, match=rf"no {missing}\(asset_id, start, minutes\)") as info:
        InspectionService(MemoryStore(), clock=_nine, calendar=calendar)
    assert info.value.field == "calendar"


class _Ledger(_Free):
    """A booking calendar that writes down each call it gets, in order."""

    def __init__(self):
        self.calls = []

    def book(self, asset_id, start, minutes):
        self.calls.append(("book", asset_id, minutes))

    def unbook(self, asset_id, start, minutes):
        self.calls.append(("unbook", asset_id, minutes))


def test_a_booking_rolled_back_by_a_busy_store_is_unbooked_before_the_retry_books_it_again():
    calendar = _Ledger()
    store = _BusyOnce("commit")
    service = InspectionService(store, clock=_nine, backoff=0, calendar=calendar)
    d = _submit(service)
    assert store.refused == 1 and d.branch is Branch.CREATE, d.reason
    assert calendar.calls == [("book", "P-2", 20), ("unbook", "P-2", 20), ("book", "P-2", 20)]


def test_a_read_only_calendar_is_asked_and_never_told_and_the_service_still_books():
    store = _BusyOnce("commit")  # a rollback too: nothing to take back from a calendar that was never told
    service = InspectionService(store, clock=_nine, backoff=0, calendar=Full())
    assert _submit(service).branch is Branch.WINDOW_UNAVAILABLE
    service = InspectionService(MemoryStore(), clock=_nine, calendar=_Free())
    d = _submit(service)
    assert d.branch is Branch.CREATE and [j.job_id for j in service.store.jobs()] == [d.receipt.job_id]
    assert [c.name for c in d.checks][-1] is CheckName.CALENDAR
