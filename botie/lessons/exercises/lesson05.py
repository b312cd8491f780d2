"""Lesson 05's exercises: from a suggestion to an action (minutes, the branch, the fields at fault)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from botie.lessons.exercises.engine import Case, Exercise, same_bool, same_branch, same_fields

__all__ = ["EXERCISES"]


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


_P2 = {"asset_id": "P-2", "duration_minutes": 20, "request_id": "r7"}


def _with(payload: Mapping[str, Any], **changes: Any) -> dict[str, Any]:
    new = dict(payload)
    new.update(changes)
    return new


def _branch_cases() -> tuple[Case, ...]:
    from botie.actions.decision import Approval, StoredRequest, decide

    ana, allowed = "tech-ana", ["P-2", "P-3"]
    ok = Approval(ana, _P2)
    same = StoredRequest.settled(_P2, "job-1")
    longer = StoredRequest.settled(_with(_P2, duration_minutes=30), "job-1")
    other_asset = StoredRequest.settled(_with(_P2, asset_id="P-3"), "job-1")
    k7 = _with(_P2, asset_id="K-7")
    plan = [
        ("approved, nothing stored under r7", _P2, ana, allowed, ok, None, True),
        ("approved, r7 already stored with the same payload", _P2, ana, allowed, ok, same, True),
        ("approved, r7 already stored for 30 minutes instead of 20", _P2, ana, allowed, ok, longer, True),
        ("r7 stored for P-3, now proposed for P-2", _P2, ana, allowed, ok, other_asset, False),
        (
            "K-7 is not allowed, even though r7 is stored with this payload",
            k7,
            ana,
            allowed,
            Approval(ana, k7),
            StoredRequest.settled(k7, "job-9"),
            False,
        ),
        ("K-7 is not allowed and nothing is approved", k7, ana, allowed, None, None, False),
        ("'p-2' is not 'P-2'", _with(_P2, asset_id="p-2"), ana, allowed, None, None, False),
        ("nobody may schedule anything: allowed []", _P2, ana, [], ok, None, False),
        ("no approval recorded", _P2, ana, allowed, None, None, False),
        ("no approval, though r7 is stored with this very payload", _P2, ana, allowed, None, same, False),
        ("no approval, and r7 stored with a different payload", _P2, ana, allowed, None, longer, False),
        ("approved by sup-lee, but tech-ana is the caller", _P2, ana, allowed, Approval("sup-lee", _P2), None, False),
        (
            "approved for 20 minutes, proposal now asks for 45",
            _with(_P2, duration_minutes=45),
            ana,
            allowed,
            ok,
            None,
            False,
        ),
        (
            "approved for request r6, proposal says r7",
            _P2,
            ana,
            allowed,
            Approval(ana, _with(_P2, request_id="r6")),
            None,
            False,
        ),
        (
            "approved, P-3 this time, nothing stored",
            _with(_P2, asset_id="P-3", request_id="r8"),
            ana,
            allowed,
            Approval(ana, _with(_P2, asset_id="P-3", request_id="r8")),
            None,
            False,
        ),
    ]
    cases = []
    for label, proposal, caller, allow, approval, previous, shown in plan:
        kwargs: dict[str, Any] = {"caller": caller, "allowed_assets": allow, "approval": approval, "previous": previous}
        branch = str(decide(proposal, **kwargs).branch)
        cases.append(Case(label, (proposal,), branch, kwargs, shown=shown))
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
        "proposal (asset, duration and request id). A stored request means reuse only when its payload "
        "equals the proposal; the same request id with anything different is a conflict.",
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
        ("request_id missing", {"asset_id": "P-2", "duration_minutes": 20}, False),
        ("request_id None", _with(_P2, request_id=None), False),
        ("an empty object", {}, False),
        (
            "two problems: duration 2.5 and an extra 'priority'",
            _with(_P2, duration_minutes=2.5, priority="high"),
            False,
        ),
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
        "Check each of asset_id, duration_minutes and request_id: is it present, and is it the right kind "
        "of value? Then look for any key that is not one of those three. Collect the names of the fields "
        "that fail; an empty list means the proposal is fine.",
        "asset_id and request_id must be str and not empty. duration_minutes must pass your valid_minutes. "
        "Any other key, such as admin, is itself an error named after that key. If the arguments are not "
        "a dict at all, return ['arguments'].",
        "if not isinstance(arguments, dict): return ['arguments']; then build a list: for each of the "
        "three names, append it if missing or wrong; finally append every key not in the three names.",
    ),
)


#: This lesson's exercises, in the order the notebook asks them.
EXERCISES = (
    _VALID_MINUTES,
    _CHOOSE_BRANCH,
    _FIELD_ERRORS,
)
