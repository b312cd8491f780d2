"""Start and stop the servers the browser tests drive: JupyterLab and Voila, on 127.0.0.1 only.

Each server gets a free port, a known token (JupyterLab), its own settings,
workspaces and runtime folders under one scratch directory, and the quiet
settings from :mod:`botie.lessons.tooling.lab` (no news, no update check, nothing fetched).
The environment is inherited, so the test-wide JUPYTER_* / IPYTHONDIR /
MPLCONFIGDIR / TIKTOKEN_CACHE_DIR isolation of tests/conftest.py holds for
the server and every kernel it starts.
"""

from __future__ import annotations

import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from botie.lessons.tooling.lab import OVERRIDES, merge_overrides, write_overrides

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"

#: Settings for a test JupyterLab on top of the workshop's quiet ones (which the
#: launcher adds itself): every cell attached to the DOM, so the page can be
#: searched, and no autosave, since the served copy is scratch anyway. Toasts
#: stay on: the tests assert that none appears.
TEST_OVERRIDES = merge_overrides(
    OVERRIDES,
    {
        "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
        "@jupyterlab/docmanager-extension:plugin": {"autosave": False},
    },
)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def copy_workshop(dest: Path) -> Path:
    """A scratch copy of notebooks/ (learner edition) beside a link to fixtures/; returns the notebooks copy.

    The browser runs and edits notebooks; it must never touch the committed ones.
    """
    notebooks = dest / "notebooks"
    shutil.copytree(
        ROOT / "notebooks", notebooks, ignore=shutil.ignore_patterns("instructor", ".ipynb_checkpoints", "__pycache__")
    )
    if (ROOT / "fixtures").is_dir() and not (dest / "fixtures").exists():
        (dest / "fixtures").symlink_to(ROOT / "fixtures", target_is_directory=True)
    return notebooks


class Server:
    """One server subprocess with its log file; ``url`` is where to point the browser."""

    def __init__(
        self, name: str, argv: list[str], port: int, log: Path, ready_path: str | None, query: str = ""
    ) -> None:
        self.name, self.argv, self.port, self.log_path = name, argv, port, log
        self.base = f"http://{HOST}:{port}"
        self.ready_path, self.query = ready_path, query
        self.proc: subprocess.Popen | None = None
        self.token: str | None = None  # set for a Jupyter server, which asks for one

    def start(self, timeout: float = 90.0) -> Server:
        self._log = open(self.log_path, "wb")  # closed in stop()
        self.proc = subprocess.Popen(
            self.argv, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=ROOT
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}:\n{self.log_tail()}")
            if self._answers():
                return self
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def _answers(self) -> bool:
        try:
            if self.ready_path is None:
                with socket.create_connection((HOST, self.port), timeout=2):
                    return True
            with urllib.request.urlopen(f"{self.base}{self.ready_path}{self.query}", timeout=5) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        if getattr(self, "_log", None):
            self._log.close()

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])


def jupyterlab(notebooks: Path, scratch: Path) -> Server:
    """``make lab``'s launcher serving ``notebooks``, with a known token and all state under ``scratch``."""
    port, token = free_port(), secrets.token_hex(16)
    settings = scratch / "lab-settings"
    write_overrides(settings, TEST_OVERRIDES)
    for sub in ("lab-user-settings", "lab-workspaces"):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
    argv = [
        sys.executable,
        "-m",
        "botie.lessons.tooling.lab",
        str(notebooks),
        "--no-browser",
        f"--ServerApp.ip={HOST}",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--LabApp.app_settings_dir={settings}",
        f"--LabApp.user_settings_dir={scratch / 'lab-user-settings'}",
        f"--LabApp.workspaces_dir={scratch / 'lab-workspaces'}",
        "--ServerApp.terminals_enabled=False",
    ]
    server = Server("JupyterLab", argv, port, scratch / "jupyterlab.log", "/api/status", f"?token={token}")
    server.token = token
    return server


def notebook7(notebooks: Path, scratch: Path) -> Server:
    """Notebook 7 (the ``notebook`` package) serving ``notebooks``, with a known token, its state in ``scratch``."""
    import os

    port, token = free_port(), secrets.token_hex(16)
    for sub in ("nb7-user-settings", "nb7-workspaces"):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
    argv = [
        sys.executable,
        "-m",
        "notebook",
        "--no-browser",
        f"--ServerApp.root_dir={notebooks}",
        f"--ServerApp.ip={HOST}",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        "--ServerApp.terminals_enabled=False",
        f"--JupyterNotebookApp.user_settings_dir={scratch / 'nb7-user-settings'}",
        f"--JupyterNotebookApp.workspaces_dir={scratch / 'nb7-workspaces'}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # CI runs as root
        argv.append("--ServerApp.allow_root=True")
    server = Server("Notebook 7", argv, port, scratch / "notebook7.log", "/api/status", f"?token={token}")
    server.token = token
    return server


def voila(notebook: Path, scratch: Path) -> Server:
    """``make present``'s launcher: Voila presenting one notebook without its code."""
    port = free_port()
    argv = [
        sys.executable,
        "-m",
        "botie.lessons.tooling.lab",
        "--present",
        str(notebook),
        "--no-browser",
        f"--port={port}",
    ]
    # Voila runs the notebook on every GET of "/": wait for the port, not the page.
    return Server("Voila", argv, port, scratch / "voila.log", None)
