"""One exception tree, grouped by what a caller catches.

A denial, a conflict or an over-budget record is a *result*; only input that
cannot be interpreted at all raises. The tree has two branches:

* :class:`InputError` (a ``ValueError``): the caller passed something botie
  cannot read. Every one names the field at fault and, where there is one,
  the record, so a learner (or a log line) can repair it. Catch this to show
  a message instead of a traceback.
* :class:`StoreError`: the idempotency store could not do what was asked.
  :class:`StoreBusyError` changed nothing and may be retried.

Every class below keeps the name it has always had, so ``except RecordError``
goes on working.
"""

from __future__ import annotations

__all__ = [
    "BotieError",
    "InputError",
    "AssetsError",
    "RecordError",
    "FixtureError",
    "BudgetError",
    "PolicyError",
    "DecisionError",
    "ClockError",
    "StoreError",
    "StoreBusyError",
    "TokenizerError",
    "EvidenceError",
    "RequestTooLargeError",
    "CitationError",
    "SettingError",
]


class BotieError(Exception):
    """Base of every error botie raises on bad input."""

    def __init__(self, message: str, *, field: str | None = None, record: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.record = record

    def __str__(self) -> str:
        return self.message


class InputError(BotieError, ValueError):
    """Input that cannot be interpreted: names the field and, where there is one, the record."""


class AssetsError(InputError, TypeError):
    """``allowed_assets`` is not a collection of asset ids (a bare string, most often).

    Also a ``TypeError``: a single string where a collection belongs is the
    wrong type, and the public contract promises a ``TypeError`` for it.
    """


class RecordError(InputError):
    """A record (or a list of records) is malformed."""


class FixtureError(RecordError):
    """An entry in a fixture file is malformed; names the file and the index too."""

    def __init__(
        self,
        message: str,
        *,
        path: str,
        index: int | None = None,
        field: str | None = None,
        record: str | None = None,
    ) -> None:
        super().__init__(message, field=field, record=record)
        self.path = path
        self.index = index


class BudgetError(InputError):
    """A token budget cannot be honoured as configured."""


class PolicyError(InputError):
    """An option names a policy or strategy that does not exist."""


# --- tool calls, decisions and stores: the actions half ------------------------


class DecisionError(InputError):
    """A trusted input to a decision (caller, approval, stored request) cannot be interpreted.

    The model's proposal never raises: a malformed proposal is an ``invalid``
    decision with repairable field errors. This is for the application's side.
    """


class ClockError(InputError):
    """The injected clock, or a time setting such as the key retention, cannot be used."""


class StoreError(BotieError):
    """The idempotency store cannot do what was asked (misuse, or a broken invariant)."""


class StoreBusyError(StoreError):
    """The store stayed locked by another writer; the operation changed nothing and may be retried."""


# --- tokens, provenance, routing, evidence and citations: the context half ----


class TokenizerError(InputError):
    """Text cannot be counted: it is not a ``str``, or the encoding is not available offline."""


class EvidenceError(InputError):
    """An evidence region cannot be read back: it is not exactly what ``render_evidence`` writes."""


class RequestTooLargeError(BudgetError):
    """An assembled request does not fit under the hard ceiling.

    Raised instead of cutting the request short: a truncated request looks
    complete to the model, an error is something a person can see and act on.
    """


class CitationError(InputError):
    """The context a citation is checked against cannot be interpreted (the model's output never raises)."""


class SettingError(InputError):
    """A setting (a relevance floor, a fraction, an observation date, an adapter's api) is unusable."""
