"""Timing helpers shared by the benchmark modules.

Every timing runs with the garbage collector **on**, as it is in a learner's
kernel: code that allocates millions of tracked objects pays for the
collections they trigger, and the report should say so. Rows may also carry
the same measurement with the collector off, shown beside the goal for
insight (how much of the cost is collection), never instead of it.
"""

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
    #: For a latency row (see :func:`latency_row`): the medians behind ``ours`` and
    #: ``baseline``, which then hold the 95th percentiles.
    ours_p50: float | None = None
    baseline_p50: float | None = None
    #: The same two measurements with the garbage collector off, when the row has them.
    ours_off: float | None = None
    baseline_off: float | None = None

    @property
    def ratio(self) -> float:
        return _ratio(self.ours, self.baseline, self.kind)

    @property
    def ratio_off(self) -> float | None:
        if self.ours_off is None or self.baseline_off is None:
            return None
        return _ratio(self.ours_off, self.baseline_off, self.kind)


def _ratio(ours: float, baseline: float, kind: str) -> float:
    return baseline / ours if kind == "rate" else ours / baseline


def best_of(fn: Callable[[], object], *, repeat: int = 5, number: int = 1, collector: bool = True) -> float:
    """Best wall time per call over ``repeat`` rounds of ``number`` calls.

    The collector is on unless ``collector=False``. Garbage left by earlier
    work is collected before each round, outside the timing, so one
    candidate does not pay for another's leftovers.
    """
    best = float("inf")
    enabled = gc.isenabled()
    try:
        for _ in range(repeat):
            gc.collect()
            (gc.enable if collector else gc.disable)()
            start = time.perf_counter()
            for _ in range(number):
                fn()
            best = min(best, (time.perf_counter() - start) / number)
    finally:
        (gc.enable if enabled else gc.disable)()
    return best


def interleaved(
    candidates: dict[str, Callable[[], object]], *, rounds: int = 5, collector: bool = True
) -> dict[str, float]:
    """Best time of each candidate, measured in alternation so all of them see the same machine load."""
    best = dict.fromkeys(candidates, float("inf"))
    for _ in range(rounds):
        for name, fn in candidates.items():
            best[name] = min(best[name], best_of(fn, repeat=1, collector=collector))
    return best


def interleaved_both(
    candidates: dict[str, Callable[[], object]],
    *,
    rounds: int = 5,
) -> tuple[dict[str, float], dict[str, float]]:
    """:func:`interleaved` with the collector on (the figure that counts) and off (for insight)."""
    on = interleaved(candidates, rounds=rounds, collector=True)
    off = interleaved(candidates, rounds=rounds, collector=False)
    return on, off


def rate(fn: Callable[[], object], *, ops: int, repeat: int = 5, collector: bool = True) -> float:
    """Operations per second, where one call of ``fn`` performs ``ops`` operations."""
    return ops / best_of(fn, repeat=repeat, collector=collector)


def samples(fn: Callable[[int], object], n: int) -> list[float]:
    """Wall time of each of ``n`` calls ``fn(i)``, GC left on (a learner's kernel has it on too)."""
    times = []
    for i in range(n):
        start = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - start)
    return times


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no samples")
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def latency_row(name: str, ours: list[float], baseline_name: str, baseline: list[float], goal: str) -> Row:
    """A row for per-call latencies: p95 against p95 (the ratio), with both p50s in the labels."""
    ours_p50, base_p50 = percentile(ours, 50), percentile(baseline, 50)
    return Row(
        f"{name}: p50 {fmt(ours_p50, 'time')}, p95",
        percentile(ours, 95),
        f"{baseline_name}: p50 {fmt(base_p50, 'time')}, p95",
        percentile(baseline, 95),
        goal,
        ours_p50=ours_p50,
        baseline_p50=base_p50,
    )


def fmt(value: float, kind: str) -> str:
    if kind == "rate":
        return f"{value:,.0f}/s"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.1f} ms"
    return f"{value * 1e6:.1f} µs"
