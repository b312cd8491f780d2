"""Preloading against just-in-time loading: the read-only tool's checks, the simulated costs, seeded failures."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from hypothesis import given, strategies as st

from botie import Record, SettingError
from botie.lessons.content.loading import (
    DocumentTool,
    FailureInjector,
    LatencyModel,
    LoadStatus,
    compare_loading,
    handles,
    just_in_time,
    preload,
)
from botie.lessons.content.scenarios import load_evidence_scenario
from tests.strategies import OBSERVED_ON, examples, unreadable_named, walled_cases


@pytest.fixture(scope="module")
def scenario():
    return load_evidence_scenario()


@pytest.fixture
def tool(scenario):
    return DocumentTool(
        scenario.records,
        allowed_assets=scenario.allowed_assets,
        observed_on=scenario.observed_on,
        register=scenario.register,
        max_tokens=40,
    )


def test_the_tool_checks_existence_permission_and_size_on_every_call(tool):
    assert tool("tkt-5521").status is LoadStatus.OK and tool("tkt-5521").record.id == "tkt-5521"
    assert tool("vendor-p2-seal-design").status is LoadStatus.NOT_PERMITTED
    too_big = tool("man-p2-r4-s3.2")
    assert too_big.status is LoadStatus.TOO_LARGE and too_big.record is None and "48 tokens" in too_big.reason
    assert tool("docs://site-a/manuals/p2/rev4").status is LoadStatus.UNKNOWN_ID


@pytest.mark.parametrize(
    ("day", "refused", "served"),
    [
        # 15 March: rev 4 in force; rev 3 superseded, rev 5 not yet in force
        ("2026-03-15", {"man-p2-r3-s3.2": "superseded by man-p2-r4-s3.2",
                        "man-p2-r5-s3.2": "effective from 2026-04-01"}, "man-p2-r4-s3.2"),
        # 2 April: rev 5 in force; rev 4 and every copy of it are superseded with it
        ("2026-04-02", {"man-p2-r4-s3.2": "superseded by man-p2-r5-s3.2", "portal-p2-r4-s3.2": "replaced by rev 5",
                        "man-p2-r3-s3.2": "rev 3 of docs://site-a/manuals/p2 was replaced by rev 5"}, "man-p2-r5-s3.2"),
    ],
)  # fmt: skip
def test_the_tool_checks_permission_freshness_copies_and_size_on_every_call(scenario, day, refused, served):
    """Lesson 02b (9f07f0e9): the tool checks what the selector checks before any score, then a size limit."""
    tool = DocumentTool(
        scenario.records, allowed_assets=scenario.allowed_assets, observed_on=day, register=scenario.register,
        max_tokens=60,
    )  # fmt: skip
    for doc_id, why in refused.items():
        result = tool(doc_id)
        assert result.status is LoadStatus.NOT_IN_FORCE and result.record is None and why in result.reason, result
    assert tool(served).status is LoadStatus.OK
    # the rule is the selector's: the tool serves exactly the P-2 manual sections the selector finds in force
    selection = scenario.select(0, observed_on=day, budget=10**6, floor=0.0)
    fresh = {o.record_id for o in selection.outcomes if o.check != "freshness"}
    for r in scenario.records:
        if r.asset == "P-2":
            assert (tool(r.id).status is not LoadStatus.NOT_IN_FORCE) == (r.id in fresh), r.id


def test_the_tool_sends_an_original_rather_than_its_copy_unless_the_original_may_not_be_read(scenario):
    tool = DocumentTool(
        scenario.records, allowed_assets=["P-2"], observed_on="2026-03-15", register=scenario.register, max_tokens=60
    )
    for copy in ("portal-p2-r4-s3.2", "binder-p2-r4-s3.2"):
        result = tool(copy)
        assert result.status is LoadStatus.DUPLICATE and "a copy of man-p2-r4-s3.2" in result.reason
    original = next(r for r in scenario.records if r.id == "man-p2-r4-s3.2")
    walled = [dataclasses.replace(r, asset="VENDOR-P2") if r.id == original.id else r for r in scenario.records]
    alone = DocumentTool(walled, allowed_assets=["P-2"], observed_on="2026-03-15", register=scenario.register,
                         max_tokens=60)  # fmt: skip
    assert alone("portal-p2-r4-s3.2").status is LoadStatus.OK  # the copy stands in, as in the selector
    assert alone(original.id).status is LoadStatus.NOT_PERMITTED


def test_a_copy_is_served_when_its_original_is_too_large_for_the_tool(scenario):
    """The copy gives way only to an original the tool would serve: one over the size limit does not count."""
    costs = {r.id: r.cost for r in scenario.records}
    original, copies = "man-p2-r4-s3.2", ("portal-p2-r4-s3.2", "binder-p2-r4-s3.2")
    assert all(costs[c] < costs[original] for c in copies)
    for limit in range(max(costs[c] for c in copies), costs[original]):  # each copy fits, the original does not
        tool = DocumentTool(
            scenario.records, allowed_assets=["P-2"], observed_on="2026-03-15", register=scenario.register,
            max_tokens=limit,
        )  # fmt: skip
        assert tool(original).status is LoadStatus.TOO_LARGE
        assert [tool(c).status for c in copies] == [LoadStatus.OK, LoadStatus.OK], limit


def test_an_injected_failure_returns_nothing(scenario):
    broken = DocumentTool(
        scenario.records, allowed_assets=["P-2"], observed_on="2026-03-15", max_tokens=100, fail=lambda doc_id: True
    )
    result = broken("tkt-5521")
    assert result.status is LoadStatus.FAILED and result.record is None


def test_the_tool_cannot_change_a_document(tool):
    with pytest.raises(TypeError):
        tool._records["tkt-5521"] = Record("tkt-5521", "P-2", "rewritten", 1)
    assert not any(name for name in dir(tool) if name.startswith(("write", "update", "delete", "set")))


def test_the_tool_refuses_bad_settings(scenario):
    with pytest.raises(TypeError):
        DocumentTool(scenario.records, allowed_assets="P-2", observed_on="2026-03-15", max_tokens=10)
    with pytest.raises(SettingError):
        DocumentTool(scenario.records, allowed_assets=["P-2"], observed_on="2026-03-15", max_tokens=-1)
    with pytest.raises(SettingError, match="observed_on"):
        DocumentTool(scenario.records, allowed_assets=["P-2"], observed_on="someday", max_tokens=10)


def test_failures_are_seeded(scenario):
    a, b = FailureInjector(0.3, seed=5), FailureInjector(0.3, seed=5)
    assert [a("x") for _ in range(50)] == [b("x") for _ in range(50)]
    assert not any(FailureInjector(0.0)("x") for _ in range(100))
    assert all(FailureInjector(1.0)("x") for _ in range(100))
    for bad in (-0.1, 1.5, True, "0.1"):
        with pytest.raises(SettingError):
            FailureInjector(bad)


def test_latency_is_whole_milliseconds_from_the_model():
    assert LatencyModel().model_ms(443) == 600 + 88
    assert LatencyModel(model_call_ms=0, per_100_tokens_ms=50).model_ms(199) == 99


def test_preloading_sends_the_pack_in_one_call(scenario):
    run = preload(scenario, 0)
    assert (run.tokens_sent, run.model_calls, run.tool_calls, run.latency_ms) == (443, 1, 0, 688)
    assert run.complete and run.result == "complete"
    assert run.unneeded_tokens == 30 + 35 + 37  # the forum post, the anonymous note, ticket 5630


def test_just_in_time_loads_in_rank_order_until_it_has_what_it_needs(scenario):
    run = just_in_time(scenario, 0, count=lambda line: 10)
    assert run.seen == (
        "man-p2-r4-s3.2",
        "forum-8812",
        "note-anon-77",
        "man-p2-r4-t3.4-head",
        "man-p2-r4-t3.4-m12",
        "man-p2-r4-s3.2.1",
    )
    assert run.tool_calls == 6 and run.model_calls == 7 and run.complete
    assert run.unneeded_tokens == 30 + 35


def test_each_model_call_rereads_everything_so_far(scenario):
    run = just_in_time(scenario, 3, count=lambda line: 10, overhead_tokens=100, call_tokens=20)
    first = 100 + 10 * 2  # two identifiers listed: ticket 5521, ticket 5630
    assert run.seen == ("tkt-5521",)
    assert run.tokens_sent == first + (first + 20 + 36)


def test_a_refused_question_costs_nothing_either_way(scenario):
    for run in (preload(scenario, 2), just_in_time(scenario, 2)):
        assert run.refused and run.tokens_sent == 0 and run.model_calls == 0 and run.result == "refused"


def test_a_size_limit_below_a_needed_document_leaves_the_answer_incomplete(scenario):
    run = just_in_time(scenario, 0, max_tokens=40, count=lambda line: 10)
    assert not run.complete and "man-p2-r4-s3.2" not in run.seen and run.result == "incomplete"


def test_a_failed_call_without_retry_fails_the_turn(scenario):
    run = just_in_time(scenario, 3, fail=lambda doc_id: True, count=lambda line: 10)
    assert run.failed and run.tool_calls == 1 and run.result == "failed"
    retried = just_in_time(scenario, 3, fail=lambda doc_id: True, retries=2, count=lambda line: 10)
    assert retried.failed and retried.tool_calls == 3


def test_the_comparison_on_the_fixture_questions(scenario):
    c = compare_loading(scenario, trials=50, failure_rate=0.1, seed=1)
    assert c == compare_loading(scenario, trials=50, failure_rate=0.1, seed=1)  # deterministic
    pre, jit = c.totals("preload"), c.totals("just_in_time")
    assert pre["tool_calls"] == 0 and jit["tool_calls"] == 9
    assert jit["unneeded_tokens"] < pre["unneeded_tokens"]
    assert jit["tokens_sent"] > pre["tokens_sent"] and jit["latency_ms"] > pre["latency_ms"]
    assert c.failures["preload"] == (0, 150)
    failed, turns = c.failures["just_in_time"]
    assert turns == 150 and 0 < failed < turns
    assert "just_in_time" in c.table() and "turns failed" in c.table()


def test_a_retry_lowers_the_failure_rate_and_no_failures_means_none(scenario):
    plain = compare_loading(scenario, trials=50, seed=3).failures["just_in_time"][0]
    retried = compare_loading(scenario, trials=50, seed=3, retries=1).failures["just_in_time"][0]
    assert retried < plain
    assert compare_loading(scenario, trials=20, failure_rate=0.0).failures["just_in_time"][0] == 0


def test_bad_trials_are_refused(scenario):
    with pytest.raises(SettingError):
        compare_loading(scenario, trials=-1)


def test_handles_carry_no_text(scenario):
    for h, r in zip(handles(scenario.records), scenario.records):
        assert r.text not in h.line() and h.id == r.id and h.tokens == r.cost


def test_the_failure_line_counts_only_questions_that_reach_the_model():
    """Lesson 02: 100 runs of 4 questions make 300 turns, because the refused question never calls the model."""
    c = compare_loading(load_evidence_scenario(), failure_rate=0.1, trials=100, seed=2026)
    line, preload_line, late_line = c.table().splitlines()[-3:]
    assert "100 runs of each of the 3 questions that reach the model; 1 refused question left out" in line
    assert preload_line.split()[1:4] == ["0", "of", "300"]
    assert late_line.split()[1:4] == ["68", "of", "300"]


# --- a denial reveals nothing: no reason names a record the caller may not read ---------------------------------


def _stale_original_behind_a_wall():
    """The reviewer's case: a permitted copy (P-2) of an out-of-date original on K-7, whose successor is on K-7."""
    return [
        Record(
            "secret-k7-r3",
            "K-7",
            "old text",
            10,
            version="rev 3",
            document="man-k7",
            effective_date=dt.date(2020, 1, 1),
            superseded_by="secret-k7-r4",
        ),
        Record(
            "secret-k7-r4",
            "K-7",
            "new text",
            10,
            version="rev 4",
            document="man-k7",
            effective_date=dt.date(2025, 1, 1),
        ),
        Record("copy-p2", "P-2", "old text", 10, duplicate_of="secret-k7-r3"),
    ]


@pytest.mark.parametrize(("allowed", "named"), [(["P-2"], False), (["P-2", "K-7"], True)])
def test_a_copy_of_an_out_of_date_original_the_caller_may_not_read_is_refused_unnamed(allowed, named):
    tool = DocumentTool(
        _stale_original_behind_a_wall(), allowed_assets=allowed, observed_on="2026-01-01", max_tokens=100
    )
    result = tool("copy-p2")
    assert result.status is LoadStatus.NOT_IN_FORCE and result.record is None
    said = {rid for rid in ("secret-k7-r3", "secret-k7-r4", "man-k7") if rid in result.reason}
    assert said == ({"secret-k7-r3", "secret-k7-r4"} if named else set()), result.reason
    assert named or result.reason == "a copy of a source that is not in force on 2026-01-01"


@examples(300)
@given(walled_cases(), st.sampled_from([0, 10, 40]))
def test_no_reason_the_tool_gives_names_a_record_the_caller_may_not_read(case, max_tokens):
    """Whatever is asked for, the answer is told in words the caller may see: an unreadable id appears nowhere."""
    records, allowed = case
    tool = DocumentTool(records, allowed_assets=allowed, observed_on=OBSERVED_ON, max_tokens=max_tokens)
    for r in records:
        reason = tool(r.id).reason
        assert not unreadable_named(reason, records, allowed), (r.id, reason)
