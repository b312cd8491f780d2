"""select over a million records, against the minimal loop that computes the same statuses: for information.

No learner selects among a million records, so the figure carries no goal and
select is written for its reader, not for this race. The baseline is the least
work that reaches the same decisions: one constant status string appended per
record, no validation, no result object. select also checks every candidate is
a Record with an id of its own (the contract's duplicate-id guard) and builds
one Outcome per candidate. A further row reads every outcome's reason, which
is what a panel showing all of them would pay.
"""

from __future__ import annotations

from botie import Record, select

from ._harness import Row, interleaved_both

N = 1_000_000
ALLOWANCE = 3_000_000
ALLOWED = frozenset({"P-1", "P-2"})


def _records() -> list[Record]:
    assets = ("P-1", "P-2", "K-7")
    return [Record(f"r{i}", assets[i % 3], "", (i * 7) % 11) for i in range(N)]


def _bare_loop(records: list[Record], allowed: frozenset[str], allowance: int) -> list[str]:
    """The same decisions with nothing else: one constant status string per record."""
    statuses = []
    used = 0
    stopped = False
    for r in records:
        if r.asset not in allowed:
            statuses.append("not_permitted")
        elif stopped:
            statuses.append("not_considered")
        elif used + r.cost > allowance:
            statuses.append("over_budget")
            stopped = True
        else:
            statuses.append("selected")
            used += r.cost
    return statuses


def _read_every_reason(records: list[Record]) -> None:
    for outcome in select(records, ALLOWED, ALLOWANCE).outcomes:
        outcome.reason  # noqa: B018 - building the text is the work being measured


def run() -> list[Row]:
    records = _records()
    small = records[: N // 10]
    on, off = interleaved_both(
        {
            "select": lambda: select(records, ALLOWED, ALLOWANCE),
            "bare": lambda: _bare_loop(records, ALLOWED, ALLOWANCE),
            # What the duplicate-id guard costs on its own: the contract requires it, the bare loop skips it.
            "ids": lambda: len({r.id for r in records}),
            "reasons": lambda: _read_every_reason(small),
            "bare_small": lambda: _bare_loop(small, ALLOWED, ALLOWANCE),
        },
        rounds=3,
    )

    def row(name: str, ours: str, base: str, goal: str) -> Row:
        return Row(name, on[ours], "bare status loop", on[base], goal, ours_off=off[ours], baseline_off=off[base])

    return [
        row("select, 1M records", "select", "bare", "(information)"),
        row("  of which: duplicate-id guard alone", "ids", "bare", "(part of the above)"),
        row("select + read all 100k reasons", "reasons", "bare_small", "(for insight)"),
    ]
