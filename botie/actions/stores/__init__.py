"""Idempotency stores: the one place a retry finds what an earlier attempt did.

:mod:`.memory` holds the interface every store offers and the in-memory store
used for teaching; :mod:`.sqlite` is the durable store whose uniqueness
constraint and transaction make creation atomic across threads and processes.
"""

from botie.actions.stores.base import AuditRecord, Job, Reservation, Store, Transaction
from botie.actions.stores.memory import MemoryStore
from botie.actions.stores.sqlite import SQLiteStore

__all__ = ["AuditRecord", "Job", "MemoryStore", "Reservation", "SQLiteStore", "Store", "Transaction"]
