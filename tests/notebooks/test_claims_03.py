"""Lesson 03's claims, each checked by running botie (no nbval), on the lesson's numbers and on other inputs.

One test per sentence the lesson states about botie's behaviour (or about its own conventions:
the cast card, predictions before answers, the design exercise, its size). The notebook is read
only to find its text; numbers are computed afresh here.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path

import nbformat
import pytest
from hypothesis import given, settings, strategies as st

from botie.context.records import Record
from botie.context.routing import execute_plan, first_failing_turn, plan_context, relevance_order, share_of
from botie.lessons import fixture_path, load_records

ROOT = Path(__file__).resolve().parents[2]
LESSON = "03_count_then_route"
EDITIONS = ("notebooks", "notebooks/instructor")
CEILING = 900_000
ANSWERS = ("msa-2024-northwind", "msa-2019-acme")


def _agreements():
    return list(load_records(fixture_path("agreements_41.json")))


def _cut_to_fit(docs, ceiling):
    """The lesson's wrong-on-purpose cut, as section 6 writes it."""
    kept, used = [], 0
    for doc in docs:
        if used + doc.cost > ceiling:
            break
        kept.append(doc.id)
        used += doc.cost
    return kept


def _notebook(edition="notebooks"):
    return nbformat.read(ROOT / edition / f"{LESSON}.ipynb", as_version=4)


def _cell(nb, cell_id):
    return next(c for c in nb.cells if c.get("id") == cell_id)


# --- section 2: count, then choose a route --------------------------------------------------------------------------


def test_route_41_setup_the_total_is_between_one_and_four_soft_budgets_and_nothing_is_oversized():
    """The numbers printed before the prediction: 540,000 soft budget, 2,160,000 select limit, 1,440,000, 68,200."""
    agreements = _agreements()
    soft = share_of(CEILING, 0.6)
    assert (soft, 4 * soft) == (540_000, 2_160_000)
    total, largest = sum(d.cost for d in agreements), max(d.cost for d in agreements)
    assert (total, largest) == (1_440_000, 68_200)
    assert largest <= soft < total <= 4 * soft
    assert str(plan_context(agreements, ceiling=CEILING).strategy) == "select_documents"


def _first_row_that_applies(sizes, soft):
    if any(size > soft for size in sizes):
        return "retrieve_within_document"
    if sum(sizes) <= soft:
        return "stuff_all"
    if sum(sizes) <= 4 * soft:
        return "select_documents"
    return "retrieve_chunks"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 400_000), max_size=12), st.integers(10_000, 1_000_000))
def test_the_table_is_checked_top_to_bottom_and_the_first_row_that_applies_decides(sizes, ceiling):
    docs = [Record(f"d{i}", "contracts", "text", size) for i, size in enumerate(sizes)]
    plan = plan_context(docs, ceiling=ceiling)
    assert str(plan.strategy) == _first_row_that_applies(sizes, plan.soft_budget)


def test_when_both_questions_apply_the_guard_wins_before_the_total_is_compared():
    """A document above the soft budget decides whether the total is small (660,000) or huge (3,000,000)."""
    for others in ([20_000] * 3, [600_000] * 4):
        docs = [Record(f"d{i}", "contracts", "text", c) for i, c in enumerate([600_000, *others])]
        plan = plan_context(docs, ceiling=CEILING)
        assert str(plan.strategy) == "retrieve_within_document"
        assert plan.checks[0].name == "oversized_document" and plan.checks[0].fired
        assert len(plan.checks) == 1  # the totals were never compared


# --- section 3: which twelve, and in which order --------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 100), st.sampled_from([0.1, 0.5, 0.5, 0.9, None])), min_size=2, max_size=12),
    st.integers(1, 100),
)
def test_every_document_read_outranks_every_one_not_read_and_the_room_left_is_smaller_than_the_stop(items, room):
    docs = [Record(f"d{i:02d}", "contracts", "text", c, score=s) for i, (c, s) in enumerate(items)]
    budget = max(c for c, _ in items) + room
    plan = plan_context(docs, ceiling=budget, soft_fraction=1)
    if str(plan.strategy) != "select_documents":
        return
    coverage = execute_plan(plan)
    ranked = [d.id for d in relevance_order(docs)]
    assert list(coverage.included_ids) == ranked[: len(coverage.included_ids)]
    stopped_at = next(d for d in relevance_order(docs) if d.id in coverage.excluded_ids)
    assert coverage.unused < stopped_at.cost


def test_equal_scores_are_settled_by_id_and_no_score_comes_after_every_scored_one():
    docs = [
        Record("b", "x", "t", 1, score=0.5),
        Record("none", "x", "t", 1),
        Record("a", "x", "t", 1, score=0.5),
        Record("low", "x", "t", 1, score=0.01),
    ]
    for seed in range(20):
        shuffled = random.Random(seed).sample(docs, len(docs))
        assert [d.id for d in relevance_order(shuffled)] == ["a", "b", "low", "none"]


def test_reversed_the_41_agreements_read_the_same_twelve_in_the_same_reading_order():
    agreements = _agreements()
    forward = execute_plan(plan_context(agreements, ceiling=CEILING))
    backward = execute_plan(plan_context(agreements[::-1], ceiling=CEILING))
    assert forward.included_ids == backward.included_ids and len(forward.included_ids) == 12


def test_routing_reads_the_same_twelve_in_any_order_and_names_msa_2019_acme_as_not_read():
    agreements = _agreements()
    expected = execute_plan(plan_context(agreements, ceiling=CEILING)).included_ids
    rng = random.Random(7)
    for _ in range(200):
        coverage = execute_plan(plan_context(rng.sample(agreements, 41), ceiling=CEILING))
        assert coverage.included_ids == expected
        assert "msa-2024-northwind" in coverage.included_ids and "msa-2019-acme" in coverage.excluded_ids


def test_one_answer_is_read_and_the_other_is_named_as_not_read():
    coverage = execute_plan(plan_context(_agreements(), ceiling=CEILING))
    question = json.loads(fixture_path("agreements_41.json").read_text(encoding="utf-8"))["questions"][0]
    assert tuple(question["answered_by"]) == ANSWERS
    assert ANSWERS[0] in coverage.included_ids and ANSWERS[1] in coverage.excluded_ids


# --- section 4: the panel and the conversation's share --------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "size", "largest", "fraction", "strategy"),
    [
        (41, 33_500, 100_000, 0.6, "select_documents"),
        (3, 10_000, 10_000, 0.6, "stuff_all"),
        (100, 100_000, 100_000, 0.6, "retrieve_chunks"),
        (4, 20_000, 600_000, 0.6, "retrieve_within_document"),
        (41, 33_500, 100_000, 1.0, "select_documents"),
    ],
)
def test_the_panel_settings_the_lesson_lists_reach_their_strategy(count, size, largest, fraction, strategy):
    """Including soft fraction 1.0: the documents may take the whole ceiling, and the panel still routes them."""
    from botie.lessons.ui.routing import routing_panel

    panel = routing_panel(count=count, size=size, largest=largest, soft_fraction=fraction)
    assert panel.plan is not None
    assert str(panel.plan.strategy) == strategy
    assert panel.plan.soft_budget == round(900_000 * fraction)


def test_guard_first_on_the_panel_the_total_is_within_the_select_limit_yet_the_guard_decides():
    from botie.lessons.ui.routing import routing_panel

    plan = routing_panel(count=4, size=20_000, largest=600_000).plan
    assert plan is not None
    assert plan.total == 660_000 <= plan.select_limit and plan.checks[0].fired


@settings(max_examples=200, deadline=None)
@given(st.integers(10_000, 2_000_000), st.integers(1, 50_000), st.integers(0, 50_000))
def test_with_no_reserve_the_very_first_request_fails_whatever_the_sizes(ceiling, per_turn, fixed):
    assert first_failing_turn(ceiling, 1.0, per_turn=per_turn, fixed=fixed) == 1


def test_at_60_percent_there_is_room_for_30_turns_the_syllabus_thirty():
    assert first_failing_turn(CEILING, 0.6, per_turn=11_500, fixed=10_000) == 31
    # turn 30's request: documents, the fixed 10,000 and 30 turns of 11,500 fit; turn 31's does not
    assert 540_000 + 10_000 + 30 * 11_500 <= CEILING < 540_000 + 10_000 + 31 * 11_500


# --- section 6: the cut, reconciled with routing --------------------------------------------------------------------


def test_as_attached_the_cut_sees_24_agreements_with_1700_tokens_left_and_both_answers():
    agreements = _agreements()
    kept = _cut_to_fit(agreements, CEILING)
    used = sum(d.cost for d in agreements if d.id in kept)
    assert (len(kept), CEILING - used) == (24, 1_700)
    assert set(ANSWERS) <= set(kept)
    assert 41 - len(kept) == 17 and 41 - len(_cut_to_fit(agreements[::-1], CEILING)) == 13


def test_the_upload_was_in_rank_order_so_given_540000_the_cut_keeps_routings_twelve():
    agreements = _agreements()
    assert [d.id for d in relevance_order(agreements)] == [d.id for d in agreements]
    coverage = execute_plan(plan_context(agreements, ceiling=CEILING))
    assert _cut_to_fit(agreements, 540_000) == list(coverage.included_ids)
    assert "msa-2019-acme" not in _cut_to_fit(agreements, 540_000)


def test_over_a_thousand_shuffled_uploads_the_cut_keeps_both_answers_in_358_and_neither_in_144():
    """The lesson's cell, seed 3: both answers 358 times, one 498, neither 144."""
    agreements = _agreements()
    shuffler = random.Random(3)
    kept = Counter(len(set(ANSWERS) & set(_cut_to_fit(shuffler.sample(agreements, 41), CEILING))) for _ in range(1000))
    assert (kept[2], kept[1], kept[0]) == (358, 498, 144)


@settings(max_examples=100, deadline=None)
@given(st.randoms(use_true_random=False))
def test_the_cut_depends_on_upload_order_while_routing_does_not(rng):
    agreements = _agreements()
    order = rng.sample(agreements, 41)
    routed = execute_plan(plan_context(order, ceiling=CEILING))
    assert set(routed.included_ids) == set(execute_plan(plan_context(agreements, ceiling=CEILING)).included_ids)
    assert "msa-2019-acme" in routed.excluded_ids  # named, whatever the order


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 50_000), max_size=30), st.integers(1, 2_000_000))
def test_a_set_at_or_under_the_ceiling_has_nothing_to_cut(sizes, ceiling):
    docs = [Record(f"d{i}", "contracts", "text", c) for i, c in enumerate(sizes)]
    if sum(sizes) <= ceiling:
        assert len(_cut_to_fit(docs, ceiling)) == len(docs)


# --- the lesson's text: summary numbers, fixture scene --------------------------------------------------------------


def test_summary_about_4_5_characters_a_token_for_the_prose_and_1_6_for_part_numbers():
    nb = _notebook("notebooks/instructor")
    namespace: dict = {}
    # The lesson's own cells, so the samples are the ones it counts, not a copy that could drift.
    exec(_cell(nb, "03-02").source, namespace)
    exec(_cell(nb, "03-04").source, namespace)
    per_token = {d.label: round(d.chars_per_token, 1) for d in namespace["densities"]}
    assert per_token == {"prose": 4.5, "part numbers": 1.6}


def test_the_fixture_scene_is_the_technicians_service_agreements_with_the_seed_numbers():
    data = json.loads(fixture_path("agreements_41.json").read_text(encoding="utf-8"))
    scene = data["scene"]
    assert "technician" in scene and "service agreements" in scene and "customer" not in scene.lower()
    for number in ("1,440,000", "900,000", "540,000", "512,400", "twelve", "twenty-nine", "forty-one"):
        assert number in scene, number
    coverage = execute_plan(plan_context(_agreements(), ceiling=data["ceiling"]))
    assert (coverage.documents_in_context, coverage.documents_not_read, coverage.token_budget_used) == (
        12,
        29,
        512_400,
    )


# --- conventions: cast card, predictions before answers, design exercise, size --------------------------------------


def _fixture_ids():
    found: set[str] = set()

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "id" and isinstance(item, str):
                    found.add(item)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in (ROOT / "fixtures").glob("*.json"):
        walk(json.loads(path.read_text(encoding="utf-8")))
    return found


def _text_outside_the_card(nb):
    parts = []
    for cell in nb.cells:
        if "cast-card" in cell.metadata.get("tags", []):
            continue
        parts.append(cell.source)
        parts.extend(o.get("text", "") for o in cell.get("outputs", []))
    return "\n".join(parts)


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_cast_card_has_a_row_for_every_fixture_id_the_lesson_mentions_and_only_real_ids(edition):
    nb = _notebook(edition)
    cards = [c for c in nb.cells if "cast-card" in c.metadata.get("tags", [])]
    assert len(cards) == 1 and cards[0].get("id") == "cast-03"
    after = nb.cells[nb.cells.index(cards[0]) - 1]
    assert "**What you'll learn**" in after.source
    rows = re.findall(r"^\| `([^`]+)` \|", cards[0].source, re.M)
    ids = _fixture_ids()
    assert set(rows) <= ids
    text = _text_outside_the_card(nb)
    # A whole id only: "man-p2-r4-s3.2.1" does not mention "man-p2-r4-s3.2".
    mentioned = {i for i in ids if re.search(r"(?<![\w.-])" + re.escape(i) + r"(?![\w-]|\.\d)", text)}
    assert mentioned <= set(rows), mentioned - set(rows)


def test_the_cast_card_rows_are_true_to_the_fixture():
    card = _cell(_notebook(), "cast-03").source
    costs = {d.id: d.cost for d in _agreements()}
    for doc_id in ("msa-2024-northwind", "msa-2019-acme", "sow-14"):
        row = next(line for line in card.splitlines() if line.startswith(f"| `{doc_id}`"))
        assert f"{costs[doc_id]:,} tokens" in row
    assert max(costs, key=costs.get) == "msa-2024-northwind"
    assert max(_agreements(), key=lambda d: d.score).id == "msa-2024-northwind"


def _words(text, pattern):
    return {w.lower() for w in re.findall(pattern, text) if len(w) >= 4 or w.isdigit()}


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("pattern", [r"[A-Za-z0-9]+", r"\w+"])
def test_no_prediction_is_answered_by_the_text_just_above_it_and_a_run_resolves_it(edition, pattern):
    from botie.lessons.exercises.questions import QUESTIONS

    cells = _notebook(edition).cells
    asked = []
    for index, cell in enumerate(cells):
        found = re.search(r'predict\("([^"]+)"\)\.widget', cell.source) if cell.cell_type == "code" else None
        if not found:
            continue
        q = QUESTIONS[found.group(1)]
        asked.append(q.id)
        right = _words(q.options[q.answer], pattern)
        wrong = set().union(*(_words(o, pattern) for i, o in enumerate(q.options) if i != q.answer))
        distinctive = right - wrong
        above = []
        for earlier in reversed(cells[:index]):
            if earlier.cell_type == "code":
                break
            above.append(earlier.source)
        assert distinctive and not distinctive <= _words("\n".join(above), pattern), q.id
        after = cells[index + 1 :]
        stop = next((i for i, c in enumerate(after) if c.cell_type == "markdown" and c.source.startswith("## ")), None)
        assert any("lesson-check" in c.metadata.get("tags", []) for c in after[:stop]), q.id
    assert sorted(asked) == ["route-41", "soft-fraction-one"]


def test_the_reserve_is_explained_only_after_the_soft_fraction_prediction():
    sources = [c.source for c in _notebook().cells]
    asked = next(i for i, s in enumerate(sources) if 'predict("soft-fraction-one")' in s)
    before = "\n".join(sources[:asked])
    assert "nowhere to go" not in before and "the other 40%" not in before.lower()
    assert "What that costs comes next" in before  # the panel's bullet only points ahead


def test_the_design_exercise_has_a_heading_a_stub_a_check_and_a_place():
    from botie.lessons.exercises.lesson03 import INVARIANTS
    from botie.lessons.learner.progress import PLACES

    cells = _notebook().cells
    heading = next(i for i, c in enumerate(cells) if c.source.startswith("### Design exercise:"))
    for name in INVARIANTS:
        assert f"**{name}**" in cells[heading].source
    assert 'raise NotImplementedError("your code here")' in cells[heading + 1].source
    assert cells[heading + 2].source.strip() == "check(choose_documents)"
    assert PLACES["choose_documents"] == ("03", 2)
    instructor = _notebook("notebooks/instructor").cells
    solution = next(c for c in instructor if c.get("id") == "03-design-code").source
    assert "# BEGIN SOLUTION" in solution and "# END SOLUTION" in solution


def test_the_design_text_says_what_the_check_runs():
    """'on the 41 agreements and on hand-made and generated sets, several also attached in reverse'."""
    from botie.lessons.exercises.catalogue import EXERCISES

    labels = [c.label for c in EXERCISES["choose_documents"].cases()]
    assert labels[0].startswith("the 41 agreements")
    assert sum("generated set" in label and "reverse" not in label for label in labels) >= 2
    assert sum("reverse" in label for label in labels) >= 2
    text = next(c.source for c in _notebook().cells if c.source.startswith("### Design exercise:"))
    assert "several also attached in reverse" in text and "27,600 tokens" in text
    coverage = execute_plan(plan_context(_agreements(), ceiling=CEILING))
    assert coverage.unused == 27_600


def test_lesson_03_mentions_no_scaled_copy_of_the_agreements_as_a_fixture_record():
    """dataclasses.replace makes 'agreement-big' in section 2; it is not a fixture id, so it has no card row."""
    assert "agreement-big" not in _fixture_ids()
    assert "agreement-big" in _cell(_notebook(), "03-11").source


def test_the_twenty_nine_are_ranked_by_score_but_none_of_their_text_is_sent_so_the_record_says_not_read():
    from botie.context.routing import execute_plan, plan_context

    agreements = list(_agreements())
    coverage = execute_plan(plan_context(agreements, ceiling=900_000))
    excluded = set(coverage.excluded_ids)
    assert len(excluded) == coverage.documents_not_read == 29
    assert all(d.score is not None for d in agreements if d.id in excluded)  # ranked: retrieval scored them
    assert not excluded & set(coverage.included_ids)  # and nothing of theirs is in what is read
    assert not hasattr(coverage, "documents_searched_not_included")


@pytest.mark.parametrize("sent_from", [(0,), (0, 7), (3, 3, 40)])
def test_under_retrieve_chunks_a_document_with_a_passage_sent_counts_as_read(sent_from):
    """03-16: once passages are sent, each document with one among them counts as read, the rest as not read."""
    agreements = _agreements()
    plan = plan_context(agreements, ceiling=400_000)
    assert plan.strategy.value == "retrieve_chunks"
    passages = [Record(f"{agreements[i].id}#part{n}", "contracts", "a passage", 100) for n, i in enumerate(sent_from)]
    coverage = execute_plan(plan, passages=passages)
    read = {agreements[i].id for i in sent_from}
    assert set(coverage.included_ids) == read and coverage.documents_not_read == 41 - len(read)
    assert coverage.token_budget_used == 100 * len(sent_from)
    assert execute_plan(plan).documents_in_context == 0  # the panel's case: no passages sent yet


@pytest.mark.parametrize("day", ["2026-03-15", "2026-04-01"])
def test_lesson_06s_turn_returns_the_coverage_record_with_its_answer(day):
    """03-16: the turn's result carries the record; its documents read are those of the passages it sent."""
    from botie import Budget
    from botie.lessons import load_evidence_scenario
    from botie.lessons.content.scripted import load_scripted_model
    from botie.turn import TurnSetup, run_turn

    s = load_evidence_scenario()
    setup = TurnSetup.from_scenario(s, budget=Budget(900, 200, 150), observed_on=day)
    result = run_turn(s.questions[0].question, s.candidates(0), setup, load_scripted_model())
    documents = {r.id: r.document for r in s.records}
    assert result.coverage is not None
    assert set(result.coverage.included_ids) == {documents[i] for i in result.context_ids}
    assert (
        result.coverage.documents_in_context + result.coverage.documents_not_read == result.coverage.documents_attached
    )


def test_the_turn_does_not_route_its_coverage_always_names_retrieve_chunks():
    """03-16: lesson 06's turn returns a coverage record, and it is always retrieve_chunks, whatever the budget."""
    from botie import Budget
    from botie.lessons import load_evidence_scenario, load_scripted_model
    from botie.turn import TurnSetup, run_turn

    scenario, model = load_evidence_scenario(), load_scripted_model()
    for total in (400, 900, 5_000):
        setup = TurnSetup.from_scenario(scenario, ceiling=8_000, answer_allowance=150, budget=Budget(total, 200, 150))
        for i, q in enumerate(scenario.questions):
            coverage = run_turn(q.question, scenario.candidates(i), setup, model).coverage
            assert coverage is not None and str(coverage.strategy) == "retrieve_chunks"
