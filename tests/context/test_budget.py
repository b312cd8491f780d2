"""Budget: the window arithmetic, and loud failure instead of a silent zero."""

from __future__ import annotations

import pytest

from botie import Budget, BudgetError


def test_lesson_evidence_allowance_is_total_minus_both_reserves():
    budget = Budget(20, 8, 4)
    assert budget.evidence == 8
    assert budget.explain() == "20 − 8 − 4 = 8"


def test_reserves_that_fill_the_total_leave_exactly_zero_evidence():
    assert Budget(12, 8, 4).evidence == 0


def test_reserves_above_the_total_raise_and_say_by_how_much():
    with pytest.raises(BudgetError) as caught:
        Budget(20, 14, 8)
    message = str(caught.value)
    assert "by 2 tokens" in message
    assert "14 input + 8 output = 22" in message
    assert caught.value.field == "input_reserve"


def test_one_token_over_is_singular():
    with pytest.raises(BudgetError, match=r"by 1 token$"):
        Budget(20, 13, 8)


@pytest.mark.parametrize("field", ["total", "input_reserve", "output_reserve"])
@pytest.mark.parametrize("bad", [-1, 2.5, 8.0, "8", None, True])
def test_each_field_rejects_non_whole_or_negative_tokens(field, bad):
    values = {"total": 20, "input_reserve": 8, "output_reserve": 4, field: bad}
    with pytest.raises(BudgetError) as caught:
        Budget(**values)
    assert caught.value.field == field
    assert field in str(caught.value)


def test_budget_error_is_a_value_error_for_callers_that_catch_broadly():
    assert issubclass(BudgetError, ValueError)


def test_budget_is_frozen():
    budget = Budget(20, 8, 4)
    with pytest.raises(AttributeError):
        budget.total = 30  # type: ignore[misc]  # the point: a frozen field cannot be set
