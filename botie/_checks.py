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
from decimal import Decimal
from fractions import Fraction
from typing import Any, TypeGuard

from botie.errors import AssetsError, BudgetError, InputError, RecordError, SettingError

__all__ = [
    "allowed_set",
    "as_date",
    "aware_datetime",
    "ceiling_tokens",
    "digest",
    "exact_number",
    "has_text",
    "non_empty_text",
    "unit_fraction",
    "unit_interval",
    "whole_number",
]


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


def has_text(value: Any) -> TypeGuard[str]:
    """Whether ``value`` is a str with something in it besides white space (``"   "`` names nothing).

    The predicate behind :func:`non_empty_text`, for a verdict that reports a
    blank field as a result (a citation's quote) instead of raising.
    """
    return isinstance(value, str) and bool(value.strip())


def non_empty_text(
    value: Any,
    *,
    field: str,
    error: type[InputError] = InputError,
    record: str | None = None,
    where: str | None = None,
) -> str:
    """A str with something in it besides white space: an id, an asset, an actor, a version.

    ``"   "`` names nothing, exactly as ``""`` does, so both are refused, and
    so is anything that is not a str (``None`` is said as "missing"). The
    value is returned unchanged: ``" P-2"`` stays what the caller wrote, since
    permission compares exact strings. ``error``, ``record`` and ``where``
    work as in :func:`whole_number`.
    """
    if has_text(value):
        return value
    if where is None:
        where = f"record {record}" if record is not None else ""
    start = f"{where}: " if where else ""
    shown = "missing" if value is None else repr(value)
    raise error(f"{start}{field} must be a non-empty string, got {shown}", field=field, record=record)


def aware_datetime(
    value: Any,
    *,
    field: str,
    error: type[InputError] = InputError,
    record: str | None = None,
    where: str | None = None,
    parse: bool = False,
) -> _dt.datetime:
    """A ``datetime`` that knows its time zone (``utcoffset()`` is not None).

    A naive datetime is refused: compared with an aware one it raises, and
    read as local time it moves by the machine's offset. With ``parse``, an
    ISO 8601 string (``Z`` for UTC included) is read first, as fixtures write
    timestamps; the check that follows is the same. ``error``, ``record`` and
    ``where`` work as in :func:`whole_number`.
    """
    parsed = value
    if parse and isinstance(value, str):
        try:
            parsed = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass  # still the str, which the check below refuses
    if isinstance(parsed, _dt.datetime) and parsed.utcoffset() is not None:
        return parsed
    if where is None:
        where = f"record {record}" if record is not None else ""
    start = f"{where}: " if where else ""
    raise error(f"{start}{field} must be a datetime with a time zone, got {value!r}", field=field, record=record)


def whole_number(
    value: Any,
    *,
    field: str,
    least: int = 0,
    what: str = "a whole number",
    error: type[InputError] = SettingError,
    record: str | None = None,
    where: str | None = None,
) -> int:
    """An int of at least ``least``: a token count, a size, a number of attempts.

    ``type(value) is int`` refuses bool (``True`` is not one token) as well as
    ``2.0``. ``what`` says what was expected (``"a whole number of tokens"``),
    ``error`` which :class:`InputError` the caller's readers catch; a record's
    field names the record, and ``where`` (such as one sub-question) starts the
    message instead when there is no record.
    """
    if type(value) is not int or value < least:
        if where is None:
            where = f"record {record}" if record is not None else ""
        start = f"{where}: " if where else ""
        message = f"{start}{field} must be {what} (an int >= {least}), got {value!r}"
        raise error(message, field=field, record=record)
    return value


def ceiling_tokens(value: Any) -> int:
    """A model's hard limit: a whole number of tokens above zero (bool refused)."""
    return whole_number(value, field="ceiling", least=1, what="a whole number of tokens", error=BudgetError)


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


def exact_number(value: Any, *, field: str) -> Fraction:
    """A numeric setting as an exact fraction: a float is read as the decimal you typed (0.6 is 3/5).

    Binary floating point cannot hold 0.6, so ``900_000 * 0.6`` is not sure to
    land on 540,000; the exact fraction is. bool, NaN and infinity are refused.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction, Decimal)):
        raise SettingError(f"{field} must be a number, got {value!r}", field=field)
    if isinstance(value, (float, Decimal)) and not math.isfinite(value):
        raise SettingError(f"{field} must be finite, got {value!r}", field=field)
    if isinstance(value, float):
        return Fraction(repr(value))  # repr is the shortest decimal that round-trips
    return Fraction(value)


def unit_fraction(value: Any, *, field: str, allow_zero: bool = True) -> Fraction:
    """A share of a whole, exact: a number from 0 (or, without ``allow_zero``, above 0) to 1."""
    span = "from 0 to 1" if allow_zero else "above 0 and at most 1"
    try:
        share = exact_number(value, field=field)
    except SettingError:
        share = None  # not a number at all: the message below says what is wanted
    if share is None or share < 0 or share > 1 or (share == 0 and not allow_zero):
        raise SettingError(f"{field} must be a number {span}, got {value!r}", field=field)
    return share


def unit_interval(value: Any, *, field: str, allow_zero: bool = True) -> float:
    """:func:`unit_fraction` as a float, for settings compared with float scores (a relevance floor)."""
    return float(unit_fraction(value, field=field, allow_zero=allow_zero))


def digest(text: str) -> bytes:
    """The SHA-256 of a text's UTF-8 bytes: same text, same digest.

    Lone surrogates (possible in a Python str, never in a real document) are
    kept rather than rejected, so every str has a digest.
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
