"""The grading engine: run a learner's function against an exercise's cases and say which passed.

An :class:`Exercise` has several cases, most of them not shown in the notebook, so an answer
hard-coded for the visible example does not pass. A function that still raises
``NotImplementedError`` (the learner edition's stub) gets "not yet" and the first hint. Any
other exception inside the learner's function is a failed case with its message, never a
traceback. The exercises themselves live one module per lesson (``lesson01.py`` ...);
:mod:`botie.lessons.exercises.catalogue` finds them by name for ``check`` and ``hint``.

Only the standard library and the botie core are imported, and the cases are built on first
use, so importing the engine stays cheap.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from botie._enum import ShortName

__all__ = [
    "Case",
    "CaseResult",
    "Exercise",
    "Raises",
    "Report",
    "Verdict",
    "LearnerCall",
    "call_learner",
    "describe_exception",
    "fresh_copy",
    "record_ids",
    "run_exercise",
    "same_bool",
    "same_branch",
    "same_fields",
    "same_record_objects",
    "same_records",
    "same_value",
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
    keeps_input: bool = False  # the function must leave what it was given as it was (checked after a right answer)


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
            return f"{name}: not yet. {self.note}\nHint 1 of {len(self.exercise.hints)}: {self.exercise.hints[0]}"
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


_CASES: dict[str, tuple[Case, ...]] = {}


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


@dataclass(frozen=True)
class LearnerCall:
    """What one call of a learner's function gave: a value, or the exception it raised (never both)."""

    value: Any = None
    error: Exception | None = None

    @property
    def not_written(self) -> bool:
        """The learner edition's stub: the function still raises ``NotImplementedError``."""
        return isinstance(self.error, NotImplementedError)

    @property
    def message(self) -> str:
        """What went wrong, in one line (the exception's type and text); "" when nothing did."""
        return "" if self.error is None else describe_exception(self.error)


def call_learner(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> LearnerCall:
    """Call a learner's function on fresh copies of its arguments; whatever it raises comes back as a value.

    Every caller (the checker, the panel comparison, the capstone) decides what a stub or an error
    means for it; none of them hands the learner a traceback. The copies keep a function that sorts,
    clears or appends to its input from spoiling the next case or the panel's own state.
    """
    fresh_args = tuple(fresh_copy(a) for a in args)
    fresh_kwargs = {key: fresh_copy(value) for key, value in kwargs.items()}
    try:
        return LearnerCall(fn(*fresh_args, **fresh_kwargs))
    except Exception as exc:  # the learner's code: any failure is reported, never raised
        return LearnerCall(error=exc)


def _run_case(fn: Callable[..., Any], case: Case, compare: Callable[[Any, Any], str | None]) -> CaseResult:
    call = call_learner(fn, *case.args, **case.kwargs)
    if call.error is not None:
        if isinstance(case.expected, Raises) and isinstance(call.error, case.expected.error) and not call.not_written:
            return CaseResult(case, True)
        return CaseResult(case, False, f"raised {call.message}", not_implemented=call.not_written)
    got = call.value
    if isinstance(case.expected, Raises):
        why = f" ({case.expected.why})" if case.expected.why else ""
        return CaseResult(case, False, f"expected a {case.expected.error.__name__}{why}, got {show(got)}")
    try:
        problem = compare(got, case.expected)
    except Exception as exc:  # an odd return value must not crash the checker either
        problem = f"could not compare the result {show(got)}: {describe_exception(exc)}"
    if problem is None and case.keeps_input:
        problem = _changed_input(fn, case)
    return CaseResult(case, problem is None, problem or "")


def _changed_input(fn: Callable[..., Any], case: Case) -> str | None:
    """Call ``fn`` once more on copies it may keep, and say which argument it changed or handed back, if any.

    The caller's list belongs to the caller: a step that removes from it leaves the next step (or the panel)
    with less than it was given. ``call_learner`` hands out copies, so the change is looked for here.
    """
    given = tuple(fresh_copy(a) for a in case.args)
    try:
        result = fn(*given, **{key: fresh_copy(value) for key, value in case.kwargs.items()})
    except Exception:  # the first call succeeded; a second failure is not this check's business
        return None
    for position, handed in enumerate(given, start=1):
        # The same list object back means the caller and the next step share it: a change by one is seen by both.
        if result is handed and isinstance(handed, list):
            return (
                f"the right result, but it is argument {position} itself, the caller's own list: "
                "build a new list, even when every item is kept"
            )
    for position, (before, after) in enumerate(zip(case.args, given), start=1):
        if after != before:
            return (
                f"the right result, but argument {position} changed: {show(before, 80)} became {show(after, 80)}; "
                "leave what you were given as it was and build a new list"
            )
    return None


def run_exercise(exercise: Exercise, fn: Any) -> Report:
    """Run ``fn`` against every case of ``exercise`` and return a :class:`Report`."""
    if not callable(fn):
        note = f"expected a function, got {show(fn)}. Run the cell that defines it first."
        return Report(exercise, Verdict.NOT_YET, (), note)
    results = tuple(_run_case(fn, case, exercise.compare) for case in exercise.cases())
    if results and all(r.not_implemented for r in results):
        note = "Your function (or one it calls) still raises NotImplementedError: replace the stub with your code."
        return Report(exercise, Verdict.NOT_YET, results, note)
    verdict = Verdict.PASSED if all(r.passed for r in results) else Verdict.FAILED
    return Report(exercise, verdict, results)


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


def same_record_objects(got: Any, expected: list[str]) -> str | None:
    """Like :func:`same_records`, but ids in place of records are wrong: the next step reads each record's cost."""
    if isinstance(got, Iterable) and not isinstance(got, (str, bytes, Mapping)):
        got = list(got)
        ids = [item for item in got if isinstance(item, str)]
        if ids:
            return (
                f"expected the records themselves, found ids such as {ids[0]!r}: return the Record objects, "
                "because the next exercise adds up their costs"
            )
    return same_records(got, expected)


def same_records(got: Any, expected: list[str]) -> str | None:
    ids, problem = record_ids(got, "the list")
    if ids is None:  # record_ids gives ids or a problem, never both
        return problem
    if ids == expected:
        return None
    if sorted(ids) == sorted(expected):
        return f"the right records in the wrong order: expected {expected}, got {ids} (keep the order asked for)"
    return f"expected {expected}, got {ids}"


def same_bool(got: Any, expected: bool) -> str | None:
    if type(got) is not bool:
        return f"expected True or False, got {show(got)} (a {type(got).__name__})"
    return None if got is expected else f"expected {expected}, got {got}"


def same_value(got: Any, expected: Any) -> str | None:
    if type(got) is bool and type(expected) is not bool:
        return f"expected {expected!r}, got {got!r} (a bool)"
    return None if got == expected else f"expected {expected!r}, got {show(got)}"


def same_branch(got: Any, expected: str) -> str | None:
    if not isinstance(got, str):
        return f"expected a branch name such as {expected!r}, got {show(got)}"
    return None if str(got) == expected else f"expected {expected!r}, got {str(got)!r}"


def same_fields(got: Any, expected: frozenset[str]) -> str | None:
    if isinstance(got, (str, bytes, Mapping)) or not isinstance(got, Iterable):
        return f"expected a list of field names, got {show(got)}"
    names: set[str] = set()
    for item in got:
        name = item if isinstance(item, str) else getattr(item, "field", None)
        if not isinstance(name, str):
            return f"expected field names such as 'duration_minutes', found {show(item)}"
        if name in names:
            return f"{name!r} is named twice: name each field at fault once"
        names.add(name)
    if names == expected:
        return None
    want = sorted(expected) or "none"
    return f"expected the fields at fault to be {want}, got {sorted(names) or 'none'}"
