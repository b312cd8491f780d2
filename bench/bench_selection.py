"""select over a million records with full outcomes, against a bare loop computing the same statuses."""

from __future__ import annotations

from botie import Record, select

from ._harness import Row, best_of

N = 1_000_000
ALLOWANCE = 3_000_000
ALLOWED = frozenset({"P-1", "P-2"})


def _records() -> list[Record]:
    assets = ("P-1", "P-2", "K-7")
    return [Record(f"r{i}", assets[i % 3], "", (i * 7) % 11) for i in range(N)]


def _bare_loop(records: list[Record], allowed: frozenset[str], allowance: int) -> list[tuple[str, str]]:
    """The same decisions with nothing else: no validation, no reasons, no result object."""
    out = []
    used = 0
    stopped = False
    for r in records:
        if r.asset not in allowed:
            out.append((r.id, "not_permitted"))
        elif stopped:
            out.append((r.id, "not_considered"))
        elif used + r.cost > allowance:
            out.append((r.id, "over_budget"))
            stopped = True
        else:
            out.append((r.id, "selected"))
            used += r.cost
    return out


def run() -> list[Row]:
    records = _records()
    ours = best_of(lambda: select(records, ALLOWED, ALLOWANCE), repeat=3)
    bare = best_of(lambda: _bare_loop(records, ALLOWED, ALLOWANCE), repeat=3)
    return [Row("select, 1M records, full outcomes", ours, "bare status loop", bare, "≤ 2.00×")]
