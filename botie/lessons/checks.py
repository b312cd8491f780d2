"""Exercise checks: run a learner's function against cases, say which passed, hint on request.

In a notebook::

    from botie.lessons.checks import check, hint
    check(permitted)          # or check("permitted", my_function)
    hint("permitted")         # a nudge; call again for a bigger one

Every exercise has several cases, most of them not shown in the notebook, so
an answer hard-coded for the visible example does not pass. A function that
still raises ``NotImplementedError`` (the learner edition's stub) gets
"not yet" and the first hint. Any other exception inside the learner's
function is reported as a failed case with its message, never a traceback.

Only the standard library and the botie core are imported, and the cases are
built on first use, so ``import botie.lessons.checks`` stays cheap.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from botie._enum import ShortName
from botie.lessons import progress

__all__ = [
    "Case",
    "CaseResult",
    "Exercise",
    "Raises",
    "Report",
    "Verdict",
    "EXERCISES",
    "check",
    "describe_exception",
    "fresh_copy",
    "hint",
    "record_ids",
    "register",
    "run",
    "same_records",
    "show",
]


class Verdict(ShortName):
    PASSED = "passed"
    NOT_YET = "not yet"
    FAILED = "failed"


@dataclass(frozen=True)
class Raises:
    """Expected outcome of a case where the right answer is to raise ``error``."""

    error: type[BaseException]
    why: str = ""


@dataclass(frozen=True)
class Case:
    """One call of the learner's function and what it should give back."""

    label: str
    args: tuple
    expected: Any
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    shown: bool = False  # the example the notebook shows; never the only case


@dataclass(frozen=True)
class CaseResult:
    case: Case
    passed: bool
    message: str = ""  # what went wrong, in plain words; empty when passed
    not_implemented: bool = False


@dataclass(frozen=True)
class Exercise:
    """A named exercise: its cases (built lazily), how to compare, and graded hints."""

    name: str
    title: str
    build_cases: Callable[[], tuple[Case, ...]]
    compare: Callable[[Any, Any], str | None]  # None when right, else what is wrong
    hints: tuple[str, ...]

    def cases(self) -> tuple[Case, ...]:
        cached = _CASES.get(self.name)
        if cached is None:
            cached = _CASES[self.name] = tuple(self.build_cases())
        return cached


@dataclass(frozen=True)
class Report:
    """The outcome of :func:`run`: a verdict plus one result per case."""

    exercise: Exercise
    verdict: Verdict
    results: tuple[CaseResult, ...]
    note: str = ""

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.PASSED

    @property
    def score(self) -> tuple[int, int]:
        return sum(r.passed for r in self.results), len(self.results)

    def text(self) -> str:
        name = self.exercise.name
        if self.verdict is Verdict.NOT_YET:
            return (
                f"{name}: not yet. {self.note}\n"
                f"Hint 1 of {len(self.exercise.hints)}: {self.exercise.hints[0]}"
            )
        good, total = self.score
        if self.passed:
            head = f"{name}: all {total} cases passed. Well done!"
        else:
            head = f"{name}: {good} of {total} cases passed."
        lines = [head]
        for r in self.results:
            mark = "✓" if r.passed else "✗"
            shown = " (the example above)" if r.case.shown else ""
            lines.append(f"  {mark} {r.case.label}{shown}")
            if r.message:
                lines.extend(f"      {line}" for line in r.message.splitlines())
        if not self.passed:
            lines.append(f'Stuck? hint("{name}") gives a nudge; call it again for a bigger one.')
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()


EXERCISES: dict[str, Exercise] = {}
_CASES: dict[str, tuple[Case, ...]] = {}
_HINTS_GIVEN: dict[str, int] = {}


def register(exercise: Exercise) -> Exercise:
    EXERCISES[exercise.name] = exercise
    return exercise


# --- running ----------------------------------------------------------------


def describe_exception(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def fresh_copy(value: Any) -> Any:
    """A deep copy, or the value itself when it cannot be copied (the core's frozen, read-only objects)."""
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


def _run_case(fn: Callable[..., Any], case: Case, compare: Callable[[Any, Any], str | None]) -> CaseResult:
    # Fresh copies: a function that mutates its input must not spoil the next case.
    args = tuple(fresh_copy(a) for a in case.args)
    kwargs = {k: fresh_copy(v) for k, v in case.kwargs.items()}
    try:
        got = fn(*args, **kwargs)
    except NotImplementedError as exc:
        return CaseResult(case, False, f"raised {describe_exception(exc)}", not_implemented=True)
    except Exception as exc:  # the learner's code: any failure is a failed case, never a traceback
        if isinstance(case.expected, Raises) and isinstance(exc, case.expected.error):
            return CaseResult(case, True)
        return CaseResult(case, False, f"raised {describe_exception(exc)}")
    if isinstance(case.expected, Raises):
        why = f" ({case.expected.why})" if case.expected.why else ""
        return CaseResult(case, False, f"expected a {case.expected.error.__name__}{why}, got {show(got)}")
    try:
        problem = compare(got, case.expected)
    except Exception as exc:  # an odd return value must not crash the checker either
        problem = f"could not compare the result {show(got)}: {describe_exception(exc)}"
    return CaseResult(case, problem is None, problem or "")


def _resolve(target: str | Callable[..., Any], fn: Callable[..., Any] | None) -> tuple[Exercise | None, Any, str]:
    if isinstance(target, str):
        name = target
    else:
        fn, name = target, getattr(target, "__name__", "")
    exercise = EXERCISES.get(name)
    if exercise is None:
        known = ", ".join(sorted(EXERCISES))
        return None, fn, f"there is no exercise called {name!r}. The exercises are: {known}."
    return exercise, fn, ""


def run(target: str | Callable[..., Any], fn: Callable[..., Any] | None = None) -> Report | str:
    """Run ``fn`` against every case of an exercise and return a :class:`Report`.

    ``run(permitted)`` finds the exercise by the function's name;
    ``run("permitted", other_function)`` names it explicitly. Returns a
    message string (not a report) when the exercise name is unknown.
    """
    exercise, fn, problem = _resolve(target, fn)
    if exercise is None:
        return problem
    if not callable(fn):
        note = f"expected a function, got {show(fn)}. Run the cell that defines it first."
        return Report(exercise, Verdict.NOT_YET, (), note)
    results = tuple(_run_case(fn, case, exercise.compare) for case in exercise.cases())
    if results and all(r.not_implemented for r in results):
        note = ("Your function (or one it calls) still raises NotImplementedError: "
                "replace the stub with your code.")
        return Report(exercise, Verdict.NOT_YET, results, note)
    verdict = Verdict.PASSED if all(r.passed for r in results) else Verdict.FAILED
    return Report(exercise, verdict, results)


def check(target: str | Callable[..., Any], fn: Callable[..., Any] | None = None, *, record: bool = True) -> None:
    """Print which cases of the exercise pass (see :func:`run`). Never raises.

    ``record=False`` keeps the try out of the learner's progress: a lesson uses it when it checks a
    wrong function of its own on purpose, which is not the learner's attempt.
    """
    try:
        report = run(target, fn)
        shown = 0
        if isinstance(report, Report) and report.verdict is Verdict.NOT_YET:
            # "not yet" already showed hint 1, so the next hint() call moves on to hint 2.
            name = report.exercise.name
            _HINTS_GIVEN[name] = max(_HINTS_GIVEN.get(name, 0), 1)
            shown = 1
        print(report)
        if isinstance(report, Report) and record:
            progress.record_check(report.exercise.name, report.passed, hint_shown=shown)
    except Exception as exc:  # a bug in the checker itself: say so plainly, no traceback
        print(f"The checker itself failed ({describe_exception(exc)}). This is not your fault; "
              "please tell the instructor.")


def hint(name: str, level: int | None = None) -> None:
    """Print the next hint for ``name`` (or hint number ``level``, counting from 1)."""
    exercise = EXERCISES.get(name)
    if exercise is None:
        print(f"There is no exercise called {name!r}. The exercises are: {', '.join(sorted(EXERCISES))}.")
        return
    total = len(exercise.hints)
    if level is None:
        level = min(_HINTS_GIVEN.get(name, 0) + 1, total)
    level = max(1, min(level, total))
    _HINTS_GIVEN[name] = level
    more = " (that is the last one)" if level == total else f'; hint("{name}") again for the next'
    print(f"Hint {level} of {total}{more}:\n{exercise.hints[level - 1]}")
    progress.record_hint(name, level)


# --- comparing ----------------------------------------------------------------


def show(value: Any, limit: int = 160) -> str:
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def record_ids(value: Any, what: str) -> tuple[list[str] | None, str | None]:
    """A list of record ids from a list of records (or of ids); else a message."""
    from botie.context.records import Record

    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        return None, f"expected a list of records, got {show(value)}"
    items = list(value)
    ids = []
    for item in items:
        if isinstance(item, Record):
            ids.append(item.id)
        elif isinstance(item, str):
            ids.append(item)
        else:
            return None, f"expected {what} to hold records, found {show(item)}"
    return ids, None


def same_records(got: Any, expected: list[str]) -> str | None:
    ids, problem = record_ids(got, "the list")
    if problem:
        return problem
    if ids == expected:
        return None
    if sorted(ids) == sorted(expected):
        return f"the right records in the wrong order: expected {expected}, got {ids} (keep the ranked order)"
    return f"expected {expected}, got {ids}"


def _same_bool(got: Any, expected: bool) -> str | None:
    if type(got) is not bool:
        return f"expected True or False, got {show(got)} (a {type(got).__name__})"
    return None if got is expected else f"expected {expected}, got {got}"


def _same_value(got: Any, expected: Any) -> str | None:
    if type(got) is bool and type(expected) is not bool:
        return f"expected {expected!r}, got {got!r} (a bool)"
    return None if got == expected else f"expected {expected!r}, got {show(got)}"


def _same_branch(got: Any, expected: str) -> str | None:
    if not isinstance(got, str):
        return f"expected a branch name such as {expected!r}, got {show(got)}"
    return None if str(got) == expected else f"expected {expected!r}, got {str(got)!r}"


def _same_fields(got: Any, expected: frozenset[str]) -> str | None:
    if isinstance(got, (str, bytes, Mapping)) or not isinstance(got, Iterable):
        return f"expected a list of field names, got {show(got)}"
    names = set()
    for item in got:
        name = item if isinstance(item, str) else getattr(item, "field", None)
        if not isinstance(name, str):
            return f"expected field names such as 'duration_minutes', found {show(item)}"
        names.add(name)
    if names == expected:
        return None
    want = sorted(expected) or "none"
    return f"expected the fields at fault to be {want}, got {sorted(names) or 'none'}"


# --- lesson 00: the warm-up -------------------------------------------------------


def _evidence_cases() -> tuple[Case, ...]:
    over = Raises(ValueError, "reserves above the total are an error, not a silent zero")
    return (
        Case("total 20, reserves 8 and 4", (20, 8, 4), 8, shown=True),
        Case("total 100, reserves 30 and 10", (100, 30, 10), 60),
        Case("reserves use the whole window: 0 left is fine", (12, 8, 4), 0),
        Case("nothing at all: 0, 0, 0", (0, 0, 0), 0),
        Case("no input reserve: total 9, reserves 0 and 5", (9, 0, 5), 4),
        Case("reserves 8 + 4 = 12 above a total of 10", (10, 8, 4), over),
        Case("reserves 2 + 2 = 4 above a total of 3", (3, 2, 2), over),
    )


register(
    Exercise(
        "evidence_allowance",
        "Warm-up: how much room is left for evidence?",
        _evidence_cases,
        _same_value,
        (
            "The evidence allowance is what is left after both reserves: total minus input reserve "
            "minus output reserve.",
            "When the two reserves add up to more than the total, the request cannot fit. Raise a "
            "ValueError instead of returning 0 or a negative number. Exactly equal is fine: 0 left.",
            "Compare input_reserve + output_reserve with total using >, then "
            "`raise ValueError(\"reserves exceed the total\")`; otherwise return the subtraction.",
        ),
    )
)


# --- lesson 01: which records -------------------------------------------------------


def _scene():
    from botie.lessons.fixtures import fixture_path, load_scene

    return load_scene(fixture_path("p2_seal.json"))


def _records(*entries: tuple[str, str, int]):
    from botie.context.records import Record

    return [Record(rid, asset, f"text of {rid}", cost) for rid, asset, cost in entries]


def _random_records(rng: random.Random, n: int):
    assets = ("P-1", "P-2", "P-3", "K-7")
    return _records(*[(f"c{i}", rng.choice(assets), rng.randint(0, 7)) for i in range(n)])


def _permitted_cases() -> tuple[Case, ...]:
    scene = _scene()
    allowed = list(scene.allowed_assets)
    expected = [r.id for r in scene.records if r.asset in allowed]
    near = _records(("a", "P-2", 1), ("b", "P-22", 1), ("c", "p-2", 1), ("d", "P-2 ", 1), ("e", "P-2", 2))
    order = _records(("x", "P-3", 4), ("y", "P-2", 1), ("z", "P-3", 2), ("w", "K-7", 1))
    cases = [
        Case("the workshop scene, allowed ['P-2', 'P-3']", (list(scene.records), allowed), expected, shown=True),
        Case("the same scene, allowed only ['K-7']", (list(scene.records), ["K-7"]),
             [r.id for r in scene.records if r.asset == "K-7"]),
        Case("nobody is allowed anything: allowed []", (list(scene.records), []), []),
        Case("no candidates at all", ([], ["P-2"]), []),
        Case("near misses: 'P-22', 'p-2' and 'P-2 ' are not 'P-2'", (near, ["P-2"]), ["a", "e"]),
        Case("ranked order is kept (not sorted by asset or cost)", (order, ("P-2", "P-3")), ["x", "y", "z"]),
    ]
    rng = random.Random(101)
    for i in range(3):
        recs = _random_records(rng, 8)
        allow = sorted(rng.sample(("P-1", "P-2", "P-3", "K-7"), 2))
        cases.append(Case(f"a generated case ({i + 1} of 3), allowed {allow}", (recs, allow),
                          [r.id for r in recs if r.asset in allow]))
    return tuple(cases)


register(
    Exercise(
        "permitted",
        "Keep only the candidates the caller may read",
        _permitted_cases,
        same_records,
        (
            "Go through the records in order and keep each one whose asset is in allowed_assets. "
            "Return them as a list, still in ranked order.",
            "Membership is exact: 'P-22', 'p-2' and 'P-2 ' are different assets from 'P-2'. "
            "Use `record.asset in allowed_assets`, not a substring test or a case-insensitive one.",
            "One line does it: `return [r for r in records if r.asset in allowed_assets]`.",
        ),
    )
)


def _oracle_prefix(records, allowed, allowance) -> list[str]:
    from botie.context.selection import select

    return list(select(records, allowed, allowance, policy="prefix").selected_ids)


def _prefix_cases() -> tuple[Case, ...]:
    scene = _scene()
    allowed = list(scene.allowed_assets)
    cases = [
        Case("the workshop scene: allowed ['P-2', 'P-3'], allowance 8",
             (list(scene.records), allowed, 8), ["man-p2-r4-s3.2", "tkt-5521"], shown=True),
        Case("costs [6, 5] in 8: the second would make 11", (_records(("a", "P-2", 6), ("b", "P-2", 5)),
             ["P-2"], 8), ["a"]),
        Case("costs [3, 8, 2] in 7: stop at the 8, even though the 2 would fit",
             (_records(("a", "P-2", 3), ("b", "P-2", 8), ("c", "P-2", 2)), ["P-2"], 7), ["a"]),
        Case("one record that fills an allowance of 7 exactly", (_records(("a", "P-2", 7)), ["P-2"], 7), ["a"]),
        Case("a zero-cost record fits in an allowance of 0", (_records(("a", "P-2", 0), ("b", "P-2", 1)),
             ["P-2"], 0), ["a"]),
        Case("a restricted record must not take room: P-1 (5) before P-2 (6), allowance 6",
             (_records(("k", "P-1", 5), ("a", "P-2", 6)), ["P-2"], 6), ["a"]),
        Case("nothing permitted", (_records(("k", "K-7", 1)), ["P-2"], 10), []),
        Case("the scene with a bigger allowance of 12", (list(scene.records), allowed, 12),
             _oracle_prefix(scene.records, allowed, 12)),
    ]
    rng = random.Random(404)
    for i in range(4):
        recs = _random_records(rng, 9)
        allow = sorted(rng.sample(("P-1", "P-2", "P-3", "K-7"), 2))
        allowance = rng.randint(3, 14)
        cases.append(Case(f"a generated case ({i + 1} of 4), allowed {allow}, allowance {allowance}",
                          (recs, allow, allowance), _oracle_prefix(recs, allow, allowance)))
    return tuple(cases)


register(
    Exercise(
        "choose_evidence",
        "Permission first, then the ranked prefix that fits",
        _prefix_cases,
        same_records,
        (
            "Two steps, in this order: first drop the records the caller may not read (your `permitted` "
            "does that), then walk what is left in ranked order, adding up costs.",
            "Keep a record while used + cost is at most the allowance. A record that brings the total to "
            "exactly the allowance fits: use <=, not <. At the first record that does not fit, stop "
            "(break); do not skip it and keep looking.",
            "used = 0; chosen = []; for r in permitted(records, allowed_assets): if used + r.cost > "
            "allowance: break; chosen.append(r); used += r.cost. Return chosen.",
        ),
    )
)


# --- lesson 04: from suggestion to action -------------------------------------------


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


register(
    Exercise(
        "valid_minutes",
        "A strict check for whole minutes from 1 to 60",
        _minutes_cases,
        _same_bool,
        (
            "Two questions: is the value really an int (not a bool, not a float, not a string), and is it "
            "between 1 and 60, both ends included?",
            "`isinstance(True, int)` is True, because bool is a subclass of int. Compare the type "
            "itself: `type(value) is int`.",
            "return type(value) is int and 1 <= value <= 60",
        ),
    )
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
        ("K-7 is not allowed, even though r7 is stored with this payload", k7, ana, allowed,
         Approval(ana, k7), StoredRequest.settled(k7, "job-9"), False),
        ("K-7 is not allowed and nothing is approved", k7, ana, allowed, None, None, False),
        ("'p-2' is not 'P-2'", _with(_P2, asset_id="p-2"), ana, allowed, None, None, False),
        ("nobody may schedule anything: allowed []", _P2, ana, [], ok, None, False),
        ("no approval recorded", _P2, ana, allowed, None, None, False),
        ("no approval, and r7 stored with a different payload", _P2, ana, allowed, None, longer, False),
        ("approved by sup-lee, but tech-ana is the caller", _P2, ana, allowed, Approval("sup-lee", _P2), None,
         False),
        ("approved for 20 minutes, proposal now asks for 45", _with(_P2, duration_minutes=45), ana, allowed, ok,
         None, False),
        ("approved for request r6, proposal says r7", _P2, ana, allowed,
         Approval(ana, _with(_P2, request_id="r6")), None, False),
        ("approved, P-3 this time, nothing stored", _with(_P2, asset_id="P-3", request_id="r8"), ana, allowed,
         Approval(ana, _with(_P2, asset_id="P-3", request_id="r8")), None, False),
    ]
    cases = []
    for label, proposal, caller, allow, approval, previous, shown in plan:
        kwargs = {"caller": caller, "allowed_assets": allow, "approval": approval, "previous": previous}
        branch = str(decide(proposal, **kwargs).branch)
        cases.append(Case(label, (proposal,), branch, kwargs, shown=shown))
    return tuple(cases)


register(
    Exercise(
        "choose_branch",
        "Permission, approval and the stored request, in that order",
        _branch_cases,
        _same_branch,
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
        ("two problems: duration 2.5 and an extra 'priority'", _with(_P2, duration_minutes=2.5, priority="high"),
         False),
        ("not an object at all: a list", [("asset_id", "P-2")], False),
        ("not an object at all: a string", "book P-2 for 20 minutes", False),
    ]
    return tuple(
        Case(label, (arguments,), frozenset(e.field for e in validate_inspection(arguments)), shown=shown)
        for label, arguments, shown in plan
    )


register(
    Exercise(
        "field_errors",
        "Challenge: name every field a malformed proposal gets wrong",
        _fields_cases,
        _same_fields,
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
)
