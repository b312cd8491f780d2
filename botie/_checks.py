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
from typing import Any

from botie.errors import AssetsError, BudgetError, RecordError, SettingError

__all__ = ["allowed_set", "as_date", "ceiling_tokens", "digest", "unit_interval"]


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
