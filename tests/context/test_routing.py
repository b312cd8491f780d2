"""plan_context: count first, guard against one oversized document, then route by total; coverage adds up."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from botie.context.records import Record
from botie.context.routing import (
    ALERT_FRACTION,
    SOFT_FRACTION,
    DocumentCoverage,
    Strategy,
    alert_threshold,
    execute_plan,
    first_failing_turn,
    plan_context,
    relevance_order,
    share_of,
)
from botie.errors import BudgetError, PolicyError, RecordError, SettingError
from botie.lessons.content.fixtures import fixture_path, load_records
from tests.strategies import SELECT_CEILING, attachment_cases, documents_to_select, events, examples

CEILING = 900_000


def _docs(*sizes):
    return [Record(f"d{i}", "acct", f"document {i}", n) for i, n in enumerate(sizes)]


@pytest.fixture(scope="module")
def agreements():
    return load_records(fixture_path("agreements_41.json"))


# --- the soft budget ----------------------------------------------------------------


def test_sixty_percent_of_900k_is_exactly_540k():
    assert share_of(CEILING, 0.6) == 540_000
    assert isinstance(share_of(CEILING, 0.6), int)
    assert plan_context([], ceiling=CEILING).soft_budget == 540_000


def test_the_soft_budget_does_not_depend_on_float_luck():
    """Read as the decimal written, 0.6 and 0.7 give exact shares where float products may not."""
    assert int(330 * 0.7) == 230  # the float product is 230.99999999999997
    assert share_of(330, 0.7) == 231
    for ceiling in (900_000, 1_000_000, 128_000, 200_000, 999_999):
        assert share_of(ceiling, 0.6) == ceiling * 6 // 10
        assert share_of(ceiling, Fraction(3, 5)) == ceiling * 3 // 5


def test_a_fractional_share_is_rounded_down():
    assert share_of(10, 0.55) == 5
    assert share_of(900_001, 0.6) == 540_000


def test_the_alert_fires_at_70_percent_of_the_ceiling():
    assert (SOFT_FRACTION, ALERT_FRACTION) == (0.6, 0.7)
    assert alert_threshold(CEILING) == 630_000
    assert alert_threshold(10, 0.55) == 6  # rounded up: 5 tokens would be below 55%


# --- the four strategies and their order ------------------------------------------


def test_a_total_at_the_soft_budget_is_stuffed():
    plan = plan_context(_docs(300_000, 240_000), ceiling=CEILING)
    assert plan.strategy is Strategy.STUFF_ALL
    assert [c.name for c in plan.checks] == ["oversized_document", "total_within_soft_budget"]
    assert "all 2 documents (540,000 tokens) fit" in plan.note


def test_one_token_over_the_soft_budget_selects_documents():
    plan = plan_context(_docs(300_000, 240_001), ceiling=CEILING)
    assert plan.strategy is Strategy.SELECT_DOCUMENTS
    assert [(c.name, c.fired) for c in plan.checks] == [
        ("oversized_document", False),
        ("total_within_soft_budget", False),
        ("total_within_select_limit", True),
    ]


def test_four_soft_budgets_is_the_last_total_for_select_documents():
    exactly = plan_context(_docs(*[540_000] * 4), ceiling=CEILING)
    over = plan_context(_docs(*[540_000] * 4, 1), ceiling=CEILING)
    assert exactly.select_limit == 2_160_000
    assert exactly.strategy is Strategy.SELECT_DOCUMENTS
    assert over.strategy is Strategy.RETRIEVE_CHUNKS
    assert "more than 4 soft budgets (2,160,000)" in over.note


def test_the_oversized_guard_runs_before_the_total():
    """One huge document beside small ones: the total (590,000) would pass for select_documents."""
    docs = _docs(20_000, 560_000, 5_000, 5_000)
    plan = plan_context(docs, ceiling=CEILING)
    assert plan.total == 590_000 <= plan.select_limit
    assert plan.strategy is Strategy.RETRIEVE_WITHIN_DOCUMENT
    assert plan.oversized_ids == ("d1",)
    assert [(c.name, c.fired) for c in plan.checks] == [("oversized_document", True)]
    assert plan.note.startswith("d1 alone is 560,000 tokens, above the 540,000-token soft budget (60% of 900,000)")


def test_the_guard_matters_because_whole_document_selection_could_never_include_it():
    docs = _docs(20_000, 560_000, 5_000, 5_000)
    as_if_unguarded = plan_context(docs, ceiling=CEILING, soft_fraction=0.63)  # guard no longer fires
    coverage = execute_plan(as_if_unguarded)
    assert as_if_unguarded.strategy is Strategy.SELECT_DOCUMENTS
    assert "d1" in coverage.excluded_ids  # the big one could never be read whole


def test_a_document_exactly_at_the_soft_budget_is_not_oversized():
    plan = plan_context(_docs(540_000, 1), ceiling=CEILING)
    assert plan.strategy is Strategy.SELECT_DOCUMENTS
    assert plan.oversized_ids == ()  # above the soft budget, not at it


def test_far_too_much_in_total_retrieves_chunks():
    plan = plan_context(_docs(*[500_000] * 5), ceiling=CEILING)
    assert plan.strategy is Strategy.RETRIEVE_CHUNKS


def test_no_documents_is_trivially_stuffed():
    plan = plan_context([], ceiling=CEILING)
    assert plan.strategy is Strategy.STUFF_ALL and plan.total == 0


def test_settings_change_the_thresholds():
    plan = plan_context(_docs(100, 100), ceiling=300, soft_fraction=0.5, select_factor=2.5)
    assert (plan.soft_budget, plan.select_limit, plan.strategy) == (150, 375, Strategy.SELECT_DOCUMENTS)
    assert "within 2.5 of them" in plan.note


# --- forty-one agreements: the lesson's coverage record ------------------------------


def test_forty_one_agreements_are_1_6_times_the_ceiling(agreements):
    assert len(agreements) == 41
    assert sum(d.cost for d in agreements) == 1_440_000 == CEILING * 16 // 10


def test_forty_one_agreements_route_to_select_documents(agreements):
    plan = plan_context(agreements, ceiling=CEILING)
    assert plan.strategy is Strategy.SELECT_DOCUMENTS
    assert plan.soft_budget == 540_000


def test_twelve_read_plus_twenty_nine_not_read_is_forty_one(agreements):
    coverage = execute_plan(plan_context(agreements, ceiling=CEILING))
    assert coverage.documents_in_context == 12
    assert coverage.documents_not_read == 29
    assert 12 + 29 == coverage.documents_attached == 41
    assert coverage.token_budget_used == 512_400
    assert coverage.explain().startswith("select_documents: 12 of 41 documents read in full, 29 not read")


def test_the_record_does_not_call_documents_searched_when_nothing_searched_them(agreements):
    """Whole-document selection reads twelve agreements and searches none of the other twenty-nine."""
    coverage = execute_plan(plan_context(agreements, ceiling=CEILING))
    assert not hasattr(coverage, "documents_searched_not_included")
    assert "searched" not in coverage.explain().split(";")[0]
    assert coverage.explain().endswith(
        "nothing searched the 29 not read, so an answer inside one of them is not in this reply: their ids are listed"
    )


def test_the_coverage_record_has_the_lesson_fields(agreements):
    record = execute_plan(plan_context(agreements, ceiling=CEILING)).as_dict()
    assert list(record) == [
        "strategy",
        "documents_attached",
        "documents_in_context",
        "documents_not_read",
        "excluded_ids",
        "token_budget_used",
    ]
    assert record["strategy"] == "select_documents"
    assert {"msa-2019-acme", "sow-14"} <= set(record["excluded_ids"])
    assert len(record["excluded_ids"]) == 29
    json.dumps(record)  # travels with the answer as JSON


def test_the_fixture_states_the_expected_numbers(agreements):
    data = json.loads(fixture_path("agreements_41.json").read_text(encoding="utf-8"))
    coverage = execute_plan(plan_context(agreements, ceiling=data["ceiling"], soft_fraction=data["soft_fraction"]))
    for key, value in data["expected"].items():
        assert getattr(coverage, key) == value, key


def test_the_room_left_over_is_smaller_than_every_declined_document(agreements):
    """About a twentieth of the soft budget stays unused: whole documents cannot be split."""
    coverage = execute_plan(plan_context(agreements, ceiling=CEILING))
    declined = [d.cost for d in agreements if d.id in set(coverage.excluded_ids)]
    assert coverage.unused == 27_600 < min(declined)
    assert 0.04 < coverage.unused / coverage.soft_budget < 0.06


def test_by_default_selection_stops_at_the_first_document_that_does_not_fit_skip_packs_past_it():
    """The seed's rule for whole documents: selection stops when the next one will not fit."""
    plan = plan_context(_docs(300_000, 300_000, 200_000), ceiling=CEILING)
    assert execute_plan(plan).included_ids == ("d0",)
    assert execute_plan(plan, policy="skip").included_ids == ("d0", "d2")


def test_coverage_counts_reuse_the_coverage_record(agreements):
    counts = execute_plan(plan_context(agreements, ceiling=CEILING)).counts()
    assert dict(counts.counts) == {"in_context": 12, "not_read": 29}
    assert counts.total == 41


def test_stuff_all_reads_everything_and_retrieval_reads_nothing_whole():
    stuffed = execute_plan(plan_context(_docs(10, 20), ceiling=CEILING))
    assert (stuffed.documents_in_context, stuffed.token_budget_used, stuffed.excluded_ids) == (2, 30, ())
    retrieved = execute_plan(plan_context(_docs(600_000, 20), ceiling=CEILING))
    assert (retrieved.documents_in_context, retrieved.documents_not_read) == (0, 2)


def test_a_coverage_record_that_does_not_add_up_cannot_be_built():
    with pytest.raises(BudgetError):
        DocumentCoverage(Strategy.SELECT_DOCUMENTS, 41, 12, 28, ("x",) * 28, 0, 540_000, ())


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize("ceiling", [0, -1, 1.5, True, "900000", None])
def test_the_ceiling_must_be_a_positive_int(ceiling):
    with pytest.raises(BudgetError) as err:
        plan_context([], ceiling=ceiling)
    assert err.value.field == "ceiling"


@pytest.mark.parametrize("fraction", [0, -0.1, 1.01, float("nan"), float("inf"), "0.6", True])
def test_the_soft_fraction_must_be_above_0_and_at_most_1(fraction):
    with pytest.raises(SettingError) as err:
        plan_context([], ceiling=CEILING, soft_fraction=fraction)
    assert err.value.field == "soft_fraction"


@pytest.mark.parametrize("factor", [0, 0.5, None])
def test_the_select_factor_must_be_at_least_1(factor):
    with pytest.raises(SettingError):
        plan_context([], ceiling=CEILING, select_factor=factor)


def test_documents_must_be_records_with_unique_ids():
    with pytest.raises(RecordError):
        plan_context(_docs(1) + _docs(2), ceiling=CEILING)
    with pytest.raises(RecordError):
        plan_context(["not a record"], ceiling=CEILING)


def test_execute_plan_needs_a_plan():
    with pytest.raises(PolicyError):
        execute_plan(_docs(1))


@pytest.mark.parametrize("fraction", [0, 1.5, "0.7"])
def test_the_alert_fraction_must_be_above_0_and_at_most_1(fraction):
    with pytest.raises(SettingError):
        alert_threshold(CEILING, fraction)


# --- properties ---------------------------------------------------------------------------


@examples(300)
@given(attachment_cases())
def test_the_strategy_follows_the_rule_in_order(case):
    docs, ceiling = case
    plan = plan_context(docs, ceiling=ceiling)
    events({f"strategy {plan.strategy}"})
    soft = ceiling * 6 // 10
    total = sum(d.cost for d in docs)
    if any(d.cost > soft for d in docs):
        expected = Strategy.RETRIEVE_WITHIN_DOCUMENT
    elif total <= soft:
        expected = Strategy.STUFF_ALL
    elif total <= 4 * soft:
        expected = Strategy.SELECT_DOCUMENTS
    else:
        expected = Strategy.RETRIEVE_CHUNKS
    assert plan.strategy is expected
    assert plan.checks[-1].fired or plan.strategy is Strategy.RETRIEVE_CHUNKS


@examples(300)
@given(attachment_cases(), st.sampled_from(["skip", "prefix"]))
def test_document_coverage_always_adds_up(case, policy):
    docs, ceiling = case
    coverage = execute_plan(plan_context(docs, ceiling=ceiling), policy=policy)
    events({f"strategy {coverage.strategy}"})
    assert coverage.documents_in_context + coverage.documents_not_read == len(docs)
    assert set(coverage.included_ids).isdisjoint(coverage.excluded_ids)
    assert set(coverage.included_ids) | set(coverage.excluded_ids) == {d.id for d in docs}
    if coverage.strategy is Strategy.SELECT_DOCUMENTS:
        assert coverage.token_budget_used <= coverage.soft_budget


# --- whole-document selection reads by relevance, never by attachment order -------------


def test_reversing_the_forty_one_agreements_reads_the_same_twelve(agreements):
    """Lesson 03's claim: attachment order carries no information, so reversing it changes nothing read."""
    as_attached = execute_plan(plan_context(agreements, ceiling=CEILING))
    reversed_ = execute_plan(plan_context(list(reversed(agreements)), ceiling=CEILING))
    assert set(as_attached.included_ids) == set(reversed_.included_ids)
    assert reversed_.included_ids == as_attached.included_ids  # reading order is relevance order too
    assert (reversed_.documents_in_context, reversed_.token_budget_used) == (12, 512_400)


def test_select_documents_reads_the_highest_scores_first():
    docs = [
        Record("low", "a", "x", 300, score=0.1),
        Record("high", "a", "x", 300, score=0.9),
        Record("mid", "a", "x", 300, score=0.5),
    ]
    coverage = execute_plan(plan_context(docs, ceiling=1_000))  # soft budget 600: two of the three fit
    assert coverage.strategy is Strategy.SELECT_DOCUMENTS
    assert coverage.included_ids == ("high", "mid")
    assert coverage.excluded_ids == ("low",)


def test_a_document_without_a_score_is_read_after_every_scored_one():
    docs = [
        Record("unscored", "a", "x", 300),
        Record("weak", "a", "x", 300, score=0.01),
        Record("strong", "a", "x", 300, score=0.8),
    ]
    assert [d.id for d in relevance_order(docs)] == ["strong", "weak", "unscored"]
    assert execute_plan(plan_context(docs, ceiling=1_000)).excluded_ids == ("unscored",)


def test_equal_scores_are_broken_by_id_not_by_position():
    docs = [
        Record("b", "a", "x", 300, score=0.5),
        Record("a", "a", "x", 300, score=0.5),
        Record("c", "a", "x", 300, score=0.5),
    ]
    assert [d.id for d in relevance_order(docs)] == ["a", "b", "c"]
    assert [d.id for d in relevance_order(reversed(docs))] == ["a", "b", "c"]


@settings(max_examples=200)
@given(documents_to_select(), st.randoms(use_true_random=False), st.sampled_from(["skip", "prefix"]))
def test_shuffling_the_attachments_never_changes_what_is_read(docs, rnd, policy):
    shuffled = list(docs)
    rnd.shuffle(shuffled)
    first = execute_plan(plan_context(docs, ceiling=SELECT_CEILING), policy=policy)
    second = execute_plan(plan_context(shuffled, ceiling=SELECT_CEILING), policy=policy)
    assert first.strategy is Strategy.SELECT_DOCUMENTS
    assert first.included_ids == second.included_ids
    assert first.token_budget_used == second.token_budget_used


def test_retrieval_coverage_does_not_read_as_nothing_sent():
    """Lesson 03: under retrieve_chunks no document is read whole, yet passages still go out."""
    coverage = execute_plan(plan_context(_docs(*[100_000] * 100), ceiling=CEILING))
    assert coverage.strategy is Strategy.RETRIEVE_CHUNKS
    assert "0 of 540,000 tokens used" not in coverage.explain()
    assert "no document is read whole" in coverage.explain()


def test_whole_document_coverage_still_reports_the_tokens_used(agreements):
    assert "512,400 of 540,000 tokens used" in execute_plan(plan_context(agreements, ceiling=CEILING)).explain()


def _passage(doc: Record, n: int, cost: int) -> Record:
    return Record(f"{doc.id}#part{n}", doc.asset, f"passage {n} of {doc.id}", cost)


def test_under_retrieve_chunks_documents_whose_passages_were_read_count_as_read(agreements):
    """Issue 31 item 8: no longer "0 in context, 41 not read, 0 tokens used" once passages were sent."""
    plan = plan_context(agreements, ceiling=400_000)
    assert plan.strategy is Strategy.RETRIEVE_CHUNKS
    first, second = agreements[0], agreements[5]
    passages = [_passage(first, 1, 900), _passage(second, 3, 700), _passage(first, 2, 400)]
    coverage = execute_plan(plan, passages=passages)
    assert coverage.documents_in_context == 2 and coverage.documents_not_read == 39
    assert coverage.included_ids == (first.id, second.id)  # reading order: the first passage of each
    assert first.id not in coverage.excluded_ids and len(coverage.excluded_ids) == 39
    assert coverage.token_budget_used == 2_000
    assert coverage.passage_ids == tuple(p.id for p in passages)
    assert coverage.explain().startswith("retrieve_chunks: 2 of 41 documents read through 3 passages, 39 not read")
    assert coverage.as_dict()["documents_in_context"] == 2


def test_a_passage_names_its_document_by_field_before_its_id(agreements):
    plan = plan_context(agreements, ceiling=400_000)
    stray = Record("p-17", "contracts", "a passage", 10, document=agreements[3].id, version="signed",
                   effective_date="2024-01-01")  # fmt: skip
    assert execute_plan(plan, passages=[stray]).included_ids == (agreements[3].id,)


def test_a_passage_from_a_document_not_attached_is_broken_accounting(agreements):
    plan = plan_context(agreements, ceiling=400_000)
    with pytest.raises(RecordError) as err:
        execute_plan(plan, passages=[Record("elsewhere#part1", "x", "y", 3)])
    assert (err.value.field, err.value.record) == ("document", "elsewhere#part1")


def test_passages_are_refused_where_whole_documents_are_read(agreements):
    plan = plan_context(agreements, ceiling=CEILING)
    assert plan.strategy is Strategy.SELECT_DOCUMENTS
    with pytest.raises(PolicyError, match="passages"):
        execute_plan(plan, passages=[_passage(agreements[0], 1, 5)])


# --- which turn fails first at a given soft fraction ---------------------------------


def test_with_no_reserve_the_first_turn_already_fails():
    """Lesson 03: documents that may take the whole ceiling leave nothing for turn one."""
    assert first_failing_turn(CEILING, 1.0, per_turn=6_000, fixed=10_000) == 1
    assert first_failing_turn(CEILING, 0.6, per_turn=6_000, fixed=10_000) == 59


@settings(max_examples=300)
@given(
    st.integers(min_value=1, max_value=5_000),
    st.sampled_from([0.05, 0.3, 0.5, 0.6, 0.95, 1.0]),
    st.integers(min_value=1, max_value=400),
    st.integers(min_value=0, max_value=3_000),
)
def test_the_first_failing_turn_is_the_first_whose_request_exceeds_the_ceiling(ceiling, fraction, per_turn, fixed):
    n = first_failing_turn(ceiling, fraction, per_turn=per_turn, fixed=fixed)
    need = lambda turn: share_of(ceiling, fraction) + fixed + turn * per_turn  # noqa: E731
    assert n >= 1 and need(n) > ceiling
    assert n == 1 or need(n - 1) <= ceiling


@pytest.mark.parametrize("bad", [{"per_turn": 0}, {"per_turn": True}, {"per_turn": 5, "fixed": -1}, {"per_turn": 2.5}])
def test_first_failing_turn_refuses_settings_it_cannot_read(bad):
    with pytest.raises(SettingError):
        first_failing_turn(CEILING, 0.6, **bad)


# --- the path each decision took, word for word ----------------------------------------


@pytest.mark.parametrize(
    ("sizes", "details", "note"),
    [
        (
            (300_000, 240_000),
            [
                "the largest is d0 at 300,000; none is above 540,000",
                "540,000 tokens in 2 documents <= the 540,000 soft budget",
            ],
            "all 2 documents (540,000 tokens) fit the 540,000-token soft budget (60% of 900,000): send them",
        ),
        (
            (300_000, 240_001),
            [
                "the largest is d0 at 300,000; none is above 540,000",
                "540,001 tokens in 2 documents > the 540,000 soft budget",
                "540,001 tokens <= 2,160,000 (4 soft budgets)",
            ],
            "540,001 tokens is over the 540,000-token soft budget but within 4 of them: "
            "read the most relevant whole documents that fit; the rest are not read, "
            "and the coverage record names them",
        ),
        (
            (540_000,) * 4 + (1,),
            [
                "the largest is d0 at 540,000; none is above 540,000",
                "2,160,001 tokens in 5 documents > the 540,000 soft budget",
                "2,160,001 tokens > 2,160,000 (4 soft budgets)",
            ],
            "2,160,001 tokens is more than 4 soft budgets (2,160,000): too much to choose whole "
            "documents from, so retrieve passages across all of them",
        ),
        (
            (),
            ["no documents; none is above 540,000", "0 tokens in 0 documents <= the 540,000 soft budget"],
            "all 0 documents (0 tokens) fit the 540,000-token soft budget (60% of 900,000): send them",
        ),
        (
            (540_000, 560_000),
            ["d1 alone is 560,000 tokens, above the 540,000-token soft budget (60% of 900,000)"],
            "d1 alone is 560,000 tokens, above the 540,000-token soft budget (60% of 900,000): "
            "no set of whole documents can include it, so retrieve passages within it",
        ),
    ],
)
def test_each_check_and_the_note_say_what_was_compared(sizes, details, note):
    """A document exactly at the soft budget is not the one the oversized guard names."""
    plan = plan_context(_docs(*sizes), ceiling=CEILING)
    assert [c.detail for c in plan.checks] == details
    assert plan.note == note
    assert plan.ceiling == CEILING


def test_a_whole_select_factor_is_written_as_a_whole_number_however_large():
    plan = plan_context(_docs(100, 100), ceiling=300, select_factor=1_000_000)
    assert "within 1000000 of them" in plan.note


def test_the_upper_limits_are_inclusive():
    """A soft or alert fraction of exactly 1 and a select factor of exactly 1 are allowed."""
    assert plan_context([], ceiling=CEILING, soft_fraction=1).soft_budget == CEILING
    assert plan_context([], ceiling=CEILING, select_factor=1).select_limit == 540_000
    assert alert_threshold(CEILING, 1) == CEILING


def test_a_score_of_zero_is_still_a_score_and_ranks_below_a_positive_one():
    docs = [Record("zero", "a", "x", 1, score=0.0), Record("half", "a", "x", 1, score=0.5), Record("none", "a", "x", 1)]
    assert [d.id for d in relevance_order(docs)] == ["half", "zero", "none"]


def test_retrieval_uses_no_whole_document_tokens_and_counts_list_the_unread():
    retrieved = execute_plan(plan_context(_docs(600_000, 20), ceiling=CEILING))
    assert retrieved.token_budget_used == 0
    plan = plan_context(_docs(300_000, 300_000, 200_000), ceiling=CEILING)
    assert execute_plan(plan).counts().excluded_ids == ("d1", "d2")  # the stop rule: d2 is never reached
    assert execute_plan(plan, policy="skip").counts().excluded_ids == ("d1",)  # skip reads d2 after d1


def test_first_failing_turn_carries_no_fixed_tokens_unless_told():
    """100 tokens, half for documents: 50 left, 10 a turn, so turn 6 is the first over (6 with 0 fixed, 5 with 1)."""
    assert first_failing_turn(100, 0.5, per_turn=10) == 6
    assert first_failing_turn(100, 0.5, per_turn=10, fixed=1) == 5


@pytest.mark.parametrize(
    ("call", "error", "field", "message"),
    [
        (
            lambda: plan_context([], ceiling=CEILING, soft_fraction="0.6"),
            SettingError,
            "soft_fraction",
            "soft_fraction must be a number above 0 and at most 1, got '0.6'",
        ),
        (
            lambda: plan_context([], ceiling=CEILING, soft_fraction=float("nan")),
            SettingError,
            "soft_fraction",
            "soft_fraction must be a number above 0 and at most 1, got nan",
        ),
        (
            lambda: plan_context([], ceiling=CEILING, soft_fraction=1.01),
            SettingError,
            "soft_fraction",
            "soft_fraction must be a number above 0 and at most 1, got 1.01",
        ),
        (
            lambda: plan_context([], ceiling=CEILING, select_factor="4"),
            SettingError,
            "select_factor",
            "select_factor must be a number, got '4'",
        ),
        (
            lambda: plan_context([], ceiling=CEILING, select_factor=0.5),
            SettingError,
            "select_factor",
            "select_factor must be at least 1, got 0.5",
        ),
        (
            lambda: plan_context(["a string"], ceiling=CEILING),
            RecordError,
            "record",
            "document 0 is not a Record: 'a string'",
        ),
        (
            lambda: alert_threshold(CEILING, "0.7"),
            SettingError,
            "alert_fraction",
            "alert_fraction must be a number above 0 and at most 1, got '0.7'",
        ),
        (
            lambda: alert_threshold(CEILING, 1.5),
            SettingError,
            "alert_fraction",
            "alert_fraction must be a number above 0 and at most 1, got 1.5",
        ),
        (lambda: share_of(CEILING, "0.6"), SettingError, "fraction", "fraction must be a number, got '0.6'"),
        (
            lambda: first_failing_turn(CEILING, "0.6", per_turn=5),
            SettingError,
            "soft_fraction",
            "soft_fraction must be a number above 0 and at most 1, got '0.6'",
        ),
        (
            lambda: first_failing_turn(CEILING, 0, per_turn=5),
            SettingError,
            "soft_fraction",
            "soft_fraction must be a number above 0 and at most 1, got 0",
        ),
        (
            lambda: first_failing_turn(CEILING, 1.5, per_turn=5),
            SettingError,
            "soft_fraction",
            "soft_fraction must be a number above 0 and at most 1, got 1.5",
        ),
        (
            lambda: first_failing_turn(CEILING, 0.6, per_turn=0),
            SettingError,
            "per_turn",
            "per_turn must be a whole number of tokens (an int >= 1), got 0",
        ),
        (
            lambda: first_failing_turn(CEILING, 0.6, per_turn=5, fixed=-1),
            SettingError,
            "fixed",
            "fixed must be a whole number of tokens (an int >= 0), got -1",
        ),
        (
            lambda: execute_plan("a plan"),
            PolicyError,
            "plan",
            "execute_plan needs a ContextPlan from plan_context, got 'a plan'",
        ),
        (
            lambda: DocumentCoverage(Strategy.SELECT_DOCUMENTS, 41, 12, 28, ("x",) * 28, 0, 540_000, ()),
            BudgetError,
            "coverage",
            "coverage does not add up: 12 + 28 != 41",
        ),
    ],
)
def test_every_refusal_names_its_setting_and_what_it_got(call, error, field, message):
    with pytest.raises(error) as err:
        call()
    assert (err.value.field, str(err.value)) == (field, message)
