"""The base of every outcome, branch and status name in botie."""

from __future__ import annotations

from enum import Enum


class ShortName(str, Enum):
    """A string enum that compares equal to, and prints as, its short value.

    ``Status.OVER_BUDGET == "over_budget"`` and ``print(Status.OVER_BUDGET)``
    shows ``over_budget``, so panels, lesson checks and JSON read the same.
    (``enum.StrEnum`` does this from Python 3.11; botie supports 3.10.)
    """

    def __str__(self) -> str:
        return str(self.value)  # already a str: str() only tells the type checker so
