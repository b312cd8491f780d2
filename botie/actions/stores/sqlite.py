"""Idempotency state in one SQLite file (standard library ``sqlite3``), safe across threads and processes.

Three guarantees, each from SQLite rather than from our own care:

* **One creation per key.** ``idempotency_keys`` has a primary key on
  (caller, request_id): a second row for the same key cannot exist, whatever
  the workers do. Every transaction starts with ``BEGIN IMMEDIATE``, taking
  the write lock *before* the look-up, so the second worker waits and then
  finds the first one's key instead of racing it.
* **A job never without its receipt.** The job row, its receipt row and the
  settled key are written in one transaction: a crash at any point leaves all
  of them or none of them.
* **One owner of transactions.** Like sqlite-utils, the connection runs in
  autocommit mode (``isolation_level=None``) and only :meth:`SQLiteStore.transaction`
  issues BEGIN, COMMIT and ROLLBACK, so no library call commits behind our back.

The file runs in WAL mode (readers never block the writer) with
``synchronous=NORMAL``: a committed transaction survives a crash of the
process, though the last few may be lost if the machine loses power. Pass
``durable=True`` for ``synchronous=FULL`` (an fsync per commit) when that matters.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from botie.actions.canonical import canonical_json
from botie.actions.decision import KeyState, Receipt, StoredRequest
from botie.actions.stores.base import AuditRecord, Job, Reservation
from botie.errors import StoreBusyError, StoreError

__all__ = ["SCHEMA", "SQLiteStore"]

#: The tables, one statement each (executescript() would COMMIT by itself, behind the owner's back).
SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS jobs (
    id               INTEGER PRIMARY KEY,
    caller           TEXT NOT NULL,
    asset_id         TEXT NOT NULL,
    duration_minutes INTEGER NOT NULL,
    created_at       TEXT NOT NULL,
    external_ref     TEXT
)
""",
    """
-- one receipt per job, kept for good: which request (and which payload) created it
CREATE TABLE IF NOT EXISTS receipts (
    job_id      INTEGER PRIMARY KEY REFERENCES jobs(id),
    caller      TEXT NOT NULL,
    request_id  TEXT NOT NULL,
    fingerprint TEXT NOT NULL
)
""",
    """
-- the live key: at most one per (caller, request_id), dropped when it expires
CREATE TABLE IF NOT EXISTS idempotency_keys (
    caller      TEXT NOT NULL,
    request_id  TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    payload     TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('pending', 'failed', 'done')),
    job_id      INTEGER REFERENCES receipts(job_id),
    token       TEXT,
    stored_at   TEXT NOT NULL,
    PRIMARY KEY (caller, request_id),
    CHECK ((state = 'done') = (job_id IS NOT NULL))
)
""",
    """
CREATE TABLE IF NOT EXISTS audit (
    id         INTEGER PRIMARY KEY,
    at         TEXT NOT NULL,
    caller     TEXT NOT NULL,
    request_id TEXT,
    outcome    TEXT NOT NULL,
    job_id     TEXT
)
""",
)

# SQLITE_BUSY and SQLITE_LOCKED; the named constants only exist from Python 3.11.
_BUSY_CODES = {getattr(sqlite3, "SQLITE_BUSY", 5), getattr(sqlite3, "SQLITE_LOCKED", 6)}


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    text = str(exc)
    return "locked" in text or "busy" in text


def _when(moment: _dt.datetime) -> str:
    """UTC with a fixed width, so that text order is time order."""
    return moment.astimezone(_dt.timezone.utc).isoformat(timespec="microseconds")


def _moment(text: str) -> _dt.datetime:
    return _dt.datetime.fromisoformat(text)


def _job_id(row_id: int) -> str:
    return f"job-{row_id}"


class _SQLiteTransaction:
    """The :class:`~botie.actions.stores.memory.Transaction` operations as SQL on one connection inside BEGIN/COMMIT."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def _receipt(self, row_id: int, request_id: str) -> Receipt:
        asset, minutes, created, ref = self._conn.execute(
            "SELECT asset_id, duration_minutes, created_at, external_ref FROM jobs WHERE id = ?", (row_id,)
        ).fetchone()
        return Receipt(_job_id(row_id), request_id, asset, minutes, _moment(created), ref)

    def lookup(self, caller: str, request_id: str) -> StoredRequest | None:
        row = self._conn.execute(
            "SELECT payload, state, job_id, stored_at FROM idempotency_keys WHERE caller = ? AND request_id = ?",
            (caller, request_id),
        ).fetchone()
        if row is None:
            return None
        payload, state, row_id, stored_at = row
        receipt = self._receipt(row_id, request_id) if row_id is not None else None
        return StoredRequest(json.loads(payload), receipt, KeyState(state), stored_at=_moment(stored_at))

    def _insert_job(self, caller: str, payload: Mapping[str, Any], now: _dt.datetime, ref: str | None) -> int:
        cursor = self._conn.execute(
            "INSERT INTO jobs (caller, asset_id, duration_minutes, created_at, external_ref) VALUES (?, ?, ?, ?, ?)",
            (caller, payload["asset_id"], payload["duration_minutes"], _when(now), ref),
        )
        row_id = cursor.lastrowid
        assert row_id is not None  # sqlite3 sets it after every INSERT that succeeded
        return row_id

    def _insert_receipt(self, row_id: int, caller: str, request_id: str, fingerprint: str) -> None:
        self._conn.execute(
            "INSERT INTO receipts (job_id, caller, request_id, fingerprint) VALUES (?, ?, ?, ?)",
            (row_id, caller, request_id, fingerprint),
        )

    def _insert_key(
        self,
        caller: str,
        payload: Mapping[str, Any],
        fingerprint: str,
        state: KeyState,
        row_id: int | None,
        token: str | None,
        now: _dt.datetime,
    ) -> None:
        # A plain INSERT: if the key exists, the primary key refuses it (IntegrityError), never overwrites.
        self._conn.execute(
            "INSERT INTO idempotency_keys (caller, request_id, fingerprint, payload, state, job_id, token, stored_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                caller,
                payload["request_id"],
                fingerprint,
                canonical_json(dict(payload)),
                state.value,
                row_id,
                token,
                _when(now),
            ),
        )

    def create(self, caller: str, payload: Mapping[str, Any], fingerprint: str, now: _dt.datetime) -> Receipt:
        row_id = self._insert_job(caller, payload, now, None)
        self._insert_receipt(row_id, caller, payload["request_id"], fingerprint)
        self._insert_key(caller, payload, fingerprint, KeyState.DONE, row_id, None, now)
        # Built from what was just written rather than read back: one statement fewer per booking.
        return Receipt(
            _job_id(row_id),
            payload["request_id"],
            payload["asset_id"],
            payload["duration_minutes"],
            _moment(_when(now)),
        )

    def reserve(self, caller: str, payload: Mapping[str, Any], fingerprint: str, now: _dt.datetime, token: str) -> None:
        self._insert_key(caller, payload, fingerprint, KeyState.PENDING, None, token, now)

    def retake(self, caller: str, request_id: str) -> str:
        where = " WHERE caller = ? AND request_id = ? AND state = 'failed'"
        row = self._conn.execute("SELECT token FROM idempotency_keys" + where, (caller, request_id)).fetchone()
        if row is None:
            raise StoreError(f"({caller}, {request_id}) is not a failed reservation", field="request_id")
        self._conn.execute("UPDATE idempotency_keys SET state = 'pending'" + where, (caller, request_id))
        token: str = row[0]  # sqlite3 rows are untyped; a reservation's token column holds a str
        return token

    def complete(
        self, caller: str, request_id: str, token: str, external_ref: str, now: _dt.datetime
    ) -> Receipt | None:
        row = self._conn.execute(
            "SELECT payload, fingerprint FROM idempotency_keys"
            " WHERE caller = ? AND request_id = ? AND token = ? AND state != 'done'",
            (caller, request_id, token),
        ).fetchone()
        if row is None:
            return None
        payload, fingerprint = json.loads(row[0]), row[1]
        row_id = self._insert_job(caller, payload, now, external_ref)
        self._insert_receipt(row_id, caller, request_id, fingerprint)
        self._conn.execute(
            "UPDATE idempotency_keys SET state = 'done', job_id = ? WHERE caller = ? AND request_id = ?",
            (row_id, caller, request_id),
        )
        return self._receipt(row_id, request_id)

    def mark_failed(self, caller: str, request_id: str, token: str) -> None:
        self._conn.execute(
            "UPDATE idempotency_keys SET state = 'failed'"
            " WHERE caller = ? AND request_id = ? AND token = ? AND state = 'pending'",
            (caller, request_id, token),
        )

    def forget(self, caller: str, request_id: str) -> None:
        self._conn.execute("DELETE FROM idempotency_keys WHERE caller = ? AND request_id = ?", (caller, request_id))

    def reservations(self, reserved_before: _dt.datetime) -> list[Reservation]:
        rows = self._conn.execute(
            "SELECT caller, request_id, payload, token, state, stored_at FROM idempotency_keys"
            " WHERE state != 'done' AND stored_at <= ? ORDER BY stored_at",
            (_when(reserved_before),),
        ).fetchall()
        return [Reservation(c, r, json.loads(p), t, KeyState(s), _moment(at)) for c, r, p, t, s, at in rows]

    def audit(self, record: AuditRecord) -> None:
        self._conn.execute(
            "INSERT INTO audit (at, caller, request_id, outcome, job_id) VALUES (?, ?, ?, ?, ?)",
            (_when(record.at), record.caller, record.request_id, record.outcome, record.job_id),
        )


class SQLiteStore:
    """Idempotency state in an SQLite file that any number of threads and processes may share.

    Each thread gets its own connection (SQLite's locks, not ours, decide who
    writes next). ``timeout`` is how long a transaction waits for the write
    lock before :class:`~botie.errors.StoreBusyError`; the service retries
    that a bounded number of times. Open one ``SQLiteStore`` per process: a
    store carried across ``fork`` refuses to run.
    """

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 5.0, durable: bool = False) -> None:
        if not isinstance(path, (str, os.PathLike)) or str(path) in ("", ":memory:"):
            raise StoreError(
                f"SQLiteStore needs a file path that every worker can open, got {path!r} "
                "(for a store in memory use MemoryStore)",
                field="path",
            )
        self.path = Path(path)
        self.timeout = timeout
        self.durable = durable
        self._pid = os.getpid()
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._create_schema()

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- connections ---------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if os.getpid() != self._pid:
            raise StoreError(
                "this SQLiteStore was opened in another process; open a new one in this process", field="store"
            )
        conn = getattr(self._local, "conn", None)
        if conn is None:
            # check_same_thread=False only so that close() may close every thread's connection;
            # each connection is still used by the one thread that opened it.
            conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
            try:  # a connection's first statement reads the schema, which a writer's exclusive lock can block
                conn.execute("PRAGMA foreign_keys = ON")
                conn.execute(f"PRAGMA synchronous = {'FULL' if self.durable else 'NORMAL'}")
            except sqlite3.OperationalError as exc:
                conn.close()
                raise self._translated(exc) from exc
            self._local.conn = conn
            with self._connections_lock:
                self._connections.append(conn)
        return conn

    def close(self) -> None:
        """Close every connection this store opened (call once no thread is using it)."""
        with self._connections_lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()

    def _create_schema(self) -> None:
        conn = self._connection()
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            raise self._translated(exc) from exc
        if mode.lower() != "wal":
            raise StoreError(f"{self.path}: could not switch to WAL mode (got {mode})", field="path")
        with self.transaction() as tx:
            for statement in SCHEMA:
                tx._conn.execute(statement)

    # -- the transaction owner ------------------------------------------------------------

    def _translated(self, exc: sqlite3.OperationalError) -> Exception:
        if _is_busy(exc):
            return StoreBusyError(f"{self.path} stayed locked for {self.timeout} s: {exc}", field="store")
        return exc

    @contextmanager
    def transaction(self) -> Iterator[_SQLiteTransaction]:
        """BEGIN IMMEDIATE; yield; COMMIT. Any exception rolls everything back and propagates.

        A busy database surfaces as :class:`~botie.errors.StoreBusyError`
        (nothing was written). Transactions do not nest: the outermost block
        is the only owner of commit and rollback.
        """
        conn = self._connection()
        if conn.in_transaction:
            raise StoreError("transactions do not nest: the outer transaction owns commit and rollback", field="store")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise self._translated(exc) from exc
        try:
            yield _SQLiteTransaction(conn)
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError) and _is_busy(exc):
                raise self._translated(exc) from exc
            raise

    # -- reading committed state ----------------------------------------------------------

    def _read(self, sql: str) -> list[tuple[Any, ...]]:
        return self._connection().execute(sql).fetchall()

    def audit_log(self) -> tuple[AuditRecord, ...]:
        rows = self._read("SELECT at, caller, request_id, outcome, job_id FROM audit ORDER BY id")
        return tuple(AuditRecord(_moment(at), c, r, o, j) for at, c, r, o, j in rows)

    def jobs(self) -> tuple[Job, ...]:
        rows = self._read(
            "SELECT id, caller, asset_id, duration_minutes, created_at, external_ref FROM jobs ORDER BY id"
        )
        return tuple(Job(_job_id(i), c, a, d, _moment(at), ref) for i, c, a, d, at, ref in rows)

    def integrity_problems(self) -> list[str]:
        checks = {
            "job {} has no receipt": (
                "SELECT j.id FROM jobs j LEFT JOIN receipts r ON r.job_id = j.id WHERE r.job_id IS NULL"
            ),
            "receipt for job {} has no job": (
                "SELECT r.job_id FROM receipts r LEFT JOIN jobs j ON j.id = r.job_id WHERE j.id IS NULL"
            ),
            "a settled key points at job {}, which has no receipt": (
                "SELECT k.job_id FROM idempotency_keys k LEFT JOIN receipts r ON r.job_id = k.job_id"
                " WHERE k.job_id IS NOT NULL AND r.job_id IS NULL"
            ),
        }
        problems = [template.format(_job_id(row[0])) for template, sql in checks.items() for row in self._read(sql)]
        problems += [f"foreign key broken in {table}" for table, *_ in self._read("PRAGMA foreign_key_check")]
        return problems
