"""Hypothesis strategies shared by every test module (one file, so they stay consistent).

Sections are owned by the module they serve; add new strategies under a header.
"""

from __future__ import annotations

import datetime as _dt_
import json
import os
from dataclasses import replace

from hypothesis import settings, strategies as st

from botie import Budget, Record

# --- how many examples --------------------------------------------------------

#: Set by `make mutation`: every surviving mutant reruns every test that reaches it, so there each
#: property runs a tenth of its examples (at least 10). The score measured that way is a lower bound.
MUTATION_RUN = os.environ.get("BOTIE_MUTATION") == "1"


def examples(n: int) -> settings:
    """``settings(max_examples=n)``, cut to a tenth under ``make mutation``."""
    return settings(max_examples=max(10, n // 10) if MUTATION_RUN else n)


def sometimes(draw, percent: int) -> bool:
    """True in about ``percent`` % of examples: how the strategies below steer toward every branch."""
    return draw(st.integers(min_value=0, max_value=99)) < percent


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


# --- tool arguments and decisions ---------------------------------------------

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
json_values = (
    json_scalars | st.lists(json_scalars, max_size=2) | st.dictionaries(st.text(max_size=3), json_scalars, max_size=2)
)
inspection_assets = st.sampled_from(["P-2", "P-3", "K-7", "P-1"])
request_ids = st.sampled_from(["r7", "r8", "r9"]) | st.text(min_size=1, max_size=8).filter(str.strip)
minutes = st.integers(min_value=1, max_value=60)
#: Well-written starts: real UTC minutes from 2026 into 2027, in the one spelling the tool takes.
starts = st.datetimes(min_value=_dt_.datetime(2026, 1, 1), max_value=_dt_.datetime(2027, 12, 31)).map(
    lambda t: t.strftime("%Y-%m-%dT%H:%MZ")
)


@st.composite
def inspection_arguments(draw) -> object:
    """Proposals as a model might write them: each field present or not, well or badly typed, plus extras."""
    if sometimes(draw, 12):
        return draw(json_values.filter(lambda v: not isinstance(v, dict)))  # sometimes not even an object
    good = {"asset_id": inspection_assets, "duration_minutes": minutes, "start": starts, "request_id": request_ids}
    arguments = {}
    for name, right in good.items():
        choice = draw(st.sampled_from(["right"] * 6 + ["wrong", "absent"]))
        if choice != "absent":
            arguments[name] = draw(right if choice == "right" else json_values)
    if not sometimes(draw, 30):
        return arguments
    extras = draw(
        st.dictionaries(
            st.sampled_from(["admin", "approved", "note"]) | st.text(max_size=5), json_scalars, min_size=1, max_size=2
        )
    )
    for key, value in extras.items():
        arguments.setdefault(key, value)
    return arguments


@st.composite
def valid_proposals(draw) -> dict:
    """Well-formed propose_inspection arguments."""
    return {
        "asset_id": draw(inspection_assets | st.text(min_size=1, max_size=8).filter(str.strip)),
        "duration_minutes": draw(minutes),
        "start": draw(starts),
        "request_id": draw(request_ids),
    }


# --- evidence rendering, provenance selection and routing -----------------------

import datetime as _dt  # noqa: E402

from botie.context.provenance import Trust  # noqa: E402

# Pieces that try to end an element early, add an attribute, or pass for markup.
MARKUP_PIECES = (
    "</document>",
    "</evidence>",
    "<evidence>",
    "<document>",
    '<document id="x" asset="P-2" version="1">',
    '"',
    "'",
    '" trust="approved',
    "&",
    "&amp;",
    "&lt;",
    "&#39;",
    "&quot;",
    "<",
    ">",
    "/>",
    "\n",
    "\r\n",
    "\r",
    "\n</document>\n",
    "\uff1c/evidence\uff1e",
    "\u2039/document\u203a",
    "<\u200b/evidence>",
    "\u02c2/document\u02c3",
    "\x00",
    "N·m",
    "é",
)
markup_texts = st.lists(st.sampled_from(MARKUP_PIECES) | st.text(max_size=6), max_size=8).map("".join)
markup_labels = markup_texts.filter(lambda s: bool(s.strip()))  # ids and versions must not be blank


def evidence_records(min_size: int = 0, max_size: int = 4) -> st.SearchStrategy[list[Record]]:
    """Records whose ids, assets, versions, trust labels and texts are full of delimiters and look-alikes."""
    fields = st.tuples(markup_labels, markup_labels, markup_texts, st.none() | markup_labels, st.none() | markup_labels)
    return st.lists(fields, min_size=min_size, max_size=max_size, unique_by=lambda f: f[0]).map(
        lambda rows: [
            Record(rid, asset, text, 1, version=version, trust=trust) for rid, asset, text, version, trust in rows
        ]
    )


OBSERVED_ON = _dt.date(2026, 3, 15)
trust_labels = st.none() | st.sampled_from([t.value for t in Trust])
relevance_scores = st.none() | st.floats(min_value=0, max_value=1) | st.sampled_from([0.0, 0.11, 0.35, 1.0])
effective_dates = st.none() | st.dates(min_value=_dt.date(2025, 6, 1), max_value=_dt.date(2026, 6, 30))


@st.composite
def provenance_candidates(draw, max_size: int = 12) -> list[Record]:
    """Candidates with assorted assets, dates, tiers, scores and ingestion relations (cycles included).

    Each relation is drawn for a minority of records, and most scores clear the default floor, so
    that most examples answer and the relations (supersession, copies, conflicts, dependencies)
    still turn up often (tests/test_strategies.py shows each is reachable).
    """
    n = draw(st.integers(min_value=0, max_value=max_size))
    ids = [f"c{i}" for i in range(n)]
    others = st.sampled_from([*ids, "not-retrieved"]) if ids else st.just("not-retrieved")
    high = st.sampled_from([Trust.APPROVED.value, Trust.REVIEWED.value])

    def link(percent: int) -> str | None:
        return draw(others) if sometimes(draw, percent) else None

    def links(percent: int) -> tuple[str, ...]:
        return tuple(draw(st.lists(others, min_size=1, max_size=2, unique=True))) if sometimes(draw, percent) else ()

    records = []
    for rid in ids:
        records.append(
            Record(
                rid,
                draw(asset_ids),
                f"text of {rid}",
                draw(costs),
                effective_date=draw(effective_dates),
                trust=draw(high if sometimes(draw, 50) else trust_labels),
                score=draw(relevance_scores if sometimes(draw, 30) else st.floats(min_value=0.35, max_value=1)),
                superseded_by=link(10),
                duplicate_of=link(10),
                conflicts_with=links(25),
                depends_on=links(35),
            )
        )
    return records


@st.composite
def provenance_cases(draw, max_size: int = 12) -> tuple[list[Record], tuple[str, ...], int]:
    """(candidates, allowed assets, allowance) for select_evidence: usually the candidates' assets are allowed."""
    records = draw(provenance_candidates(max_size))
    allowed = draw(allowed_lists)
    if sometimes(draw, 80):
        allowed = (*allowed, *sorted({r.asset for r in records}))
    return records, allowed, draw(allowances)


@st.composite
def walled_cases(draw, max_size: int = 12) -> tuple[list[Record], tuple[str, ...]]:
    """(candidates, allowed assets) where the caller may read only some of the candidates' assets, often none."""
    records = draw(provenance_candidates(max_size))
    assets = sorted({r.asset for r in records})
    allowed = draw(st.lists(st.sampled_from(assets), unique=True).map(tuple)) if assets else ()
    return records, allowed


def unreadable_named(text: str, records: list[Record], allowed: tuple[str, ...]) -> list[str]:
    """The ids of candidates on assets outside ``allowed`` that ``text`` names, as whole words ("c1" is not "c10")."""
    import re

    hidden = [r.id for r in records if r.asset not in allowed]
    return [rid for rid in hidden if re.search(rf"(?<![\w-]){re.escape(rid)}(?![\w-])", text)]


@st.composite
def attached_documents(draw, max_size: int = 12) -> list[Record]:
    """Whole documents whose costs range from a memo to several ceilings' worth."""
    sizes = draw(st.lists(st.integers(min_value=0, max_value=2_500_000), max_size=max_size))
    return [Record(f"doc{i}", "acct", f"document {i}", size) for i, size in enumerate(sizes)]


# --- whole-document selection: attachments that route to select_documents ------------------

#: The ceiling for :func:`documents_to_select`: a soft budget of 600 at the default 60%.
SELECT_CEILING = 1_000


@st.composite
def documents_to_select(draw) -> list[Record]:
    """Attachments that route to ``select_documents`` under :data:`SELECT_CEILING`, with tied and missing scores.

    Every document fits the 600-token soft budget alone and the total lies between one and four soft budgets,
    so every example reaches the branch the relevance-order tests are about. Scores come from a small set so
    ties (and documents with no score) are common.
    """
    costs = draw(
        st.lists(st.integers(min_value=1, max_value=600), min_size=2, max_size=10).filter(
            lambda c: 600 < sum(c) <= 2_400
        )
    )
    scores = st.none() | st.sampled_from([0.2, 0.5, 0.5, 0.9])
    return [Record(f"doc{i}", "acct", f"document {i}", cost, score=draw(scores)) for i, cost in enumerate(costs)]


@st.composite
def attachment_cases(draw, max_size: int = 12) -> tuple[list[Record], int]:
    """(documents, ceiling) for plan_context, spread over all four strategies and their boundaries.

    Sizes are drawn relative to the soft budget (60% of the ceiling): small, middling, exactly
    the soft budget, or now and then one token or more above it, so that every rule in the
    routing order (oversized first, then the total against 1 and 4 soft budgets) is reached.
    """
    ceiling = draw(st.integers(min_value=10, max_value=2_000_000))
    soft = ceiling * 6 // 10
    count = draw(st.integers(min_value=0, max_value=max_size))
    small = st.integers(min_value=0, max_value=soft // 6)
    middling = st.integers(min_value=soft // 3, max_value=soft)
    big_docs = sometimes(draw, 60)
    sizes = [soft if sometimes(draw, 10) else draw(middling if big_docs else small) for _ in range(count)]
    if sizes and sometimes(draw, 25):  # one document one token or more above the soft budget
        where = draw(st.integers(min_value=0, max_value=len(sizes) - 1))
        sizes[where] = draw(st.integers(min_value=soft + 1, max_value=3 * soft + 1))
    return [Record(f"doc{i}", "acct", f"document {i}", size) for i, size in enumerate(sizes)], ceiling


# --- decisions over every branch: one route drawn per branch, so none is rare ---------

DECIDER = "tech-ana"
_SAMPLE_PAYLOAD = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}


def _json_ready(value: object) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


@st.composite
def decision_cases(draw) -> tuple[object, list[str], object, object]:
    """(proposal, allowed assets, approval, previous) for decide, with DECIDER as the caller.

    A route is drawn first, one for each way decide can go (a failed key and a pending one
    included), so that every branch is reached often. A conflicting stored payload is a
    different duration or a twin equal only under Python's == (20.0 for 20, true for 1).
    """
    from botie.actions.decision import Approval, KeyState, Receipt, StoredRequest
    from botie.actions.tool import validate_inspection

    # Hypothesis does not draw sampled_from uniformly (it leans towards the front of the list), and how far
    # depends on the Python version: the routes that end deepest in decide() come first.
    route = draw(
        st.sampled_from(["pending", "conflict", "failed", "done", "invalid", "denied", "unapproved", "absent", "done"])
    )
    if route == "invalid":
        proposal = draw(inspection_arguments().filter(lambda a: validate_inspection(a)))
    else:
        proposal = draw(valid_proposals())
    base = proposal if isinstance(proposal, dict) and _json_ready(proposal) else _SAMPLE_PAYLOAD
    asset = base.get("asset_id")
    allowed = draw(st.lists(inspection_assets.filter(lambda a: a != asset), max_size=3))
    if route != "denied" and isinstance(asset, str):
        allowed.append(asset)
    minutes_now = base.get("duration_minutes")
    other = 60 if minutes_now == 20 else 20
    twin = True if minutes_now == 1 else float(minutes_now) if type(minutes_now) is int else 20.0
    approval = Approval(DECIDER, base)
    if route == "unapproved":
        approval = draw(
            st.sampled_from([None, Approval("Tech-Ana", base), Approval(DECIDER, base | {"duration_minutes": other})])
        )
    rid = base.get("request_id")
    if route == "absent" or not (isinstance(rid, str) and rid):
        return proposal, allowed, approval, None
    state = route if route in ("failed", "done", "pending") else draw(st.sampled_from(["done", "pending", "failed"]))
    payload = base
    if route == "conflict":
        payload = base | {"duration_minutes": draw(st.sampled_from([other, twin]))}
    receipt = Receipt("job-1", rid, str(payload.get("asset_id")), 20) if state == "done" else None
    return proposal, allowed, approval, StoredRequest(payload, receipt, KeyState(state))


# --- a turn's budget, counted as sent ------------------------------------------------------------------


@st.composite
def turn_budget_cases(draw, max_size: int = 8) -> tuple[list[Record], tuple[str, ...], Budget]:
    """(candidates, allowed assets, budget) for run_turn: texts full of markup, so the tags and escapes cost
    something, and a total from too small for the instructions alone to room for several documents."""
    records, allowed, _ = draw(provenance_cases(max_size))
    texts = draw(st.lists(markup_texts, min_size=len(records), max_size=len(records)))
    records = [replace(r, text=t) for r, t in zip(records, texts)]
    total = draw(st.integers(min_value=100, max_value=1500))
    output_reserve = draw(st.integers(min_value=0, max_value=min(200, total)))
    input_reserve = draw(st.integers(min_value=0, max_value=total - output_reserve))
    return records, allowed, Budget(total, input_reserve, output_reserve)


def provider_budget_cases(max_size: int = 8) -> st.SearchStrategy[tuple[list[Record], tuple[str, ...], Budget]]:
    """turn_budget_cases with an output reserve every provider accepts as max_tokens (the Responses API's
    least is 16) and a total with room for a provider's body without documents (instructions and the answer
    schema, about 300 tokens): 16 more for the answer, 316 more in the total."""

    def roomier(case: tuple[list[Record], tuple[str, ...], Budget]) -> tuple[list[Record], tuple[str, ...], Budget]:
        records, allowed, b = case
        return records, allowed, Budget(b.total + 316, b.input_reserve, b.output_reserve + 16)

    return turn_budget_cases(max_size).map(roomier)


def turn_budget_labels(result) -> set[str]:
    """Whether the turn refused before any request, sent one with documents, or sent one without any."""
    if result.request is None:
        return {f"no request ({result.outcome})"}
    return {"request with documents" if result.request.document_ids else "request without documents"}


# --- what an example reached (hypothesis.event in the properties, reachability in tests/test_strategies.py) ---


def selection_labels(selection) -> set[str]:
    """The statuses a botie.select result holds (selected, not_permitted, over_budget, not_considered)."""
    return {str(o.status) for o in selection.outcomes}


def argument_labels(arguments) -> set[str]:
    """'valid', or each kind of repair validate_inspection asks for."""
    from botie.actions.tool import validate_inspection

    problems = {str(e.problem) for e in validate_inspection(arguments)}
    return problems or {"valid"}


def provenance_labels(records, result) -> set[str]:
    """The branch, plus whether a kept-together conflict or a selected record with dependencies occurred."""
    found = {f"branch {result.branch}"}
    if any(c.kept_together for c in result.conflicts):
        found.add("kept-together conflict")
    chosen = set(result.selected_ids)
    if any(r.depends_on for r in records if r.id in chosen):
        found.add("selected with dependencies")
    return found


def events(labels: set[str]) -> None:
    """Record each label with hypothesis.event, so `pytest --hypothesis-show-statistics` shows the spread."""
    from hypothesis import event

    for label in sorted(labels):
        event(label)


# --- a turn across dates: which revision is in force -----------------------------------------------------------

#: The days the P-2 manual's revisions take effect (lesson 02's scene): rev 3, rev 4, rev 5.
REVISION_DAYS = (_dt.date(2024, 6, 1), _dt.date(2026, 1, 10), _dt.date(2026, 4, 1))


@st.composite
def revision_days(draw) -> _dt.date:
    """A day, often within a few days of a revision change (either side), else anywhere from 2024 to 2026."""
    if sometimes(draw, 70):
        change = draw(st.sampled_from(REVISION_DAYS))
        return change + _dt.timedelta(days=draw(st.integers(min_value=-3, max_value=3)))
    return draw(st.dates(min_value=_dt.date(2024, 1, 1), max_value=_dt.date(2026, 12, 31)))


@st.composite
def register_turn_cases(draw) -> dict:
    """One turn (or two, in a conversation) over lesson 02's scene: a question, a day, a budget, some chunks left
    out by retrieval (the rev 5 section among them at times), and with or without an earlier turn."""
    from botie.lessons.content.scenarios import load_evidence_scenario

    scenario = load_evidence_scenario()
    question = draw(st.integers(min_value=0, max_value=len(scenario.questions) - 1))
    ids = [r.id for r in scenario.records]
    dropped = draw(st.sets(st.sampled_from(ids), max_size=5))
    day = draw(revision_days())
    earlier = day - _dt.timedelta(days=draw(st.integers(min_value=0, max_value=120))) if sometimes(draw, 50) else None
    total = draw(st.integers(min_value=300, max_value=1500))
    output_reserve = draw(st.integers(min_value=0, max_value=min(200, total // 2)))
    input_reserve = draw(st.integers(min_value=0, max_value=min(300, total - output_reserve)))
    budget = Budget(total, input_reserve, output_reserve)
    return {"question": question, "dropped": dropped, "day": day, "earlier": earlier, "budget": budget}


def revision_labels(case: dict) -> set[str]:
    """Which revision of the P-2 manual is in force on the case's day, and whether a conversation came first."""
    day = case["day"]
    in_force = sum(day >= change for change in REVISION_DAYS)
    found = {("no revision yet", "rev 3 in force", "rev 4 in force", "rev 5 in force")[in_force]}
    found.add("conversation" if case["earlier"] is not None else "single turn")
    if case["earlier"] is not None and sum(case["earlier"] >= c for c in REVISION_DAYS) != in_force:
        found.add("revision changed between turns")
    if "man-p2-r5-s3.2" in case["dropped"]:
        found.add("rev 5 chunk not retrieved")
    return found


# --- design exercises: held-out generated cases ------------------------------------------------------------


def design_seeds() -> st.SearchStrategy[int]:
    """Seeds for a lesson's own case generator: each builds a case the check never shows (held out)."""
    return st.integers(min_value=0, max_value=2**32 - 1)
