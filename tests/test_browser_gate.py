"""A machine without a browser fails the browser tests loudly, unless it opts out by name.

Runs pytest in a subprocess on one browser test with a Chromium path that does not exist.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("BOTIE_")}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "tests/browser/test_present.py",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
        ],
        cwd=ROOT,
        env=clean | {"BOTIE_CHROMIUM": "/nonexistent/chromium"} | env,
        capture_output=True,
        text=True,
    )


def test_a_missing_chromium_is_a_failure_that_prints_the_fix():
    run = _run()
    assert run.returncode != 0
    assert "no Chromium at /nonexistent/chromium" in run.stdout and "BOTIE_SKIP_BROWSER=1" in run.stdout


def test_the_named_opt_out_turns_it_into_a_skip_with_the_reason():
    run = _run(BOTIE_SKIP_BROWSER="1")
    # Every browser test of the module is skipped (only the check that lessons exist runs), and the run passes.
    assert run.returncode == 0 and re.search(r"\b[1-9]\d* skipped", run.stdout) and " failed" not in run.stdout
    assert "skipped because BOTIE_SKIP_BROWSER is set" in run.stdout


def test_ci_requirement_overrides_the_opt_out():
    run = _run(BOTIE_SKIP_BROWSER="1", BOTIE_REQUIRE_BROWSER="1")
    assert run.returncode != 0 and "no Chromium" in run.stdout
