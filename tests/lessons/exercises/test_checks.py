"""The exercise checker: right answers pass, wrong ones (including hard-coded ones) do not, stubs get "not yet"."""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from botie.actions.decision import Approval, StoredRequest
from botie.lessons.exercises import catalogue
from botie.lessons.exercises.catalogue import EXERCISES, check, hint, run
from botie.lessons.exercises.engine import Exercise, Verdict, same_value
from tests.lessons.exercises import test_design_05 as _design_05_tests, test_exercises_evidence as _evidence_tests

# --- reference solutions (what the instructor edition holds) -------------------------


def evidence_allowance(total, input_reserve, output_reserve):
    if total < 0 or input_reserve < 0 or output_reserve < 0:
        raise ValueError("a token count cannot be negative")
    if input_reserve + output_reserve > total:
        raise ValueError("reserves exceed the total")
    return total - input_reserve - output_reserve


def permitted(records, allowed_assets):
    return [r for r in records if r.asset in allowed_assets]


def choose_evidence(records, allowed_assets, allowance):
    chosen, used = [], 0
    for r in permitted(records, allowed_assets):
        if used + r.cost > allowance:
            break
        chosen.append(r)
        used += r.cost
    return chosen


def valid_minutes(minutes):
    return type(minutes) is int and 1 <= minutes <= 60


def _same(a, b):
    """Two payloads with the same keys, each value of the same type and equal (20.0 is not 20)."""
    a, b = dict(a), dict(b)
    return a.keys() == b.keys() and all(type(a[k]) is type(b[k]) and a[k] == b[k] for k in a)


def _approved_exactly(approval, proposal, caller, *, same=_same):
    return approval is not None and approval.actor == caller and same(approval.payload, proposal)


def choose_branch(proposal, *, caller, allowed_assets, approval, previous, same=_same):
    if proposal["asset_id"] not in allowed_assets:
        return "denied"
    if not _approved_exactly(approval, proposal, caller, same=same):
        return "needs_approval"
    if previous is None:
        return "create"
    return "reuse" if same(previous.payload, proposal) else "conflict"


FIELDS = ("asset_id", "duration_minutes", "start", "request_id")


def valid_start(value, *, capitals=True):
    if not isinstance(value, str) or len(value) != 17 or not value.isascii():
        return False
    if capitals and (value[10] != "T" or value[16] != "Z"):  # strptime reads 't' and 'z' too
        return False
    try:
        datetime.datetime.strptime(value, "%Y-%m-%dT%H:%MZ")
    except ValueError:
        return False
    return True


def field_errors(
    arguments, *, minutes=valid_minutes, extras=True, empty_ok=False, start=valid_start, request_id_present=False
):
    if not isinstance(arguments, dict):
        return ["arguments"]
    bad = []
    for name in ("asset_id", "request_id"):
        value = arguments.get(name)
        if name == "request_id" and request_id_present:
            if not value:  # the reader's: only a missing, None or empty id is caught
                bad.append(name)
        elif not isinstance(value, str) or (not value.strip() and not empty_ok):
            bad.append(name)
    if not minutes(arguments.get("duration_minutes")):
        bad.append("duration_minutes")
    if not start(arguments.get("start")):
        bad.append("start")
    if extras:
        bad += [k for k in arguments if k not in FIELDS]
    return bad


REFERENCE = {
    "evidence_allowance": evidence_allowance,
    "permitted": permitted,
    "choose_evidence": choose_evidence,
    "valid_minutes": valid_minutes,
    "choose_branch": choose_branch,
    "field_errors": field_errors,
}


def _stub(*args, **kwargs):
    raise NotImplementedError("your code here")


# --- wrong solutions, one family per exercise ----------------------------------------


def _prefix(records, allowance, *, keep=lambda used, cost, allowance: used + cost <= allowance, stop=True):
    chosen, used = [], 0
    for r in records:
        if keep(used, r.cost, allowance):
            chosen.append(r)
            used += r.cost
        elif stop:
            break
    return chosen


def _reserves_checked_only_when_set(total, input_reserve, output_reserve):
    """Looks only at the reserves: with none set, a total of -1 comes back as -1 tokens of evidence."""
    if input_reserve < 0 or output_reserve < 0:
        raise ValueError("a reserve cannot be negative")
    if (input_reserve or output_reserve) and input_reserve + output_reserve > total:
        raise ValueError("reserves exceed the total")
    return total - input_reserve - output_reserve


def _permitted_same_list_when_all_allowed(records, allowed_assets):
    """The reader's shortcut: hands back the caller's own list when nothing needs removing."""
    if all(r.asset in allowed_assets for r in records):
        return records
    return [r for r in records if r.asset in allowed_assets]


def _permitted_in_place(records, allowed_assets):
    for r in list(records):
        if r.asset not in allowed_assets:
            records.remove(r)
    return records


def _stops_when_full(records, allowed_assets, allowance):
    """The reader's: right until a record that costs nothing follows an exact fill."""
    chosen, used = [], 0
    for r in permitted(records, allowed_assets):
        if used + r.cost > allowance:
            break
        chosen.append(r)
        used += r.cost
        if used == allowance and allowance > 0:
            break
    return chosen


def _first_extra_only(errors):
    extras = [name for name in errors if name not in FIELDS]
    return [name for name in errors if name in FIELDS or name == (extras[0] if extras else None)]


WRONG: dict[str, dict[str, Callable[..., Any]]] = {
    "evidence_allowance": {
        "forgets the output reserve": lambda t, i, o: t - i,
        "silent zero: max(0, ...)": lambda t, i, o: max(0, t - i - o),
        "negative instead of an error": lambda t, i, o: t - i - o,
        "raises when the reserves fill the window exactly (>=)": lambda t, i, o: (
            (_ for _ in ()).throw(ValueError("full")) if i + o >= t else t - i - o
        ),
        "hard-coded 8 for the example": lambda t, i, o: 8,
        "a float: 8.0 tokens": lambda t, i, o: float(evidence_allowance(t, i, o)),
        "a negative reserve adds room (10, -5, 4 gives 11)": lambda t, i, o: (
            (_ for _ in ()).throw(ValueError("over")) if i + o > t else t - i - o
        ),
        "a negative total with no reserves gives -1": _reserves_checked_only_when_set,
    },
    "permitted": {
        "no filtering at all": lambda records, allowed: list(records),
        "returns ids instead of records": lambda records, allowed: [r.id for r in records if r.asset in allowed],
        "substring match lets 'P-22' through": lambda records, allowed: [
            r for r in records if any(a in r.asset for a in allowed)
        ],
        "case-insensitive match lets 'p-2' through": lambda records, allowed: [
            r for r in records if r.asset.lower() in {a.lower() for a in allowed}
        ],
        "strips spaces and lets 'P-2 ' through": lambda records, allowed: [
            r for r in records if r.asset.strip() in allowed
        ],
        "sorted by cost instead of ranked order": lambda records, allowed: sorted(
            (r for r in records if r.asset in allowed), key=lambda r: r.cost
        ),
        "inverted: keeps the forbidden ones": lambda records, allowed: [r for r in records if r.asset not in allowed],
        "a piece of an allowed name passes: 'P-' in 'P-2'": lambda records, allowed: [
            r for r in records if any(r.asset in a for a in allowed)
        ],
        "removes the forbidden records from the caller's own list": _permitted_in_place,
        "hands back the caller's own list when every record is allowed": _permitted_same_list_when_all_allowed,
        "hard-coded answer for the scene": lambda records, allowed: [
            "man-p2-r4-s3.2",
            "tkt-5521",
            "tkt-5630",
            "man-p3-r1-s2",
            "tkt-4410",
            "man-p2-r3-s3.2",
            "man-p2-r4-s5.1",
            "tkt-3307",
        ],
    },
    "choose_evidence": {
        "< instead of <= drops the record that fills the room exactly": lambda recs, allowed, n: _prefix(
            permitted(recs, allowed), n, keep=lambda used, cost, allowance: used + cost < allowance
        ),
        "filters after the budget": lambda recs, allowed, n: permitted(_prefix(recs, n), allowed),
        "skips instead of stopping": lambda recs, allowed, n: _prefix(permitted(recs, allowed), n, stop=False),
        "never filters": lambda recs, allowed, n: _prefix(recs, n),
        "hard-coded answer for the scene": lambda recs, allowed, n: ["man-p2-r4-s3.2", "tkt-5521"],
        "stops as soon as the room is exactly full": _stops_when_full,
    },
    "valid_minutes": {
        "isinstance lets True through": lambda v: isinstance(v, int) and 1 <= v <= 60,
        "< 60 rejects the last minute": lambda v: type(v) is int and 1 <= v < 60,
        "0 <= v lets 0 through": lambda v: type(v) is int and 0 <= v <= 60,
        "no type check at all": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and 1 <= v <= 60,
        "whole floats accepted": lambda v: type(v) in (int, float) and v == int(v) and 1 <= v <= 60,
        "hard-coded for the four examples": lambda v: v == 20 and v is not True,
    },
    "choose_branch": {
        "reuses on a different payload (compares request ids only)": lambda p, **k: (
            "denied"
            if p["asset_id"] not in k["allowed_assets"]
            else "needs_approval"
            if not _approved_exactly(k["approval"], p, k["caller"])
            else "create"
            if k["previous"] is None
            else "reuse"
            if k["previous"].payload["request_id"] == p["request_id"]
            else "conflict"
        ),
        "looks at the stored request before permission": lambda p, **k: (
            ("reuse" if dict(k["previous"].payload) == dict(p) else "conflict")
            if k["previous"] is not None
            else choose_branch(p, **k)
        ),
        "ignores who approved": lambda p, **k: choose_branch(
            p, **{**k, "caller": k["approval"].actor if k["approval"] is not None else k["caller"]}
        ),
        "any approval will do": lambda p, **k: (
            "denied"
            if p["asset_id"] not in k["allowed_assets"]
            else "needs_approval"
            if k["approval"] is None
            else "create"
            if k["previous"] is None
            else "reuse"
            if dict(k["previous"].payload) == dict(p)
            else "conflict"
        ),
        "a stored same payload is reused without looking at the approval": lambda p, **k: (
            "denied"
            if p["asset_id"] not in k["allowed_assets"]
            else "reuse"
            if k["previous"] is not None and dict(k["previous"].payload) == dict(p)
            else choose_branch(p, **k)
        ),
        "approval checked before permission": lambda p, **k: (
            "needs_approval" if not _approved_exactly(k["approval"], p, k["caller"]) else choose_branch(p, **k)
        ),
        "hard-coded 'create'": lambda p, **k: "create",
        "plain == on payloads, so an approval for 20.0 minutes counts for 20": lambda p, **k: choose_branch(
            p, **k, same=lambda a, b: dict(a) == dict(b)
        ),
        "ignores start when comparing payloads": lambda p, **k: choose_branch(
            _no_start(p),
            **{
                **k,
                "approval": None
                if k["approval"] is None
                else Approval(k["approval"].actor, _no_start(k["approval"].payload)),
                "previous": None
                if k["previous"] is None
                else StoredRequest.settled(_no_start(k["previous"].payload), "job-1"),
            },
        ),
    },
    "field_errors": {
        "isinstance lets True through": lambda a: field_errors(
            a, minutes=lambda v: isinstance(v, int) and 1 <= v <= 60
        ),
        "extra fields such as admin are not reported": lambda a: field_errors(a, extras=False),
        "empty strings accepted": lambda a: field_errors(a, empty_ok=True),
        "whole floats such as 20.0 accepted": lambda a: field_errors(
            a, minutes=lambda v: type(v) in (int, float) and v == int(v) and 1 <= v <= 60
        ),
        "crashes on missing fields": lambda a: [n for n in FIELDS if not a[n]],
        "hard-coded for the two examples": lambda a: ["admin"] if "admin" in a else [],
        "reports only the first unknown field": lambda a: _first_extra_only(field_errors(a)),
        "any text will do for start": lambda a: field_errors(a, start=lambda v: isinstance(v, str)),
        "start's shape only, not whether the day exists": lambda a: field_errors(
            a, start=lambda v: isinstance(v, str) and len(v) == 17 and v.endswith("Z") and v[10] == "T"
        ),
        "names each field twice": lambda a: field_errors(a) + field_errors(a),
        "strptime alone decides start (no 17 ASCII characters)": lambda a: field_errors(a, start=_strptime_reads),
        "an id of spaces only accepted": lambda a: _spaces_ok(a),
        "request_id only checked for being there": lambda a: field_errors(a, request_id_present=True),
        "strptime ignores case, so 't' and 'z' pass": lambda a: field_errors(
            a, start=lambda v: valid_start(v, capitals=False)
        ),
        "fromisoformat reads start (a space will do for the T)": lambda a: field_errors(a, start=_isoformat_reads),
    },
}


def _isoformat_reads(value):
    """17 ASCII characters ending in Z whose rest ``fromisoformat`` reads: it reads a space as readily as a T."""
    if not isinstance(value, str) or len(value) != 17 or not value.isascii() or not value.endswith("Z"):
        return False
    try:
        datetime.datetime.fromisoformat(value[:-1])
    except ValueError:
        return False
    return True


def _no_start(payload):
    return {k: v for k, v in dict(payload).items() if k != "start"}


def _strptime_reads(value):
    try:
        datetime.datetime.strptime(value, "%Y-%m-%dT%H:%MZ")
    except (TypeError, ValueError):
        return False
    return True


def _spaces_ok(arguments):
    bad = field_errors(arguments)
    if isinstance(arguments, dict):
        bad = [
            n
            for n in bad
            if not (
                n in ("asset_id", "request_id")
                and isinstance(arguments.get(n), str)
                and arguments[n]
                and not arguments[n].strip()
            )
        ]
    return bad


# Two right answers unlike the reference: each must pass, so the check is not the reference in disguise.
def _branch_by_json(proposal, *, caller, allowed_assets, approval, previous):
    """Payloads compared as canonical JSON text, the checks as a table walked in order."""
    same = lambda a, b: json.dumps(dict(a), sort_keys=True) == json.dumps(dict(b), sort_keys=True)  # noqa: E731
    steps = (
        (proposal["asset_id"] in set(allowed_assets), "denied"),
        (approval is not None and approval.actor == caller and same(approval.payload, proposal), "needs_approval"),
    )
    for passed, branch in steps:
        if not passed:
            return branch
    if previous is None:
        return "create"
    return "reuse" if same(previous.payload, proposal) else "conflict"


def _branch_by_sorted_items(proposal, *, caller, allowed_assets, approval, previous):
    def key(d):
        return sorted((k, type(v).__name__, v) for k, v in dict(d).items())

    if proposal["asset_id"] not in list(allowed_assets):
        return "denied"
    if approval is None or (approval.actor, key(approval.payload)) != (caller, key(proposal)):
        return "needs_approval"
    return "create" if previous is None else ("reuse" if key(previous.payload) == key(proposal) else "conflict")


def _fields_by_regex(arguments):
    """A start written exactly YYYY-MM-DDTHH:MMZ in ASCII digits, then a real moment; a set, sorted at the end."""
    if type(arguments) is not dict:
        return ["arguments"]
    bad = {n for n in ("asset_id", "request_id") if type(arguments.get(n)) is not str or not arguments[n].strip()}
    if not valid_minutes(arguments.get("duration_minutes")):
        bad.add("duration_minutes")
    start = arguments.get("start")
    if not (
        isinstance(start, str)
        and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}Z", start)
        and _strptime_reads(start)
    ):
        bad.add("start")
    return sorted(bad | (set(arguments) - set(FIELDS)))


def _fields_by_round_trip(arguments):
    """start is right when formatting the parsed moment gives back the very same text."""
    if not isinstance(arguments, dict):
        return ["arguments"]
    bad = [n for n in FIELDS if n not in arguments]
    for name in ("asset_id", "request_id"):
        if name in arguments and (not isinstance(arguments[name], str) or arguments[name].strip() == ""):
            bad.append(name)
    if "duration_minutes" in arguments and not valid_minutes(arguments["duration_minutes"]):
        bad.append("duration_minutes")
    if "start" in arguments:
        start = arguments["start"]
        try:
            ok = datetime.datetime.strptime(start, "%Y-%m-%dT%H:%MZ").strftime("%Y-%m-%dT%H:%MZ") == start
        except (TypeError, ValueError):
            ok = False
        if not ok:
            bad.append("start")
    return bad + [k for k in arguments if k not in FIELDS]


OTHER_RIGHT: dict[str, dict[str, Callable[..., Any]]] = {
    "choose_branch": {"canonical JSON, a table of steps": _branch_by_json, "sorted items": _branch_by_sorted_items},
    "field_errors": {
        "a regex, then strptime": _fields_by_regex,
        "a round trip through strftime": _fields_by_round_trip,
    },
}


@pytest.mark.parametrize(("name", "label"), [(n, label) for n, family in OTHER_RIGHT.items() for label in family])
def test_a_right_answer_unlike_the_reference_passes(name, label):
    report = run(name, OTHER_RIGHT[name][label])
    assert not isinstance(report, str)
    assert report.verdict is Verdict.PASSED, report.text()


def test_a_choose_branch_that_ignores_start_is_caught_on_both_start_cases():
    report = run("choose_branch", WRONG["choose_branch"]["ignores start when comparing payloads"])
    assert not isinstance(report, str)
    failed = {r.case.label for r in report.results if not r.passed}
    assert failed == {
        "approved for 09:00, proposal now starts at 11:00",
        "r7 stored for 11:00, now approved for 09:00",
    }


def test_a_field_errors_without_the_strict_start_is_caught_on_both_loose_spellings():
    report = run("field_errors", WRONG["field_errors"]["strptime alone decides start (no 17 ASCII characters)"])
    assert not isinstance(report, str)
    failed = {r.case.label for r in report.results if not r.passed}
    assert failed == {
        "start without its zeros, '2026-4-2T9:00Z'",
        "start in fullwidth digits, which strptime reads",
        "start with a lowercase z, '2026-04-02T09:00z'",
        "start with a lowercase t, '2026-04-02t09:00Z'",
    }


def test_a_field_errors_that_reads_start_with_fromisoformat_is_caught_on_the_space_for_the_t():
    report = run("field_errors", WRONG["field_errors"]["fromisoformat reads start (a space will do for the T)"])
    assert not isinstance(report, str)
    failed = {r.case.label for r in report.results if not r.passed}
    assert failed == {
        "start with a space for the T, '2026-04-02 09:00Z'",
        "start with a lowercase t, '2026-04-02t09:00Z'",
    }


# Lessons 02, 03 and 06 register their exercises from their own module; their solutions live
# beside their specific tests. The generic checks below run over every lesson's exercises.
ALL_REFERENCE = {**REFERENCE, **_evidence_tests.REFERENCE, **_design_05_tests.REFERENCE}
ALL_WRONG = {**WRONG, **_evidence_tests.WRONG, **_design_05_tests.WRONG_FOR_CHECKS}


def test_every_exercise_has_a_reference_and_at_least_three_wrong_solutions():
    assert set(ALL_REFERENCE) == set(EXERCISES) == set(ALL_WRONG)
    assert all(len(wrong) >= 3 for wrong in ALL_WRONG.values())


@pytest.mark.parametrize("name", sorted(ALL_REFERENCE))
def test_the_reference_solution_passes(name):
    report = run(name, ALL_REFERENCE[name])
    assert not isinstance(report, str)
    assert report.verdict is Verdict.PASSED, report.text()


@pytest.mark.parametrize(("name", "label"), [(n, label) for n, family in ALL_WRONG.items() for label in family])
def test_a_wrong_solution_is_rejected(name, label):
    report = run(name, ALL_WRONG[name][label])
    assert not isinstance(report, str)
    assert report.verdict is Verdict.FAILED, f"{label!r} passed:\n{report.text()}"
    assert "✗" in report.text()


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_the_visible_example_is_never_the_only_case(name):
    """A hard-coded answer for what the notebook shows must meet cases it did not show."""
    cases = EXERCISES[name].cases()
    assert any(c.shown for c in cases)
    assert sum(not c.shown for c in cases) >= 3


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_a_stub_gets_not_yet_and_the_first_hint(name, capsys):
    report = run(name, _stub)
    assert not isinstance(report, str)
    assert report.verdict is Verdict.NOT_YET
    check(name, _stub)
    out = capsys.readouterr().out
    assert f"{name}: not yet" in out
    assert EXERCISES[name].hints[0] in out
    assert "Traceback" not in out


@pytest.mark.parametrize(
    "error",
    [ZeroDivisionError("division by zero"), KeyError("asset_id"), TypeError("bad args"), RecursionError("too deep")],
)
def test_any_exception_is_a_failed_case_with_its_message(error, capsys):
    def broken(*args, **kwargs):
        raise error

    report = run("permitted", broken)
    assert not isinstance(report, str)
    assert report.verdict is Verdict.FAILED
    assert all(not r.passed for r in report.results)
    check("permitted", broken)
    out = capsys.readouterr().out
    assert f"raised {type(error).__name__}" in out
    assert "Traceback" not in out


def test_a_partial_not_implemented_is_a_failure_not_a_stub():
    def half(value):
        if value is True:
            raise NotImplementedError("bools later")
        return type(value) is int and 1 <= value <= 60

    report = run("valid_minutes", half)
    assert not isinstance(report, str)
    assert report.verdict is Verdict.FAILED
    assert any("NotImplementedError: bools later" in r.message for r in report.results)


def test_a_non_function_is_not_yet(capsys):
    check("permitted", None)
    assert "not yet" in capsys.readouterr().out


def test_check_finds_the_exercise_by_the_function_name(capsys):
    check(valid_minutes)
    assert capsys.readouterr().out.startswith("valid_minutes: all 13 cases passed")


def test_an_unknown_exercise_is_a_message(capsys):
    def mystery():
        return None

    check(mystery)
    out = capsys.readouterr().out
    assert "no exercise called 'mystery'" in out
    assert "permitted" in out


def test_an_odd_return_value_is_reported_not_raised():
    report = run("permitted", lambda records, allowed: 42)
    assert not isinstance(report, str)
    assert report.verdict is Verdict.FAILED
    assert "expected a list of records, got 42" in report.results[0].message


def test_valid_minutes_demands_a_real_bool():
    report = run("valid_minutes", lambda v: 1 if type(v) is int and 1 <= v <= 60 else 0)
    assert not isinstance(report, str)
    assert report.verdict is Verdict.FAILED
    assert "expected True or False, got 1" in report.results[0].message


def test_a_mutating_solution_does_not_spoil_later_cases():
    def greedy(records, allowed_assets):
        kept = [r for r in records if r.asset in allowed_assets]
        records.clear()
        return kept

    report = run("permitted", greedy)
    assert not isinstance(report, str)
    # Every case after a clear() still gets the full list: only the cases that look at the caller's list fail.
    failed = [r for r in report.results if not r.passed]
    assert [r.case.label for r in failed] == [r.case.label for r in report.results if r.case.keeps_input]
    assert len(failed) == 2
    assert all("argument 1 changed" in r.message and "build a new list" in r.message for r in failed)


def test_handing_back_the_callers_own_list_fails_only_the_case_where_every_record_is_allowed():
    """A shortcut that returns the caller's list when nothing is removed: right items, but a shared list."""

    def shortcut(records, allowed_assets):
        if all(r.asset in allowed_assets for r in records):
            return records
        return [r for r in records if r.asset in allowed_assets]

    report = run("permitted", shortcut)
    assert not isinstance(report, str)
    failed = [r for r in report.results if not r.passed]
    assert [r.case.label for r in failed] == ["every record is allowed: still a new list, not the one you were given"]
    assert "the caller's own list" in failed[0].message and "build a new list" in failed[0].message


def test_hints_come_one_at_a_time_and_stop_at_the_last(capsys, monkeypatch):
    monkeypatch.setattr(catalogue, "_HINTS_GIVEN", {})
    hints = EXERCISES["choose_evidence"].hints
    for _ in range(len(hints) + 1):
        hint("choose_evidence")
    out = capsys.readouterr().out
    for number, text in enumerate(hints, start=1):
        assert f"Hint {number} of {len(hints)}" in out
        assert text in out
    assert out.count(f"Hint {len(hints)} of {len(hints)} (that is the last one)") == 2
    hint("choose_evidence", 1)
    assert capsys.readouterr().out.startswith(f"Hint 1 of {len(hints)}")


def test_a_broken_checker_says_so_instead_of_raising(capsys, monkeypatch):
    def explode():
        raise RuntimeError("case builder broke")

    broken = Exercise("broken", "t", explode, same_value, ("h",))
    monkeypatch.setitem(EXERCISES, "broken", broken)
    check("broken", lambda: None)
    assert "The checker itself failed (RuntimeError: case builder broke)" in capsys.readouterr().out


def test_not_yet_counts_as_the_first_hint(capsys, monkeypatch):
    monkeypatch.setattr(catalogue, "_HINTS_GIVEN", {})
    check("permitted", _stub)
    hint("permitted")
    out = capsys.readouterr().out
    assert "Hint 1 of 3: " in out
    assert "Hint 2 of 3;" in out


# --- calling a learner's function: one place, three policies built on it ----------------------


def test_call_learner_passes_copies_and_returns_the_value():
    from botie.lessons.exercises.engine import call_learner

    given = [3, 1, 2]

    def sorts_in_place(xs):
        xs.sort()
        return xs

    call = call_learner(sorts_in_place, given)
    assert (call.value, call.error, call.not_written, call.message) == ([1, 2, 3], None, False, "")
    assert given == [3, 1, 2]  # the caller's list is untouched


def test_call_learner_turns_an_exception_or_a_stub_into_a_value():
    from botie.lessons.exercises.engine import call_learner

    def broken(x, *, y):
        raise KeyError(f"{x}{y}")

    def stub():
        raise NotImplementedError

    assert call_learner(lambda **kw: sorted(kw), fn=1, args=2).value == ["args", "fn"]  # any keyword reaches it
    failed = call_learner(broken, "a", y="b")
    assert isinstance(failed.error, KeyError) and failed.message == "KeyError: 'ab'" and not failed.not_written
    assert failed.value is None
    waiting = call_learner(stub)
    assert waiting.not_written and waiting.message == "NotImplementedError"


def test_a_stub_is_not_yet_even_where_the_case_expects_a_runtime_error():
    """NotImplementedError is a RuntimeError: a stub must not pass a case whose right answer is to raise one."""
    from botie.lessons.exercises.engine import Case, Exercise, Raises, Verdict, run_exercise

    def stub(x):
        raise NotImplementedError

    exercise = Exercise("t", "t", lambda: (Case("raises", (1,), Raises(RuntimeError)),), lambda g, e: None, ("h",))
    report = run_exercise(exercise, stub)
    assert report.verdict is Verdict.NOT_YET and not report.results[0].passed


def test_a_field_errors_that_only_asks_whether_request_id_is_there_is_caught_on_a_number_and_on_spaces():
    report = run("field_errors", WRONG["field_errors"]["request_id only checked for being there"])
    assert not isinstance(report, str)
    failed = {r.case.label for r in report.results if not r.passed}
    assert failed == {"request_id as a number, 7", "a request_id of spaces only"}


def test_a_field_errors_that_lets_strptime_decide_the_case_is_caught_on_both_lowercase_letters():
    report = run("field_errors", WRONG["field_errors"]["strptime ignores case, so 't' and 'z' pass"])
    assert not isinstance(report, str)
    failed = {r.case.label for r in report.results if not r.passed}
    assert failed == {"start with a lowercase z, '2026-04-02T09:00z'", "start with a lowercase t, '2026-04-02t09:00Z'"}


def test_a_choose_branch_that_compares_payloads_with_plain_equality_is_caught_on_20_point_0():
    wrong = WRONG["choose_branch"]["plain == on payloads, so an approval for 20.0 minutes counts for 20"]
    report = run("choose_branch", wrong)
    assert not isinstance(report, str)
    failed = {r.case.label for r in report.results if not r.passed}
    assert failed == {"approved for 20.0 minutes, proposal asks for 20"}
