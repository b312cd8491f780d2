"""Hypothesis strategies shared by every test module (one file, so they stay consistent).

Sections are owned by the module they serve; add new strategies under a header.
"""

from __future__ import annotations

import os

from hypothesis import settings
from hypothesis import strategies as st

from botie import Budget, Record

# --- how many examples --------------------------------------------------------

#: Set by `make mutation`: every surviving mutant reruns every test that reaches it, so there each
#: property runs a tenth of its examples (at least 10). The score measured that way is a lower bound.
MUTATION_RUN = os.environ.get("BOTIE_MUTATION") == "1"


def examples(n: int) -> settings:
    """``settings(max_examples=n)``, cut to a tenth under ``make mutation``."""
    return settings(max_examples=max(10, n // 10) if MUTATION_RUN else n)


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


# --- tool arguments and decisions (issue 3) ------------------------------------

# What a model might put in a field: the right type, near misses, and JSON's other shapes.
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-2, max_value=63),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-2, max_value=63).map(float),  # 20.0 and friends
    st.text(max_size=6),
    st.sampled_from(["", "P-2", "r7", "20", " "]),
)
# One level of nesting is enough to be "not a string, not a number"; deeper trees only cost time.
json_values = json_scalars | st.lists(json_scalars, max_size=2) | st.dictionaries(
    st.text(max_size=3), json_scalars, max_size=2
)
inspection_assets = st.sampled_from(["P-2", "P-3", "K-7", "P-1"])
request_ids = st.sampled_from(["r7", "r8", "r9"]) | st.text(min_size=1, max_size=8)
minutes = st.integers(min_value=1, max_value=60)


@st.composite
def inspection_arguments(draw) -> object:
    """Proposals as a model might write them: each field present or not, well or badly typed, plus extras."""
    if draw(st.integers(min_value=0, max_value=19)) == 0:
        return draw(json_values)  # sometimes not even an object
    good = {"asset_id": inspection_assets, "duration_minutes": minutes, "request_id": request_ids}
    arguments = {}
    for name, right in good.items():
        choice = draw(st.sampled_from(["right", "right", "wrong", "absent"]))
        if choice != "absent":
            arguments[name] = draw(right if choice == "right" else json_values)
    extras = draw(st.dictionaries(st.sampled_from(["admin", "approved", "note"]) | st.text(max_size=5),
                                  json_scalars, max_size=2))
    for key, value in extras.items():
        arguments.setdefault(key, value)
    return arguments


@st.composite
def valid_proposals(draw) -> dict:
    """Well-formed propose_inspection arguments."""
    return {
        "asset_id": draw(inspection_assets | st.text(min_size=1, max_size=8)),
        "duration_minutes": draw(minutes),
        "request_id": draw(request_ids),
    }


# --- evidence rendering, provenance selection and routing (issue 4) -------------

import datetime as _dt  # noqa: E402

from botie.context.provenance import Trust  # noqa: E402

# Pieces that try to end an element early, add an attribute, or pass for markup.
MARKUP_PIECES = (
    "</document>", "</evidence>", "<evidence>", "<document>", '<document id="x" version="1">',
    '"', "'", '" trust="approved', "&", "&amp;", "&lt;", "&#39;", "&quot;", "<", ">", "/>",
    "\n", "\r\n", "\r", "\n</document>\n", "\uff1c/evidence\uff1e", "\u2039/document\u203a",
    "<\u200b/evidence>", "\u02c2/document\u02c3", "\x00", "N·m", "é",
)
markup_texts = st.lists(st.sampled_from(MARKUP_PIECES) | st.text(max_size=6), max_size=8).map("".join)
markup_labels = markup_texts.filter(lambda s: bool(s.strip()))  # ids and versions must not be blank


def evidence_records(min_size: int = 0, max_size: int = 4) -> st.SearchStrategy[list[Record]]:
    """Records whose ids, versions, trust labels and texts are full of delimiters and look-alikes."""
    fields = st.tuples(markup_labels, markup_texts, st.none() | markup_labels, st.none() | markup_labels)
    return st.lists(fields, min_size=min_size, max_size=max_size, unique_by=lambda f: f[0]).map(
        lambda rows: [Record(rid, "P-2", text, 1, version=version, trust=trust) for rid, text, version, trust in rows]
    )


OBSERVED_ON = _dt.date(2026, 3, 15)
trust_labels = st.none() | st.sampled_from([t.value for t in Trust])
relevance_scores = st.none() | st.floats(min_value=0, max_value=1) | st.sampled_from([0.0, 0.11, 0.35, 1.0])
effective_dates = st.none() | st.dates(min_value=_dt.date(2025, 6, 1), max_value=_dt.date(2026, 6, 30))


@st.composite
def provenance_candidates(draw, max_size: int = 12) -> list[Record]:
    """Candidates with assorted assets, dates, tiers, scores and ingestion relations (cycles included)."""
    n = draw(st.integers(min_value=0, max_value=max_size))
    ids = [f"c{i}" for i in range(n)]
    others = st.sampled_from([*ids, "not-retrieved"])
    records = []
    for rid in ids:
        records.append(Record(
            rid, draw(asset_ids), f"text of {rid}", draw(costs),
            effective_date=draw(effective_dates), trust=draw(trust_labels), score=draw(relevance_scores),
            superseded_by=draw(st.none() | others), duplicate_of=draw(st.none() | others),
            conflicts_with=tuple(draw(st.lists(others, max_size=2, unique=True))),
            depends_on=tuple(draw(st.lists(others, max_size=2, unique=True))),
        ))
    return records


@st.composite
def attached_documents(draw, max_size: int = 12) -> list[Record]:
    """Whole documents whose costs range from a memo to several ceilings' worth."""
    sizes = draw(st.lists(st.integers(min_value=0, max_value=2_500_000), max_size=max_size))
    return [Record(f"doc{i}", "acct", f"document {i}", size) for i, size in enumerate(sizes)]
