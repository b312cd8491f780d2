"""tools/mutation.py (`make mutation`): the equivalents file is strict, and the table adds up."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import mutation


def test_the_committed_equivalents_file_parses_and_every_entry_has_a_reason():
    entries = mutation.parse_equivalents(mutation.EQUIVALENTS.read_text(encoding="utf-8"))
    assert all(e.reason and e.code for e in entries.values())
    modules = mutation.library_modules()
    assert all(any(name.startswith(m + ".x") for m in modules) for name in entries)


@pytest.mark.parametrize(
    "line",
    [
        "botie.x.x_f__mutmut_1 | code",  # no reason
        "botie.x.x_f__mutmut_1 |  | a reason",  # no code
        "botie.x.x_f__mutmut_1 | code | reason\nbotie.x.x_f__mutmut_1 | code | again",  # listed twice
    ],
)
def test_an_incomplete_or_repeated_entry_is_refused(line):
    with pytest.raises(ValueError):
        mutation.parse_equivalents(line)


def test_comments_and_blank_lines_are_ignored():
    assert mutation.parse_equivalents("# a comment\n\n  \n") == {}


def test_module_names_follow_the_paths():
    assert mutation.module_of(Path("botie/context/budget.py")) == "botie.context.budget"
    assert mutation.module_of(Path("botie/context/provenance/__init__.py")) == "botie.context.provenance"


def test_the_scope_is_the_library_with_the_leads_modules_last():
    modules = mutation.library_modules()
    assert "botie.context.records" in modules and "botie.turn" in modules
    assert not any(m.startswith(("botie.lessons.ui", "botie.lessons")) for m in modules)
    assert set(modules[-2:]) == set(mutation.LAST)


def test_a_row_scores_caught_over_judged_with_equivalents_left_out():
    r = mutation.ModuleResult("botie.x")
    r.counts.update(killed=18, timeout=1, survived=1)
    r.equivalent = 1
    assert mutation._row(r).split()[-1] == "100.0%"  # 19 caught of 20 - 1 equivalent
    r.equivalent = 0
    assert mutation._row(r).split()[-1] == "95.0%"


@pytest.mark.parametrize(
    ("code", "column"),
    [
        (1, "killed"),
        (0, "survived"),
        (33, "no tests"),
        (36, "timeout"),
        (-24, "timeout"),
        (None, "not checked"),
        (-11, "other"),
    ],
)
def test_mutmut_exit_codes_fold_into_the_columns(code, column):
    assert mutation.status(code) == column
