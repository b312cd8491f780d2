"""The ``propose_inspection`` tool: what a model may ask for, and the check that its arguments make sense.

A model never books anything by naming a tool. It *proposes* a call: a tool
name plus arguments. This module defines the interface the model sees
(:data:`INSPECTION_TOOL`, with units and effect spelled out) and validates a
proposal by hand (:func:`validate_inspection`), so a learner can read every
rule. Validation answers "is this well formed?" only; permission, approval and
retries are decided later, in :mod:`botie.actions.decision`.

The hand-written rules and the JSON Schema agree on everything but one point,
on purpose: JSON Schema calls ``20.0`` an integer (its number model has no
int/float split), while :func:`validate_inspection` insists on a Python
``int``. A model that writes ``20.0`` gets a repairable error here rather than
a silently converted duration. (``True`` is refused by both: JSON booleans are
not numbers, and in Python we check ``type(value) is int`` because ``bool`` is
a subclass of ``int``.)

``start`` is when the visit begins, written ``YYYY-MM-DDTHH:MMZ`` in UTC
(``'2026-04-02T09:00Z'``): one spelling only, so the service never has to
guess a time zone or a date order, and the maintenance calendar can tell
whether the visit fits one of the asset's windows. Here too the schema and
the rules part on purpose: the schema states the spelling in words and
carries no ``pattern`` (one would add some forty tokens to every request
that offers the tool, and strict modes drop it anyway), so only
:func:`validate_inspection` refuses ``'2026-04-02 09:00'``.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from botie._enum import ShortName
from botie.errors import SettingError

__all__ = [
    "ARGUMENTS",
    "FIELDS",
    "INSPECTION_TOOL",
    "MAX_MINUTES",
    "MIN_MINUTES",
    "SHAPES",
    "START_EXAMPLE",
    "START_FORMAT",
    "STRICT_REFUSES",
    "TOOL_NAME",
    "FieldError",
    "Problem",
    "inspection_tool",
    "strict_schema",
    "parse_start",
    "validate_inspection",
]

TOOL_NAME = "propose_inspection"
MIN_MINUTES = 1
MAX_MINUTES = 60
FIELDS = ("asset_id", "duration_minutes", "start", "request_id")
#: How ``start`` is written: a UTC date and time to the minute, ending in Z. One spelling, no offsets.
START_FORMAT = "YYYY-MM-DDTHH:MMZ"
START_EXAMPLE = "2026-04-02T09:00Z"
# ASCII digits only: the regex class \d would also accept other scripts' digits.
_START_PATTERN = "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}Z"
#: The name a :class:`FieldError` uses when the arguments as a whole are wrong (not an object).
ARGUMENTS = "arguments"

_DESCRIPTION = (
    "Book an on-site inspection of one asset for the signed-in technician. "
    "Effect: reserves a technician's time and returns a job id, once the service has checked that the "
    "technician may schedule the asset and approved exactly these arguments, and that the asset exists and "
    "is free then; else nothing is booked and the result says why. "
    f"duration_minutes: whole minutes, {MIN_MINUTES} through {MAX_MINUTES}. "
    "request_id: unchanged when you retry; a new one only for a new inspection."
)


class _ReadOnlyDict(dict[str, Any]):
    """A dict that refuses to change: botie's own definition is shared, so nobody may edit it in place.

    Still a dict, so ``json.dumps`` and ``==`` work as on the plain definition."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("INSPECTION_TOOL is read-only; inspection_tool() gives you a fresh copy to change")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]
    __ior__ = _refuse  # type: ignore[assignment]


class _ReadOnlyList(list[Any]):
    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("INSPECTION_TOOL is read-only; inspection_tool() gives you a fresh copy to change")

    __setitem__ = __delitem__ = append = extend = insert = pop = remove = clear = sort = reverse = _refuse
    __iadd__ = __imul__ = _refuse  # type: ignore[assignment]


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return _ReadOnlyDict({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return _ReadOnlyList(_frozen(v) for v in value)
    return value


def _thawed(value: Any) -> Any:
    """A plain, independent copy: changing it never reaches the shared definition."""
    if isinstance(value, dict):
        return {k: _thawed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_thawed(v) for v in value]
    return value


#: The tool definition in the shape Anthropic's API takes (name, description, JSON Schema input). Read-only:
#: :func:`inspection_tool` gives a fresh copy, in this shape or OpenAI's.
INSPECTION_TOOL: dict[str, Any] = _frozen(
    {
        "name": TOOL_NAME,
        "description": _DESCRIPTION,
        "input_schema": {
            "type": "object",
            "properties": {
                "asset_id": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The asset's id as the asset register writes it, e.g. 'P-2'.",
                },
                "duration_minutes": {
                    "type": "integer",
                    "minimum": MIN_MINUTES,
                    "maximum": MAX_MINUTES,
                    "description": f"Length of the visit in whole minutes ({MIN_MINUTES}-{MAX_MINUTES}).",
                },
                "start": {
                    "type": "string",
                    "description": f"Visit start in UTC, {START_FORMAT}.",
                },
                "request_id": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Idempotency key for this booking; identical on every retry.",
                },
            },
            "required": list(FIELDS),
            "additionalProperties": False,
        },
    }
)

#: Schema keywords that Anthropic's and OpenAI's strict modes refuse. Dropping them loses nothing:
#: :func:`validate_inspection` checks every proposal again, bounds included.
STRICT_REFUSES = ("minLength", "maxLength", "minimum", "maximum", "pattern", "format")

SHAPES = ("anthropic", "openai", "responses")


def strict_schema(schema: Any) -> Any:
    """``schema`` without the keywords strict mode refuses (:data:`STRICT_REFUSES`), at every depth."""
    if isinstance(schema, dict):
        return {k: strict_schema(v) for k, v in schema.items() if k not in STRICT_REFUSES}
    return schema


def inspection_tool(shape: str = "anthropic", *, strict: bool = False) -> dict[str, Any]:
    """A fresh copy of the tool definition in one API's shape; yours to change.

    ``shape``: ``"anthropic"`` (Messages API: ``name``, ``description``,
    ``input_schema``), ``"openai"`` (Chat Completions: ``{"type": "function",
    "function": {..., "parameters"}}``) or ``"responses"`` (OpenAI Responses:
    the function's fields at the top level). ``strict=True`` marks it strict
    and drops :data:`STRICT_REFUSES` from the schema.
    """
    if shape not in SHAPES:
        raise SettingError(f"shape must be one of {', '.join(SHAPES)}; got {shape!r}", field="shape")
    schema = _thawed(INSPECTION_TOOL["input_schema"])
    if strict:
        schema = strict_schema(schema)
    if shape == "anthropic":
        tool = {"name": TOOL_NAME, "description": _DESCRIPTION, "input_schema": schema}
        return {**tool, "strict": True} if strict else tool
    function = {"name": TOOL_NAME, "description": _DESCRIPTION, "parameters": schema, "strict": strict}
    return {"type": "function", "function": function} if shape == "openai" else {"type": "function", **function}


class Problem(ShortName):
    """What kind of repair a field needs."""

    NOT_AN_OBJECT = "not_an_object"
    MISSING = "missing"
    UNEXPECTED = "unexpected"
    WRONG_TYPE = "wrong_type"
    EMPTY = "empty"
    OUT_OF_RANGE = "out_of_range"
    BAD_FORMAT = "bad_format"


@dataclass(frozen=True, slots=True)
class FieldError:
    """One repairable problem with a proposal: which field, what kind, and how to fix it."""

    field: str
    problem: Problem
    message: str

    def __str__(self) -> str:
        return self.message


def _shown(value: Any, limit: int = 40) -> str:
    """``repr`` of a value, clipped so that a huge int or string cannot flood an error message."""
    kind = type(value).__name__
    if isinstance(value, int) and value.bit_length() > 64:
        # repr of a 5,000-digit int is slow, and past 4,300 digits Python refuses to write it.
        return f"an {kind} of {value.bit_length()} bits"
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"{text} ({kind})"


def _text_problem(name: str, value: Any, example: str) -> FieldError | None:
    if type(value) is not str:
        message = f"{name} must be text such as {example!r}, got {_shown(value)}"
        return FieldError(name, Problem.WRONG_TYPE, message)
    if not value.strip():  # ' ' names no asset and no request, just as '' does
        blank = "empty" if not value else "only spaces"
        return FieldError(name, Problem.EMPTY, f"{name} must not be {blank}; give a value such as {example!r}")
    return None


def _minutes_problem(value: Any) -> FieldError | None:
    name = "duration_minutes"
    # type(...) is int, not isinstance: bool is an int subclass, and True is not "one minute".
    if type(value) is not int:
        hint = f"; write {int(value)}" if type(value) is float and value.is_integer() else ""
        message = f"{name} must be a whole number of minutes (an int), got {_shown(value)}{hint}"
        return FieldError(name, Problem.WRONG_TYPE, message)
    if not MIN_MINUTES <= value <= MAX_MINUTES:
        return FieldError(
            name,
            Problem.OUT_OF_RANGE,
            f"{name} must be from {MIN_MINUTES} through {MAX_MINUTES} minutes, got {_shown(value)}",
        )
    return None


def parse_start(value: str) -> _dt.datetime | None:
    """The aware UTC datetime ``value`` names, or None unless it is written exactly as :data:`START_FORMAT`."""
    if type(value) is not str or re.fullmatch(_START_PATTERN, value) is None:
        return None
    try:
        return _dt.datetime.strptime(value, "%Y-%m-%dT%H:%MZ").replace(tzinfo=_dt.timezone.utc)
    except ValueError:  # the right shape but no such moment, e.g. 2026-02-30 or 25:00
        return None


def _start_problem(value: Any) -> FieldError | None:
    name = "start"
    problem = _text_problem(name, value, START_EXAMPLE)
    if problem is not None:
        return problem
    if parse_start(value) is None:
        message = (
            f"start must be a real UTC time written {START_FORMAT}, such as {START_EXAMPLE!r}; got {_shown(value)}"
        )
        return FieldError(name, Problem.BAD_FORMAT, message)
    return None


#: Each required field and the function that finds its problem (None when it is fine), in FIELDS order.
_RULES = (
    ("asset_id", partial(_text_problem, "asset_id", example="P-2")),
    ("duration_minutes", _minutes_problem),
    ("start", _start_problem),
    ("request_id", partial(_text_problem, "request_id", example="r7")),
)


_MISSING = object()


def _key_name(key: Any) -> str:
    return key if type(key) is str else repr(key)


def _unexpected(name: str) -> FieldError:
    message = f"{name!r} is not an argument of {TOOL_NAME}; remove it (an extra field grants nothing)"
    return FieldError(name, Problem.UNEXPECTED, message)


def validate_inspection(arguments: Any) -> tuple[FieldError, ...]:
    """Every repairable problem with a ``propose_inspection`` call, one per problem; ``()`` when valid.

    Rules: ``asset_id`` and ``request_id`` are non-empty ``str``;
    ``duration_minutes`` is an ``int`` from 1 through 60 (``bool`` and
    ``float`` refused, ``20.0`` included); ``start`` is a real UTC time
    written exactly ``YYYY-MM-DDTHH:MMZ``; all four are required; any other
    field is refused, since an ``admin`` argument written by a model must not
    grant anything. Errors come in a stable order: the known fields in
    :data:`FIELDS` order, then unexpected fields sorted by name.

    Nothing here raises for bad input: a proposal that is not even an object
    comes back as one error on :data:`ARGUMENTS`, so the caller can hand the
    problems back to the model as an observation.
    """
    if type(arguments) is not dict and not isinstance(arguments, Mapping):
        return (
            FieldError(
                ARGUMENTS,
                Problem.NOT_AN_OBJECT,
                f"the arguments must be an object with {', '.join(FIELDS)}; got {_shown(arguments)}",
            ),
        )
    errors = []
    present = 0
    for name, rule in _RULES:
        value = arguments.get(name, _MISSING)
        if value is _MISSING:
            errors.append(FieldError(name, Problem.MISSING, f"{name} is missing; {TOOL_NAME} requires it"))
            continue
        present += 1
        problem = rule(value)
        if problem is not None:
            errors.append(problem)
    if len(arguments) > present:  # something besides the known fields is there
        known = dict(_RULES)
        errors.extend(_unexpected(name) for name in sorted(_key_name(k) for k in arguments if k not in known))
    return tuple(errors)
