"""What every idempotency store offers: one transaction at a time, and the values it returns.

The service needs to do one thing atomically: look up what is stored under
(caller, request id), decide, and write the outcome, with no second worker
slipping in between the look-up and the write. Everything a store offers is
therefore reached through :meth:`Store.transaction`, the single owner of
begin/commit/rollback: either every write of the block lands, or none does.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from botie.actions.decision import KeyState, Receipt, StoredRequest

__all__ = ["AuditRecord", "Job", "Reservation", "Store", "Transaction"]


@dataclass(frozen=True, slots=True)
class Job:
    """One booked inspection. ``external_ref`` is the downstream service's id, if one was called."""

    job_id: str
    caller: str
    asset_id: str
    duration_minutes: int
    created_at: _dt.datetime
    external_ref: str | None = None


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """Who, which outcome, when. Deliberately nothing else: no payload, no reasons, no stored details.

    ``outcome`` is a :class:`~botie.actions.decision.Branch` value for a decision, or
    ``recovery_<outcome>`` (see :class:`botie.actions.service.RecoveryOutcome`) for the recovery step. ``job_id`` is set
    only when the caller was entitled to see it (create and reuse).
    """

    at: _dt.datetime
    caller: str
    request_id: str | None
    outcome: str
    job_id: str | None = None


@dataclass(frozen=True, slots=True)
class Reservation:
    """A key whose downstream call has not been confirmed: what recovery needs to settle it."""

    caller: str
    request_id: str
    payload: Mapping[str, Any]
    token: str
    state: KeyState
    reserved_at: _dt.datetime


class Transaction(Protocol):
    """What the service may do inside one transaction. Every method reads or writes; none commits."""

    def lookup(self, caller: str, request_id: str) -> StoredRequest | None:
        """The request stored under this caller's key, or None."""

    def create(self, caller: str, payload: Mapping[str, Any], fingerprint: str, now: _dt.datetime) -> Receipt:
        """Create the job, its receipt and a settled key, together."""

    def reserve(self, caller: str, payload: Mapping[str, Any], fingerprint: str, now: _dt.datetime, token: str) -> None:
        """Hold the key as pending before a downstream call; ``token`` travels downstream with the call."""

    def retake(self, caller: str, request_id: str) -> str:
        """Move a failed key back to pending for another attempt; return its (unchanged) token."""

    def complete(
        self, caller: str, request_id: str, token: str, external_ref: str, now: _dt.datetime
    ) -> Receipt | None:
        """Settle the reservation holding ``token``: create job and receipt. None if it is no longer held."""

    def mark_failed(self, caller: str, request_id: str, token: str) -> None:
        """Record that the attempt holding ``token`` ended without a confirmed job."""

    def forget(self, caller: str, request_id: str) -> None:
        """Drop an expired settled key; its job and receipt stay."""

    def reservations(self, reserved_before: _dt.datetime) -> list[Reservation]:
        """Pending or failed keys reserved before the given instant, oldest first."""

    def audit(self, record: AuditRecord) -> None:
        """Append one audit record."""


class Store(Protocol):
    """Idempotency state behind one transaction owner."""

    def transaction(self) -> AbstractContextManager[Transaction]:
        """Begin; yield a :class:`Transaction`; commit on success, roll back on any exception."""

    def audit_log(self) -> tuple[AuditRecord, ...]:
        """Every committed audit record, oldest first."""

    def jobs(self) -> tuple[Job, ...]:
        """Every committed job, oldest first."""

    def integrity_problems(self) -> list[str]:
        """Broken invariants (a job without its receipt, a receipt without its job...); empty when sound."""
