"""`make lint`, the pre-commit hooks and CI run the same style checks over the same paths."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # the suite runs on 3.10 too (make test-pythons); tomli is the same parser
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _make_variable(makefile: str, name: str) -> list[str]:
    found = re.search(rf"^{name}\s*:?=(.*)$", makefile, re.MULTILINE)
    assert found is not None, f"the Makefile defines no {name}"
    return found.group(1).split()


def make_lint_commands(makefile: str) -> list[list[str]]:
    """The lint target's recipe, one command a line, $(LINT_PATHS) expanded, the interpreter left out."""
    recipe = re.search(r"^lint:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe is not None, "the Makefile has no lint target with a recipe"
    paths = _make_variable(makefile, "LINT_PATHS")
    commands = []
    for line in recipe.group(1).splitlines():
        words = shlex.split(line.strip().lstrip("@"))
        assert words[:2] == ["$(BIN)/python", "-m"], f"not a tool run from the environment: {line!r}"
        commands.append([w for word in words[2:] for w in (paths if word == "$(LINT_PATHS)" else [word])])
    return commands


def pre_commit_commands(config: str) -> list[list[str]]:
    """Each hook's entry and arguments, the interpreter left out; every hook must check the whole tree."""
    hooks = [hook for repo in yaml.safe_load(config)["repos"] for hook in repo["hooks"]]
    commands = []
    for hook in hooks:
        words = shlex.split(hook["entry"]) + list(hook.get("args", []))
        assert words[:2] == [".venv/bin/python", "-m"], f"hook {hook['id']} does not run the project's tools"
        assert hook.get("pass_filenames") is False, f"hook {hook['id']} checks only the staged files"
        commands.append(words[2:])
    return commands


def ci_commands(script: str) -> list[str]:
    return [line.strip() for line in script.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_make_lint_runs_ruff_check_ruff_format_and_mypy_over_the_whole_tree():
    paths = ["botie", "tests", "bench", "tools", "classroom", "noxfile.py"]
    assert make_lint_commands((ROOT / "Makefile").read_text()) == [
        ["ruff", "check", *paths],
        ["ruff", "format", "--check", *paths],
        ["mypy"],
    ]


def test_pre_commit_runs_exactly_what_make_lint_runs():
    makefile = (ROOT / "Makefile").read_text()
    config = (ROOT / ".pre-commit-config.yaml").read_text()
    assert pre_commit_commands(config) == make_lint_commands(makefile)


def test_mypy_checks_the_paths_ruff_checks():
    """mypy takes its paths from pyproject.toml, so they must be the Makefile's LINT_PATHS."""
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert mypy["files"] == _make_variable((ROOT / "Makefile").read_text(), "LINT_PATHS")


def test_ci_runs_make_lint_before_the_tests():
    commands = ci_commands((ROOT / ".ci" / "run").read_text())
    assert "make lint" in commands
    assert commands.index("make lint") < commands.index("make test")


# --- the readers above, on planted drift --------------------------------------------------------

_MAKEFILE = "LINT_PATHS := botie tests\n\nlint: $(STAMP)\n\t$(BIN)/python -m ruff check $(LINT_PATHS)\n"


def test_a_hook_with_other_paths_than_make_lint_is_told_apart():
    hook = (
        "repos:\n  - repo: local\n    hooks:\n      - id: ruff-check\n"
        "        entry: .venv/bin/python -m ruff check\n        args: [botie]\n        pass_filenames: false\n"
    )
    assert make_lint_commands(_MAKEFILE) == [["ruff", "check", "botie", "tests"]]
    assert pre_commit_commands(hook) != make_lint_commands(_MAKEFILE)


def test_a_hook_that_checks_only_the_staged_files_is_refused():
    hook = "repos:\n  - repo: local\n    hooks:\n      - id: mypy\n        entry: .venv/bin/python -m mypy\n"
    with pytest.raises(AssertionError, match="checks only the staged files"):
        pre_commit_commands(hook)


def test_a_commented_out_make_lint_does_not_count():
    assert ci_commands("set -e\n# make lint\nmake test\n") == ["set -e", "make test"]
