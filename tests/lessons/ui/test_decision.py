"""The decision panel, driven without a browser: every branch is reachable from the controls."""

from __future__ import annotations

import re

import pytest

from botie.lessons.ui import decision_panel
from tests.lessons.exercises.test_yours import approval_before_permission

BRANCHES = ("invalid", "denied", "needs_approval", "create", "reuse", "conflict", "unknown_asset", "window_unavailable")


@pytest.fixture
def panel():
    return decision_panel()


def shown_branch(panel) -> str:
    match = re.search(r"branch: (\w+)", panel.result_text())
    assert match, panel.result_text()
    return match.group(1)


def shown_path(panel) -> list[tuple[str, str]]:
    """(check, verdict) for each row of the displayed path, in order."""
    rows = re.findall(
        r"^\d (validation|permission|approval|idempotency|register|calendar) \S (passed|failed|not_reached) ",
        panel.result_text(),
        flags=re.M,
    )
    return rows


def approve(panel, actor=None):
    if actor is not None:
        panel.approval_actor.value = actor
    panel.approved.value = True


def _set(control, value):
    control.value = value


SETUPS = {
    "invalid": lambda p: _set(p.duration, 0),
    "denied": lambda p: (approve(p), _set(p.asset, "K-7")),
    "needs_approval": lambda p: None,
    "create": lambda p: approve(p),
    "reuse": lambda p: (approve(p), _set(p.previous, "same")),
    "conflict": lambda p: (approve(p), _set(p.previous, "different")),
    "unknown_asset": lambda p: (approve(p), _set(p.register["P-2"], False)),
    "window_unavailable": lambda p: (approve(p), _set(p.calendar, "taken")),
}
UNASKED = [("register", "not_reached"), ("calendar", "not_reached")]
PASSED = [("validation", "passed"), ("permission", "passed"), ("approval", "passed"), ("idempotency", "passed")]

PATHS = {
    "invalid": [
        ("validation", "failed"),
        ("permission", "not_reached"),
        ("approval", "not_reached"),
        ("idempotency", "not_reached"),
        *UNASKED,
    ],
    "denied": [
        ("validation", "passed"),
        ("permission", "failed"),
        ("approval", "not_reached"),
        ("idempotency", "not_reached"),
        *UNASKED,
    ],
    "needs_approval": [
        ("validation", "passed"),
        ("permission", "passed"),
        ("approval", "failed"),
        ("idempotency", "not_reached"),
        *UNASKED,
    ],
    "create": [*PASSED, ("register", "passed"), ("calendar", "passed")],
    "reuse": [*PASSED, *UNASKED],
    "conflict": [*PASSED[:3], ("idempotency", "failed"), *UNASKED],
    "unknown_asset": [*PASSED, ("register", "failed"), ("calendar", "not_reached")],
    "window_unavailable": [*PASSED, ("register", "passed"), ("calendar", "failed")],
}


@pytest.mark.parametrize("branch", BRANCHES)
def test_every_branch_is_reachable_and_shows_its_path(panel, branch):
    SETUPS[branch](panel)
    assert shown_branch(panel) == branch
    assert f"branch: {branch}" in panel.result_text()
    assert shown_path(panel) == PATHS[branch]
    assert panel.error is None


def test_the_default_is_waiting_for_approval(panel):
    assert shown_branch(panel) == "needs_approval"
    assert "no approval is recorded" in panel.result_text()


def test_reuse_names_the_earlier_job_and_conflict_keeps_it(panel):
    approve(panel)
    panel.previous.value = "same"
    assert "r7 already created job-1" in panel.result_text()
    assert "receipt: job-1" in panel.result_text()
    panel.previous.value = "different"
    text = panel.result_text()
    assert "duration_minutes=30 but the proposal says 20" in text
    assert "receipt" not in text


def test_an_old_approval_does_not_cover_a_changed_proposal(panel):
    approve(panel)
    assert shown_branch(panel) == "create"
    panel.duration.value = 45
    assert shown_branch(panel) == "needs_approval"
    assert "recorded for duration_minutes=20 but the proposal says 45" in panel.result_text()
    panel.approved.value = False  # approve again, for the proposal as it is now
    panel.approved.value = True
    assert shown_branch(panel) == "create"
    assert "duration_minutes=45" in panel.inputs.value


def test_an_approval_by_someone_else_is_not_the_callers(panel):
    approve(panel, actor="sup-lee")
    assert shown_branch(panel) == "needs_approval"
    assert "recorded by sup-lee, not by the caller tech-ana" in panel.result_text()


def test_a_denied_result_reveals_nothing_stored(panel):
    approve(panel)
    panel.previous.value = "same"
    panel.asset.value = "K-7"
    assert shown_branch(panel) == "denied"
    assert "job-1" not in panel.result_text()
    assert "nothing stored under this request id was read" in panel.result_text()


@pytest.mark.parametrize(
    ("control", "value", "field"),
    [("duration", 61, "duration_minutes"), ("asset", "", "asset_id"), ("request_id", "", "request_id")],
)
def test_invalid_fields_are_named_for_repair(panel, control, value, field):
    panel.previous.value = "same"
    getattr(panel, control).value = value
    assert shown_branch(panel) == "invalid"
    assert f"{field}:" in panel.result_text()
    assert panel.error is None


def test_an_unexpected_failure_becomes_a_message(panel, monkeypatch):
    import botie.actions.decision

    def broken(*args, **kwargs):
        raise RuntimeError("store offline")

    monkeypatch.setattr(botie.actions.decision, "decide", broken)
    panel.duration.value = 30  # must not raise
    assert "RuntimeError: store offline" in panel.result_text()


def test_caller_and_allowed_assets_are_shown():
    panel = decision_panel(caller="tech-bo", allowed_assets=["K-7"])
    shown = panel.widget.children[0].value
    assert "tech-bo" in shown and "schedule" in shown
    assert [asset for asset, box in panel.schedule.items() if box.value] == ["K-7"]
    assert "tech-bo may schedule: K-7" in panel.inputs.value
    assert shown_branch(panel) == "denied"  # P-2 is not in tech-bo's list


def test_dom_contract(panel):
    assert {"botie-panel", "botie-decision-panel"} <= set(panel.widget._dom_classes)
    assert "botie-result" in panel.result._dom_classes
    controls = {
        "asset": panel.asset,
        "duration": panel.duration,
        "request-id": panel.request_id,
        "approved": panel.approved,
        "approval-actor": panel.approval_actor,
        "previous": panel.previous,
    }
    for name, widget in controls.items():
        assert f"botie-control-{name}" in widget._dom_classes
        assert widget.description.strip()


# --- your function beside the reference (lesson 05's choose_branch plugged into the panel) --------------


def test_choose_branch_is_shown_beside_decide_and_rerun_on_every_change():
    seen = []

    def counted(proposal, **kwargs):
        seen.append(proposal["asset_id"])
        return approval_before_permission(proposal, **kwargs)

    panel = decision_panel(yours=counted)
    assert "needs_approval needs_approval" in panel.yours_text()
    assert "same as the reference" in panel.yours_text()
    panel.asset.value = "K-7"  # not approved, not permitted: the order of the two checks decides
    assert seen == ["P-2", "K-7"]
    assert "Your function differs: yours says needs_approval, the reference says denied." in panel.yours_text()
    assert panel.access.message.endswith("the reference says denied.")


def test_an_invalid_proposal_does_not_reach_choose_branch(panel):
    calls = []

    def yours(proposal, **kwargs):
        calls.append(proposal)
        return "create"

    panel = decision_panel(yours=yours)
    panel.duration.value = 0
    assert len(calls) == 1
    assert "not asked. The proposal is invalid" in panel.yours_text()


def test_a_choose_branch_that_raises_is_a_message_not_a_traceback():
    panel = decision_panel(yours=lambda proposal, **kwargs: proposal["asset"])
    assert "Your function raised an error: KeyError: 'asset'" in panel.yours_text()
    assert panel.error is None and shown_branch(panel) == "needs_approval"


@pytest.mark.parametrize(
    ("move", "branch"),
    [
        (lambda p: _set(p.schedule["P-2"], False), "denied"),
        (lambda p: _set(p.register["P-2"], False), "unknown_asset"),
        (lambda p: _set(p.calendar, "taken"), "window_unavailable"),
    ],
)
def test_from_create_one_move_reaches_denied_unknown_asset_and_window_unavailable(panel, move, branch):
    approve(panel)
    assert shown_branch(panel) == "create"
    move(panel)
    assert shown_branch(panel) == branch and panel.error is None


def test_an_asset_outside_the_schedule_scope_is_denied_whether_or_not_the_register_lists_it(panel):
    approve(panel)
    panel.schedule["P-2"].value = False
    listed = panel.result_text()
    panel.register["P-2"].value = False
    assert panel.result_text().replace("P-2", "X") == listed.replace("P-2", "X")
    assert shown_branch(panel) == "denied" and "asset register" not in panel.decision.reason


def test_a_taken_window_and_a_start_outside_every_window_say_why_and_a_retry_still_reuses(panel):
    approve(panel)
    panel.calendar.value = "taken"
    assert "overlaps a visit already booked on P-2" in panel.result_text()
    panel.previous.value = "same"
    assert shown_branch(panel) == "reuse"  # the stored request comes before the calendar
    panel.previous.value = "none"
    panel.calendar.value = "fixture"
    panel.start_at.value = "2026-04-02T13:00Z"
    panel.approved.value = False
    panel.approved.value = True
    assert shown_branch(panel) == "window_unavailable"
    assert "no maintenance window of P-2 covers 2026-04-02 13:00-13:20 UTC" in panel.result_text()


def test_a_malformed_start_is_a_field_to_repair(panel):
    panel.start_at.value = "2 April, 9am"
    assert shown_branch(panel) == "invalid" and "start: start must be a real UTC time" in panel.result_text()


def test_without_a_calendar_its_check_is_left_out(panel):
    approve(panel)
    panel.calendar.value = "none"
    assert shown_branch(panel) == "create"
    assert shown_path(panel)[-1] == ("register", "passed")
