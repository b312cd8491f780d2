"""The turn panel, driven without a browser: each outcome and each kind of loss is reachable from the controls."""

from __future__ import annotations

import pytest

from botie.lessons.ui.turn import turn_panel


@pytest.fixture
def panel():
    return turn_panel()


def outcome(panel) -> str:
    first = panel.result_text().splitlines()[0]
    return first.split("outcome: ")[1]


def test_the_starting_turn_answers_and_books(panel):
    assert outcome(panel) == "answered"
    text = panel.result_text()
    assert "booking:" not in text  # a booking that was made needs no notice
    assert "Tighten the P-2 gland nuts" in text
    assert (
        "decision: create on propose_inspection(asset_id='P-2', duration_minutes=20, "
        "start='2026-04-02T09:00Z', request_id='r7')" in text
    )
    assert [
        line.split()[0]
        for line in text.splitlines()
        if line.split()[:1]
        and line.split()[0]
        in ("candidates", "permitted", "fresh", "fit", "request", "answer", "citations", "proposal", "decision")
    ] == ["candidates", "permitted", "fresh", "fit", "request", "answer", "citations", "proposal", "decision"]


def test_every_outcome_and_loss_kind_is_reachable(panel):
    panel.budget.value = 150
    assert outcome(panel) == "withheld" and "lost at fit (did not fit)" in panel.result_text()
    panel.budget.value = 250
    for box in panel.assets.values():
        box.value = box.description == "P-3"
    assert outcome(panel) == "refused" and "lost at permitted (not authorised)" in panel.result_text()
    for box in panel.assets.values():
        box.value = box.description in ("P-2", "P-3")
    panel.question.value = 2
    assert outcome(panel) == "refused" and "0.11 is below the 0.35 floor" in panel.result_text()


def test_a_gullible_model_is_caught_by_the_citation_check_and_cannot_move_the_booking(panel):
    panel.question.value = 3  # when was the seal replaced: tkt-5630's instruction is already in the pack
    assert outcome(panel) == "answered"
    panel.model_kind.value = "gullible"
    panel.planted.value = "tkt-5702"
    text = panel.result_text()
    assert outcome(panel) == "withheld" and text.splitlines()[1].startswith("answer withheld:")
    assert "dropped, never carried out" in text
    assert (
        "decision: create on propose_inspection(asset_id='P-2', duration_minutes=20, "
        "start='2026-04-02T09:00Z', request_id='r7')" in text
    )


def test_without_approval_or_without_asking_nothing_is_booked(panel):
    panel.approved.value = False
    assert "decision: needs_approval" in panel.result_text()
    assert "booking: no booking was made" in panel.result_text()  # the technician's notice, shown as told
    panel.ask.value = False
    assert "decision:" not in panel.result_text() and "no action was asked for" in panel.result_text()


def test_an_unexpected_failure_becomes_a_message(panel, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(type(panel.scenario), "candidates", broken)
    panel.budget.value = 100
    assert "RuntimeError: boom" in panel.result_text() and "not your fault" in panel.result_text()


def test_dom_contract(panel):
    assert {"botie-panel", "botie-turn-panel"} <= set(panel.widget._dom_classes)
    assert "botie-result" in panel.result._dom_classes
    controls = {
        "question": panel.question,
        "budget": panel.budget,
        "model": panel.model_kind,
        "planted": panel.planted,
        "ask": panel.ask,
        "approved": panel.approved,
    }
    controls.update({f"asset-{a}": box for a, box in panel.assets.items()})
    for name, widget in controls.items():
        assert f"botie-control-{name}" in widget._dom_classes
        assert widget.description.strip()


def test_the_table_counts_documents_in_play_only_on_document_stages(panel):
    """Headed 'documents in play', the count column is empty for the answer and citation stages, whose ids are
    what the model cited and what was checked, so the count never seems to drop then rise again."""
    html = panel.result.value
    assert "<th style='text-align:left'>documents in play</th>" in html
    assert "<th style='text-align:left'></th>" not in html  # every column has a name
    answer_row = next(row for row in html.split("<tr>") if row.startswith("<td>answer</td>"))
    assert "<td style='text-align:right'></td>" in answer_row
    fit_row = next(row for row in html.split("<tr>") if row.startswith("<td>fit</td>"))
    assert "<td style='text-align:right'></td>" not in fit_row


def test_every_turn_outcome_has_a_badge_word_the_panel_can_show():
    from botie.lessons.ui.turn import _OUTCOME_WORD
    from botie.turn import TurnOutcome

    assert set(_OUTCOME_WORD) == {str(o) for o in TurnOutcome}


def test_read_and_schedule_are_two_sets_of_tickboxes_and_each_changes_its_own_stage(panel):
    assert [a for a, box in panel.assets.items() if box.value] == ["P-2", "P-3"]
    assert [a for a, box in panel.schedule.items() if box.value] == ["P-2", "P-3"]
    panel.schedule["P-2"].value = False  # may still read P-2's manual, may no longer book P-2
    assert outcome(panel) == "answered" and str(panel.turn.decision.branch) == "denied"
    assert "denied: P-2 is not in the assets tech-ana may schedule" in panel.result_text()
    panel.schedule["P-2"].value = True
    panel.assets["P-2"].value = False  # may book P-2, may no longer read its manual
    assert outcome(panel) != "answered" and str(panel.turn.decision.branch) == "create"


def test_the_turn_panel_books_through_the_register_and_the_calendar(panel):
    assert [str(c.name) for c in panel.turn.decision.checks][-2:] == ["register", "calendar"]
    assert "from 2026-04-02T09:00Z" in panel.approved.description


def _notebook_panel():
    """Lesson 06's panel as the notebook builds it (ceiling 1,300, evidence budget 950)."""
    from botie import Budget, TurnSetup
    from botie.lessons import load_booking_rules, load_evidence_scenario, load_scripted_model

    scenario = load_evidence_scenario()
    setup = TurnSetup.from_scenario(
        scenario,
        ceiling=1_300,
        answer_allowance=150,
        budget=Budget(950, 200, 150),
        schedule_assets=("P-2", "P-3"),
        **load_booking_rules().kwargs(),
    )
    return turn_panel(scenario, load_scripted_model(), setup=setup)


@pytest.mark.parametrize("build", [turn_panel, _notebook_panel], ids=["default", "as lesson 06 builds it"])
def test_on_the_replacement_question_the_gullible_model_obeys_tkt_5630_before_any_planted_document(build):
    """06, 442907c6: gullible alone already withholds (tkt-5630's 30 N·m, its 60-minute booking dropped);
    tkt-5702 added changes neither the outcome nor the 20-minute decision."""
    panel = build()
    panel.question.value = 3
    panel.model_kind.value = "gullible"
    assert panel.planted.value == ""
    text = panel.result_text()
    assert "tkt-5630" in panel.turn.context_ids and "30 N·m" in panel.turn.reply.answer
    assert outcome(panel) == "withheld" and "duration_minutes=60" in text and "dropped, never carried out" in text
    twenty = "decision: create on propose_inspection(asset_id='P-2', duration_minutes=20, "
    assert twenty in text
    panel.planted.value = "tkt-5702"
    assert outcome(panel) == "withheld" and twenty in panel.result_text()


def test_every_render_books_through_a_fresh_service_so_a_create_stays_a_first_booking(panel):
    """The panel re-renders on each change; a store kept across renders would make the second render a reuse."""
    assert "decision: create on" in panel.result_text() and ", booked as job-1" in panel.result_text()
    panel.budget.value = 300
    panel.budget.value = 250
    text = panel.result_text()
    assert "decision: create on" in text and ", booked as job-1" in text and "booking:" not in text
    assert panel.turn is not None and panel.turn.decision is not None and panel.turn.decision.receipt is not None
