"""The workshop's asset register and maintenance calendar: in-memory fakes, loaded from the fixtures.

The library asks two small questions before a new booking (see
:mod:`botie.actions.rules`): is the asset in the register, and does the
visit fit a free maintenance window? Here both answers come from
``fixtures/booking_rules.json``, so a lesson can show ``unknown_asset`` (an
asset the caller may schedule that no register lists, such as ``P-999``)
and ``window_unavailable`` (a start outside every window, or overlapping a
visit already booked) without any other system.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from botie.actions.tool import parse_start
from botie.errors import FixtureError
from botie.lessons.content.fixtures import _read_json, fixture_path

__all__ = ["BookingRules", "MemoryCalendar", "load_booking_rules"]

Span = tuple[_dt.datetime, _dt.datetime]


def _clock(start: _dt.datetime, end: _dt.datetime) -> str:
    """``2026-04-02 09:00-09:30 UTC``; an end on another day names its date (``23:50-2026-04-03 00:10``)."""
    until = f"{end:%H:%M}" if end.date() == start.date() else f"{end:%Y-%m-%d %H:%M}"
    return f"{start:%Y-%m-%d %H:%M}-{until} UTC"


@dataclass(frozen=True)
class MemoryCalendar:
    """Each asset's maintenance windows and the visits already booked in them (whose, it does not keep).

    ``booked`` is what the fixture lists; the service adds every job it creates through :meth:`book`
    (see :func:`botie.actions.rules.note_booking`), so a slot once booked is refused to the next request.
    With a scheduler downstream, the slot is added when the service reserves the key, before asking: while
    the outcome is unknown (the scheduler may have booked it and lost the reply) no other request takes it.
    Load a fresh calendar (``load_booking_rules()``) for each new service, as a lesson cell does.
    """

    windows: Mapping[str, tuple[Span, ...]] = field(default_factory=dict)
    booked: Mapping[str, tuple[Span, ...]] = field(default_factory=dict)
    made: dict[str, list[Span]] = field(default_factory=dict, compare=False)

    def book(self, asset_id: str, start: _dt.datetime, minutes: int) -> None:
        """Record a visit the service has just booked, or is booking: the slot is taken from now on."""
        self.made.setdefault(asset_id, []).append((start, start + _dt.timedelta(minutes=minutes)))

    def unbook(self, asset_id: str, start: _dt.datetime, minutes: int) -> None:
        """Take back one visit :meth:`book` recorded: its transaction rolled back, so no job stands behind it."""
        self.made.get(asset_id, []).remove((start, start + _dt.timedelta(minutes=minutes)))

    def unavailable(self, asset_id: str, start: _dt.datetime, minutes: int) -> str | None:
        """Why a visit of ``minutes`` from ``start`` cannot be booked on ``asset_id``, or None."""
        end = start + _dt.timedelta(minutes=minutes)
        if not any(lo <= start and end <= hi for lo, hi in self.windows.get(asset_id, ())):
            return f"no maintenance window of {asset_id} covers {_clock(start, end)}"
        taken = (*self.booked.get(asset_id, ()), *self.made.get(asset_id, ()))
        if any(start < hi and lo < end for lo, hi in taken):
            return f"{_clock(start, end)} overlaps a visit already booked on {asset_id}: choose another start"
        return None


@dataclass(frozen=True)
class BookingRules:
    """The register (a frozenset of asset ids) and the calendar, ready to hand to ``decide`` or the service."""

    register: frozenset[str]
    calendar: MemoryCalendar

    def kwargs(self) -> dict[str, Any]:
        """``asset_register=`` and ``calendar=``, as ``decide``, ``InspectionService`` and ``TurnSetup`` take them."""
        return {"asset_register": self.register, "calendar": self.calendar}


def _spans(data: Any, name: str, where: str) -> dict[str, tuple[Span, ...]]:
    if not isinstance(data, dict):
        raise FixtureError(f"{where}: {name} must map an asset id to a list of spans", path=where, field=name)
    return {asset: tuple(_span(s, f"{name}.{asset}", where) for s in spans) for asset, spans in data.items()}


def _span(pair: Any, name: str, where: str) -> Span:
    times = [parse_start(t) for t in pair] if isinstance(pair, list) and len(pair) == 2 else []
    if len(times) != 2 or times[0] is None or times[1] is None or not times[0] < times[1]:
        raise FixtureError(f"{where}: {name} has {pair!r}, not [start, later end] in UTC", path=where, field=name)
    return times[0], times[1]


def load_booking_rules(path: str | os.PathLike[str] | None = None) -> BookingRules:
    """The register and calendar from ``booking_rules.json`` (or ``path``); a bad entry names file and field."""
    where = fixture_path("booking_rules.json") if path is None else Path(path)
    data = _read_json(where)
    register: Any = data.get("register") if isinstance(data, dict) else None
    if not isinstance(register, list) or not all(type(a) is str and a for a in register):
        raise FixtureError(f"{where}: register must be a list of asset ids", path=str(where), field="register")
    calendar = MemoryCalendar(
        _spans(data.get("windows", {}), "windows", str(where)), _spans(data.get("booked", {}), "booked", str(where))
    )
    return BookingRules(frozenset(register), calendar)
