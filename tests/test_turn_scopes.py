"""A turn's two scopes (what the caller may read, what they may schedule) and the business rules before booking."""

from __future__ import annotations

import pytest

from botie.actions.decision import Approval
from botie.context.budget import Budget
from botie.errors import SettingError
from botie.lessons.content.business import load_booking_rules
from botie.lessons.content.scenarios import load_evidence_scenario
from botie.lessons.content.scripted import load_scripted_model
from botie.turn import ActionRequest, Stage, StageStatus, TurnOutcome, TurnSetup, action_instructions, run_turn

PAYLOAD = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
MESSAGE = "Please book a 20-minute inspection of P-2 from 09:00 UTC on 2 April 2026 (2026-04-02T09:00Z) (request r7)."
ACTION = ActionRequest(MESSAGE, Approval("tech-ana", PAYLOAD))


@pytest.fixture(scope="module")
def scenario():
    return load_evidence_scenario()


@pytest.fixture(scope="module")
def model():
    return load_scripted_model()


@pytest.fixture
def setup(scenario):
    return TurnSetup.from_scenario(scenario, budget=Budget(900, 200, 150), schedule_assets=("P-2", "P-3"))


def _turn(scenario, setup, model, action=ACTION):
    q = scenario.questions[0]
    return run_turn(q.question, scenario.candidates(0), setup, model, action=action, needed=q.answered_by)


def test_a_caller_who_may_read_p2_but_not_schedule_it_gets_the_answer_and_a_denial(scenario, setup, model):
    r = _turn(scenario, setup.with_(schedule_assets=("P-3",)), model)
    assert r.outcome is TurnOutcome.ANSWERED and any(i.startswith("man-p2") for i in r.context_ids)
    assert str(r.decision.branch) == "denied" and r.decision.reason == "P-2 is not in the assets tech-ana may schedule"
    assert r.stage(Stage.DECISION).status is StageStatus.FAILED


def test_a_caller_who_may_schedule_p2_but_not_read_it_books_without_reading(scenario, setup, model):
    r = _turn(scenario, setup.with_(allowed_assets=("P-3",), schedule_assets=("P-2",)), model)
    assert not any(i.startswith("man-p2") for i in r.context_ids)
    assert r.outcome is TurnOutcome.REFUSED
    assert str(r.decision.branch) == "create"


def test_the_action_request_states_the_schedule_scope_not_the_read_scope(setup):
    text = action_instructions(setup.with_(schedule_assets=("P-3",)))
    assert text.endswith("Signed in: tech-ana. May schedule: P-3.")
    assert action_instructions(setup.with_(schedule_assets=())).endswith("May schedule: nothing.")


def test_without_a_schedule_scope_the_caller_may_schedule_nothing_whatever_they_read(setup):
    # Reading a manual never grants booking its asset: the read scope is not a default for the schedule scope.
    for read in (("P-2", "P-3"), ("P-3",), ()):
        narrowed = setup.with_(allowed_assets=read, schedule_assets=None)
        assert narrowed.schedule_assets is None and narrowed.may_schedule == ()
    assert setup.with_(schedule_assets=["P-3"]).schedule_assets == ("P-3",)
    with pytest.raises(TypeError):
        setup.with_(schedule_assets="P-3")


class _NeverAsked:
    def reply(self, request):  # the refusal comes before any request
        raise AssertionError("the model was asked")


@pytest.mark.parametrize("read", [("P-2", "P-3"), ("P-2",), ()])
def test_an_action_with_no_schedule_scope_is_refused_naming_the_field_before_any_model_is_asked(scenario, setup, read):
    unscoped = setup.with_(allowed_assets=read, schedule_assets=None)
    with pytest.raises(SettingError) as raised:
        _turn(scenario, unscoped, _NeverAsked())
    assert raised.value.field == "schedule_assets" and "schedule_assets" in str(raised.value)
    # The same setup runs a question with no action: only an action needs the scope.
    q = scenario.questions[0]
    plain = run_turn(q.question, scenario.candidates(0), unscoped, load_scripted_model())
    assert plain.decision is None and plain.stage(Stage.DECISION).status is StageStatus.SKIPPED


@pytest.mark.parametrize(("schedule", "branch"), [(("P-2", "P-3"), "create"), (("P-3",), "denied"), ((), "denied")])
def test_reading_only_p3_answers_nothing_about_p2_and_books_p2_only_if_it_is_scheduled(
    scenario, setup, model, schedule, branch
):
    r = _turn(scenario, setup.with_(allowed_assets=("P-3",), schedule_assets=schedule), model)
    assert not any(i.startswith("man-p2") for i in r.context_ids) and r.outcome is TurnOutcome.REFUSED
    assert str(r.decision.branch) == branch


def test_the_turn_applies_the_register_and_the_calendar_from_its_setup(scenario, setup, model):
    rules = load_booking_rules()
    booked = _turn(scenario, setup.with_(**rules.kwargs()), model)
    assert str(booked.decision.branch) == "create"
    assert [str(c.name) for c in booked.decision.checks][-2:] == ["register", "calendar"]
    unknown = _turn(scenario, setup.with_(asset_register=frozenset({"P-3"}), calendar=rules.calendar), model)
    assert str(unknown.decision.branch) == "unknown_asset"
    # The scripted model proposes 09:00; a calendar whose 09:00 is taken refuses it.
    taken = type(rules.calendar)(rules.calendar.windows, {"P-2": rules.calendar.windows["P-2"][:1]})
    busy = _turn(scenario, setup.with_(asset_register=rules.register, calendar=taken), model)
    assert str(busy.decision.branch) == "window_unavailable"
    assert busy.stage(Stage.DECISION).detail.startswith("window_unavailable: 2026-04-02 09:00-09:20 UTC overlaps")
