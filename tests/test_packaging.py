"""environment.yml names the packages pyproject.toml does, pinned to the versions in the lock."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml
from packaging.requirements import Requirement

from botie.lessons.tooling import locks
from tools import lockfile

if sys.version_info >= (3, 11):
    import tomllib
else:  # the suite runs on 3.10 too (make test-pythons); tomli is the same parser
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
_REQ = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$")


def _split(requirement: str) -> tuple[str, str]:
    found = _REQ.match(requirement)
    assert found is not None, f"not a requirement: {requirement!r}"
    name, spec = found.groups()
    return re.sub(r"[-_.]+", "-", name).lower(), spec.replace(" ", "")


def _conda_python() -> str:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pin = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    return pin.split("=")[1]


def _applies_in_conda(requirement: str) -> bool:
    """A requirement with a marker (tomli on 3.10) counts only if it holds on environment.yml's Python."""
    marker = Requirement(requirement).marker
    version = _conda_python()
    return marker is None or marker.evaluate(
        {
            "python_version": version,
            "python_full_version": f"{version}.0",
            "sys_platform": "linux",
            "platform_system": "Linux",
        }
    )


def pyproject_requirements() -> dict[str, str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = data["project"]
    wanted = list(project["dependencies"])
    for extra in data["tool"]["botie"]["environment"]["extras"]:
        wanted += project["optional-dependencies"][extra]
    return dict(_split(r.split(";")[0]) for r in wanted if _applies_in_conda(r))


def environment_requirements() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    found: dict[str, str] = {}
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            found.update(_split(p) for p in dep.get("pip", []) if not p.startswith("-"))
        elif not dep.startswith(("python=", "pip")) or dep.startswith("pip:"):
            found.update([_split(dep)])
    return found


def test_environment_and_pyproject_name_the_same_packages():
    assert set(environment_requirements()) == set(pyproject_requirements())


def _differences_from_lock(env: dict[str, str]) -> dict[str, tuple[str, str | None]]:
    locked = lockfile.conda_pins(ROOT / "environment.yml", locks.lock_path(locks.ALL, ROOT))
    return {n: (spec, locked.get(n)) for n, spec in env.items() if spec != f"=={locked.get(n)}"}


def test_environment_pins_the_versions_in_the_lock():
    """Conda and Binder get what the tests ran with: each entry is `==` the lock's version on its Python."""
    wrong = _differences_from_lock(environment_requirements())
    assert not wrong, f"environment.yml differs from the lock (run make lock): {wrong}"


def test_the_pin_comparison_sees_a_moved_version_or_a_range():
    """Guard the guard: a hand-edited pin, or a range instead of a pin, is reported."""
    env = environment_requirements()
    env["ipywidgets"], env["pytest"] = "==8.0.0", ">=7"
    assert set(_differences_from_lock(env)) == {"ipywidgets", "pytest"}


def test_environment_pins_lie_inside_pyprojects_ranges():
    env, proj = environment_requirements(), pyproject_requirements()
    outside = {
        n: (env[n], proj[n])
        for n in proj
        if not Requirement(f"{n}{proj[n]}").specifier.contains(env[n].lstrip("="), prereleases=True)
    }
    assert not outside


def test_environment_installs_botie_itself_editable():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert "-e ." in pip


def test_python_pin_satisfies_requires_python():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pin = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    minor = int(pin.split("=")[1].split(".")[1])
    floor = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert minor >= int(floor.split(".")[1])


def test_the_comparison_sees_a_missing_package():
    """Guard the guard: dropping a package from one side is detected."""
    env = environment_requirements()
    env.pop("nbval")
    assert set(env) != set(pyproject_requirements())
