"""Run every benchmark module and print one table of ratios against same-run baselines."""

from __future__ import annotations

import importlib
import platform
import sys
from pathlib import Path

from ._harness import Row, fmt


def _modules(only: list[str]) -> list[str]:
    names = sorted(p.stem for p in Path(__file__).parent.glob("bench_*.py"))
    return [n for n in names if not only or any(o in n for o in only)]


def main(argv: list[str]) -> int:
    rows: list[Row] = []
    for name in _modules(argv):
        module = importlib.import_module(f"bench.{name}")
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows.extend(module.run())
    print(
        f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )
    print(
        "Every figure is taken with the garbage collector on, as in a learner's kernel; "
        "the last column repeats the ratio with it off, for insight."
    )
    header = ("benchmark", "ours", "baseline", "baseline value", "ratio", "goal", "ratio, collector off")
    table = [header] + [
        (
            r.name,
            fmt(r.ours, r.kind),
            r.baseline_name,
            fmt(r.baseline, r.kind),
            f"{r.ratio:.2f}×",
            r.goal,
            "" if r.ratio_off is None else f"{r.ratio_off:.2f}×",
        )
        for r in rows
    ]
    widths = [max(len(str(row[i])) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        print("  ".join(str(cell).ljust(w) for cell, w in zip(row, widths)))
        if i == 0:
            print("  ".join("-" * w for w in widths))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
