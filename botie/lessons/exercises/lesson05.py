"""Lesson 05's exercises, in two parts: 05a (minutes, the branch) and 05b (a retry rule, the fields at fault)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, NamedTuple

from botie.lessons.exercises.engine import Case, Exercise, same_bool, same_branch, same_fields, show

__all__ = ["EXERCISES", "PART_A", "PART_B"]


def _minutes_cases() -> tuple[Case, ...]:
    return (
        Case("the example: 20", (20,), True, shown=True),
        Case("the example: True", (True,), False, shown=True),
        Case("the example: 0", (0,), False, shown=True),
        Case("the example: 2.5", (2.5,), False, shown=True),
        Case("the smallest allowed value, 1", (1,), True),
        Case("the largest allowed value, 60", (60,), True),
        Case("one too many, 61", (61,), False),
        Case("negative minutes, -5", (-5,), False),
        Case("False is a bool too", (False,), False),
        Case("a whole-looking float, 20.0", (20.0,), False),
        Case("a string, '20'", ("20",), False),
        Case("nothing at all, None", (None,), False),
        Case("a normal booking, 45", (45,), True),
    )


_VALID_MINUTES = Exercise(
    "valid_minutes",
    "A strict check for whole minutes from 1 to 60",
    _minutes_cases,
    same_bool,
    (
        "Two questions: is the value really an int (not a bool, not a float, not a string), and is it "
        "between 1 and 60, both ends included?",
        "`isinstance(True, int)` is True, because bool is a subclass of int. Compare the type "
        "itself: `type(value) is int`.",
        "return type(value) is int and 1 <= value <= 60",
    ),
)


_P2 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}


def _with(payload: Mapping[str, Any], **changes: Any) -> dict[str, Any]:
    new = dict(payload)
    new.update(changes)
    return new


class _BranchRow(NamedTuple):
    """One case of choose_branch, by name: what is proposed, by whom, with what allowed, approved and stored."""

    label: str
    proposal: Mapping[str, Any]
    caller: str
    allowed_assets: list[str]
    approval: Any  # an Approval or None (botie.actions is imported late, with the cases)
    previous: Any = None  # a StoredRequest, or nothing stored
    shown: bool = False


def _branch_cases() -> tuple[Case, ...]:
    from botie.actions.decision import Approval, StoredRequest, decide

    ana, allowed = "tech-ana", ["P-2", "P-3"]
    ok = Approval(ana, _P2)
    same = StoredRequest.settled(_P2, "job-1")
    longer = StoredRequest.settled(_with(_P2, duration_minutes=30), "job-1")
    other_asset = StoredRequest.settled(_with(_P2, asset_id="P-3"), "job-1")
    k7 = _with(_P2, asset_id="K-7")
    eleven = _with(_P2, start="2026-04-02T11:00Z")
    at_eleven = StoredRequest.settled(eleven, "job-1")
    plan = [
        _BranchRow(
            "approved, nothing stored under r7",
            proposal=_P2,
            caller=ana,
            allowed_assets=allowed,
            approval=ok,
            shown=True,
        ),
        _BranchRow(
            "approved, r7 already stored with the same payload",
            proposal=_P2,
            caller=ana,
            allowed_assets=allowed,
            approval=ok,
            previous=same,
            shown=True,
        ),
        _BranchRow(
            "approved, r7 already stored for 30 minutes instead of 20",
            proposal=_P2,
            caller=ana,
            allowed_assets=allowed,
            approval=ok,
            previous=longer,
        ),
        _BranchRow(
            "r7 stored for 20 minutes, now approved for 30",
            proposal=_with(_P2, duration_minutes=30),
            caller=ana,
            allowed_assets=allowed,
            approval=Approval(ana, _with(_P2, duration_minutes=30)),
            previous=same,
            shown=True,
        ),
        _BranchRow(
            "r7 stored for P-3, now proposed for P-2",
            proposal=_P2,
            caller=ana,
            allowed_assets=allowed,
            approval=ok,
            previous=other_asset,
        ),
        _BranchRow(
            "approved for 09:00, proposal now starts at 11:00",
            proposal=eleven,
            caller=ana,
            allowed_assets=allowed,
            approval=ok,
        ),
        _BranchRow(
            "r7 stored for 11:00, now approved for 09:00",
            proposal=_P2,
            caller=ana,
            allowed_assets=allowed,
            approval=ok,
            previous=at_eleven,
        ),
        _BranchRow(
            "K-7 is not allowed, even though r7 is stored with this payload",
            proposal=k7,
            caller=ana,
            allowed_assets=allowed,
            approval=Approval(ana, k7),
            previous=StoredRequest.settled(k7, "job-9"),
        ),
        _BranchRow(
            "K-7 is not allowed and nothing is approved",
            proposal=k7,
            caller=ana,
            allowed_assets=allowed,
            approval=None,
        ),
        _BranchRow(
            "'p-2' is not 'P-2'",
            proposal=_with(_P2, asset_id="p-2"),
            caller=ana,
            allowed_assets=allowed,
            approval=None,
        ),
        _BranchRow(
            "nobody may schedule anything: allowed []",
            proposal=_P2,
            caller=ana,
            allowed_assets=[],
            approval=ok,
        ),
        _BranchRow(
            "no approval recorded",
            proposal=_P2,
            caller=ana,
            allowed_assets=allowed,
            approval=None,
        ),
        _BranchRow(
            "no approval, though r7 is stored with this very payload",
            proposal=_P2,
            caller=ana,
            allowed_assets=allowed,
            approval=None,
            previous=same,
        ),
        _BranchRow(
            "no approval, and r7 stored with a different payload",
            proposal=_P2,
            caller=ana,
            allowed_assets=allowed,
            approval=None,
            previous=longer,
        ),
        _BranchRow(
            "approved by sup-lee, but tech-ana is the caller",
            proposal=_P2,
            caller=ana,
            allowed_assets=allowed,
            approval=Approval("sup-lee", _P2),
        ),
        _BranchRow(
            "approved for 20 minutes, proposal now asks for 45",
            proposal=_with(_P2, duration_minutes=45),
            caller=ana,
            allowed_assets=allowed,
            approval=ok,
        ),
        _BranchRow(
            "approved for request r6, proposal says r7",
            proposal=_P2,
            caller=ana,
            allowed_assets=allowed,
            approval=Approval(ana, _with(_P2, request_id="r6")),
        ),
        _BranchRow(
            "approved for 20.0 minutes, proposal asks for 20",
            proposal=_P2,
            caller=ana,
            allowed_assets=allowed,
            approval=Approval(ana, _with(_P2, duration_minutes=20.0)),
        ),
        _BranchRow(
            "approved, P-3 this time, nothing stored",
            proposal=_with(_P2, asset_id="P-3", request_id="r8"),
            caller=ana,
            allowed_assets=allowed,
            approval=Approval(ana, _with(_P2, asset_id="P-3", request_id="r8")),
        ),
    ]
    cases = []
    for row in plan:
        kwargs: dict[str, Any] = {
            "caller": row.caller,
            "allowed_assets": row.allowed_assets,
            "approval": row.approval,
            "previous": row.previous,
        }
        branch = str(decide(row.proposal, **kwargs).branch)
        cases.append(Case(row.label, (row.proposal,), branch, kwargs, shown=row.shown))
    return tuple(cases)


_CHOOSE_BRANCH = Exercise(
    "choose_branch",
    "Permission, approval and the stored request, in that order",
    _branch_cases,
    same_branch,
    (
        "The order matters: permission first (denied), then approval (needs_approval), and only then "
        "look at what is stored under the request id (create, reuse or conflict). Use your three small "
        "checks in that order and return as soon as one fails.",
        "An approval counts only if the caller is the actor and the approved payload equals the whole "
        "proposal (asset, duration, start and request id), each value of the same type: 20.0 is not 20, as "
        "True is not a minute. A stored request means reuse only when its payload equals the proposal in the "
        "same way; the same request id with anything different is a conflict.",
        "if not may_schedule(...): return 'denied'; if not approved_exactly(...): return "
        "'needs_approval'; if previous is None: return 'create'; return 'reuse' if same_payload(...) "
        "else 'conflict'.",
    ),
)


def _fields_cases() -> tuple[Case, ...]:
    from botie.actions.tool import validate_inspection

    plan = [
        ("a well-formed proposal", _P2, True),
        ("an extra field: admin=True", _with(_P2, admin=True), True),
        ("the longest visit, 60 minutes", _with(_P2, duration_minutes=60), False),
        ("duration True (a bool is not a minute)", _with(_P2, duration_minutes=True), False),
        ("duration 20.0 (a float, even a whole one)", _with(_P2, duration_minutes=20.0), False),
        ("duration 0", _with(_P2, duration_minutes=0), False),
        ("duration 61", _with(_P2, duration_minutes=61), False),
        ("duration as text, '20'", _with(_P2, duration_minutes="20"), False),
        ("an empty asset_id", _with(_P2, asset_id=""), False),
        ("asset_id as a number", _with(_P2, asset_id=2), False),
        ("request_id missing", {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z"}, False),
        ("start missing", {"asset_id": "P-2", "duration_minutes": 20, "request_id": "r7"}, False),
        ("start with no Z: whose nine o'clock?", _with(_P2, start="2026-04-02T09:00"), False),
        ("start in words, '2 April 09:00'", _with(_P2, start="2 April 09:00"), False),
        ("start on 30 February, a day that does not exist", _with(_P2, start="2026-02-30T09:00Z"), False),
        ("start without its zeros, '2026-4-2T9:00Z'", _with(_P2, start="2026-4-2T9:00Z"), False),
        ("start in fullwidth digits, which strptime reads", _with(_P2, start="２０２６-04-02T09:00Z"), False),
        ("start with a space for the T, '2026-04-02 09:00Z'", _with(_P2, start="2026-04-02 09:00Z"), False),
        ("an asset_id of spaces only", _with(_P2, asset_id=" "), False),
        ("start as a number", _with(_P2, start=900), False),
        ("request_id None", _with(_P2, request_id=None), False),
        ("request_id as a number, 7", _with(_P2, request_id=7), False),
        ("a request_id of spaces only", _with(_P2, request_id="   "), False),
        ("start with a lowercase z, '2026-04-02T09:00z'", _with(_P2, start="2026-04-02T09:00z"), False),
        ("start with a lowercase t, '2026-04-02t09:00Z'", _with(_P2, start="2026-04-02t09:00Z"), False),
        ("an empty object", {}, False),
        (
            "two problems: duration 2.5 and an extra 'priority'",
            _with(_P2, duration_minutes=2.5, priority="high"),
            False,
        ),
        ("two extra fields: admin and priority", _with(_P2, admin=True, priority="high"), False),
        ("not an object at all: a list", [("asset_id", "P-2")], False),
        ("not an object at all: a string", "book P-2 for 20 minutes", False),
    ]
    return tuple(
        Case(label, (arguments,), frozenset(e.field for e in validate_inspection(arguments)), shown=shown)
        for label, arguments, shown in plan
    )


_FIELD_ERRORS = Exercise(
    "field_errors",
    "Challenge: name every field a malformed proposal gets wrong",
    _fields_cases,
    same_fields,
    (
        "Check each of asset_id, duration_minutes, start and request_id: is it present, and is it the right "
        "kind of value? Then look for any key that is not one of those four. Collect the names of the fields "
        "that fail; an empty list means the proposal is fine.",
        "asset_id and request_id must be str with something besides spaces. duration_minutes must pass the "
        "rule of valid_minutes from lesson 05a (an int from 1 through 60, and not a bool). "
        "start must be a str of 17 ASCII characters, with a capital T at index 10 and a capital Z at the end, "
        "that datetime.strptime(value, '%Y-%m-%dT%H:%MZ') reads (it raises ValueError for 30 February, but "
        "reads 't' and 'z' as readily as 'T' and 'Z'). Any other key, such as admin, is itself an error named after "
        "that key. If the arguments are not a dict at all, return ['arguments'].",
        "if not isinstance(arguments, dict): return ['arguments']; then build a list: for each of the "
        "four names, append it if missing or wrong; finally append every key not in the four names.",
    ),
)


# --- the design exercise: when to send a request again -------------------------------------------
#
# The learner's rule is ``next_request(proposal, result, attempts)``: the arguments to send next, or None
# to stop. Many rules are right, so no case has one expected answer. Each case says what the invariants
# demand of that situation: "stop", "send" (send exactly this proposal again) or "either" (stopping and
# resending are both fine, but a resend must be this very proposal). The tool results are the real
# service's, so the rule sees what Botie would see.

RETRY_LIMIT = 5

#: The five invariants, as the notebook names them and the check's messages quote them.
ONLY_UNCHANGED = "only what may succeed unchanged"
WITHIN_LIMIT = f"at most {RETRY_LIMIT} attempts"
ONE_JOB = "one job per request"
AS_APPROVED = "exactly what was approved"
SECOND_TRY = "a second try for a transient failure"

_R12 = {"asset_id": "P-3", "duration_minutes": 45, "start": "2026-04-02T09:00Z", "request_id": "r12"}


def _nine_am() -> dt.datetime:
    return dt.datetime(2026, 3, 20, 9, 0, tzinfo=dt.timezone.utc)


def _silent(order: Any) -> str:
    raise ConnectionError("the scheduler did not answer")


def _results() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Each situation's proposal and the tool result the real service gives for it."""
    from botie.actions.decision import Approval, StoredRequest, decide
    from botie.actions.service import InspectionService
    from botie.actions.stores.memory import MemoryStore

    ana: dict[str, Any] = {"caller": "tech-ana", "allowed_assets": ["P-2", "P-3"]}
    from botie.lessons.content.business import load_booking_rules

    service = InspectionService(MemoryStore(), clock=_nine_am, **load_booking_rules().kwargs())
    longer, r8 = _with(_P2, duration_minutes=30), _with(_P2, request_id="r8")
    p999 = _with(_P2, asset_id="P-999", request_id="r13")
    taken = _with(_P2, request_id="r14")  # r7's 09:00 slot, booked just above
    r10 = _with(_P2, duration_minutes=90, request_id="r10")
    found = {
        "create": (_P2, service.submit(_P2, **ana, approval=Approval("tech-ana", _P2))),
        "reuse": (_P2, service.submit(_P2, **ana, approval=Approval("tech-ana", _P2))),
        "conflict": (longer, service.submit(longer, **ana, approval=Approval("tech-ana", longer))),
        "denied": (_P2, service.submit(_P2, caller="tech-ana", allowed_assets=["P-3"], approval=None)),
        "needs_approval": (r8, service.submit(r8, **ana, approval=None)),
        "invalid": (r10, service.submit(r10, **ana, approval=Approval("tech-ana", r10))),
        "unknown_asset": (
            p999,
            service.submit(
                p999, caller="tech-ana", allowed_assets=["P-2", "P-999"], approval=Approval("tech-ana", p999)
            ),
        ),
        "window_unavailable": (taken, service.submit(taken, **ana, approval=Approval("tech-ana", taken))),
    }
    silent = InspectionService(MemoryStore(), clock=_nine_am, downstream=_silent)
    for name, proposal in (("unavailable", _P2), ("unavailable r12", _R12)):
        found[name] = (proposal, silent.submit(proposal, **ana, approval=Approval("tech-ana", proposal)))
    pending = StoredRequest(_P2)  # reserved, no receipt yet: an earlier attempt is still booking
    found["in_progress"] = (_P2, decide(_P2, **ana, approval=Approval("tech-ana", _P2), previous=pending))
    return {name: (proposal, decision.tool_result()) for name, (proposal, decision) in found.items()}


def _next_request_cases() -> tuple[Case, ...]:
    results = _results()
    plan = [
        ("r7 booked job-1 at the first attempt (create)", "create", 1, "stop", False),
        ("r7 sent again, job-1 handed back (reuse), attempt 2", "reuse", 2, "stop", False),
        ("r10 asks for 90 minutes (invalid)", "invalid", 1, "stop", False),
        ("a caller who may schedule only P-3 asks for P-2 (denied)", "denied", 1, "stop", True),
        ("r8: nobody approved it yet (needs_approval)", "needs_approval", 1, "stop", False),
        ("r7 for 30 minutes after r7 booked 20 (conflict)", "conflict", 1, "stop", False),
        ("r13 names P-999, which no register lists (unknown_asset)", "unknown_asset", 1, "stop", False),
        ("r14 at 09:00, a slot r7 already booked (window_unavailable)", "window_unavailable", 1, "stop", False),
        ("r7: the scheduler did not answer, attempt 1 (unavailable)", "unavailable", 1, "send", True),
        ("r7: the answer was lost, attempt 1", None, 1, "send", False),
        ("r7: still unavailable at attempt 2", "unavailable", 2, "either", False),
        ("r7: an earlier attempt is still booking (in_progress), attempt 1", "in_progress", 1, "either", False),
        ("r7: the answer was lost again, attempt 2", None, 2, "either", False),
        ("r12, P-3 for 45 minutes: unavailable, attempt 1", "unavailable r12", 1, "send", False),
        ("r12: still unavailable at attempt 3", "unavailable r12", 3, "either", False),
        ("r7: still unavailable at attempt 5", "unavailable", 5, "stop", False),
        ("r7: still in_progress at attempt 5", "in_progress", 5, "stop", False),
        ("r7: the answer lost for the fifth time", None, 5, "stop", False),
    ]
    cases = []
    for label, situation, attempts, must, shown in plan:
        proposal, result = results[situation] if situation is not None else (_P2, None)
        expected = {"proposal": proposal, "result": result, "attempts": attempts, "must": must}
        cases.append(Case(label, (proposal, result, attempts), expected, shown=shown))
    return tuple(cases)


def _second_job(proposal: Mapping[str, Any], sent: Mapping[str, Any]) -> str:
    """What the real service does when ``proposal`` booked a job whose answer was lost and ``sent`` follows it."""
    from botie.actions.decision import Approval
    from botie.actions.service import InspectionService
    from botie.actions.stores.memory import MemoryStore

    service = InspectionService(MemoryStore(), clock=_nine_am)
    ana: dict[str, Any] = {"caller": "tech-ana", "allowed_assets": ["P-2", "P-3"]}
    service.submit(proposal, **ana, approval=Approval("tech-ana", proposal))
    service.submit(dict(sent), **ana, approval=Approval("tech-ana", dict(sent)))
    jobs = [job.job_id for job in service.store.jobs()]
    return f"if the first attempt did book before its answer was lost, the jobs are now {jobs}"


def _changes(proposal: Mapping[str, Any], sent: Mapping[str, Any]) -> list[str]:
    """The fields ``sent`` changes, added or drops, compared by type and value (20.0 is not 20)."""
    missing = object()
    names = sorted(set(proposal) | set(sent))
    return [
        name
        for name in names
        if type(proposal.get(name, missing)) is not type(sent.get(name, missing))
        or proposal.get(name, missing) != sent.get(name, missing)
    ]


def _why_stop(expected: Mapping[str, Any]) -> str:
    result, attempts = expected["result"], expected["attempts"]
    if attempts >= RETRY_LIMIT:
        return f"breaks '{WITHIN_LIMIT}': this request has been sent {attempts} times; stop and say so"
    status = result["status"]
    return (
        f"breaks '{ONLY_UNCHANGED}': after {status} the same request gets the same answer "
        f"({result['message']}); stop and report it"
    )


def same_request_or_stop(got: Any, expected: Mapping[str, Any]) -> str | None:
    """None when the rule's answer keeps every invariant for this situation, else which one it breaks."""
    proposal, must = expected["proposal"], expected["must"]
    if got is None:
        if must == "send":
            what = "the answer was lost" if expected["result"] is None else "the scheduler did not answer"
            return f"breaks '{SECOND_TRY}': {what} at the first attempt; send the same request once more"
        return None
    if not isinstance(got, Mapping):
        return f"expected the arguments to send (a dict) or None to stop, got {show(got)}"
    if must == "stop":
        return _why_stop(expected)
    changed = _changes(proposal, got)
    if "request_id" in changed:
        return (
            f"breaks '{ONE_JOB}': you sent request_id {show(got.get('request_id'))} instead of "
            f"{proposal['request_id']!r}; {_second_job(proposal, got)}"
        )
    if changed:
        return (
            f"breaks '{AS_APPROVED}': you changed {', '.join(changed)}; the approval was for "
            f"{show(dict(proposal))}, so a changed request needs a new one"
        )
    return None


_NEXT_REQUEST = Exercise(
    "next_request",
    "Design exercise: when to send a request again",
    _next_request_cases,
    same_request_or_stop,
    (
        "Sort the statuses into two groups: those where the very same request could come out differently "
        "later, and those where it cannot (or a job already exists). Then pick a limit, and decide what a "
        "lost answer (result None) means.",
        "result['retryable'] is the service's own answer to the first question. A lost answer may hide a "
        "booked job, and only the same request id finds it again. Return the proposal object you were given, "
        "unchanged, or None.",
        "One design of many: if attempts >= 3: return None; then if result is None or result['retryable']: "
        "return proposal; otherwise return None.",
    ),
)


#: Lesson 05a's exercises (validation and the decision), then lesson 05b's (retries), each in notebook order.
PART_A = (_VALID_MINUTES, _CHOOSE_BRANCH)
PART_B = (_NEXT_REQUEST, _FIELD_ERRORS)
EXERCISES = PART_A + PART_B
