"""botie installed from a wheel finds what a checkout keeps beside it: the fixtures ship inside it.

A checkout (``make env``'s editable install) has fixtures/, notebooks/ and the lock beside botie/.
A wheel puts botie alone into site-packages; pyproject.toml maps fixtures/ into it as
botie/lessons/fixtures/. These tests lay botie out the way the wheel does, from pyproject's own
package table, and run it in a fresh interpreter outside the checkout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from botie.lessons.tooling import locks

ROOT = Path(__file__).resolve().parent.parent
SETUPTOOLS = locks.load_toml(ROOT / "pyproject.toml")["tool"]["setuptools"]

_PROBE = """
import json, os
from botie.lessons.content.fixtures import fixture_path, load_scene
from botie.lessons.tooling import locks, preflight
print(json.dumps({
    "fixture": str(fixture_path("p2_seal.json")),
    "caller": load_scene(fixture_path("p2_seal.json")).caller,
    "checkout": str(locks.checkout_root()),
    "lock": preflight.check_lock().detail,
    "folder": str(preflight.default_folder()),
}))
"""


def _lay_out_as_a_wheel(site: Path) -> None:
    """Copy each package the way setuptools does: from its folder (package-dir, or its dotted path)
    its modules and the package-data globs, into the folder its dotted name says."""
    mapped, data = SETUPTOOLS.get("package-dir", {}), SETUPTOOLS.get("package-data", {})
    for package in SETUPTOOLS["packages"]:
        source = ROOT / mapped.get(package, package.replace(".", "/"))
        target = site / package.replace(".", "/")
        target.mkdir(parents=True, exist_ok=True)
        for pattern in ["*.py", *data.get(package, [])]:
            for path in source.glob(pattern):
                shutil.copy2(path, target / path.name)


def _run_installed(tmp_path: Path, **extra_env: str) -> dict[str, str]:
    site = tmp_path / "site-packages"
    _lay_out_as_a_wheel(site)
    env = {k: v for k, v in os.environ.items() if k not in ("BOTIE_FIXTURES", "PYTHONPATH")}
    env.update(PYTHONPATH=str(site), **extra_env)
    work = tmp_path / "work"
    work.mkdir()
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=work, env=env, capture_output=True, text=True, check=True
    ).stdout
    return {"site": str(site), "work": str(work), **json.loads(out)}


def test_the_package_list_names_every_folder_of_botie_and_the_fixtures():
    """A new sub-package missing from pyproject's list would be missing from the wheel."""
    folders = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "botie").rglob("__init__.py")}
    assert set(SETUPTOOLS["packages"]) == folders | {"botie.lessons.fixtures"}
    assert SETUPTOOLS["package-dir"] == {"botie.lessons.fixtures": "fixtures"}
    assert "*.json" in SETUPTOOLS["package-data"]["botie.lessons.fixtures"]


def test_installed_from_a_wheel_botie_reads_the_fixtures_it_carries(tmp_path):
    seen = _run_installed(tmp_path)
    assert seen["fixture"] == str(Path(seen["site"]) / "botie/lessons/fixtures/p2_seal.json")
    assert seen["caller"] == "tech-ana"  # read and parsed, not only found


def test_installed_from_a_wheel_there_is_no_checkout_no_lock_and_learners_save_where_they_are(tmp_path):
    seen = _run_installed(tmp_path)
    assert seen["checkout"] == "None"
    assert "installed from a wheel" in seen["lock"]
    assert seen["folder"] == seen["work"]


def test_botie_fixtures_overrides_the_fixtures_a_wheel_carries(tmp_path):
    own = tmp_path / "own"
    own.mkdir()
    scene = json.loads((ROOT / "fixtures/p2_seal.json").read_text(encoding="utf-8"))
    (own / "p2_seal.json").write_text(json.dumps({**scene, "caller": "someone-else"}), encoding="utf-8")
    seen = _run_installed(tmp_path, BOTIE_FIXTURES=str(own))
    assert (seen["fixture"], seen["caller"]) == (str(own / "p2_seal.json"), "someone-else")


def test_in_a_checkout_the_fixtures_notebooks_and_lock_beside_botie_are_used(monkeypatch):
    from botie.lessons.content.fixtures import fixture_dir
    from botie.lessons.tooling import preflight

    assert locks.checkout_root() == ROOT
    assert preflight.default_folder() == ROOT / "notebooks"
    monkeypatch.delenv("BOTIE_FIXTURES", raising=False)
    assert fixture_dir() == ROOT / "fixtures"
