"""Drive a JupyterHub the way a room of learners does: for the hub test and ``make bench-class``.

Only the hub's REST API, each learner server's REST API and the kernel
websocket, all through the hub's proxy, with API tokens. Standard library,
plus ``websocket-client`` (installed with Jupyter Server) for the kernel channel.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["RECONNECT_LIMIT", "Hub", "KernelRun", "LocalHub", "free_ports", "workshop_repo"]

#: How many times JupyterLab reconnects a kernel channel before it shows the kernel as disconnected.
RECONNECT_LIMIT = 7


@dataclass(frozen=True)
class KernelRun:
    """What one execute request gave back: printed text, and the error name if the code raised."""

    stdout: str
    error: str | None


class Hub:
    """A hub at ``url`` (the proxy's address), seen with one token at a time."""

    # Longer than the class's proxy timeout (120 s, classroom/definition.py), so a slow request is ended
    # by the hub's side, as a learner would see it: JupyterLab's own requests have no timeout.
    def __init__(self, url: str, timeout: float = 150.0) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.reconnects = 0  # kernel websocket handshakes that failed and were tried again

    def request(self, method: str, path: str, token: str, body: Any = None) -> tuple[int, Any]:
        """One HTTP request; returns (status, parsed JSON or text). Never raises for an HTTP status."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            f"{self.url}{path}",
            data=data,
            method=method,
            headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as answer:
                status, raw = answer.status, answer.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read().decode("utf-8", "replace")
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw

    def wait_until_up(self, token: str, limit: float = 90.0) -> None:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                if self.request("GET", "/hub/api/", token)[0] == 200:
                    return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.5)
        raise TimeoutError(f"the hub at {self.url} did not answer within {limit:.0f} s")

    def start_server(self, operator: str, user: str, limit: float = 120.0) -> None:
        """Start ``user``'s server and wait until the hub says it is ready."""
        status, body = self.request("POST", f"/hub/api/users/{user}/server", operator)
        if status not in (201, 202, 400):  # 400: already running
            raise RuntimeError(f"starting {user}'s server: HTTP {status} {body}")
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            _, model = self.request("GET", f"/hub/api/users/{user}", operator)
            server = (model or {}).get("servers", {}).get("")
            if server and server.get("ready"):
                return
            time.sleep(0.5)
        raise TimeoutError(f"{user}'s server was not ready within {limit:.0f} s")

    def token_for(self, operator: str, user: str) -> str:
        status, body = self.request("POST", f"/hub/api/users/{user}/tokens", operator, {"note": "botie test"})
        if status != 201:
            raise RuntimeError(f"a token for {user}: HTTP {status} {body}")
        return body["token"]

    def git_pull(self, user: str, token: str, repo: str, branch: str, target: str) -> str:
        """nbgitpuller's API (what the link's page calls): clone or update; returns the last phase seen."""
        query = urllib.parse.urlencode({"repo": repo, "branch": branch, "targetpath": target})
        req = urllib.request.Request(
            f"{self.url}/user/{user}/git-pull/api?{query}", headers={"Authorization": f"token {token}"}
        )
        phase, lines = "", []
        with urllib.request.urlopen(req, timeout=self.timeout) as stream:
            for raw in stream:
                line = raw.decode("utf-8", "replace").strip()
                if line.startswith("data:"):
                    event = json.loads(line[5:])
                    phase = event.get("phase", phase)
                    lines.append(event.get("message") or event.get("output") or "")
        if phase != "finished":
            raise RuntimeError(f"nbgitpuller for {user} ended in phase {phase!r}: {lines[-3:]}")
        return phase

    def open_notebook(self, user: str, token: str, path: str) -> str:
        """Start a kernel for a notebook as JupyterLab does (a session), so it runs in the notebook's folder."""
        return self.open_session(user, token, path)[1]

    def close_session(self, user: str, token: str, session: str) -> None:
        """Close a notebook and shut its kernel down as JupyterLab does: the session goes, and its kernel with it
        (deleting only the kernel leaves the session behind, and reopening the notebook then finds a dead one)."""
        self.request("DELETE", f"/user/{user}/api/sessions/{session}", token)

    def open_session(self, user: str, token: str, path: str) -> tuple[str, str]:
        """Open a notebook's session; returns (session id, kernel id)."""
        status, body = self.request(
            "POST",
            f"/user/{user}/api/sessions",
            token,
            {"path": path, "type": "notebook", "name": path.rsplit("/", 1)[-1], "kernel": {"name": "python3"}},
        )
        if status != 201:
            raise RuntimeError(f"a kernel for {user}: HTTP {status} {body}")
        return body["id"], body["kernel"]["id"]

    def channel(self, user: str, token: str, kernel: str, limit: float = 300.0) -> Any:
        """Open a kernel's websocket as JupyterLab does, reconnecting after a failed handshake as it does.

        JupyterLab (@jupyterlab/services, KernelConnection._reconnect) tries again up to 7 times, the
        n-th time (n = 0, 1, ...) after a random wait of 0 to 2**n - 1 seconds; so does this, and each
        retry is counted in ``reconnects`` so a report shows them.
        """
        import websocket  # websocket-client, a Jupyter Server dependency

        ws_url = self.url.replace("http", "ws", 1) + f"/user/{user}/api/kernels/{kernel}/channels"
        header = [f"Authorization: token {token}"]
        for attempt in range(RECONNECT_LIMIT + 1):
            try:
                return websocket.create_connection(ws_url, header=header, timeout=limit)
            except (websocket.WebSocketBadStatusException, websocket.WebSocketTimeoutException, OSError):
                if attempt == RECONNECT_LIMIT:
                    raise
                self.reconnects += 1
                time.sleep(random.uniform(0, 2**attempt - 1))
        raise AssertionError("unreachable")

    def execute(self, user: str, token: str, kernel: str, code: str, limit: float = 300.0, ws: Any = None) -> KernelRun:
        """Run ``code`` in a kernel over its websocket (``ws``, or a channel opened for this one request);
        collect what it printed until it is idle."""
        own = ws is None
        if own:
            ws = self.channel(user, token, kernel, limit)
        try:
            msg_id = uuid.uuid4().hex
            ws.send(json.dumps(_execute_request(msg_id, code)))
            return _collect(ws, msg_id)
        finally:
            if own:
                ws.close()

    def stop_server(self, operator: str, user: str) -> None:
        self.request("DELETE", f"/hub/api/users/{user}/server", operator)


def _execute_request(msg_id: str, code: str) -> dict:
    header = {
        "msg_id": msg_id,
        "username": "botie",
        "session": uuid.uuid4().hex,
        "msg_type": "execute_request",
        "version": "5.3",
    }
    content = {
        "code": code,
        "silent": False,
        "store_history": False,
        "user_expressions": {},
        "allow_stdin": False,
        "stop_on_error": True,
    }
    return {"header": header, "parent_header": {}, "metadata": {}, "content": content, "channel": "shell"}


def _collect(ws: Any, msg_id: str) -> KernelRun:
    out, error = [], None
    while True:
        frame = ws.recv()
        if isinstance(frame, bytes):
            continue  # a binary frame carries buffers (widget data), never the text we collect
        msg = json.loads(frame)
        if msg.get("parent_header", {}).get("msg_id") != msg_id or msg.get("channel") != "iopub":
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            out.append(content["text"])
        elif kind == "error":
            error = content["ename"]
        elif kind == "status" and content["execution_state"] == "idle":
            return KernelRun("".join(out), error)


# --- a hub of our own on 127.0.0.1, for the test and the benchmark --------------------------


def free_ports(n: int) -> list[int]:
    import socket

    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def workshop_repo(root: Path, scratch: Path) -> Path:
    """A bare clone of ``root`` holding the learner branch, as an instructor publishes it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("botie_publish", root / "classroom" / "publish.py")
    if spec is None or spec.loader is None:  # only when the file is missing or is not Python
        raise FileNotFoundError(root / "classroom" / "publish.py")
    publish = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(publish)
    src = scratch / "src"
    subprocess.run(["git", "clone", "-q", str(root), str(src)], check=True)
    publish.learner_branch(cwd=str(src))
    bare = scratch / "workshop.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(src), str(bare)], check=True)
    return bare


def _tree(pid: int) -> set[int]:
    import psutil

    try:
        return {p.pid for p in psutil.Process(pid).children(recursive=True)} | {pid}
    except psutil.NoSuchProcess:
        return set()


def _command(pid: int) -> str:
    import psutil

    try:
        return " ".join(psutil.Process(pid).cmdline())[:160]
    except psutil.Error:
        return "?"


def _alive(pids: set[int]) -> set[int]:
    import psutil

    alive = set()
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.add(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


class LocalHub:
    """``classroom/jupyterhub_config.py`` in test mode on free loopback ports; a context manager.

    On exit it stops every learner's server, then the hub, waits for every process the hub
    started to end, kills any that did not, and lists them in ``left_behind``.
    """

    def __init__(
        self,
        root: Path,
        scratch: Path,
        learners: tuple[str, ...],
        instructors: tuple[str, ...] = ("lee",),
        refresh: int = 5,
        settings: dict[str, str] | None = None,
    ) -> None:
        self.root, self.scratch = root, scratch
        self.learners, self.instructors = learners, instructors
        self.operator, self.room_token = secrets.token_hex(16), secrets.token_hex(16)
        hub_port, api_port, proxy_port, room_port = free_ports(4)
        self.url = f"http://127.0.0.1:{hub_port}"
        self.env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "BOTIE_CLASSROOM_TEST": "1",
            "BOTIE_HUB_HOMES": str(scratch / "homes"),
            "BOTIE_HUB_STATE": str(scratch / "state"),
            "BOTIE_LEARNERS": ",".join(learners),
            "BOTIE_INSTRUCTORS": ",".join(instructors),
            "BOTIE_HUB_URL": self.url,
            "BOTIE_HUB_API_URL": f"http://127.0.0.1:{api_port}",
            "BOTIE_PROXY_API_URL": f"http://127.0.0.1:{proxy_port}",
            "BOTIE_ROOM_PORT": str(room_port),
            "BOTIE_OPERATOR_TOKEN": self.operator,
            "BOTIE_ROOM_TOKEN": self.room_token,
            "BOTIE_ROOM_REFRESH": str(refresh),
        }
        # Kernels' sockets go to <this>/k-<learner>: a folder of the run's own, made short because a socket's
        # path may be at most 107 bytes (a pytest tmp_path is too deep), and removed when the hub has stopped.
        self.sockets = Path(tempfile.mkdtemp(prefix="botie-k-"))
        self.env["BOTIE_KERNEL_SOCKETS"] = str(self.sockets / "k")
        self.env.update(settings or {})  # the class's own settings (classroom/definition.py), e.g. BOTIE_KERNEL_IDLE
        self.env.pop("BOTIE_PROGRESS_FILE", None)  # learners' kernels write where a real learner's would
        self.log_path = scratch / "hub.log"
        self.client = Hub(self.url)
        self.process: subprocess.Popen | None = None
        self.seen: set[int] = set()
        self.left_behind: set[int] = set()
        self.left_behind_commands: dict[int, str] = {}
        self.seen_commands: dict[int, str] = {}  # what each process under the hub was, when it was seen

    @property
    def running(self) -> subprocess.Popen:
        """The hub's process, which exists only inside ``with LocalHub(...)``."""
        if self.process is None:
            raise RuntimeError("the hub runs only inside `with LocalHub(...)`")
        return self.process

    def __enter__(self) -> LocalHub:
        self._log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", str(self.root / "classroom" / "jupyterhub_config.py")],
            cwd=self.scratch,
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            # a parent shell may have set SIGINT to ignored; the hub stops its children with it
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        try:
            self.client.wait_until_up(self.operator)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def remember_processes(self) -> None:
        """Note every process under the hub now (servers, kernels), to check later that all ended."""
        if self.process is not None:
            now = _tree(self.process.pid)
            self.seen |= now
            self.seen_commands.update({pid: _command(pid) for pid in now})

    def __exit__(self, *exc: object) -> None:
        self.remember_processes()
        for user in self.learners:
            try:
                self.client.stop_server(self.operator, user)
            except OSError:
                pass
        process = self.running
        process.send_signal(signal.SIGTERM)
        try:
            # Longer than the hub's own cleanup: it stops each server with SIGINT, waits up to 30 s, SIGTERM,
            # 30 s, SIGKILL, 5 s (the Spawner's defaults), all servers at once; killing the hub sooner would
            # strand a server that was still shutting its kernels down.
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        self._log.close()
        deadline = time.monotonic() + 20
        while _alive(self.seen) and time.monotonic() < deadline:
            time.sleep(0.5)
        self.left_behind = _alive(self.seen)
        self.left_behind_commands = {pid: _command(pid) for pid in self.left_behind}
        for pid in self.left_behind:  # never leave them running, whatever the caller then reports
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.sockets, ignore_errors=True)

    def left_behind_text(self) -> str:
        """Which processes outlived the hub, and what each was (a server, a kernel, a service, the proxy)."""
        return "; ".join(f"{pid} ({self.left_behind_commands.get(pid, '?')})" for pid in sorted(self.left_behind))
