"""decide() and the SQLite-backed service, each against a bare version of the same work measured in this run.

* ``decide`` on the path where every check passes, and over a mix of all six
  branches, against a function that makes the same comparisons on plain dicts
  and returns a branch name: no checks, no reasons, no result object.
* ``InspectionService.submit`` on an SQLite file, one new job per submit,
  against raw ``sqlite3`` writing the same rows (job, receipt, key, audit) in
  one transaction each, with the same WAL and synchronous settings.
"""

from __future__ import annotations

import itertools
import sqlite3
import tempfile
import time
from pathlib import Path

from botie.actions.canonical import canonical_json, fingerprint
from botie.actions.decision import Approval, StoredRequest, decide
from botie.actions.service import InspectionService
from botie.actions.stores.sqlite import SCHEMA, SQLiteStore

from ._harness import Row, rate

CALLER = "tech-ana"
ALLOWED = frozenset({"P-2", "P-3"})
START = "2026-04-02T09:00Z"  # when each benchmark visit begins


def _decide_cases() -> list[tuple[dict, Approval | None, StoredRequest | None]]:
    p = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
    longer = p | {"duration_minutes": 30}
    stored = StoredRequest.settled(p, "job-1")
    return [
        (p, Approval(CALLER, p), None),  # create
        (p, Approval(CALLER, p), stored),  # reuse
        (longer, Approval(CALLER, longer), stored),  # conflict
        (p | {"asset_id": "K-7"}, Approval(CALLER, p), None),  # denied
        (longer, Approval(CALLER, p), None),  # needs approval
        (p | {"duration_minutes": 20.0}, None, None),  # invalid
    ]


def _bare_decide(proposal: dict, caller: str, allowed: frozenset, approval: dict | None, previous: dict | None) -> str:
    """The same rules on dicts, returning only the branch name."""
    if (
        type(proposal) is not dict
        or len(proposal) != 3
        or type(proposal.get("asset_id")) is not str
        or not proposal["asset_id"]
        or type(proposal.get("request_id")) is not str
        or not proposal["request_id"]
        or type(proposal.get("duration_minutes")) is not int
        or not 1 <= proposal["duration_minutes"] <= 60
    ):
        return "invalid"
    if proposal["asset_id"] not in allowed:
        return "denied"
    if approval is None or approval["actor"] != caller or approval["payload"] != proposal:
        return "needs_approval"
    if previous is None:
        return "create"
    return "reuse" if previous["payload"] == proposal else "conflict"


def _decide_row(cases: list, name: str) -> Row:
    bare_cases = [
        (
            p,
            None if a is None else {"actor": a.actor, "payload": dict(a.payload)},
            None if s is None else {"payload": dict(s.payload), "job_id": s.receipt.job_id},
        )
        for p, a, s in cases
    ]

    def ours() -> None:
        for p, a, s in cases:
            decide(p, caller=CALLER, allowed_assets=ALLOWED, approval=a, previous=s)

    def bare() -> None:
        for p, a, s in bare_cases:
            _bare_decide(p, CALLER, ALLOWED, a, s)

    return Row(
        name,
        rate(ours, ops=len(cases)),
        "same comparisons on dicts",
        rate(bare, ops=len(bare_cases)),
        "≥ 200,000/s",
        kind="rate",
        ours_off=rate(ours, ops=len(cases), collector=False),
        baseline_off=rate(bare, ops=len(bare_cases), collector=False),
    )


# --- the SQLite service ------------------------------------------------------------------

SUBMITS = 2000


def _raw_writer(path: Path):
    """Raw sqlite3: for each request, the rows the service writes, in one transaction each."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    for statement in SCHEMA:
        conn.execute(statement)
    batches = itertools.count()

    def write() -> None:
        batch = next(batches)
        for i in range(SUBMITS):
            p = {"asset_id": "P-2", "duration_minutes": 20, "start": START, "request_id": f"raw-{batch}-{i}"}
            now = time.strftime("%Y-%m-%dT%H:%M:%S.000000+00:00")
            conn.execute("BEGIN IMMEDIATE")
            job = conn.execute(
                "INSERT INTO jobs (caller, asset_id, duration_minutes, created_at) VALUES (?, ?, ?, ?)",
                (CALLER, p["asset_id"], p["duration_minutes"], now),
            ).lastrowid
            fp = fingerprint(p)
            conn.execute("INSERT INTO receipts VALUES (?, ?, ?, ?)", (job, CALLER, p["request_id"], fp))
            conn.execute(
                "INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, 'done', ?, NULL, ?)",
                (CALLER, p["request_id"], fp, canonical_json(p), job, now),
            )
            conn.execute(
                "INSERT INTO audit (at, caller, request_id, outcome, job_id) VALUES (?, ?, ?, ?, ?)",
                (now, CALLER, p["request_id"], "create", f"job-{job}"),
            )
            conn.execute("COMMIT")

    return write, conn


def _service_row() -> Row:
    with tempfile.TemporaryDirectory(prefix="botie-bench-") as folder:
        store = SQLiteStore(Path(folder) / "service.db")
        service = InspectionService(store)
        batches = itertools.count()

        def ours() -> None:
            batch = next(batches)
            for i in range(SUBMITS):
                p = {"asset_id": "P-2", "duration_minutes": 20, "start": START, "request_id": f"svc-{batch}-{i}"}
                d = service.submit(p, caller=CALLER, allowed_assets=ALLOWED, approval=Approval(CALLER, p))
                assert d.receipt is not None

        ours_rate = rate(ours, ops=SUBMITS, repeat=3)
        store.close()
        write, conn = _raw_writer(Path(folder) / "raw.db")
        raw_rate = rate(write, ops=SUBMITS, repeat=3)
        conn.close()
    return Row(
        "SQLite service submit (new job), 1 thread",
        ours_rate,
        "raw sqlite3, same rows, 1 txn each",
        raw_rate,
        "≥ 5,000/s",
        kind="rate",
    )


def run() -> list[Row]:
    cases = _decide_cases()
    return [
        _decide_row(cases[:1] * 12000, "decide, create (every check passes)"),
        # Refusals and conflicts also build a reason naming each changed field: dearer by design.
        _decide_row(cases * 2000, "decide, six branches mixed"),
        _service_row(),
    ]
