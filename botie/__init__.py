"""Botie: the deterministic layers around a language model, small enough to read.

The public API is listed in ``__all__`` (and pinned by ``tests/test_api.py``).
Importing botie stays cheap: no tokenizer, no widgets, no plotting here.
"""

from __future__ import annotations

from .budget import Budget
from .errors import BotieError, BudgetError, FixtureError, PolicyError, RecordError
from .fixtures import Scene, fixture_path, load_records, load_scene
from .records import Record
from .selection import Coverage, Outcome, Selection, Status, select

__version__ = "0.1.0"

__all__ = [
    "BotieError",
    "Budget",
    "BudgetError",
    "Coverage",
    "FixtureError",
    "Outcome",
    "PolicyError",
    "Record",
    "RecordError",
    "Scene",
    "Selection",
    "Status",
    "fixture_path",
    "load_records",
    "load_scene",
    "select",
]
