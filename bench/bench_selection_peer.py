"""A peer on our prefix-packing task: LangChain's ``trim_messages(strategy="first")`` against ``botie.select``.

The task: ranked records with whole-token costs, keep the longest prefix whose
total fits the allowance (a record that fills it exactly is kept). With every
asset allowed, ``select(policy="prefix")`` and ``trim_messages`` with
``strategy="first"`` and no partial messages keep the same records; the bench
checks that before timing. Ours also returns an outcome and a reason for every
record; theirs returns the kept messages.

langchain-core is an optional extra (``make bench-extras``); without it this row
is skipped with a note.
"""

from __future__ import annotations

import sys

from botie import Record, select

from ._harness import Row, best_of

N = 10_000
ASSETS = ("P-1", "P-2", "K-7")


def _records() -> list[Record]:
    return [Record(f"r{i}", ASSETS[i % 3], f"passage {i}", (i * 7) % 11 + 1) for i in range(N)]


def run() -> list[Row]:
    try:
        from langchain_core.messages import HumanMessage, trim_messages
    except ImportError:
        print(
            "bench_selection_peer: skipped (langchain-core is not installed; `make bench-extras` adds it)",
            file=sys.stderr,
        )
        return []

    records = _records()
    allowance = sum(r.cost for r in records) // 2
    messages = [HumanMessage(content=r.text, id=r.id) for r in records]
    cost = {r.id: r.cost for r in records}

    def count(batch: list) -> int:
        return sum(cost[m.id] for m in batch)

    def ours():
        return select(records, ASSETS, allowance, policy="prefix")

    def theirs():
        return trim_messages(messages, max_tokens=allowance, token_counter=count, strategy="first", allow_partial=False)

    kept_ours, kept_theirs = ours().selected_ids, tuple(m.id for m in theirs())
    if kept_ours != kept_theirs:
        raise AssertionError(f"not the same task: we keep {len(kept_ours)} records, trim_messages {len(kept_theirs)}")
    ours_s = best_of(ours, repeat=5)
    theirs_s = best_of(theirs, repeat=5)
    return [
        Row(
            f"prefix packing, {N:,} records (keeps {len(kept_ours):,})",
            ours_s,
            "LangChain trim_messages(strategy='first')",
            theirs_s,
            "≤ 1.00×",
        )
    ]
