"""The in-memory idempotency store, for lessons and tests.

:class:`MemoryStore` makes the store guarantee (:mod:`.base`) with a lock. Built
with ``guarded=False`` it keeps the same code path minus the lock, which is the
"check whether the key exists, then create" race the lesson warns about; its
``pause`` hook holds a worker between the check and the write, so a lesson
(or a test) can make the race happen every time instead of now and then.
:class:`botie.actions.stores.sqlite.SQLiteStore` makes the same guarantee across
processes with a transaction and a uniqueness constraint.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from botie.actions.canonical import canonical_json
from botie.actions.decision import KeyState, Receipt, StoredRequest
from botie.actions.stores.base import AuditRecord, Job, Reservation
from botie.errors import StoreError

__all__ = ["MemoryStore"]


# --- in memory ---------------------------------------------------------------------


# Unlike the SQLite file, memory keeps no payload fingerprints: nobody can read them back from here,
# and a lookup compares the payload itself. A receipt is therefore only the fact that one was written
# (its job id, in ``_receipts``); the Receipt a lookup returns is built from the key and the job.
@dataclass(frozen=True, slots=True)
class _Key:
    payload: str  # canonical JSON
    state: KeyState
    job_id: str | None
    token: str | None
    stored_at: _dt.datetime


_DELETED = object()


class _MemoryTransaction:
    """Writes are staged here and applied on commit, so an exception part-way leaves the store untouched."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store
        self._keys: dict[tuple[str, str], Any] = {}
        self._jobs: dict[str, Job] = {}
        self._receipts: set[str] = set()
        self._audit: list[AuditRecord] = []

    # reads see this transaction's own writes first
    def _key(self, caller: str, request_id: str) -> _Key | None:
        staged = self._keys.get((caller, request_id))
        if staged is _DELETED:
            return None
        return staged if staged is not None else self._store._keys.get((caller, request_id))

    def _job(self, job_id: str) -> Job:
        return self._jobs.get(job_id) or self._store._jobs[job_id]

    def _receipt(self, job_id: str, request_id: str) -> Receipt:
        job = self._job(job_id)
        return Receipt(job_id, request_id, job.asset_id, job.duration_minutes, job.created_at, job.external_ref)

    def lookup(self, caller: str, request_id: str) -> StoredRequest | None:
        key = self._key(caller, request_id)
        if key is None:
            return None
        receipt = self._receipt(key.job_id, request_id) if key.job_id is not None else None
        return StoredRequest(json.loads(key.payload), receipt, key.state, stored_at=key.stored_at)

    def _new_job(self, caller: str, payload: Mapping[str, Any], now: _dt.datetime, external_ref: str | None) -> str:
        job_id = f"job-{next(self._store._ids)}"
        self._jobs[job_id] = Job(job_id, caller, payload["asset_id"], payload["duration_minutes"], now, external_ref)
        self._receipts.add(job_id)
        return job_id

    def _put_new_key(self, caller: str, request_id: str, key: _Key) -> None:
        # The guarded store's stand-in for SQLite's uniqueness constraint. The unguarded store has none:
        # a second worker that checked before the first one wrote simply overwrites the key, and the
        # first job is left behind as a duplicate. That is the hazard the lesson shows.
        if self._store.guarded and self._key(caller, request_id) is not None:
            raise StoreError(f"a key for ({caller}, {request_id}) already exists", field="request_id")
        self._keys[(caller, request_id)] = key

    def create(self, caller: str, payload: Mapping[str, Any], fingerprint: str, now: _dt.datetime) -> Receipt:
        self._store._pause()
        rid = payload["request_id"]
        job_id = self._new_job(caller, payload, now, None)
        self._put_new_key(caller, rid, _Key(canonical_json(dict(payload)), KeyState.DONE, job_id, None, now))
        return self._receipt(job_id, rid)

    def reserve(self, caller: str, payload: Mapping[str, Any], fingerprint: str, now: _dt.datetime, token: str) -> None:
        self._store._pause()
        self._put_new_key(
            caller, payload["request_id"], _Key(canonical_json(dict(payload)), KeyState.PENDING, None, token, now)
        )

    def retake(self, caller: str, request_id: str) -> str:
        key = self._key(caller, request_id)
        if key is None or key.state is not KeyState.FAILED:
            raise StoreError(f"({caller}, {request_id}) is not a failed reservation", field="request_id")
        self._keys[(caller, request_id)] = replace(key, state=KeyState.PENDING)
        assert key.token is not None  # a failed key was a reservation, and every reservation has a token
        return key.token

    def complete(
        self, caller: str, request_id: str, token: str, external_ref: str, now: _dt.datetime
    ) -> Receipt | None:
        key = self._key(caller, request_id)
        if key is None or key.token != token or key.state is KeyState.DONE:
            return None
        payload = json.loads(key.payload)
        job_id = self._new_job(caller, payload, now, external_ref)
        self._keys[(caller, request_id)] = replace(key, state=KeyState.DONE, job_id=job_id)
        return self._receipt(job_id, request_id)

    def mark_failed(self, caller: str, request_id: str, token: str) -> None:
        key = self._key(caller, request_id)
        if key is not None and key.token == token and key.state is KeyState.PENDING:
            self._keys[(caller, request_id)] = replace(key, state=KeyState.FAILED)

    def forget(self, caller: str, request_id: str) -> None:
        self._keys[(caller, request_id)] = _DELETED

    def reservations(self, reserved_before: _dt.datetime) -> list[Reservation]:
        found = []
        for caller, rid in {**self._store._keys, **self._keys}:
            key = self._key(caller, rid)
            if key is not None and key.state is not KeyState.DONE and key.stored_at <= reserved_before:
                assert key.token is not None  # only create() stores a key without a token, and it is done
                found.append(Reservation(caller, rid, json.loads(key.payload), key.token, key.state, key.stored_at))
        return sorted(found, key=lambda r: r.reserved_at)

    def audit(self, record: AuditRecord) -> None:
        self._audit.append(record)

    def _commit(self) -> None:
        store = self._store
        store._jobs.update(self._jobs)
        store._receipts.update(self._receipts)
        for k, v in self._keys.items():
            if v is _DELETED:
                store._keys.pop(k, None)
            else:
                store._keys[k] = v
        store._audit.extend(self._audit)


class MemoryStore:
    """Idempotency state in dictionaries, for lessons and tests (nothing survives the process).

    ``guarded=True`` (the default): each transaction holds one lock from the
    look-up to the last write, so concurrent submits of one key create one job.
    ``guarded=False``: the same steps without the lock or the uniqueness
    check, i.e. the naive check-then-create. Two threads can both find no key
    and both create a job;
    ``pause`` (called after the check, before the write) lets a lesson line
    them up so that they always do, e.g. ``pause=threading.Barrier(2).wait``.
    In the guarded store a pause runs with the lock held: it only delays the
    other workers (so never pass it a barrier there; it would wait forever).
    """

    def __init__(self, *, guarded: bool = True, pause: Callable[[], None] | None = None) -> None:
        self.guarded = guarded
        self._pause = pause or (lambda: None)
        self._lock = threading.Lock()
        self._local = threading.local()
        self._ids = itertools.count(1)  # next() on a count is atomic in CPython: ids stay unique even unguarded
        self._keys: dict[tuple[str, str], _Key] = {}
        self._jobs: dict[str, Job] = {}
        self._receipts: set[str] = set()
        self._audit: list[AuditRecord] = []

    def __repr__(self) -> str:
        mode = "guarded" if self.guarded else "UNGUARDED (naive check-then-create)"
        return f"MemoryStore({mode}, {len(self._jobs)} jobs)"

    @contextmanager
    def transaction(self) -> Iterator[_MemoryTransaction]:
        """Stage writes; apply them all on success, none on an exception. One transaction per thread."""
        if getattr(self._local, "active", False):
            raise StoreError("transactions do not nest: the outer transaction owns commit and rollback")
        self._local.active = True
        try:
            if self.guarded:
                with self._lock:
                    yield from self._run()
            else:
                yield from self._run()
        finally:
            self._local.active = False

    def _run(self) -> Iterator[_MemoryTransaction]:
        tx = _MemoryTransaction(self)
        yield tx
        tx._commit()

    def audit_log(self) -> tuple[AuditRecord, ...]:
        return tuple(self._audit)

    def jobs(self) -> tuple[Job, ...]:
        return tuple(self._jobs.values())

    def integrity_problems(self) -> list[str]:
        problems = [f"job {j} has no receipt" for j in self._jobs if j not in self._receipts]
        problems += [f"receipt for {j} has no job" for j in self._receipts if j not in self._jobs]
        for (caller, rid), key in self._keys.items():
            if (key.state is KeyState.DONE) != (key.job_id is not None):
                problems.append(f"key ({caller}, {rid}) is {key.state} with job {key.job_id}")
            elif key.job_id is not None and key.job_id not in self._receipts:
                problems.append(f"key ({caller}, {rid}) points at {key.job_id}, which has no receipt")
        return problems
