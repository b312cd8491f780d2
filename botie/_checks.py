"""Input checks the library shares: each rule is written here once, with one message.

Every function either returns the value in the form its callers use, or
raises from the :mod:`botie.errors` tree naming the field (and the record,
where there is one). Callers never repeat these tests inline, so a rule such
as "a bare string is not a list of assets" reads the same wherever it fires.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from botie.errors import AssetsError, BudgetError, RecordError, SettingError

if TYPE_CHECKING:  # pragma: no cover - typing only; records import this module
    from botie.context.records import Record

__all__ = ["allowed_set", "as_date", "ceiling_tokens", "digest", "unique_records", "unit_interval"]


def allowed_set(allowed_assets: Iterable[str]) -> frozenset[str]:
    """The caller's allowed assets as a set, matched later by exact string membership.

    A bare string is refused: ``"P-2"`` would otherwise iterate as the three
    one-letter "assets" ``P``, ``-`` and ``2``.
    """
    if isinstance(allowed_assets, (str, bytes)):
        raise AssetsError(
            f"allowed_assets must be a collection of asset ids such as ['P-2'], not a single string "
            f"({allowed_assets!r})",
            field="allowed_assets",
        )
    if isinstance(allowed_assets, frozenset):
        return allowed_assets
    try:
        return frozenset(allowed_assets)
    except TypeError:
        raise AssetsError(
            f"allowed_assets must be a collection of asset ids such as ['P-2'], got {allowed_assets!r:.80}",
            field="allowed_assets",
        ) from None


def unique_records(records: Iterable[Any], *, noun: str = "candidate") -> tuple[Record, ...]:
    """The records as a tuple, each a :class:`~botie.context.records.Record` with an id of its own.

    ``noun`` names an entry in the message ("candidate 3 is not a Record",
    "document 3 ..."), so the learner reads the word their own code used.
    """
    from botie.context.records import Record  # records.py imports this module: a late import breaks the cycle

    records = tuple(records)
    # Two whole-list tests first (they run at C speed); the loops below only find the culprit to name.
    if not all(isinstance(r, Record) for r in records):
        index, bad = next((i, r) for i, r in enumerate(records) if not isinstance(r, Record))
        raise RecordError(f"{noun} {index} is not a Record: {bad!r:.80}", field="record", record=str(index))
    if len({r.id for r in records}) != len(records):
        duplicate = _first_repeat(r.id for r in records)
        raise RecordError(f"record {duplicate}: duplicate id (ids must be unique)", field="id", record=duplicate)
    return records


def _first_repeat(ids: Iterable[str]) -> str | None:
    """The first id met a second time, reading in order; None when every id is new."""
    seen: set[str] = set()
    for rid in ids:
        if rid in seen:
            return rid
        seen.add(rid)
    return None


def ceiling_tokens(value: Any) -> int:
    """A model's hard limit: a whole number of tokens above zero (bool refused)."""
    if type(value) is not int or value <= 0:
        raise BudgetError(f"ceiling must be a whole number of tokens (an int > 0), got {value!r}", field="ceiling")
    return value


def as_date(value: Any, *, field: str, record: str | None = None) -> _dt.date:
    """A calendar date from a ``date``, a ``datetime`` (its date) or an ISO ``YYYY-MM-DD`` string.

    Effective dates are days, so a datetime counts as the day it falls on. On
    a record's field the error is a :class:`RecordError`; on a setting such as
    ``observed_on``, a :class:`SettingError`.
    """
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    if isinstance(value, str):
        try:
            return _dt.date.fromisoformat(value)
        except ValueError:
            pass
    where = f"record {record}: " if record is not None else ""
    error = RecordError if record is not None else SettingError
    raise error(f"{where}{field} must be a date (YYYY-MM-DD), got {value!r}", field=field, record=record)


def unit_interval(value: Any, *, field: str, allow_zero: bool = True) -> float:
    """A finite number from 0 (or above 0) to 1, such as a relevance floor; bool refused."""
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
    if not ok or value < 0 or value > 1 or (value == 0 and not allow_zero):
        lower = "0" if allow_zero else "above 0"
        raise SettingError(f"{field} must be a number from {lower} to 1, got {value!r}", field=field)
    return float(value)


def digest(text: str) -> bytes:
    """The SHA-256 of a text's UTF-8 bytes: same text, same digest.

    Lone surrogates (possible in a Python str, never in a real document) are
    kept rather than rejected, so every str has a digest.
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
