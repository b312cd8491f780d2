"""Lesson 03's design exercise: two different designs pass, and a design that breaks one invariant is named for it.

The check holds ``choose_documents(docs, soft_budget)`` to five invariants, not to one expected
output. Here: both valid designs keep all five on the check's cases and on many generated
attachment sets; each wrong design in designs_03.BREAKS breaks its own invariant and no other,
and the check's messages name exactly that one.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from botie.context.records import Record
from botie.lessons.exercises.catalogue import run
from botie.lessons.exercises.engine import Verdict
from botie.lessons.exercises.lesson03 import INVARIANTS, design_problems
from tests.lessons.exercises import designs_03
from tests.lessons.exercises.instructor import instructor_solution


def _failing_messages(report):
    return [r.message for r in report.results if not r.passed]


def _named(messages):
    """The invariants a list of check messages names (each problem line starts with its invariant)."""
    return {line.split(":", 1)[0] for message in messages for line in message.splitlines()}


@st.composite
def attachment_sets(draw):
    """Attachments over their soft budget, none alone above it; scores from a small set, so ties happen."""
    costs = draw(st.lists(st.integers(1, 60), min_size=2, max_size=12))
    scores = draw(st.lists(st.sampled_from([0.2, 0.4, 0.5, 0.7, 0.9]), min_size=len(costs), max_size=len(costs)))
    docs = [Record(f"doc-{i:02d}", "contracts", "text", c, score=s) for i, (c, s) in enumerate(zip(costs, scores))]
    docs = draw(st.permutations(docs))
    budget = draw(st.integers(max(costs), sum(costs) - 1)) if sum(costs) > max(costs) else None
    return docs, budget


# --- the two valid designs ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("label", sorted(designs_03.VALID))
def test_each_valid_design_passes_the_check(label):
    report = run("choose_documents", designs_03.VALID[label])
    assert not isinstance(report, str)
    assert report.verdict is Verdict.PASSED, report.text()


def test_the_two_valid_designs_are_different_designs():
    from botie.lessons.exercises.catalogue import EXERCISES

    cases = EXERCISES["choose_documents"].cases()
    differ = [
        c.label for c in cases if set(designs_03.stop_at_misfit(*c.args)) != set(designs_03.skip_past_misfit(*c.args))
    ]
    assert "the next in line does not fit, a later one does" in differ and len(differ) >= 3


@settings(max_examples=300, deadline=None)
@given(attachment_sets(), st.randoms(use_true_random=False))
def test_both_valid_designs_keep_every_invariant_on_generated_attachments(attached, rng):
    docs, budget = attached
    if budget is None:
        return
    for design in designs_03.VALID.values():
        chosen = design(docs, budget)
        assert design_problems(chosen, docs, budget) == {}
        shuffled = list(docs)
        rng.shuffle(shuffled)
        assert set(design(shuffled, budget)) == set(chosen)  # any order


def test_botie_routing_is_one_valid_design_too():
    """execute_plan's select_documents (by relevance, stopping at a misfit) passes the learner's check."""
    from botie.context.routing import execute_plan, plan_context

    def routed(docs, soft_budget):
        return list(execute_plan(plan_context(docs, ceiling=soft_budget, soft_fraction=1)).included_ids)

    report = run("choose_documents", routed)
    assert not isinstance(report, str)
    assert report.verdict is Verdict.PASSED


# --- one wrong design per invariant ---------------------------------------------------------------------------------


def test_every_invariant_has_a_wrong_design():
    assert set(designs_03.BREAKS) == set(INVARIANTS)


@pytest.mark.parametrize("invariant", INVARIANTS)
def test_a_design_breaking_one_invariant_is_rejected_with_a_message_naming_it_alone(invariant):
    label, design = designs_03.BREAKS[invariant]
    report = run("choose_documents", design)
    assert not isinstance(report, str)
    assert report.verdict is Verdict.FAILED, f"{label!r} passed"
    assert _named(_failing_messages(report)) == {invariant}, report.text()
    assert f"{invariant}:" in report.text()


@settings(max_examples=300, deadline=None)
@given(attachment_sets(), st.randoms(use_true_random=False))
def test_each_wrong_design_breaks_no_invariant_but_its_own_on_generated_attachments(attached, rng):
    docs, budget = attached
    if budget is None:
        return
    for invariant, (_label, design) in designs_03.BREAKS.items():
        chosen = design(docs, budget)
        others = set(design_problems(chosen, docs, budget)) - {invariant}
        assert not others, (invariant, others)
        if invariant != "any order":
            shuffled = list(docs)
            rng.shuffle(shuffled)
            assert set(design(shuffled, budget)) == set(chosen)


def test_a_rule_that_stops_once_the_budget_is_nearly_used_is_an_early_stop():
    """Stopping at 95% used leaves out a small document that still fits: the check names "no early stop"."""
    report = run("choose_documents", designs_03.WRONG["stops once 95% of the soft budget is used"])
    assert not isinstance(report, str)
    assert report.verdict is Verdict.FAILED
    failed = [r for r in report.results if not r.passed]
    assert [r.case.label for r in failed] == ["a small, low-scored one fits in the last 1% of the room"]
    assert _named(r.message for r in failed) == {"no early stop"}


def test_the_hard_coded_answer_for_the_41_agreements_fails_elsewhere():
    report = run("choose_documents", designs_03.WRONG["hard-coded for the 41 agreements"])
    assert not isinstance(report, str)
    assert report.verdict is Verdict.FAILED
    assert report.results[0].passed and not all(r.passed for r in report.results[2:])


# --- the check's own behaviour --------------------------------------------------------------------------------------


def test_records_instead_of_ids_are_named_as_such():
    report = run(
        "choose_documents",
        lambda docs, soft_budget: [d for d in docs if d.id in designs_03.stop_at_misfit(docs, soft_budget)],
    )
    assert not isinstance(report, str)
    assert report.verdict is Verdict.FAILED
    assert "return doc.id, not the document" in report.results[0].message


def test_a_string_is_not_a_list_of_ids():
    report = run("choose_documents", lambda docs, soft_budget: ",".join(designs_03.stop_at_misfit(docs, soft_budget)))
    assert not isinstance(report, str)
    assert "expected a list of document ids" in report.results[0].message


def test_the_stub_is_not_yet_with_the_first_hint():
    def choose_documents(docs, soft_budget):
        raise NotImplementedError("your code here")

    report = run(choose_documents)
    assert not isinstance(report, str)
    assert report.verdict is Verdict.NOT_YET and "Hint 1 of 3" in report.text()


def test_a_pair_never_compares_with_an_earlier_run():
    """The second order of a pair compares with the first order of the same run, never with a stored answer."""
    checked = run("choose_documents", designs_03.skip_past_misfit)
    assert not isinstance(checked, str)
    assert checked.passed

    def fails_on_the_first_order(docs, soft_budget):
        if docs and docs[0].id == "msa-2024-northwind":  # the 41 agreements, as attached
            raise RuntimeError("boom")
        return designs_03.skip_past_misfit(docs, soft_budget)

    report = run("choose_documents", fails_on_the_first_order)
    assert not isinstance(report, str)
    first, second = report.results[0], report.results[1]
    assert not first.passed and "boom" in first.message
    assert not second.passed and "gave no list of ids to compare with" in second.message
    assert all(r.passed for r in report.results[2:])


def test_the_order_message_names_what_changed():
    report = run("choose_documents", designs_03.BREAKS["any order"][1])
    assert not isinstance(report, str)
    failing = [r for r in report.results if not r.passed]
    assert failing and all("attached in reverse" in r.case.label for r in failing)
    assert "now read ['d1'], no longer read ['d2']" in failing[0].message


def test_every_case_is_one_select_documents_would_handle():
    """Over the soft budget, within four of it, and no document alone above it."""
    from botie.lessons.exercises.catalogue import EXERCISES

    for case in EXERCISES["choose_documents"].cases():
        docs, budget = case.args
        assert max(d.cost for d in docs) <= budget < sum(d.cost for d in docs) <= 4 * budget, case.label
        assert all(d.score is not None for d in docs)


def test_hints_end_with_a_design_that_passes():
    """Learners copy the last hint: followed literally (both variants it names), it passes."""
    from botie.lessons.exercises.catalogue import EXERCISES

    last = EXERCISES["choose_documents"].hints[-1]
    assert "sorted(docs, key=lambda d: (-d.score, d.id))" in last and "else: break" in last
    # Written out, the two variants the hint names are designs_03's two valid designs, which pass (above).


@settings(max_examples=150, deadline=None)
@given(attachment_sets(), st.randoms(use_true_random=False))
def test_the_instructor_edition_design_keeps_every_invariant_on_held_out_attachments(attached, rng):
    """The notebook's own choose_documents, on attachment sets the check never shows, in any order."""
    docs, budget = attached
    if budget is None:
        return
    design = instructor_solution("03", "choose_documents")
    chosen = design(list(docs), budget)
    assert design_problems(chosen, docs, budget) == {}
    shuffled = list(docs)
    rng.shuffle(shuffled)
    assert set(design(shuffled, budget)) == set(chosen)
