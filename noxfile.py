"""`make test-pythons`: the fast tests and strict nbval on the oldest and newest supported Python.

Each session is a fresh virtual environment installed from the lock
(requirements/workshop.txt, hash-checked) plus botie itself, editable. The test
command comes from the Makefile (after `--`), so it is written once.

Interpreters are found on PATH as `python3.10` / `python3.13`, or else in pyenv's
versions folder directly: a pyenv shim only works for the versions a shell has
selected, so it is never trusted. A missing interpreter fails the run.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import nox

#: The oldest and newest Python that pyproject.toml's requires-python admits and this machine has.
PYTHONS = ["3.10", "3.13"]
LOCK = "requirements/workshop.txt"

nox.options.error_on_missing_interpreters = True
nox.options.reuse_existing_virtualenvs = False
nox.options.sessions = ["tests"]


def _real_interpreter(version: str) -> str | None:
    """A `pythonX.Y` that is a real interpreter, not a pyenv shim; None when none is found."""
    found = shutil.which(f"python{version}")
    if found and "shims" not in Path(found).parts:
        return found
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [p for p in root.glob(f"{version}.*") if re.fullmatch(rf"{re.escape(version)}\.\d+", p.name)]
    for folder in sorted(candidates, key=lambda p: int(p.name.rsplit(".", 1)[1]), reverse=True):
        python = folder / "bin" / f"python{version}"
        if python.is_file():
            return str(python)
    return None


# Put each interpreter's folder first on PATH, so nox's own lookup of `pythonX.Y` finds it.
for _version in PYTHONS:
    _python = _real_interpreter(_version)
    if _python:
        os.environ["PATH"] = os.pathsep.join([str(Path(_python).parent), os.environ.get("PATH", "")])


@nox.session(python=PYTHONS, venv_backend="venv")
def tests(session: nox.Session) -> None:
    """The fast tests and nbval (strict), in an environment installed from the lock."""
    if not session.posargs:
        session.error("pass the pytest arguments after `--`; `make test-pythons` does")
    for lock in ("requirements/pip.txt", LOCK):  # the locked pip first, then what it installs
        session.install("--quiet", "--no-compile", "--require-hashes", "-r", lock)
    session.install("--quiet", "--no-deps", "-e", ".")
    session.run("python", "-m", "botie.lessons.tooling.preflight", "--no-kernel")
    session.run("python", "-m", "pytest", *session.posargs)
