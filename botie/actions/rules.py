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
  that also books (a :class:`BookingCalendar`: ``book`` and ``unbook``) is
  told of every job the service creates, or asks a scheduler to book (see
  :func:`note_booking`), so a second booking of the same slot is refused,
  even while the first one's outcome is unknown, and is told to take the
  visit back when the transaction that made it rolls back. One without
  either is read-only, and the slot it does not know is taken stays free
  to it. A calendar with one of the two and not the other is refused when it
  is handed over (:func:`need_calendar`): with ``book`` alone, a rolled-back
  booking would leave a visit behind that no job stands for.

The workshop's in-memory versions, loaded from the fixtures, are in
:mod:`botie.lessons.content.business`. A calendar's reason goes back to the
caller, so it must say what is wrong with *this* visit (no window, a visit
already booked then) and never whose visit it is.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Protocol, runtime_checkable

from botie.errors import DecisionError

__all__ = [
    "AssetRegister",
    "BookingCalendar",
    "MaintenanceCalendar",
    "forget_booking",
    "need_calendar",
    "need_register",
    "note_booking",
]


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


@runtime_checkable
class BookingCalendar(MaintenanceCalendar, Protocol):
    """A calendar that learns the service's bookings: each visit booked, and each one taken back."""

    def book(self, asset_id: str, start: _dt.datetime, minutes: int) -> None:
        """Hold the slot of a job just created, or of a key just reserved before a scheduler is asked."""
        ...

    def unbook(self, asset_id: str, start: _dt.datetime, minutes: int) -> None:
        """Free the slot :meth:`book` held, because the transaction that booked it rolled back."""
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
    """``calendar`` if it offers ``unavailable(asset_id, start, minutes)``, and ``book`` with ``unbook`` or neither."""
    if calendar is None:
        return None
    if not isinstance(calendar, MaintenanceCalendar):
        raise DecisionError(
            f"calendar must offer unavailable(asset_id, start, minutes), got {calendar!r:.60}", field="calendar"
        )
    _need_both_or_neither(calendar)
    return calendar


def _need_both_or_neither(calendar: Any) -> None:
    """A calendar that books must take a visit back: else a booking rolled back keeps a visit no job stands for."""
    if getattr(calendar, "book", None) is None and getattr(calendar, "unbook", None) is None:
        return  # read-only: it is never told of a booking, so there is nothing to take back
    for name, other in (("book", "unbook"), ("unbook", "book")):
        method = getattr(calendar, name, None)
        if method is None:
            raise DecisionError(
                f"calendar offers {other}() but no {name}(asset_id, start, minutes): a calendar that books must "
                f"offer both, so that a booking rolled back leaves no visit behind; got {calendar!r:.60}",
                field="calendar",
            )
        if not callable(method):
            raise DecisionError(
                f"calendar.{name} must be a method {name}(asset_id, start, minutes), got {method!r:.60}",
                field="calendar",
            )


def note_booking(calendar: MaintenanceCalendar | None, asset_id: str, start: _dt.datetime, minutes: int) -> bool:
    """Tell ``calendar`` of a job just created or reserved, if it is a :class:`BookingCalendar`; True if told."""
    if not isinstance(calendar, BookingCalendar):
        return False
    calendar.book(asset_id, start, minutes)
    return True


def forget_booking(calendar: MaintenanceCalendar | None, asset_id: str, start: _dt.datetime, minutes: int) -> None:
    """Take back a visit :func:`note_booking` told ``calendar`` of, when the transaction that made it rolled back.

    The calendar is told inside the transaction, so that two requests for one slot cannot both pass it; a
    transaction that then rolls back (a busy store) must leave no visit behind with no job. Only a calendar
    :func:`note_booking` told is asked, and :func:`need_calendar` made sure it offers ``unbook``.
    """
    if isinstance(calendar, BookingCalendar):
        calendar.unbook(asset_id, start, minutes)
