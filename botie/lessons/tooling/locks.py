"""The lock, read: the exact versions the workshop was tested with.

``requirements/`` holds hashed, universal requirements files (Linux, macOS and
Windows; every supported Python), all cut from one resolution:

* ``all.txt``: the runtime and every extra, the reference the others are compiled
  against, so a package has the same version in every file;
* ``workshop.txt``: the runtime plus the extras ``make env`` installs;
* ``<extra>.txt`` for each other extra, for the make targets that add it;
* ``pip.txt``: pip itself, installed first, so the installer is a tested one too.

Each file's header records a digest of pyproject.toml's dependency tables, so a
test can tell when pyproject.toml changed and the lock did not. The pre-flight
check reads the lock to compare installed versions with it; writing the lock
(``make lock``) is ``tools/lockfile.py``, which is not part of the package.

Reading needs only the standard library (plus ``packaging`` to evaluate markers,
and ``tomli`` for the digest on Python 3.10).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ALL",
    "DIGEST_PREFIX",
    "INSTALLER",
    "LOCK_DIR",
    "WORKSHOP",
    "WORKSHOP_EXTRAS",
    "Pin",
    "canonical_name",
    "checkout_root",
    "dependency_digest",
    "load_toml",
    "lock_path",
    "lock_sets",
    "oldest_python",
    "pins_for",
    "read_pins",
    "recorded_digest",
    "repository_root",
    "stale_locks",
]

LOCK_DIR = "requirements"
ALL = "all"
WORKSHOP = "workshop"
#: pip, locked on its own: it installs the others, so it goes in first.
INSTALLER = "pip"
#: The extras `make env` installs beside the runtime (learners' lessons plus the test suite).
WORKSHOP_EXTRAS = ("notebooks", "test")
DIGEST_PREFIX = "# pyproject-dependencies: sha256:"

# `name==version` then an optional `; marker`, then the `\` that continues onto the hashes.
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?\s*$")


@dataclass(frozen=True)
class Pin:
    """One locked package: its canonical name, exact version, and the marker that selects it (or "")."""

    name: str
    version: str
    marker: str = ""


def canonical_name(name: str) -> str:
    """PEP 503 normalisation: `Jupyter_Server` and `jupyter-server` are one package."""
    return re.sub(r"[-_.]+", "-", name).lower()


def checkout_root() -> Path | None:
    """The workshop checkout this copy of botie is loaded from; None when botie was installed from a wheel.

    A checkout (``make env``'s editable install, or botie on PYTHONPATH) keeps pyproject.toml, the lock,
    the notebooks and the fixtures beside ``botie/``. A wheel puts botie alone into site-packages: the
    fixtures travel inside the package (``botie/lessons/fixtures/``), the lock and the notebooks do not.
    """
    root = Path(__file__).resolve().parents[3]
    return root if (root / "pyproject.toml").is_file() else None


def repository_root() -> Path:
    """The checkout's folder (pyproject.toml, requirements/), for the tools that rewrite or read the lock."""
    root = checkout_root()
    if root is None:
        raise FileNotFoundError(
            f"botie in {Path(__file__).resolve().parents[2]} was installed from a wheel: "
            "the lock and pyproject.toml are only in a checkout of the workshop"
        )
    return root


def lock_path(name: str, root: Path | None = None) -> Path:
    return (root or repository_root()) / LOCK_DIR / f"{name}.txt"


# --- reading ------------------------------------------------------------------


def read_pins(path: Path) -> list[Pin]:
    """Every `name==version` line of a requirements file, with its marker; hashes and comments skipped."""
    pins = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        m = _PIN.match(line)
        if m:
            pins.append(Pin(canonical_name(m.group(1)), m.group(2), (m.group(3) or "").strip()))
    return pins


def pins_for(pins: Iterable[Pin], environment: Mapping[str, str] | None = None) -> dict[str, str]:
    """Name -> version for the pins whose marker holds in ``environment`` (default: this interpreter)."""
    from packaging.markers import Marker

    chosen: dict[str, str] = {}
    for pin in pins:
        if not pin.marker or Marker(pin.marker).evaluate(dict(environment) if environment else None):
            chosen[pin.name] = pin.version
    return chosen


def recorded_digest(path: Path) -> str | None:
    """The pyproject digest a lock file was written for, from its header; None when it has none."""
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith(DIGEST_PREFIX):
            return line[len(DIGEST_PREFIX) :].strip()
    return None


def load_toml(path: Path) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # tomllib is new in 3.11; tomli is the same parser, from PyPI
        import tomli as tomllib
    return tomllib.loads(Path(path).read_text(encoding="utf-8"))


def dependency_digest(pyproject: Path) -> str:
    """A sha256 of what the resolver reads from pyproject.toml: requires-python and the dependency tables.

    Comments, ordering of extras and the rest of the file do not count, so only a
    change that could change the resolution makes a lock stale.
    """
    project = load_toml(pyproject)["project"]
    tables = {
        "requires-python": project.get("requires-python", ""),
        "dependencies": project.get("dependencies", []),
        "optional-dependencies": {k: v for k, v in sorted(project.get("optional-dependencies", {}).items())},
    }
    return hashlib.sha256(json.dumps(tables, sort_keys=True).encode()).hexdigest()


def oldest_python(pyproject: Path) -> str:
    """X.Y from requires-python's lower bound (">=3.10" -> "3.10")."""
    spec = load_toml(pyproject)["project"].get("requires-python", "")
    m = re.search(r">=\s*(\d+\.\d+)", spec)
    if not m:
        raise SystemExit(f"pyproject.toml: requires-python {spec!r} has no `>=X.Y` lower bound to lock for")
    return m.group(1)


def lock_sets(pyproject: Path) -> dict[str, tuple[str, ...]]:
    """Lock file name -> the extras it includes: all, workshop, then one per remaining extra."""
    extras = tuple(load_toml(pyproject)["project"].get("optional-dependencies", {}))
    sets = {ALL: extras, WORKSHOP: WORKSHOP_EXTRAS}
    for extra in extras:
        if extra not in WORKSHOP_EXTRAS:
            sets[extra] = (*WORKSHOP_EXTRAS, extra)
    return sets


def stale_locks(root: Path | None = None) -> list[str]:
    """The lock files that are missing or were written for other dependency tables than pyproject's now."""
    root = root or repository_root()
    want = dependency_digest(root / "pyproject.toml")
    stale = []
    for name in lock_sets(root / "pyproject.toml"):
        path = lock_path(name, root)
        if not path.is_file() or recorded_digest(path) != want:
            stale.append(f"{LOCK_DIR}/{name}.txt")
    return stale
