"""environment.yml and pyproject.toml name the same packages with the same version ranges."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib
import yaml

ROOT = Path(__file__).resolve().parent.parent
_REQ = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$")


def _split(requirement: str) -> tuple[str, str]:
    name, spec = _REQ.match(requirement).groups()
    return re.sub(r"[-_.]+", "-", name).lower(), spec.replace(" ", "")


def pyproject_requirements() -> dict[str, str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = data["project"]
    wanted = list(project["dependencies"])
    for extra in data["tool"]["botie"]["environment"]["extras"]:
        wanted += project["optional-dependencies"][extra]
    return dict(_split(r) for r in wanted)


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


def test_environment_and_pyproject_agree_on_version_ranges():
    env, proj = environment_requirements(), pyproject_requirements()
    assert {n: env[n] for n in proj} == proj


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
