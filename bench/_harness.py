"""Timing helpers shared by the benchmark modules."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    """One line of the report.

    ``ours`` and ``baseline`` are seconds per run (``kind="time"``) or
    operations per second (``kind="rate"``). ``ratio`` is always "how many
    times the baseline's cost we pay": ours/baseline for time, baseline/ours
    for rate, so smaller is better in both.
    """

    name: str
    ours: float
    baseline_name: str
    baseline: float
    goal: str
    kind: str = "time"

    @property
    def ratio(self) -> float:
        if self.kind == "rate":
            return self.baseline / self.ours
        return self.ours / self.baseline


def best_of(fn: Callable[[], object], *, repeat: int = 5, number: int = 1) -> float:
    """Best wall time per call over ``repeat`` rounds of ``number`` calls, GC paused."""
    best = float("inf")
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            best = min(best, (time.perf_counter() - start) / number)
    finally:
        if enabled:
            gc.enable()
    return best


def rate(fn: Callable[[], object], *, ops: int, repeat: int = 5) -> float:
    """Operations per second, where one call of ``fn`` performs ``ops`` operations."""
    return ops / best_of(fn, repeat=repeat)


def fmt(value: float, kind: str) -> str:
    if kind == "rate":
        return f"{value:,.0f}/s"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.1f} ms"
    return f"{value * 1e6:.1f} µs"
