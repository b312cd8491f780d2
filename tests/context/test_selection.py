"""select: permission before budget, two packing policies, an outcome for every candidate."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from botie import Budget, BudgetError, PolicyError, Record, RecordError, Status, select
from botie.context.selection import Coverage
from tests.strategies import allowances, allowed_lists, budgets, events, examples, record_lists, selection_labels


def _records(costs, asset="P-2"):
    return [Record(f"r{i}", asset, f"passage {i}", c) for i, c in enumerate(costs)]


# --- the lesson's worked examples -------------------------------------------


def test_lesson_costs_6_and_5_in_8_select_one_source():
    sel = select(_records([6, 5]), ["P-2"], Budget(20, 8, 4))
    assert sel.selected_ids == ("r0",)
    assert sel.used == 6
    assert sel.allowance == 8
    assert sel.outcomes[1].status is Status.OVER_BUDGET
    assert sel.outcomes[1].reason == "6 + 5 = 11 exceeds the 8-token allowance; stopped here"


def test_lesson_costs_3_8_2_in_7_prefix_stops_after_the_first():
    sel = select(_records([3, 8, 2]), ["P-2"], 7)
    assert [int(i[1:]) for i in sel.selected_ids] == [0]
    assert sel.used == 3
    assert [o.status for o in sel.outcomes] == [Status.SELECTED, Status.OVER_BUDGET, Status.NOT_CONSIDERED]


def test_lesson_costs_3_8_2_in_7_skip_keeps_looking():
    sel = select(_records([3, 8, 2]), ["P-2"], 7, policy="skip")
    assert [int(i[1:]) for i in sel.selected_ids] == [0, 2]
    assert sel.used == 5
    assert sel.outcomes[1].reason.endswith("skipped; kept looking")


def test_a_record_that_fills_the_remaining_room_exactly_is_selected():
    sel = select(_records([5, 3]), ["P-2"], 8)
    assert sel.selected_ids == ("r0", "r1")
    assert sel.used == 8
    assert sel.outcomes[1].reason == "5 + 3 = 8 fills the 8-token allowance exactly"


def test_not_permitted_reason_names_the_asset():
    sel = select([Record("m", "P-1", "t", 1)], ["P-2"], 8)
    assert sel.outcomes[0].status is Status.NOT_PERMITTED
    assert sel.outcomes[0].reason == "P-1 is not in your allowed assets"


def test_permission_is_applied_before_budget_so_a_restricted_record_never_crowds_out():
    records = [Record("big", "K-7", "restricted", 8), Record("ok", "P-2", "fine", 8)]
    sel = select(records, ["P-2"], 8)
    assert sel.selected_ids == ("ok",)


def test_not_considered_reason_names_where_the_prefix_stopped():
    sel = select(_records([9, 1]), ["P-2"], 8)
    assert sel.outcomes[1].reason == "not considered: the prefix rule stopped at r0"


def test_zero_cost_record_fits_even_a_zero_allowance():
    sel = select(_records([0]), ["P-2"], 0)
    assert sel.selected_ids == ("r0",)


def test_coverage_counts_every_status_and_lists_the_excluded():
    records = [*_records([3, 8, 2]), Record("x", "K-7", "t", 1)]
    cov = select(records, ["P-2"], 7).coverage
    assert dict(cov.counts) == {"selected": 1, "not_permitted": 1, "over_budget": 1, "not_considered": 1}
    assert cov.excluded_ids == ("r1", "r2", "x")
    assert cov.total == 4
    assert cov.summary() == "1 selected + 1 not_permitted + 1 over_budget + 1 not_considered = 4 candidates"


def test_outcome_lookup_by_id():
    sel = select(_records([3]), ["P-2"], 7)
    assert sel.outcome("r0").status == "selected"
    with pytest.raises(KeyError):
        sel.outcome("nope")


def test_status_prints_as_its_short_name():
    assert str(Status.OVER_BUDGET) == "over_budget"
    assert Status.OVER_BUDGET == "over_budget"  # type: ignore[comparison-overlap]  # the point: equal to its value


# --- bad input: a clear error naming the field and the record ---------------


def test_a_bare_string_as_the_allowed_list_is_a_type_error():
    with pytest.raises(TypeError, match="not a single string"):
        select(_records([1]), "P-2", 8)


def test_duplicate_ids_name_the_record():
    records = [Record("m-1", "P-2", "a", 1), Record("m-1", "P-2", "b", 1)]
    with pytest.raises(RecordError) as caught:
        select(records, ["P-2"], 8)
    assert (caught.value.field, caught.value.record) == ("id", "m-1")


def test_a_non_record_candidate_is_named_by_position():
    with pytest.raises(RecordError) as caught:
        select([Record("a", "P-2", "t", 1), {"id": "b"}], ["P-2"], 8)
    assert caught.value.record == "1"


@pytest.mark.parametrize("budget", [-1, 7.5, True, "8", None])
def test_a_bad_int_allowance_is_a_budget_error(budget):
    with pytest.raises(BudgetError) as caught:
        select(_records([1]), ["P-2"], budget)
    assert caught.value.field == "budget"


def test_an_unknown_policy_is_refused():
    with pytest.raises(PolicyError) as caught:
        select(_records([1]), ["P-2"], 8, policy="greedy")
    assert caught.value.field == "policy"


# --- properties ---------------------------------------------------------------

PROPERTY = examples(500)
policies = st.sampled_from(["prefix", "skip"])
budget_like = st.one_of(allowances, budgets())


@PROPERTY
@given(record_lists(), allowed_lists, budget_like, policies)
def test_no_record_outside_the_allowed_list_is_ever_selected(records, allowed, budget, policy):
    sel = select(records, allowed, budget, policy=policy)
    by_id = {r.id: r for r in records}
    assert all(by_id[i].asset in allowed for i in sel.selected_ids)


@PROPERTY
@given(record_lists(), allowed_lists, budget_like, policies)
def test_used_never_exceeds_the_allowance_and_equals_the_selected_costs(records, allowed, budget, policy):
    sel = select(records, allowed, budget, policy=policy)
    events(selection_labels(sel))
    by_id = {r.id: r for r in records}
    assert sel.used <= sel.allowance
    assert sel.used == sum(by_id[i].cost for i in sel.selected_ids)


@PROPERTY
@given(record_lists(), allowed_lists, allowances)
def test_prefix_selection_is_a_prefix_of_the_permitted_ranking(records, allowed, allowance):
    sel = select(records, allowed, allowance)
    permitted = [r.id for r in records if r.asset in allowed]
    assert list(sel.selected_ids) == permitted[: len(sel.selected_ids)]
    # ...and the prefix is maximal: the next permitted record really did not fit.
    if len(sel.selected_ids) < len(permitted):
        nxt = next(r for r in records if r.id == permitted[len(sel.selected_ids)])
        assert sel.used + nxt.cost > allowance


@PROPERTY
@given(record_lists(), allowed_lists, budget_like, policies)
def test_one_outcome_per_input_in_input_order(records, allowed, budget, policy):
    sel = select(records, allowed, budget, policy=policy)
    assert [o.record_id for o in sel.outcomes] == [r.id for r in records]
    assert all(o.reason for o in sel.outcomes)


@PROPERTY
@given(record_lists(), allowed_lists, budget_like, policies)
def test_coverage_counts_add_up_to_the_number_of_candidates(records, allowed, budget, policy):
    cov = select(records, allowed, budget, policy=policy).coverage
    assert sum(cov.counts.values()) == cov.total == len(records)
    assert len(cov.excluded_ids) == len(records) - cov.counts["selected"]


@PROPERTY
@given(record_lists(), allowed_lists, allowances)
def test_skip_never_uses_fewer_tokens_than_prefix(records, allowed, allowance):
    prefix = select(records, allowed, allowance, policy="prefix")
    skip = select(records, allowed, allowance, policy="skip")
    assert skip.used >= prefix.used
    assert set(prefix.selected_ids) <= set(skip.selected_ids)


@PROPERTY
@given(record_lists(), allowed_lists, allowances)
def test_skip_never_leaves_out_a_permitted_record_that_would_still_fit(records, allowed, allowance):
    sel = select(records, allowed, allowance, policy="skip")
    left_out = [r for r in records if r.asset in allowed and r.id not in sel.selected_ids]
    assert all(sel.used + r.cost > allowance for r in left_out)


def test_outcomes_report_the_tokens_kept_before_each_candidate():
    records = [Record("a", "P-2", "", 6), Record("b", "P-2", "", 5), Record("c", "P-2", "", 1)]
    sel = select(records, ["P-2"], 8)
    assert [o.used_before for o in sel.outcomes] == [0, 6, 6]
    assert isinstance(sel.outcomes, tuple) and [o.record_id for o in sel.outcomes] == ["a", "b", "c"]
    assert sel.outcome("c").reason == "not considered: the prefix rule stopped at b"
    assert sel.coverage.counts == {"selected": 1, "not_permitted": 0, "over_budget": 1, "not_considered": 1}
    assert sel.coverage.excluded_ids == ("b", "c")


# --- exact messages and the outcomes view's edges ---------------------------------------------


def test_bad_budget_and_policy_messages_say_what_they_got():
    with pytest.raises(BudgetError) as budget:
        select(_records([1]), ["P-2"], -1)
    assert str(budget.value) == "budget must be a Budget or a whole number of tokens (an int >= 0), got -1"
    with pytest.raises(PolicyError) as policy:
        select(_records([1]), ["P-2"], 8, policy="greedy")
    assert str(policy.value) == "policy must be one of prefix, skip; got 'greedy'"


def test_a_selection_remembers_its_policy_and_only_unconsidered_outcomes_name_the_stop():
    assert select(_records([1]), ["P-2"], 8, policy="skip").policy == "skip"
    sel = select(_records([3, 8, 2]), ["P-2"], 7)
    assert [o.stopped_at for o in sel.outcomes] == [None, None, "r1"]
    # A record the caller may not read, met after the stop, is not_permitted and names no stop.
    late = select([*_records([3, 8]), Record("k", "K-7", "", 1)], ["P-2"], 7)
    assert [(str(o.status), o.stopped_at) for o in late.outcomes][2] == ("not_permitted", None)


def test_skip_names_no_stop_and_keeps_looking_after_a_record_that_does_not_fit():
    sel = select(_records([3, 8, 2]), ["P-2"], 7, policy="skip")
    assert [str(o.status) for o in sel.outcomes] == ["selected", "over_budget", "selected"]
    assert [o.stopped_at for o in sel.outcomes] == [None, None, None]
    assert (sel.selected_ids, sel.used) == (("r0", "r2"), 5)


def test_no_candidates_give_no_outcomes_and_a_zero_coverage():
    sel = select([], ["P-2"], 8)
    assert (sel.outcomes, sel.selected_ids, sel.used) == ((), (), 0)
    assert (sel.coverage.total, sel.coverage.excluded_ids) == (0, ())


def test_a_missing_id_names_itself():
    sel = select(_records([3]), ["P-2"], 7)
    with pytest.raises(KeyError) as err:
        sel.outcome("nope")
    assert err.value.args == ("nope",)


def test_coverage_of_lists_the_ids_of_everything_not_kept():
    cov = Coverage.of([("a", "in"), ("b", "out"), ("c", "in")], ("in", "out"), kept="in")
    assert (dict(cov.counts), cov.excluded_ids, cov.total) == ({"in": 2, "out": 1}, ("b",), 3)


# --- the last gate before the model or a log ---------------------------------------------


def test_the_last_gate_passes_permitted_records_through_unchanged():
    from botie.context.selection import permitted_only

    records = (Record("a", "P-2", "x", 1), Record("b", "P-3", "y", 1))
    assert permitted_only(records, ["P-2", "P-3"]) == records


def test_the_last_gate_refuses_a_restricted_record_naming_it_but_not_its_text():
    from botie.context.selection import permitted_only

    secret = Record("vendor", "VENDOR-P2", "factory torque test at 17.5 N·m", 1)
    with pytest.raises(RecordError) as err:
        permitted_only([Record("a", "P-2", "x", 1), secret], ["P-2"])
    assert (err.value.field, err.value.record) == ("asset", "vendor")
    assert "17.5" not in str(err.value)
