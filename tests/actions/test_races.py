"""Concurrency: one job per key across threads, processes and crashes; and the naive path shown failing.

Multi-process tests carry ``@pytest.mark.slow``. None depends on lucky timing:
races are lined up with barriers, and every wait has a timeout.
"""

from __future__ import annotations

import collections
import datetime as dt
import multiprocessing
import os
import random
import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from botie.actions.decision import Approval, Branch
from botie.actions.service import InspectionService, JobOrder
from botie.actions.stores import MemoryStore
from botie.actions.stores.sqlite import SQLiteStore, _SQLiteTransaction

ANA = "tech-ana"
WAIT = 30  # seconds: a ceiling that only a broken test reaches
THREADS = 16


def _proposal(request_id: str, minutes: int = 20) -> dict:
    return {"asset_id": "P-2", "duration_minutes": minutes, "start": "2026-04-02T09:00Z", "request_id": request_id}


def _submit(service: InspectionService, request_id: str, caller: str = ANA):
    p = _proposal(request_id)
    return service.submit(p, caller=caller, allowed_assets=["P-2"], approval=Approval(caller, p))


def _together(n: int, work) -> list:
    """Run ``work()`` in ``n`` threads released at the same instant; return their results."""
    barrier = threading.Barrier(n, timeout=WAIT)
    results: list = [None] * n
    errors: list = []

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = work()
        except BaseException as exc:  # surfaced below, so a failing thread cannot pass silently
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert not any(t.is_alive() for t in threads) and not errors, errors
    return results


# --- threads ---------------------------------------------------------------------------------


@pytest.fixture(params=["memory", "sqlite"])
def safe_store(request, tmp_path):
    if request.param == "memory":
        yield MemoryStore()
    else:
        with SQLiteStore(tmp_path / "race.db") as s:
            yield s


def test_sixteen_threads_submitting_one_key_create_exactly_one_job(safe_store):
    service = InspectionService(safe_store)
    results = _together(THREADS, lambda: _submit(service, "r7"))
    branches = collections.Counter(r.branch for r in results)
    assert branches == {Branch.CREATE: 1, Branch.REUSE: THREADS - 1}
    assert len({r.receipt.job_id for r in results}) == 1
    assert len(safe_store.jobs()) == 1 and safe_store.integrity_problems() == []


def test_a_pause_between_check_and_create_cannot_split_the_guarded_store():
    store = MemoryStore(pause=lambda: time.sleep(0.002))
    results = _together(THREADS, lambda: _submit(InspectionService(store), "r7"))
    assert len(store.jobs()) == 1 and len({r.receipt.job_id for r in results}) == 1


def test_hazard_the_naive_check_then_create_books_one_job_per_thread():
    """Documents the hazard: without the lock, every thread finds no key, and every thread books.

    The pause is a barrier: no thread may write until all of them have checked,
    which is the unlucky interleaving made certain.
    """
    barrier = threading.Barrier(THREADS, timeout=WAIT)
    store = MemoryStore(guarded=False, pause=barrier.wait)
    service = InspectionService(store)
    results = _together(THREADS, lambda: _submit(service, "r7"))
    assert [r.branch for r in results] == [Branch.CREATE] * THREADS
    assert len({r.receipt.job_id for r in results}) == THREADS  # sixteen bookings for one request
    assert len(store.jobs()) == THREADS


# --- processes -------------------------------------------------------------------------------

KEYS = 100
PROCESSES = 4


def _process_worker(path: str, index: int, start, sender) -> None:
    """One worker process: its own store and service, every key, in its own order."""
    store = SQLiteStore(path)
    service = InspectionService(store, attempts=8)
    keys = [f"k{i}" for i in range(KEYS)]
    if index % 2:
        keys.reverse()
    start.wait(WAIT)
    seen = []
    for rid in keys:
        d = _submit(service, rid)
        seen.append((rid, d.branch.value, d.receipt.job_id if d.receipt else None))
    store.close()
    sender.send(seen)
    sender.close()


@pytest.mark.slow
def test_four_processes_on_one_sqlite_file_create_one_job_per_key(tmp_path):
    path = tmp_path / "shared.db"
    SQLiteStore(path).close()
    ctx = multiprocessing.get_context("spawn")  # fresh interpreters: nothing shared but the file
    start = ctx.Event()
    pipes = [ctx.Pipe(duplex=False) for _ in range(PROCESSES)]
    workers = [
        ctx.Process(target=_process_worker, args=(str(path), i, start, send)) for i, (_, send) in enumerate(pipes)
    ]
    for w in workers:
        w.start()
    start.set()
    seen = []
    for receive, _ in pipes:
        assert receive.poll(WAIT * 4), "a worker did not report"
        seen.extend(receive.recv())
    for w in workers:
        w.join(WAIT)
        assert w.exitcode == 0
    creates = collections.Counter(rid for rid, branch, _ in seen if branch == "create")
    assert creates == dict.fromkeys((f"k{i}" for i in range(KEYS)), 1)
    assert {branch for _, branch, _ in seen} <= {"create", "reuse"}
    job_ids = collections.defaultdict(set)
    for rid, _, job in seen:
        job_ids[rid].add(job)
    assert all(len(ids) == 1 for ids in job_ids.values())  # every process saw the same job per key
    with SQLiteStore(path) as store:
        assert len(store.jobs()) == KEYS and store.integrity_problems() == []


# --- crashes ---------------------------------------------------------------------------------

ROUNDS = 50


def _submit_until_killed(path: str, prefix: str, window: float, ready, in_window) -> None:
    """A child that books keys prefix-0, prefix-1, ... until it is killed.

    Its store lingers between writing a job and writing that job's receipt, so
    a kill lands in the middle of the transaction often, not just by luck.
    """
    original = _SQLiteTransaction._insert_receipt

    def lingering_receipt(self, *args):
        in_window.value = 1  # the job row is written; its receipt is not
        time.sleep(window)
        original(self, *args)
        in_window.value = 0

    _SQLiteTransaction._insert_receipt = lingering_receipt
    service = InspectionService(SQLiteStore(path))
    ready.set()
    j = 0
    while True:
        _submit(service, f"{prefix}-{j}")
        j += 1


def _jobs_per_key(path: Path, prefix: str) -> collections.Counter:
    raw = sqlite3.connect(path)
    try:
        rows = raw.execute("SELECT request_id FROM receipts WHERE request_id LIKE ?", (f"{prefix}-%",)).fetchall()
    finally:
        raw.close()
    return collections.Counter(r for (r,) in rows)


@pytest.mark.slow
def test_sigkill_at_random_points_never_splits_a_job_from_its_receipt(tmp_path):
    path = tmp_path / "crash.db"
    SQLiteStore(path).close()
    rng = random.Random(20260302)
    ctx = multiprocessing.get_context("fork")  # fast to start: fifty children
    killed_mid_transaction = 0
    for round_ in range(ROUNDS):
        prefix = f"c{round_}"
        # lock=False: a child killed while holding a synchronised Value's lock would leave the
        # parent blocked forever on reading it. One aligned int needs no lock.
        ready, in_window = ctx.Event(), ctx.Value("i", 0, lock=False)
        child = ctx.Process(
            target=_submit_until_killed, args=(str(path), prefix, rng.uniform(0.0005, 0.003), ready, in_window)
        )
        child.start()
        assert ready.wait(WAIT)
        time.sleep(rng.uniform(0.0, 0.03))
        os.kill(child.pid, signal.SIGKILL)
        child.join(WAIT)
        assert child.exitcode == -signal.SIGKILL
        killed_mid_transaction += in_window.value

        before = _jobs_per_key(path, prefix)
        with SQLiteStore(path) as store:
            assert store.integrity_problems() == [], f"round {round_}"
            service = InspectionService(store)
            # the keys the child finished, and the one it was working on when it died
            for j in range(len(before) + 1):
                rid = f"{prefix}-{j}"
                d = _submit(service, rid)
                assert d.branch is (Branch.REUSE if rid in before else Branch.CREATE), (round_, rid)
            assert store.integrity_problems() == []
        after = _jobs_per_key(path, prefix)
        assert set(after.values()) == {1} and len(after) == len(before) + 1  # reuse or create, never both
    assert killed_mid_transaction >= 5, "the kills should often land between a job and its receipt"


class FileScheduler:
    """An external scheduling service in its own SQLite file, deduplicating on the idempotency key."""

    def __init__(self, path: str) -> None:
        self.path = path

    def setup(self) -> None:
        raw = sqlite3.connect(self.path)
        raw.execute("CREATE TABLE IF NOT EXISTS bookings (key TEXT PRIMARY KEY, request_id TEXT NOT NULL)")
        raw.commit()
        raw.close()

    def __call__(self, order: JobOrder) -> str:
        raw = sqlite3.connect(self.path, isolation_level=None, timeout=WAIT)
        try:
            raw.execute("BEGIN IMMEDIATE")
            raw.execute("INSERT OR IGNORE INTO bookings VALUES (?, ?)", (order.idempotency_key, order.request_id))
            (ref,) = raw.execute("SELECT rowid FROM bookings WHERE key = ?", (order.idempotency_key,)).fetchone()
            raw.execute("COMMIT")
        finally:
            raw.close()
        return f"ext-{ref}"

    def bookings(self, prefix: str) -> collections.Counter:
        raw = sqlite3.connect(self.path)
        rows = raw.execute("SELECT request_id FROM bookings WHERE request_id LIKE ?", (f"{prefix}-%",)).fetchall()
        raw.close()
        return collections.Counter(r for (r,) in rows)


def _book_until_killed(path: str, scheduler_path: str, prefix: str, ready) -> None:
    service = InspectionService(SQLiteStore(path), downstream=FileScheduler(scheduler_path))
    ready.set()
    j = 0
    while True:
        _submit(service, f"{prefix}-{j}")
        j += 1


@pytest.mark.slow
def test_sigkill_around_a_downstream_call_then_recover_books_each_key_once(tmp_path):
    """Kill between reserve, call and complete; recovery plus retries end with one booking per key."""
    path, scheduler_path = tmp_path / "svc.db", str(tmp_path / "scheduler.db")
    SQLiteStore(path).close()
    scheduler = FileScheduler(scheduler_path)
    scheduler.setup()
    rng = random.Random(7)
    ctx = multiprocessing.get_context("fork")
    for round_ in range(20):
        prefix = f"d{round_}"
        ready = ctx.Event()
        child = ctx.Process(target=_book_until_killed, args=(str(path), scheduler_path, prefix, ready))
        child.start()
        assert ready.wait(WAIT)
        time.sleep(rng.uniform(0.0, 0.03))
        os.kill(child.pid, signal.SIGKILL)
        child.join(WAIT)

        with SQLiteStore(path) as store:
            service = InspectionService(store, downstream=scheduler)
            service.recover(older_than=dt.timedelta(0))  # the child is dead: settle now
            touched = len(_jobs_per_key(path, prefix)) + 1
            for j in range(touched):
                d = _submit(service, f"{prefix}-{j}")
                assert d.branch in (Branch.CREATE, Branch.REUSE), (round_, j, d.branch, d.reason)
            assert store.integrity_problems() == []
        jobs, booked = _jobs_per_key(path, prefix), scheduler.bookings(prefix)
        assert set(jobs.values()) == {1} and len(jobs) == touched
        assert booked == jobs  # one booking downstream for every job, and none without one
