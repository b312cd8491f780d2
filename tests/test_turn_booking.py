"""The turn's decision stage books through an injected InspectionService: the stored request decides reuse and
conflict, a create books a job, and without a service the turn says that nothing was booked."""

from __future__ import annotations

import datetime as dt

import pytest

from botie.actions.decision import Approval, StoredRequest
from botie.actions.service import InspectionService
from botie.actions.stores.memory import MemoryStore
from botie.actions.stores.sqlite import SQLiteStore
from botie.context.budget import Budget
from botie.errors import DecisionError, SettingError
from botie.lessons.content.business import load_booking_rules
from botie.lessons.content.scenarios import load_evidence_scenario
from botie.lessons.content.scripted import ActionScript, load_scripted_model
from botie.model import ToolProposal
from botie.turn import ActionRequest, Stage, StageStatus, TurnSetup, run_turn

R7 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}


def _nine() -> dt.datetime:
    return dt.datetime(2026, 3, 15, 9, tzinfo=dt.timezone.utc)


@pytest.fixture(scope="module")
def scenario():
    return load_evidence_scenario()


@pytest.fixture(scope="module")
def model():
    return load_scripted_model()


@pytest.fixture
def setup(scenario):
    return TurnSetup.from_scenario(
        scenario, ceiling=1_300, answer_allowance=150, budget=Budget(950, 200, 150), schedule_assets=("P-2", "P-3")
    )


def _service(store=None, **rules):
    return InspectionService(store or MemoryStore(), clock=_nine, **(rules or load_booking_rules().kwargs()))


def _asking(payload, caller="tech-ana"):
    """A model that proposes ``payload`` (the scripted model's own action, with these arguments)."""
    return ActionRequest(f"book {payload['request_id']}", Approval(caller, payload))


def _turn(scenario, setup, model, payload=R7, service=None, caller="tech-ana"):
    actions = {f"book {payload['request_id']}": ActionScript(ToolProposal("propose_inspection", dict(payload)))}
    return run_turn(scenario.questions[0].question, scenario.candidates(0), setup.with_(caller=caller),
                    model.with_(actions=actions), action=_asking(payload, caller), service=service)  # fmt: skip


def test_the_same_turn_twice_creates_then_reuses_one_job(scenario, setup, model):
    service = _service()
    first, second = (_turn(scenario, setup, model, service=service) for _ in range(2))
    assert first.decision is not None and second.decision is not None
    assert (str(first.decision.branch), str(second.decision.branch)) == ("create", "reuse")
    assert first.decision.tool_result()["job_id"] == second.decision.tool_result()["job_id"] == "job-1"
    assert [job.job_id for job in service.store.jobs()] == ["job-1"]
    assert first.action_notice is None and second.action_notice is None
    assert first.stage(Stage.DECISION).detail.endswith("; booked job-1")


def test_a_sqlite_store_reuses_the_job_across_two_services_on_the_same_file(scenario, setup, model, tmp_path):
    """A retry after a restart: a new service on the same file reads what the first one stored."""
    path = tmp_path / "keys.db"
    first = _turn(scenario, setup, model, service=_service(SQLiteStore(path)))
    again = _turn(scenario, setup, model, service=_service(SQLiteStore(path)))
    assert first.decision is not None and again.decision is not None
    assert str(again.decision.branch) == "reuse" and again.decision.receipt == first.decision.receipt


def test_a_changed_payload_under_the_same_request_id_is_a_conflict_and_books_nothing_new(scenario, setup, model):
    service = _service()
    _turn(scenario, setup, model, service=service)
    longer = _turn(scenario, setup, model, {**R7, "duration_minutes": 30}, service)
    assert longer.decision is not None and str(longer.decision.branch) == "conflict"
    assert longer.stage(Stage.DECISION).status is StageStatus.FAILED
    assert longer.action_notice is not None and longer.action_notice.startswith("no booking was made: conflict")
    assert len(service.store.jobs()) == 1


@pytest.mark.parametrize(
    ("payload", "caller"),
    [
        ({**R7, "request_id": "r8", "start": "2026-04-02T09:30Z"}, "tech-ana"),
        ({**R7, "start": "2026-04-02T09:30Z"}, "tech-bo"),
    ],
)
def test_another_request_id_or_another_caller_s_r7_is_a_second_job(scenario, setup, model, payload, caller):
    service = _service()
    _turn(scenario, setup, model, service=service)
    other = _turn(scenario, setup, model, payload, service, caller)
    assert other.decision is not None and str(other.decision.branch) == "create"
    assert other.decision.receipt is not None and other.decision.receipt.job_id == "job-2"


def test_the_service_s_rules_are_the_ones_applied(scenario, setup, model):
    """The setup carries no register; the service's, which lacks P-2, refuses the booking."""
    service = _service(asset_register=frozenset({"P-3"}))
    turn = _turn(scenario, setup, model, service=service)
    assert turn.decision is not None and str(turn.decision.branch) == "unknown_asset"
    assert service.store.jobs() == ()


def test_without_a_service_a_create_is_decided_not_booked_and_the_notice_says_so(scenario, setup, model):
    turn = _turn(scenario, setup, model)
    assert turn.decision is not None and str(turn.decision.branch) == "create" and turn.decision.receipt is None
    assert turn.action_notice == "decided create; nothing was booked: this turn was given no booking service"
    assert turn.stage(Stage.DECISION).detail.endswith("nothing was booked: this turn was given no booking service")
    with pytest.raises(DecisionError, match="no job yet"):
        turn.decision.tool_result()


class NeverAsked:
    def reply(self, request):
        raise AssertionError("the model was called")


def test_a_service_with_a_previous_of_the_caller_s_own_is_refused_before_any_model_is_asked(scenario, setup):
    action = ActionRequest("book r7", Approval("tech-ana", R7), StoredRequest.settled(R7, "job-9"))
    with pytest.raises(SettingError, match="previous") as caught:
        run_turn("q", scenario.candidates(0), setup, NeverAsked(), action=action, service=_service())
    assert caught.value.field == "previous"


@pytest.mark.parametrize("name", ["asset_register", "calendar"])
def test_a_setup_whose_rules_differ_from_the_service_s_is_refused_naming_both(scenario, setup, name):
    other = load_booking_rules().kwargs()
    other["asset_register"] = frozenset({"K-7"}) if name == "asset_register" else other["asset_register"]
    if name == "calendar":
        other["calendar"] = type(other["calendar"])()  # no windows at all
    with pytest.raises(SettingError, match=f"setup.{name} .* differs from the booking service's {name}") as caught:
        run_turn("q", scenario.candidates(0), setup.with_(**other), NeverAsked(), service=_service())
    assert caught.value.field == name


def test_a_setup_repeating_the_service_s_own_rules_is_accepted(scenario, setup, model):
    rules = load_booking_rules().kwargs()
    service = _service(**rules)
    turn = _turn(scenario, setup.with_(**rules), model, service=service)
    assert turn.decision is not None and turn.decision.receipt is not None


def test_an_unconfirmed_booking_is_told_as_not_confirmed_never_as_booked(scenario, setup, model):
    def failing(order):
        raise TimeoutError("the scheduler did not answer")

    service = InspectionService(MemoryStore(), clock=_nine, downstream=failing, **load_booking_rules().kwargs())
    turn = _turn(scenario, setup, model, service=service)
    assert turn.decision is not None and str(turn.decision.branch) == "unavailable"
    assert turn.action_notice is not None and turn.action_notice.startswith("the booking is not confirmed: unavailable")
