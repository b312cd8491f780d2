"""Hypothesis strategies shared by every test module (one file, so they stay consistent).

Sections are owned by the module they serve; add new strategies under a header.
"""

from __future__ import annotations

from hypothesis import strategies as st

from botie import Budget, Record

# --- records and selection -------------------------------------------------

ASSETS = ("P-1", "P-2", "P-3", "K-7", "p-2", "P-2 ")  # near misses: membership is exact
asset_ids = st.sampled_from(ASSETS)
costs = st.integers(min_value=0, max_value=40)
allowed_lists = st.lists(asset_ids, max_size=4).map(tuple)
allowances = st.integers(min_value=0, max_value=120)


@st.composite
def record_lists(draw, max_size: int = 25) -> list[Record]:
    """Ranked candidates with unique ids, assorted assets and costs."""
    entries = draw(st.lists(st.tuples(asset_ids, costs), max_size=max_size))
    return [Record(f"r{i}", asset, f"text {i}", cost) for i, (asset, cost) in enumerate(entries)]


@st.composite
def budgets(draw) -> Budget:
    total = draw(st.integers(min_value=0, max_value=200))
    input_reserve = draw(st.integers(min_value=0, max_value=total))
    output_reserve = draw(st.integers(min_value=0, max_value=total - input_reserve))
    return Budget(total, input_reserve, output_reserve)
