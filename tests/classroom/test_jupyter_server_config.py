"""Each learner's server puts its kernels' sockets in a short private folder of its own, or refuses to start.

classroom/jupyter_server_config.py is a Jupyter config file (it runs with ``get_config`` in scope); these
tests run it as the server would, with a stand-in config object, and then call its functions.
"""

from __future__ import annotations

import os
import signal
import tempfile
import uuid
from pathlib import Path

import pytest
import zmq
from traitlets.config import Config

from tests.notebooks.test_notebooks import ROOT

CONFIG_FILE = ROOT / "classroom" / "jupyter_server_config.py"


def _run(monkeypatch, env: dict[str, str]) -> dict:
    """Run the config file with ``env`` as the server's environment; its namespace."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(signal, "signal", lambda *args: None)  # the file takes over SIGINT; pytest keeps it
    namespace = {"get_config": Config, "__file__": str(CONFIG_FILE)}
    exec(compile(CONFIG_FILE.read_text(encoding="utf-8"), str(CONFIG_FILE), "exec"), namespace)
    return namespace


@pytest.fixture
def short_tmp():
    """A folder short enough for sockets (pytest's own tmp_path is too deep for a kernel's socket path)."""
    with tempfile.TemporaryDirectory(prefix="bk-") as folder:
        yield Path(folder)


@pytest.fixture
def config(monkeypatch):
    monkeypatch.delenv("BOTIE_KERNEL_SOCKETS", raising=False)
    monkeypatch.delenv("JUPYTER_RUNTIME_DIR", raising=False)
    return _run(monkeypatch, {"JUPYTERHUB_USER": "ana"})


def test_the_server_keeps_its_runtime_folder_in_the_learners_own_short_folder(short_tmp, monkeypatch):
    _run(monkeypatch, {"JUPYTERHUB_USER": "ana", "BOTIE_KERNEL_SOCKETS": str(short_tmp / "k")})
    assert os.environ["JUPYTER_RUNTIME_DIR"] == str(short_tmp / "k-ana")
    assert (short_tmp / "k-ana").stat().st_mode & 0o777 == 0o700


def test_without_the_setting_the_runtime_folder_is_left_alone(config):
    assert "JUPYTER_RUNTIME_DIR" not in os.environ


def test_a_long_or_odd_name_gets_a_digest_folder_whose_sockets_still_bind(short_tmp, config):
    long_name = "a.very.long.learner.name.from.the.university.directory@example.org"
    # the deepest base the server accepts: a 12-character digest after it leaves a socket path of 107 bytes
    base = str(short_tmp / "k").ljust(zmq.IPC_PATH_MAX_LEN - len("/kernel-") - 36 - len("-ipc-99") - len("-") - 12, "k")
    folder = config["kernel_socket_folder"](base, long_name)
    assert folder.startswith(f"{base}-") and long_name not in folder
    assert folder != config["kernel_socket_folder"](base, long_name + "2")
    assert "/" not in config["kernel_socket_folder"]("/tmp/k", "bo/../cy").removeprefix("/tmp/")
    os.makedirs(folder)
    path = f"{folder}/kernel-{uuid.uuid4()}-ipc-99"
    assert len(path.encode()) == zmq.IPC_PATH_MAX_LEN == 107  # on Linux
    with zmq.Context() as context, context.socket(zmq.ROUTER) as sock:
        sock.bind(f"ipc://{path}")
        assert os.path.exists(path)
    with pytest.raises(SystemExit):
        config["kernel_socket_folder"](base + "k", long_name)


def test_a_base_folder_too_deep_for_any_socket_stops_the_server_naming_the_setting(config):
    with pytest.raises(SystemExit, match=r"BOTIE_KERNEL_SOCKETS='/tmp/.* is too long"):
        config["kernel_socket_folder"]("/tmp/" + "deep/" * 12 + "k", "ana")


def test_a_folder_others_can_open_is_refused(tmp_path, config):
    folder = tmp_path / "k-ana"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)  # as if another learner had made it first, open to all
    with pytest.raises(SystemExit, match="not a folder that only this user"):
        config["private_folder"](str(folder))
    assert config["private_folder"](str(tmp_path / "k-bo")) == str(tmp_path / "k-bo")
