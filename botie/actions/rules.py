"""Business rules before a booking: the asset must exist, and its maintenance window must be free.

Validation says a proposal is well formed; permission says the caller may
schedule the asset. Neither says the asset is real or that the visit can
happen then. Those facts live in other systems, so the service asks them
through two small interfaces and is handed both, the way it is handed a
store and a clock:

* an :class:`AssetRegister`: anything that answers ``asset_id in register``
  (a ``frozenset`` of ids will do);
* a :class:`MaintenanceCalendar`: it says why a visit of ``minutes`` from
  ``start`` cannot be booked on an asset, or None when it can. A calendar
  that also offers ``book(asset_id, start, minutes)`` is told of every job
  the service creates, or asks a scheduler to book (see :func:`note_booking`),
  so a second booking of the same slot is refused, even while the first
  one's outcome is unknown; one without it is read-only, and the slot it
  does not know is taken stays free to it.

The workshop's in-memory versions, loaded from the fixtures, are in
:mod:`botie.lessons.content.business`. A calendar's reason goes back to the
caller, so it must say what is wrong with *this* visit (no window, a visit
already booked then) and never whose visit it is.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Protocol, runtime_checkable

from botie.errors import DecisionError

__all__ = ["AssetRegister", "MaintenanceCalendar", "forget_booking", "need_calendar", "need_register", "note_booking"]


@runtime_checkable
class AssetRegister(Protocol):
    """Which assets exist: ``asset_id in register``."""

    def __contains__(self, asset_id: object) -> bool: ...


@runtime_checkable
class MaintenanceCalendar(Protocol):
    """Whether a visit fits a free maintenance window of the asset."""

    def unavailable(self, asset_id: str, start: _dt.datetime, minutes: int) -> str | None:
        """Why the visit cannot be booked (no open window covers it, or it overlaps a booked visit), or None."""
        ...


def need_register(register: Any) -> AssetRegister | None:
    """``register`` if it can answer membership; a bare string is refused (``'P-2' in 'P-22'`` is True)."""
    if register is None:
        return None
    if isinstance(register, (str, bytes)) or not isinstance(register, AssetRegister):
        raise DecisionError(
            f"asset_register must be a collection of asset ids such as {{'P-2'}}, got {register!r:.60}",
            field="asset_register",
        )
    return register


def need_calendar(calendar: Any) -> MaintenanceCalendar | None:
    """``calendar`` if it offers ``unavailable(asset_id, start, minutes)``."""
    if calendar is None:
        return None
    if not isinstance(calendar, MaintenanceCalendar):
        raise DecisionError(
            f"calendar must offer unavailable(asset_id, start, minutes), got {calendar!r:.60}", field="calendar"
        )
    return calendar


def note_booking(calendar: MaintenanceCalendar | None, asset_id: str, start: _dt.datetime, minutes: int) -> bool:
    """Tell ``calendar`` of a job just created or reserved, if it can learn bookings (offers ``book``); True if told."""
    book = getattr(calendar, "book", None)
    if not callable(book):
        return False
    book(asset_id, start, minutes)
    return True


def forget_booking(calendar: MaintenanceCalendar | None, asset_id: str, start: _dt.datetime, minutes: int) -> None:
    """Take back a visit :func:`note_booking` told ``calendar`` of, when the transaction that made it rolled back.

    The calendar is told inside the transaction, so that two requests for one slot cannot both pass it; a
    transaction that then rolls back (a busy store) must leave no visit behind with no job (``unbook``).
    """
    unbook = getattr(calendar, "unbook", None)
    if callable(unbook):
        unbook(asset_id, start, minutes)
