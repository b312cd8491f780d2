"""A class on one hub: N simulated learners each run every learner notebook through JupyterHub.

    make bench-class LEARNERS=20        # or: python -m bench.classroom --learners 20

Not a test and not part of ``make bench``. It starts ``classroom/jupyterhub_config.py``
on 127.0.0.1 (test mode), gives every learner the workshop through nbgitpuller from a
local bare clone, and then, all learners at once, opens each lesson as JupyterLab does
(a session, so the kernel runs in the notebook's folder) and runs its code cells in
order over one kernel websocket. A lesson's session is closed when it is done, as a
learner closing the tab and shutting the kernel down would. It reports per-lesson p50/p95 run time, peak memory per
learner (their server plus the kernel, sampled every half second), and every error seen.
Then a few learners (``--all-open``) run every lesson again without closing any, and their
memory with all six kernels open is reported: what idle-kernel culling gives back.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import psutil

from tools.hub_driver import LocalHub, workshop_repo

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted(p.name for p in (ROOT / "notebooks").glob("0*.ipynb"))
TARGET = "botie-workshop"


def _learner_pids(hub_pid: int) -> dict[str, set[int]]:
    """Each learner's processes: their single-user server and everything it started (kernels)."""
    found: dict[str, set[int]] = defaultdict(set)
    for proc in psutil.Process(hub_pid).children(recursive=True):
        try:
            if "jupyterhub-singleuser" in " ".join(proc.cmdline()):
                user = proc.environ().get("JUPYTERHUB_USER", "?")
                found[user] |= {proc.pid} | {c.pid for c in proc.children(recursive=True)}
        except psutil.Error:
            continue
    return found


def _sample(hub_pid: int, peaks: dict[str, int], stop: threading.Event) -> None:
    while not stop.wait(0.5):
        try:
            groups = _learner_pids(hub_pid)
        except psutil.Error:
            continue
        for user, pids in groups.items():
            peaks[user] = max(peaks.get(user, 0), _memory(pids))


def _memory(pids: set[int]) -> int:
    total = 0
    for pid in pids:
        try:
            total += psutil.Process(pid).memory_info().rss
        except psutil.Error:
            pass
    return total


def _cells(lesson: str) -> list[str]:
    return [c.source for c in nbformat.read(ROOT / "notebooks" / lesson, as_version=4).cells if c.cell_type == "code"]


def _one_learner(hub: LocalHub, user: str, repo: str, timings: dict, errors: list, keep: list | None = None) -> None:
    """Pull the workshop, then run every lesson in order. With ``keep``, a lesson's kernel is left running
    (its id appended), as when a learner never closes a tab and nothing culls idle kernels."""
    client, operator = hub.client, hub.operator
    try:
        client.start_server(operator, user, limit=600)
        token = client.token_for(operator, user)
        client.git_pull(user, token, repo, "learner", TARGET)
    except Exception as exc:  # one learner's failure is a result to report, not the end of the run
        errors.append(f"{user}: setup: {type(exc).__name__}: {exc}")
        return
    for lesson in LESSONS:
        cells = _cells(lesson)
        started, session = time.perf_counter(), None
        try:
            session, kernel = client.open_session(user, token, f"{TARGET}/notebooks/{lesson}")
            ws = client.channel(user, token, kernel)  # one channel for the whole lesson, as a JupyterLab tab keeps
            try:
                for number, source in enumerate(cells, start=1):
                    run = client.execute(user, token, kernel, source, ws=ws)
                    if run.error and run.error != "NotImplementedError":
                        errors.append(f"{user}: {lesson} cell {number}: {run.error}")
            finally:
                ws.close()
            timings[lesson].append(time.perf_counter() - started)
        except Exception as exc:
            errors.append(f"{user}: {lesson}: {type(exc).__name__}: {exc}")
        if keep is not None and session is not None:
            keep.append(session)
        elif session is not None:
            try:  # closed even after a failure, as a learner closes the tab of a lesson that went wrong
                client.close_session(user, token, session)
            except OSError as exc:
                errors.append(f"{user}: {lesson}: closing: {type(exc).__name__}: {exc}")


def handshakes(log: str) -> tuple[int, int, float]:
    """From the hub's log: kernel websocket handshakes, how many took over 20 s, the slowest (s).

    20 s is what the Python proxy allowed before the class set its own timeout (tornado's default): each of
    those would have been a 599 "Timeout during request"."""
    took = [
        float(ms) / 1000 for ms in re.findall(r"101 GET /user/\S+/api/kernels/\S+/channels \(.*?\) ([\d.]+)ms", log)
    ]
    return len(took), sum(1 for t in took if t > 20), max(took, default=0.0)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else float("nan")


def _all_lessons_open(hub: LocalHub, users: tuple[str, ...], repo: str, errors: list) -> list[int]:
    """A few learners run every lesson again keeping every kernel (no tab closed, nothing culled);
    returns each one's server and kernels' memory with all six open, before the kernels are shut down."""
    kept: dict[str, list] = {user: [] for user in users}
    with ThreadPoolExecutor(max_workers=len(users)) as pool:
        for user in users:
            pool.submit(_one_learner, hub, user, repo, defaultdict(list), errors, kept[user])
    groups = _learner_pids(hub.running.pid)
    sizes = [_memory(groups.get(user, set())) for user in users if len(kept[user]) == len(LESSONS)]
    for user, sessions in kept.items():
        token = hub.client.token_for(hub.operator, user)
        for session in sessions:
            hub.client.close_session(user, token, session)
    return sizes


def report(
    learners: int,
    timings: dict,
    peaks: dict,
    errors: list,
    wall: float,
    reconnects: int = 0,
    all_open: Sequence[float] = (),
    shakes: tuple = (),
) -> str:
    lines = [f"{'lesson':<36}{'runs':>6}{'p50 s':>9}{'p95 s':>9}"]
    for lesson in LESSONS:
        runs = timings.get(lesson, [])
        lines.append(f"{lesson:<36}{len(runs):>6}{_percentile(runs, 0.5):>9.1f}{_percentile(runs, 0.95):>9.1f}")
    mib = sorted(v / 2**20 for v in peaks.values())
    if mib:
        lines.append(
            f"peak memory per learner (server + kernel): min {mib[0]:.0f}, median "
            f"{statistics.median(mib):.0f}, max {mib[-1]:.0f} MiB, over {len(mib)} learners"
        )
    if all_open:
        mib = sorted(v / 2**20 for v in all_open)
        lines.append(
            f"memory per learner with all {len(LESSONS)} lessons open at once (no kernel culled): min {mib[0]:.0f}, "
            f"median {statistics.median(mib):.0f}, max {mib[-1]:.0f} MiB, over {len(mib)} learners"
        )
    lines.append(f"wall time for the whole class: {wall:.0f} s on {psutil.cpu_count()} cores")
    lines.append(f"kernel websocket reconnects (JupyterLab's policy: up to 7, growing random waits): {reconnects}")
    if shakes:
        lines.append(
            f"kernel websocket handshakes: {shakes[0]}, slowest {shakes[2]:.1f} s, {shakes[1]} over 20 s "
            "(the Python proxy's old limit: each would have been a 599)"
        )
    lines.extend(f"error: {e}" for e in errors)
    lines.append(f"{learners} learners, {len(LESSONS)} lessons each, {len(errors)} errors")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=20)
    parser.add_argument(
        "--all-open", type=int, default=3, help="then this many learners run every lesson keeping all kernels open"
    )
    parser.add_argument("--keep-log", help="copy the hub's log (servers and kernels too) here before it is removed")
    args = parser.parse_args(argv)
    users = tuple(f"learner{i:03d}" for i in range(1, args.learners + 1))
    timings: dict[str, list[float]] = defaultdict(list)
    peaks: dict[str, int] = {}
    errors: list[str] = []
    with tempfile.TemporaryDirectory(prefix="botie-bench-class-") as scratch:
        repo = f"file://{workshop_repo(ROOT, Path(scratch))}"
        with LocalHub(ROOT, Path(scratch), users) as hub:
            stop = threading.Event()
            sampler = threading.Thread(target=_sample, args=(hub.running.pid, peaks, stop), daemon=True)
            sampler.start()
            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=len(users)) as pool:
                for user in users:
                    pool.submit(_one_learner, hub, user, repo, timings, errors)
            wall = time.perf_counter() - started
            stop.set()
            sampler.join()
            all_open = _all_lessons_open(hub, users[: args.all_open], repo, errors) if args.all_open else []
        if hub.left_behind:
            errors.append(f"processes left behind after the hub stopped: {hub.left_behind_text()}")
        log = hub.log_path.read_text(encoding="utf-8", errors="replace")
        if args.keep_log:
            shutil.copyfile(hub.log_path, args.keep_log)
    print(report(args.learners, timings, peaks, errors, wall, hub.client.reconnects, all_open, handshakes(log)))
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
