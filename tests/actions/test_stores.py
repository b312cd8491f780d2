"""Stores: one transaction owner, all-or-nothing writes, one key per (caller, request id)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import sqlite3

import pytest

from botie.actions.canonical import fingerprint
from botie.actions.decision import KeyState, Receipt, StoredRequest
from botie.actions.stores import AuditRecord, Job, MemoryStore, SQLiteStore
from botie.errors import StoreBusyError, StoreError

NOW = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
P2 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
ANA = "tech-ana"


class Boom(Exception):
    pass


def _create(store, payload=P2, caller=ANA, now=NOW):
    with store.transaction() as tx:
        return tx.create(caller, payload, fingerprint(payload), now)


def _lookup(store, caller=ANA, request_id="r7"):
    with store.transaction() as tx:
        return tx.lookup(caller, request_id)


# --- the contract, for both stores --------------------------------------------------


def test_create_writes_job_receipt_and_settled_key_together(store):
    receipt = _create(store)
    assert (receipt.job_id, receipt.request_id, receipt.asset_id, receipt.duration_minutes) == (
        "job-1",
        "r7",
        "P-2",
        20,
    )
    assert receipt.created_at == NOW
    stored = _lookup(store)
    assert stored == StoredRequest(P2, receipt, KeyState.DONE, stored_at=NOW)
    assert [j.job_id for j in store.jobs()] == ["job-1"]
    assert store.integrity_problems() == []


def test_nothing_stored_is_none(store):
    assert _lookup(store) is None


def test_keys_are_scoped_to_the_caller(store):
    _create(store)
    assert _lookup(store, caller="tech-bob") is None


def test_an_exception_inside_the_transaction_persists_nothing(store):
    with pytest.raises(Boom), store.transaction() as tx:
        tx.create(ANA, P2, fingerprint(P2), NOW)
        tx.audit(AuditRecord(NOW, ANA, "r7", "create", "job-1"))
        assert tx.lookup(ANA, "r7") is not None  # the transaction sees its own write...
        raise Boom
    assert _lookup(store) is None  # ...and after the rollback nobody does
    assert store.jobs() == () and store.audit_log() == ()
    assert store.integrity_problems() == []


def test_transactions_do_not_nest(store):
    with store.transaction(), pytest.raises(StoreError, match="do not nest"), store.transaction():
        pass
    _create(store)  # and the store still works afterwards
    assert len(store.jobs()) == 1


def test_a_second_key_for_the_same_request_is_refused(store):
    _create(store)
    with pytest.raises((StoreError, sqlite3.IntegrityError)):
        _create(store, P2 | {"duration_minutes": 45})
    assert _lookup(store).payload["duration_minutes"] == 20  # the first one is intact
    assert len(store.jobs()) == 1


def test_forget_drops_the_key_but_keeps_job_and_receipt(store):
    _create(store)
    with store.transaction() as tx:
        tx.forget(ANA, "r7")
    assert _lookup(store) is None
    assert len(store.jobs()) == 1 and store.integrity_problems() == []
    assert _create(store).job_id == "job-2"  # the request id may now start over


def test_reservation_lifecycle_pending_failed_pending_done(store):
    with store.transaction() as tx:
        tx.reserve(ANA, P2, fingerprint(P2), NOW, "tok-1")
    assert _lookup(store).state is KeyState.PENDING and store.jobs() == ()
    with store.transaction() as tx:
        tx.mark_failed(ANA, "r7", "tok-1")
    assert _lookup(store).state is KeyState.FAILED
    with store.transaction() as tx:
        assert tx.retake(ANA, "r7") == "tok-1"  # the same token: the downstream sees one key
    assert _lookup(store).state is KeyState.PENDING
    with store.transaction() as tx:
        assert tx.complete(ANA, "r7", "tok-other", "ext-1", NOW) is None  # not the holder
        receipt = tx.complete(ANA, "r7", "tok-1", "ext-1", NOW)
    assert receipt.external_ref == "ext-1" and receipt.created_at == NOW
    assert store.jobs() == (Job("job-1", ANA, "P-2", 20, NOW, "ext-1"),)
    assert _lookup(store) == StoredRequest(P2, receipt, stored_at=NOW)
    with store.transaction() as tx:
        assert tx.complete(ANA, "r7", "tok-1", "ext-1", NOW) is None  # settled once only
    assert len(store.jobs()) == 1 and store.integrity_problems() == []


def test_retake_refuses_a_key_that_is_not_failed(store):
    with store.transaction() as tx:
        tx.reserve(ANA, P2, fingerprint(P2), NOW, "tok-1")
    with pytest.raises(StoreError) as info, store.transaction() as tx:
        tx.retake(ANA, "r7")
    assert info.value.field == "request_id" and str(info.value) == "(tech-ana, r7) is not a failed reservation"


def test_mark_failed_touches_only_the_pending_key_that_holds_the_token(store):
    with store.transaction() as tx:
        tx.reserve(ANA, P2, fingerprint(P2), NOW, "tok-1")
        tx.create(ANA, P2 | {"request_id": "r9"}, "f", NOW)
    with store.transaction() as tx:
        tx.mark_failed(ANA, "r7", "tok-other")  # not the holder
        tx.mark_failed(ANA, "r9", "tok-1")  # settled: nothing left to fail
        tx.mark_failed(ANA, "r404", "tok-1")  # nothing stored at all
    assert [_lookup(store, request_id=r).state for r in ("r7", "r9")] == [KeyState.PENDING, KeyState.DONE]
    assert _lookup(store, request_id="r404") is None and store.integrity_problems() == []


def test_forgetting_a_key_that_is_not_stored_changes_nothing(store):
    with store.transaction() as tx:
        tx.forget(ANA, "r404")
    _create(store)
    with store.transaction() as tx:
        tx.create(ANA, P2 | {"request_id": "r8"}, "f", NOW)
        tx.forget(ANA, "r8")  # written and dropped in one transaction: it never reaches the store
    assert _lookup(store, request_id="r8") is None and _lookup(store).receipt.job_id == "job-1"
    assert len(store.jobs()) == 2 and store.integrity_problems() == []


def test_reservations_lists_unsettled_keys_older_than_a_cutoff(store):
    with store.transaction() as tx:
        tx.reserve(ANA, P2, fingerprint(P2), NOW, "tok-1")
        tx.reserve(ANA, P2 | {"request_id": "r8"}, "f", NOW + dt.timedelta(minutes=5), "tok-2")
        tx.create(ANA, P2 | {"request_id": "r9"}, "f", NOW)
    with store.transaction() as tx:
        assert [r.request_id for r in tx.reservations(NOW + dt.timedelta(minutes=1))] == ["r7"]
        found = tx.reservations(NOW + dt.timedelta(hours=1))
    assert [(r.request_id, r.token, r.state) for r in found] == [
        ("r7", "tok-1", KeyState.PENDING),
        ("r8", "tok-2", KeyState.PENDING),
    ]
    assert found[0].payload == P2 and found[0].reserved_at == NOW


def test_audit_log_keeps_order_and_fields(store):
    records = [AuditRecord(NOW, ANA, "r7", "create", "job-1"), AuditRecord(NOW, "tech-bob", None, "invalid")]
    with store.transaction() as tx:
        for r in records:
            tx.audit(r)
    assert store.audit_log() == tuple(records)


# --- SQLite specifics ------------------------------------------------------------------


def test_sqlite_runs_in_wal_mode_with_the_constraints_in_the_schema(tmp_path):
    SQLiteStore(tmp_path / "a.db").close()
    raw = sqlite3.connect(tmp_path / "a.db")
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with pytest.raises(sqlite3.IntegrityError):  # a settled key must point at a job
        raw.execute("INSERT INTO idempotency_keys VALUES ('a', 'r7', 'f', '{}', 'done', NULL, NULL, 'x')")
    with pytest.raises(sqlite3.IntegrityError):  # and a state it knows
        raw.execute("INSERT INTO idempotency_keys VALUES ('a', 'r7', 'f', '{}', 'lost', NULL, NULL, 'x')")
    raw.close()


def test_sqlite_a_second_transaction_cannot_begin_while_one_is_open(tmp_path):
    """BEGIN IMMEDIATE takes the write lock before the look-up: the second worker waits, it never races.

    With a deferred BEGIN the second transaction would start at once, look up the key the
    first one is about to write, and find nothing.
    """
    path = tmp_path / "a.db"
    with SQLiteStore(path) as first, SQLiteStore(path, timeout=0.05) as second:
        with first.transaction() as tx:
            assert tx.lookup(ANA, "r7") is None
            with pytest.raises(StoreBusyError), second.transaction():
                pass
            tx.create(ANA, P2, "f", NOW)
        assert _lookup(second).receipt.job_id == "job-1"  # once the first commits, the second finds its key


def test_sqlite_connections_enforce_foreign_keys(tmp_path):
    """A receipt for a job that does not exist is refused by SQLite itself, not only by our care."""
    with SQLiteStore(tmp_path / "a.db") as s:
        with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"), s.transaction() as tx:
            tx._conn.execute(
                "INSERT INTO receipts (job_id, caller, request_id, fingerprint) VALUES (99, 'a', 'r', 'f')"
            )
        assert s.integrity_problems() == []


def test_sqlite_state_survives_reopening(tmp_path):
    path = tmp_path / "a.db"
    with SQLiteStore(path) as first:
        receipt = _create(first)
    with SQLiteStore(path) as second:
        assert _lookup(second).receipt == receipt


def test_sqlite_rollback_also_undoes_rows_written_before_the_failure(tmp_path):
    """The transaction owner rolls back every statement of the block, not just the last one."""
    with SQLiteStore(tmp_path / "a.db") as s:
        with pytest.raises(sqlite3.IntegrityError), s.transaction() as tx:
            tx.create(ANA, P2, "f", NOW)
            tx.create(ANA, P2, "f", NOW)  # same key again: the constraint fires mid-way
        assert s.jobs() == () and _lookup(s) is None
        raw = sqlite3.connect(s.path)
        counts = [raw.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("jobs", "receipts")]
        raw.close()
        assert counts == [0, 0]


def test_sqlite_busy_is_a_store_busy_error_naming_file_and_wait_and_writes_nothing(tmp_path):
    path = tmp_path / "a.db"
    with SQLiteStore(path, timeout=0.05) as s:
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(StoreBusyError) as info, s.transaction() as tx:
                tx.create(ANA, P2, "f", NOW)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert info.value.field == "store"
        assert str(info.value) == f"{path} stayed locked for 0.05 s: database is locked"
        assert s.jobs() == ()
        _create(s)  # once the lock is gone, the same store works
        assert len(s.jobs()) == 1


@pytest.mark.parametrize("path", [":memory:", "", 42])
def test_sqlite_needs_a_real_file_path(path):
    with pytest.raises(StoreError) as info:
        SQLiteStore(path)
    assert info.value.field == "path"
    assert str(info.value) == (
        f"SQLiteStore needs a file path that every worker can open, got {path!r} "
        "(for a store in memory use MemoryStore)"
    )


def test_sqlite_each_thread_gets_its_own_connection(tmp_path):
    import threading

    with SQLiteStore(tmp_path / "a.db") as s:
        seen = []
        t = threading.Thread(target=lambda: seen.append(s._connection()))
        t.start()
        t.join()
        assert seen[0] is not s._connection()


# --- MemoryStore specifics ---------------------------------------------------------------


def test_memory_store_says_which_mode_it_is_in_and_how_many_jobs_it_holds():
    assert repr(MemoryStore(guarded=False)) == "MemoryStore(UNGUARDED (naive check-then-create), 0 jobs)"
    store = MemoryStore()
    _create(store)
    assert repr(store) == "MemoryStore(guarded, 1 jobs)"


def test_the_guarded_memory_store_refuses_a_second_key_naming_the_field():
    store = MemoryStore()
    _create(store)
    with pytest.raises(StoreError) as info:
        _create(store, P2 | {"duration_minutes": 45})
    assert info.value.field == "request_id" and str(info.value) == "a key for (tech-ana, r7) already exists"


def test_pause_runs_between_the_check_and_the_write():
    events = []
    store = MemoryStore(pause=lambda: events.append("pause"))
    with store.transaction() as tx:
        events.append("check")
        assert tx.lookup(ANA, "r7") is None
        tx.create(ANA, P2, "f", NOW)
        events.append("written")
    assert events == ["check", "pause", "written"]


def test_integrity_problems_are_reported():
    store = MemoryStore()
    _create(store)
    store._receipts.clear()  # break it on purpose
    assert store.integrity_problems() == [
        "job job-1 has no receipt",
        "key (tech-ana, r7) points at job-1, which has no receipt",
    ]


def test_a_settled_key_without_a_job_is_an_integrity_problem():
    store = MemoryStore()
    _create(store)
    key = store._keys[(ANA, "r7")]
    store._keys[(ANA, "r7")] = dataclasses.replace(key, job_id=None)  # break it on purpose
    assert store.integrity_problems() == ["key (tech-ana, r7) is done with job None"]


# --- SQLite: what it says when things go wrong, and its settings --------------------------------


def _operational_error(text, code=None):
    """An OperationalError as sqlite3 raises it: with ``sqlite_errorcode`` on Python 3.11+, without before."""
    exc = sqlite3.OperationalError(text)
    if code is not None:
        exc.sqlite_errorcode = code  # type: ignore[attr-defined]  # Python 3.11+ has it; mypy checks as 3.10
    return exc


@pytest.mark.parametrize(
    ("text", "code", "busy"),
    [
        ("database is locked", 5, True),
        ("database table is locked", 6, True),
        ("database is locked", 517, True),  # SQLITE_BUSY_SNAPSHOT: an extended code whose low byte is BUSY
        ("disk I/O error", 10, False),
        ("database is locked", 1, False),  # the code decides when there is one, not the text
        ("database is locked", None, True),  # Python 3.10: only the text says it
        ("the database is busy", None, True),
        ("no such table: jobs", None, False),
    ],
)
def test_sqlite_tells_a_busy_database_from_other_operational_errors(text, code, busy):
    from botie.actions.stores.sqlite import _is_busy

    assert _is_busy(_operational_error(text, code)) is busy


def test_sqlite_a_nested_transaction_names_the_store_and_leaves_the_outer_one_working(tmp_path):
    with SQLiteStore(tmp_path / "a.db") as s:
        with s.transaction() as tx:
            with pytest.raises(StoreError) as info, s.transaction():
                pass
            tx.create(ANA, P2, "f", NOW)
        assert info.value.field == "store"
        assert str(info.value) == "transactions do not nest: the outer transaction owns commit and rollback"
        assert len(s.jobs()) == 1


def test_sqlite_store_carried_into_another_process_refuses_to_run(tmp_path):
    with SQLiteStore(tmp_path / "a.db") as s:
        s._pid -= 1  # as if this process were a fork of the one that opened the store
        with pytest.raises(StoreError) as info:
            s.jobs()
    assert info.value.field == "store"
    assert str(info.value) == "this SQLiteStore was opened in another process; open a new one in this process"


def _synchronous(store):
    return store._connection().execute("PRAGMA synchronous").fetchone()[0]


def test_sqlite_defaults_wait_five_seconds_and_fsync_only_when_durable(tmp_path):
    """synchronous: 1 is NORMAL (the default), 2 is FULL (an fsync per commit, ``durable=True``).

    The connection is in autocommit mode (isolation_level None), so only the store's own
    transaction() begins and commits.
    """
    with SQLiteStore(tmp_path / "a.db") as quick, SQLiteStore(tmp_path / "a.db", timeout=0.25, durable=True) as durable:
        assert (quick.timeout, quick.durable, _synchronous(quick)) == (5.0, False, 1)
        assert _synchronous(durable) == 2
        # SQLite's own wait for a lock, in milliseconds: the timeout reaches every connection
        assert [s._connection().execute("PRAGMA busy_timeout").fetchone()[0] for s in (quick, durable)] == [5000, 250]
        assert quick._connection().execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert quick._connection().isolation_level is None


def test_sqlite_stores_times_as_utc_text_whatever_the_machines_time_zone(tmp_path, machine_in_tokyo):
    """One offset for every row: the text comparisons in SQL then order rows by time."""
    with SQLiteStore(tmp_path / "a.db") as s:
        _create(s)
    raw = sqlite3.connect(tmp_path / "a.db")
    texts = [
        raw.execute(f"SELECT {column} FROM {table}").fetchone()[0]
        for table, column in (("jobs", "created_at"), ("idempotency_keys", "stored_at"))
    ]
    raw.close()
    assert texts == ["2026-03-02T09:00:00.000000+00:00"] * 2


@pytest.mark.parametrize("via", ["create", "complete"])
def test_sqlite_a_receipt_carries_its_own_jobs_id_even_when_the_numbering_has_drifted(tmp_path, via):
    """Jobs and receipts are numbered apart; a receipt takes its job's id, not the next free number."""
    path = tmp_path / "a.db"
    with SQLiteStore(path) as s:
        raw = sqlite3.connect(path, isolation_level=None)  # a job whose receipt was lost, long ago
        raw.execute("INSERT INTO jobs (caller, asset_id, duration_minutes, created_at) VALUES ('x', 'P-9', 5, 't')")
        raw.close()
        receipt: Receipt | None
        with s.transaction() as tx:
            if via == "create":
                receipt = tx.create(ANA, P2, "f", NOW)
            else:
                tx.reserve(ANA, P2, "f", NOW, "tok-1")
                receipt = tx.complete(ANA, "r7", "tok-1", "ext-1", NOW)
        assert receipt is not None
        assert receipt.job_id == "job-2" and _lookup(s).receipt == receipt
        assert s.integrity_problems() == ["job job-1 has no receipt"]  # only the old damage


def test_sqlite_repr_names_the_file(tmp_path):
    with SQLiteStore(tmp_path / "a.db") as s:
        assert repr(s) == f"SQLiteStore({str(tmp_path / 'a.db')!r})"


def test_sqlite_close_closes_every_connection_and_a_later_use_opens_a_new_one(tmp_path):
    s = SQLiteStore(tmp_path / "a.db")
    first = s._connection()
    s.close()
    with pytest.raises(sqlite3.ProgrammingError):  # closed
        first.execute("SELECT 1")
    assert s._connection() is not first and s.jobs() == ()
    s.close()


def test_sqlite_integrity_problems_name_each_broken_row(tmp_path):
    path = tmp_path / "a.db"
    with SQLiteStore(path) as s:
        _create(s)
        raw = sqlite3.connect(path, isolation_level=None)  # foreign keys are off here: we can break things
        raw.execute("DELETE FROM receipts WHERE job_id = 1")
        raw.execute("INSERT INTO receipts VALUES (9, 'a', 'r9', 'f')")
        raw.close()
        problems = s.integrity_problems()
    assert problems[:3] == [
        "job job-1 has no receipt",
        "receipt for job job-9 has no job",
        "a settled key points at job job-1, which has no receipt",
    ]
    # SQLite's own check comes last, in whatever table order SQLite reports
    assert sorted(problems[3:]) == ["foreign key broken in idempotency_keys", "foreign key broken in receipts"]


class _NoWalConnection(sqlite3.Connection):
    """A connection on a file system without WAL support: SQLite then keeps the old journal mode and says so."""

    def execute(self, sql, *args):
        if sql == "PRAGMA journal_mode = WAL":
            return super().execute("SELECT 'delete'")
        return super().execute(sql, *args)


def test_sqlite_refuses_a_file_that_cannot_run_in_wal_mode(tmp_path, monkeypatch):
    import functools

    monkeypatch.setattr(
        "botie.actions.stores.sqlite.sqlite3.connect", functools.partial(sqlite3.connect, factory=_NoWalConnection)
    )
    with pytest.raises(StoreError) as info:
        SQLiteStore(tmp_path / "a.db")
    assert info.value.field == "path"
    assert str(info.value) == f"{tmp_path / 'a.db'}: could not switch to WAL mode (got delete)"


@pytest.mark.parametrize(
    "hold",
    ["BEGIN EXCLUSIVE", "BEGIN; SELECT * FROM t"],
    ids=["exclusive-blocks-the-first-read", "a-reader-blocks-the-switch-to-wal"],
)
def test_sqlite_a_file_locked_while_it_is_opened_is_a_busy_error(tmp_path, hold):
    """Opening the store is retryable like any transaction, whichever statement meets the lock."""
    path = tmp_path / "a.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")  # a file in the default rollback-journal mode, not yet WAL
    for statement in hold.split("; "):
        holder.execute(statement).fetchall()
    try:
        with pytest.raises(StoreBusyError) as info:
            SQLiteStore(path, timeout=0.05)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert info.value.field == "store"
    assert SQLiteStore(path).jobs() == ()  # once the holder has gone, the same file opens
