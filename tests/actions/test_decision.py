"""decide: validation, permission, approval, idempotency, in that order, with a readable path."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

import pytest
from hypothesis import example, given, strategies as st

from botie.actions.canonical import canonical_json
from botie.actions.decision import (
    Approval,
    Branch,
    CheckName,
    Decision,
    KeyState,
    Receipt,
    StoredRequest,
    Verdict,
    decide,
)
from botie.actions.tool import Problem
from botie.errors import BotieError, DecisionError
from tests.strategies import (
    DECIDER,
    decision_cases,
    events,
    examples,
    inspection_arguments,
    inspection_assets,
)

ANA = DECIDER  # "tech-ana"
ALLOWED = ("P-2", "P-3")
P2 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
ORDER = [CheckName.VALIDATION, CheckName.PERMISSION, CheckName.APPROVAL, CheckName.IDEMPOTENCY]


def _with(**changes):
    return P2 | changes


def _decide(proposal=P2, *, caller=ANA, allowed=ALLOWED, approval="same", previous=None):
    if approval == "same":
        approval = Approval(caller, proposal)
    return decide(proposal, caller=caller, allowed_assets=allowed, approval=approval, previous=previous)


def _verdicts(decision: Decision) -> list[str]:
    return [str(c.verdict) for c in decision.checks]


class Tripwire(StoredRequest):
    """A stored request that fails the test the moment anything reads it."""

    __slots__ = ()

    def __getattribute__(self, name):
        raise AssertionError(f"decide read the stored request ({name}) before it was allowed to")


def _tripwire(job_id: str = "job-1") -> StoredRequest:
    stored = StoredRequest.settled(P2, job_id)
    object.__setattr__(stored, "__class__", Tripwire)  # armed only once it is built
    return stored


# --- the lesson's worked example and every branch --------------------------------


def test_lesson_example_permitted_approved_nothing_stored_creates():
    d = _decide()
    assert d.branch is Branch.CREATE
    assert [c.name for c in d.checks] == ORDER
    assert _verdicts(d) == ["passed"] * 4
    assert d.receipt is None  # decide decides; the service creates the job and fills the receipt
    assert d.reason == "nothing is stored under r7 for tech-ana: this is a new booking"


def test_invalid_reports_repairable_fields_and_reaches_nothing_else():
    d = _decide(_with(duration_minutes=True, admin=True), approval=None, previous=_tripwire())
    assert d.branch is Branch.INVALID
    assert [(e.field, e.problem) for e in d.errors] == [
        ("duration_minutes", Problem.WRONG_TYPE),
        ("admin", Problem.UNEXPECTED),
    ]
    assert _verdicts(d) == ["failed", "not_reached", "not_reached", "not_reached"]
    assert d.reason.startswith("2 problems to repair: duration_minutes")


@pytest.mark.parametrize("proposal", [None, "book P-2", ["P-2", 20, "r7"]])
def test_a_proposal_that_is_not_an_object_is_invalid_not_an_exception(proposal):
    d = _decide(proposal, approval=None)
    assert d.branch is Branch.INVALID and d.errors[0].problem is Problem.NOT_AN_OBJECT


def test_denied_names_the_asset_and_the_caller_and_nothing_stored():
    d = _decide(_with(asset_id="K-7"), previous=_tripwire())
    assert d.branch is Branch.DENIED
    assert _verdicts(d) == ["passed", "failed", "not_reached", "not_reached"]
    assert d.reason == "K-7 is not in the assets tech-ana may schedule"
    assert d.receipt is None and d.errors == ()


def test_permission_is_checked_before_anything_stored_is_looked_at():
    for proposal, approval in [(_with(asset_id="K-7"), "same"), (P2, None), (_with(admin=1), None)]:
        d = _decide(proposal, approval=approval, previous=_tripwire())  # the tripwire would raise if read
        assert d.branch in (Branch.DENIED, Branch.NEEDS_APPROVAL, Branch.INVALID)


def test_the_tripwire_does_fire_once_the_stored_request_is_due():
    with pytest.raises(AssertionError, match="read the stored request"):
        _decide(previous=_tripwire())


def test_membership_is_exact():
    for near_miss in ("p-2", "P-2 ", "P2"):
        assert _decide(_with(asset_id=near_miss)).branch is Branch.DENIED


def test_permission_comes_from_the_allowed_list_not_the_proposal():
    d = _decide(_with(asset_id="K-7", admin=True, approved=True))
    assert d.branch is Branch.INVALID  # the extra claims are refused, not believed
    assert _decide(_with(asset_id="K-7"), allowed=["K-7"]).branch is Branch.CREATE


def test_a_bare_string_allowed_list_is_a_type_error():
    with pytest.raises(TypeError, match="single string"):
        _decide(allowed="P-2")


def test_no_approval_needs_approval_and_says_what_to_show():
    d = _decide(approval=None, previous=_tripwire())
    assert d.branch is Branch.NEEDS_APPROVAL
    assert _verdicts(d) == ["passed", "passed", "failed", "not_reached"]
    assert d.reason == (
        "no approval is recorded: show tech-ana P-2 for 20 minutes from 2026-04-02T09:00Z and record their answer"
    )


def test_approval_by_another_actor_needs_approval():
    d = _decide(approval=Approval("tech-bob", P2))
    assert d.branch is Branch.NEEDS_APPROVAL
    assert d.reason == "the approval was recorded by tech-bob, not by the caller tech-ana"


@pytest.mark.parametrize("actor", ["Tech-Ana", "TECH-ANA", "tech-ana ", " tech-ana"])
def test_an_approval_by_a_near_miss_of_the_callers_name_is_not_theirs(actor):
    """Actors are compared exactly, like assets: case and spaces count."""
    d = _decide(approval=Approval(actor, P2))
    assert d.branch is Branch.NEEDS_APPROVAL
    assert d.reason == f"the approval was recorded by {actor}, not by the caller tech-ana"


def test_changed_duration_needs_a_new_approval():
    d = _decide(_with(duration_minutes=30), approval=Approval(ANA, P2))
    assert d.branch is Branch.NEEDS_APPROVAL
    assert d.reason == (
        "the approval was recorded for duration_minutes=20 but the proposal says 30; "
        "a changed request needs a new approval"
    )


def test_changed_asset_needs_a_new_approval():
    d = _decide(_with(asset_id="P-3"), approval=Approval(ANA, P2))
    assert d.branch is Branch.NEEDS_APPROVAL
    assert "asset_id='P-2' but the proposal says 'P-3'" in d.reason


def test_one_approval_authorises_one_request_id():
    d = _decide(_with(request_id="r8"), approval=Approval(ANA, P2))
    assert d.branch is Branch.NEEDS_APPROVAL
    assert "request_id='r7' but the proposal says 'r8'" in d.reason


def test_several_changes_are_all_named():
    d = _decide(_with(asset_id="P-3", duration_minutes=30), approval=Approval(ANA, P2))
    assert "asset_id='P-2', duration_minutes=20 but the proposal says asset_id='P-3', duration_minutes=30" in d.reason


@pytest.mark.parametrize("approved_minutes", [20.0, True, "20"])
def test_approval_compares_canonical_forms_not_python_equality(approved_minutes):
    """20 == 20.0 in Python, but an approval for 20.0 (or True, or "20") does not authorise 20."""
    d = _decide(approval=Approval(ANA, _with(duration_minutes=approved_minutes)))
    assert d.branch is Branch.NEEDS_APPROVAL


def test_approval_ignores_key_order():
    reordered = {"request_id": "r7", "start": "2026-04-02T09:00Z", "duration_minutes": 20, "asset_id": "P-2"}
    assert _decide(approval=Approval(ANA, reordered)).branch is Branch.CREATE


def test_approval_keeps_its_own_copy_of_the_payload():
    shown = dict(P2)
    approval = Approval(ANA, shown)
    shown["duration_minutes"] = 45  # mutating the screen's dict afterwards changes nothing
    assert _decide(_with(duration_minutes=45), approval=approval).branch is Branch.NEEDS_APPROVAL
    with pytest.raises(TypeError):
        approval.payload["duration_minutes"] = 45  # type: ignore[index]  # the point: a read-only mapping


def test_reuse_returns_the_earlier_receipt():
    stored = StoredRequest.settled(P2, "job-1")
    d = _decide(previous=stored)
    assert d.branch is Branch.REUSE
    assert stored.receipt is not None
    assert d.receipt is stored.receipt and d.receipt.job_id == "job-1"
    assert d.reason == "r7 already created job-1 with this exact payload: returning job-1 instead of booking again"
    assert d.ok and not d.retryable


def test_conflict_keeps_the_first_request_and_names_the_difference():
    d = _decide(_with(duration_minutes=30), previous=StoredRequest.settled(P2, "job-1"))
    assert d.branch is Branch.CONFLICT
    assert _verdicts(d) == ["passed", "passed", "passed", "failed"]
    assert d.receipt is None and not d.retryable
    assert d.reason == (
        "r7 was first used for duration_minutes=20 but the proposal says 30; the first "
        "request stands, and a different inspection needs a new request id"
    )


@pytest.mark.parametrize("stored_minutes", [20.0, True, "20"])
@pytest.mark.parametrize("state", ["done", "pending", "failed"])
def test_a_stored_payload_equal_only_in_python_is_a_conflict(stored_minutes, state):
    """The stored 20.0 (or true, or "20") is not the proposal's 20, although 20 == 20.0 in Python."""
    minutes = 1 if stored_minutes is True else 20
    stored_payload = _with(duration_minutes=stored_minutes)
    receipt = Receipt("job-1", "r7", "P-2", 20) if state == "done" else None
    d = _decide(_with(duration_minutes=minutes), previous=StoredRequest(stored_payload, receipt, KeyState(state)))
    assert d.branch is Branch.CONFLICT
    assert d.reason == (
        f"r7 was first used for duration_minutes={stored_minutes!r} but the proposal says {minutes}; "
        "the first request stands, and a different inspection needs a new request id"
    )


def test_pending_same_payload_is_in_progress_and_retryable():
    d = _decide(previous=StoredRequest(P2))
    assert d.branch is Branch.IN_PROGRESS and d.retryable and d.receipt is None


def test_pending_different_payload_is_a_conflict():
    assert _decide(_with(duration_minutes=30), previous=StoredRequest(P2)).branch is Branch.CONFLICT


def test_failed_attempt_with_the_same_payload_creates_again_under_the_same_key():
    d = _decide(previous=StoredRequest(P2, state=KeyState.FAILED))
    assert d.branch is Branch.CREATE and "same key" in d.reason


RETRYABLE = {
    "invalid": False,
    "denied": False,
    "needs_approval": False,
    "create": False,
    "reuse": False,
    "conflict": False,
    "unknown_asset": False,
    "window_unavailable": False,
    "in_progress": True,
    "unavailable": True,
}


@pytest.mark.parametrize("branch", list(Branch))
def test_only_transient_branches_are_retryable(branch):
    """Written out by hand: only in_progress and unavailable may be sent again unchanged."""
    assert set(RETRYABLE) == {b.value for b in Branch}
    assert branch.retryable is RETRYABLE[branch.value]


# --- what a refused caller can learn ------------------------------------------------


#: A job id only the store knows. It is longer than any text the strategies draw (at most 8 characters),
#: so a proposal cannot carry it: if it shows in a decision, the decision read it from the store.
STORED_JOB = "job-known-only-to-the-store"

PREVIOUS = {
    "none": None,
    "same": StoredRequest.settled(P2, "job-1"),
    "different": StoredRequest.settled(_with(duration_minutes=45), "job-9"),
    "pending": StoredRequest(P2),
}


@examples(500)
@given(
    proposal=inspection_arguments(),
    allowed=st.lists(inspection_assets, max_size=3),
    approval_kind=st.sampled_from(["none", "same", "other_actor", "other_payload"]),
)
# An extra key named "job-" is quoted in the invalid decision's reason: the proposal's own text, not a leak.
@example(proposal={**P2, "job-": 1}, allowed=["P-2"], approval_kind="none")
def test_refusals_are_identical_whatever_is_stored(proposal, allowed, approval_kind):
    """invalid, denied and needs_approval do not depend on the stored request at all: they cannot leak it."""
    approval = {
        "none": None,
        "same": Approval(ANA, proposal) if isinstance(proposal, dict) and _json_ok(proposal) else None,
        "other_actor": Approval("tech-bob", P2),
        "other_payload": Approval(ANA, _with(duration_minutes=59)),
    }[approval_kind]
    first = _decide(proposal, allowed=allowed, approval=approval, previous=None)
    if first.branch in (Branch.INVALID, Branch.DENIED, Branch.NEEDS_APPROVAL):
        # The reasons may quote the proposal, and a proposal may hold any text ("job-" included), so the
        # leak test looks for what only the store holds, on a tripwire and on stored requests decide could read.
        stored = (_tripwire(STORED_JOB), StoredRequest.settled(P2, STORED_JOB), StoredRequest(P2))
        for previous in stored:
            again = _decide(proposal, allowed=allowed, approval=approval, previous=previous)
            assert again == first
            assert again.receipt is None
            assert STORED_JOB not in "".join(c.reason for c in again.checks)


def _json_ok(payload) -> bool:
    try:
        canonical_json(payload)
    except (TypeError, ValueError):
        return False
    return True


# --- a reference model over generated inputs ---------------------------------------


def _same_payload(a, b) -> bool:
    """Same JSON text, keys sorted: unlike ==, 20, 20.0 and true stay three different values."""
    return json.dumps(dict(a), sort_keys=True) == json.dumps(dict(b), sort_keys=True)


def _real_utc_minute(text) -> bool:
    """Written YYYY-MM-DDTHH:MMZ with ASCII digits, and naming a moment that exists."""
    if not isinstance(text, str) or len(text) != 17 or not text.isascii():
        return False
    try:
        return dt.datetime.strptime(text, "%Y-%m-%dT%H:%MZ").strftime("%Y-%m-%dT%H:%MZ") == text
    except ValueError:
        return False


def _expected_branch(proposal, allowed, approval, previous) -> Branch:
    """The lesson's rules, restated as plainly as possible on dicts (payloads compared as JSON text, never ==)."""
    ok = (
        isinstance(proposal, dict)
        and set(proposal) == {"asset_id", "duration_minutes", "start", "request_id"}
        and _real_utc_minute(proposal["start"])
        and isinstance(proposal["asset_id"], str)
        and proposal["asset_id"].strip() != ""
        and isinstance(proposal["request_id"], str)
        and proposal["request_id"].strip() != ""
        and type(proposal["duration_minutes"]) is int
        and 1 <= proposal["duration_minutes"] <= 60
    )
    if not ok:
        return Branch.INVALID
    if proposal["asset_id"] not in allowed:
        return Branch.DENIED
    if approval is None or approval.actor != ANA or not _same_payload(approval.payload, proposal):
        return Branch.NEEDS_APPROVAL
    if previous is None:
        return Branch.CREATE
    if not _same_payload(previous.payload, proposal):
        return Branch.CONFLICT
    return {"done": Branch.REUSE, "pending": Branch.IN_PROGRESS, "failed": Branch.CREATE}[previous.state.value]


@examples(1000)
@given(decision_cases())
def test_decide_matches_the_plain_reference_model(inputs):
    proposal, allowed, approval, previous = inputs
    d = decide(proposal, caller=ANA, allowed_assets=allowed, approval=approval, previous=previous)
    events({f"branch {d.branch}"} | ({f"stored {previous.state}"} if previous is not None else set()))
    assert d.branch is _expected_branch(proposal, allowed, approval, previous)
    assert [c.name for c in d.checks] == ORDER
    reached = [c.verdict is not Verdict.NOT_REACHED for c in d.checks]
    assert reached == sorted(reached, reverse=True)  # a prefix of the path was walked, then nothing
    assert all(c.reason for c in d.checks)
    assert (d.receipt is not None) == (d.branch is Branch.REUSE)
    assert bool(d.errors) == (d.branch is Branch.INVALID)


# --- trusted inputs that cannot be interpreted raise ---------------------------------


@pytest.mark.parametrize("caller", ["", "   ", None, 7])
def test_caller_must_be_a_non_empty_string(caller):
    with pytest.raises(DecisionError) as info:
        decide(P2, caller=caller, allowed_assets=ALLOWED, approval=None, previous=None)
    assert info.value.field == "caller"


NAIVE = dt.datetime(2026, 1, 1)  # no time zone


@pytest.mark.parametrize(
    ("make", "field", "message"),
    [
        (lambda: Approval("", P2), "approval.actor", "approval.actor must be a non-empty string, got ''"),
        (lambda: Approval("   ", P2), "approval.actor", "approval.actor must be a non-empty string, got '   '"),
        (
            lambda: Approval(ANA, ["P-2"]),
            "approval.payload",
            "approval.payload must be a mapping of arguments, got ['P-2']",
        ),
        (
            lambda: Approval(ANA, {"asset_id": {1, 2}}),
            "approval.payload",
            "approval.payload has no canonical JSON form: ",
        ),
        (
            lambda: Approval(ANA, {"duration_minutes": float("nan")}),
            "approval.payload",
            "approval.payload has no canonical JSON form: ",
        ),
        (
            lambda: StoredRequest("P-2"),
            "previous.payload",
            "previous.payload must be a mapping of arguments, got 'P-2'",
        ),
        (
            lambda: StoredRequest(P2, state="done"),
            "previous",
            "a stored request has a receipt exactly when its state is done",
        ),
        (
            lambda: StoredRequest(P2, Receipt("job-1", "r7", "P-2", 20), state=KeyState.PENDING),
            "previous",
            "a stored request has a receipt exactly when its state is done",
        ),
        (
            lambda: StoredRequest(P2, state="lost"),
            "previous.state",
            "previous.state must be one of pending, failed, done; got 'lost'",
        ),
        (
            lambda: StoredRequest(P2, Receipt("job-1", "r8", "P-2", 20)),
            "previous.receipt",
            "the receipt is for 'r8' but the payload for 'r7'",
        ),
        (
            lambda: StoredRequest(P2, stored_at=NAIVE),
            "previous.stored_at",
            "previous.stored_at must be a datetime with a time zone, got datetime.datetime(2026, 1, 1, 0, 0)",
        ),
        (lambda: Receipt("", "r7", "P-2", 20), "receipt.job_id", "receipt.job_id must be a non-empty string, got ''"),
        (
            lambda: Receipt("job-1", "r7", "P-2", 20, NAIVE),
            "receipt.created_at",
            "receipt.created_at must be a datetime with a time zone, got datetime.datetime(2026, 1, 1, 0, 0)",
        ),
        (
            lambda: StoredRequest.settled(_with(request_id=""), "job-1"),
            "receipt.request_id",
            "receipt.request_id must be a non-empty string, got ''",
        ),
        (
            lambda: decide(P2, caller="", allowed_assets=ALLOWED, approval=None, previous=None),
            "caller",
            "caller must be the signed-in user's id (a non-empty string), got ''",
        ),
        (
            lambda: decide(P2, caller=ANA, allowed_assets=ALLOWED, approval={"actor": ANA}, previous=None),
            "approval",
            "approval must be None or an Approval, got {'actor': 'tech-ana'}",
        ),
        (
            lambda: _decide(previous={"request_id": "r7"}),
            "previous",
            "previous must be None or a StoredRequest, got {'request_id': 'r7'}",
        ),
        (
            lambda: _decide(previous=StoredRequest.settled(_with(request_id="r8"), "job-1")),
            "previous",
            "previous was stored under 'r8', not 'r7'",
        ),
        (
            lambda: _decide(approval=None).with_receipt(Receipt("job-3", "r7", "P-2", 20)),
            "receipt",
            "only a create decision gains a receipt, not needs_approval",
        ),
        (
            lambda: _decide().tool_result(),
            "receipt",
            "this create decision has no job yet: the service creates it and fills the receipt",
        ),
    ],
)
def test_malformed_trusted_values_raise_naming_the_field_in_words(make, field, message):
    """Each message is written out; the two that quote the JSON encoder's own words are checked up to them."""
    with pytest.raises(DecisionError) as info:
        make()
    assert info.value.field == field
    assert str(info.value) == message or (message.endswith(": ") and str(info.value).startswith(message))
    assert isinstance(info.value, (BotieError, ValueError))


# --- the value itself ----------------------------------------------------------------


def test_decision_is_frozen_and_with_receipt_only_completes_a_create():
    d = _decide()
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.branch = Branch.REUSE
    receipt = Receipt("job-3", "r7", "P-2", 20)
    done = d.with_receipt(receipt)
    assert done.receipt is receipt and done.ok and d.receipt is None
    with pytest.raises(DecisionError):
        _decide(approval=None).with_receipt(receipt)


def test_explain_prints_the_path_one_check_a_line():
    text = _decide(_with(asset_id="K-7")).explain()
    assert text.splitlines()[1].split()[:2] == ["permission", "failed"]
    assert text.endswith("-> denied")


def test_enums_print_as_their_values():
    assert f"{Branch.NEEDS_APPROVAL}|{CheckName.IDEMPOTENCY}|{Verdict.NOT_REACHED}|{KeyState.DONE}" == (
        "needs_approval|idempotency|not_reached|done"
    )


# --- what goes back to the model --------------------------------------------------------


def test_tool_result_for_reuse_names_the_job_and_is_json():
    result = _decide(previous=StoredRequest.settled(P2, "job-1")).tool_result()
    assert result["status"] == "reuse" and result["job_id"] == "job-1" and result["retryable"] is False
    assert json.loads(json.dumps(result)) == result


def test_tool_result_for_invalid_lists_the_fields_to_repair():
    result = _decide(_with(duration_minutes=20.0), approval=None).tool_result()
    assert result["status"] == "invalid" and "job_id" not in result
    assert result["errors"] == [
        {
            "field": "duration_minutes",
            "problem": "wrong_type",
            "message": "duration_minutes must be a whole number of minutes (an int), got 20.0 (float); write 20",
        }
    ]
    assert result["message"] == "1 problem to repair: " + result["errors"][0]["message"]


def test_tool_result_for_denied_carries_no_job_even_when_one_is_stored():
    result = _decide(_with(asset_id="K-7"), previous=_tripwire()).tool_result()
    assert result == {
        "status": "denied",
        "retryable": False,
        "message": "K-7 is not in the assets tech-ana may schedule",
    }


def test_tool_result_never_reports_a_booking_that_has_not_happened():
    with pytest.raises(DecisionError, match="no job yet"):
        _decide().tool_result()
    done = _decide().with_receipt(Receipt("job-3", "r7", "P-2", 20)).tool_result()
    assert (done["status"], done["job_id"]) == ("create", "job-3")


# --- the words and values of each path, written out -------------------------------------


def test_a_field_the_approval_lacks_or_adds_is_named_as_absent():
    lacks = _decide(approval=Approval(ANA, {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z"}))
    assert lacks.reason == (
        "the approval was recorded for request_id=(absent) but the proposal says 'r7'; "
        "a changed request needs a new approval"
    )
    assert [c.name for c in lacks.checks] == ORDER and _verdicts(lacks)[2] == "failed"
    adds = _decide(approval=Approval(ANA, P2 | {"note": None}))
    assert adds.reason == (
        "the approval was recorded for note=None but the proposal says (absent); a changed request needs a new approval"
    )
    both = _decide(
        approval=Approval(ANA, {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "note": None})
    )
    assert both.reason == (
        "the approval was recorded for note=None, request_id=(absent) but the proposal says "
        "note=(absent), request_id='r7'; a changed request needs a new approval"
    )


def test_every_problem_of_an_invalid_proposal_is_in_the_reason_in_order():
    d = _decide(
        {"asset_id": "", "duration_minutes": 0, "start": "2026-04-02T09:00Z", "request_id": "r7"}, approval=None
    )
    assert d.reason == (
        "2 problems to repair: asset_id must not be empty; give a value such as 'P-2'; "
        "duration_minutes must be from 1 through 60 minutes, got 0 (int)"
    )
    assert [c.name for c in d.checks] == ORDER


@pytest.mark.parametrize(
    ("previous", "branch", "verdict"),
    [
        (None, Branch.CREATE, "passed"),
        (StoredRequest.settled(P2, "job-1"), Branch.REUSE, "passed"),
        (StoredRequest(P2), Branch.IN_PROGRESS, "failed"),
        (StoredRequest(P2, state="failed"), Branch.CREATE, "passed"),
    ],
    ids=["nothing-stored", "done", "pending", "failed"],
)
def test_the_idempotency_verdict_and_no_errors_on_every_branch_past_approval(previous, branch, verdict):
    d = _decide(previous=previous)
    assert (d.branch, _verdicts(d), d.errors) == (branch, ["passed", "passed", "passed", verdict], ())


def test_tool_result_for_reuse_is_exactly_the_job_the_key_and_the_reason():
    assert _decide(previous=StoredRequest.settled(P2, "job-1")).tool_result() == {
        "status": "reuse",
        "retryable": False,
        "job_id": "job-1",
        "request_id": "r7",
        "message": "r7 already created job-1 with this exact payload: returning job-1 instead of booking again",
    }


def test_a_settled_request_holds_the_receipt_of_its_own_payload_and_when_it_was_stored():
    at = dt.datetime(2026, 3, 1, 9, 30, tzinfo=dt.timezone.utc)
    stored = StoredRequest.settled(P2, "job-1", created_at=at)
    assert stored.receipt == Receipt("job-1", "r7", "P-2", 20, created_at=at)
    assert (stored.state, stored.stored_at) == (KeyState.DONE, at)


# --- who may approve for whom ---------------------------------------------------------------


def test_an_approval_by_someone_the_policy_names_for_the_caller_counts():
    d = decide(P2, caller=ANA, allowed_assets=ALLOWED, approval=Approval("sup-mara", P2), previous=None,
               approvers={ANA: ["sup-mara"]})  # fmt: skip
    assert d.branch is Branch.CREATE
    assert d.checks[2] == (
        CheckName.APPROVAL,
        Verdict.PASSED,
        "sup-mara approved exactly this payload for tech-ana, as the approval policy allows",
    )


def test_the_approval_policy_is_per_caller():
    d = decide(P2, caller=ANA, allowed_assets=ALLOWED, approval=Approval("sup-mara", P2), previous=None,
               approvers={"tech-bob": ["sup-mara"]})  # fmt: skip
    assert d.branch is Branch.NEEDS_APPROVAL
    assert d.reason == "the approval was recorded by sup-mara, not by the caller tech-ana"


def test_an_approver_outside_the_callers_list_is_named_with_who_may_approve():
    d = decide(P2, caller=ANA, allowed_assets=ALLOWED, approval=Approval("tech-bob", P2), previous=None,
               approvers={ANA: ["sup-mara"]})  # fmt: skip
    assert (
        d.reason == "the approval was recorded by tech-bob, who may not approve for tech-ana (tech-ana, sup-mara may)"
    )


def test_the_caller_may_always_approve_their_own_request_under_any_policy():
    d = decide(P2, caller=ANA, allowed_assets=ALLOWED, approval=Approval(ANA, P2), previous=None,
               approvers={ANA: ["sup-mara"]})  # fmt: skip
    assert d.branch is Branch.CREATE


def test_a_bare_string_of_approvers_is_bad_policy():
    with pytest.raises(DecisionError) as err:
        decide(
            P2, caller=ANA, allowed_assets=ALLOWED, approval=Approval("s", P2), previous=None, approvers={ANA: "sup"}
        )
    assert err.value.field == "approvers"
