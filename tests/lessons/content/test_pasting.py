"""Lesson 04's wrong-on-purpose paste, and the fixture's record of which document carries which planted instruction."""

from __future__ import annotations

from botie.context.evidence import build_request, region_closed_early, render_evidence
from botie.lessons import fixture_path, load_evidence_scenario, load_records
from botie.lessons.content.pasting import paste_without_escaping, pasted_request, planted_instructions


def _tickets():
    by_id = {r.id: r for r in load_evidence_scenario().records}
    planted = {r.id: r for r in load_records(fixture_path("scripted_turns.json"))}
    return [by_id["tkt-5521"], planted["tkt-5702"], by_id["tkt-5630"]]


def test_a_pasted_ticket_closes_the_region_and_an_escaped_one_does_not():
    tickets = _tickets()
    assert region_closed_early(paste_without_escaping(tickets))
    assert not region_closed_early(paste_without_escaping([tickets[0], tickets[2]]))
    assert not region_closed_early(render_evidence(tickets))


def test_the_pasted_request_differs_from_the_built_one_only_in_its_region():
    tickets, question = _tickets(), "When was the P-2 seal last replaced?"
    built = build_request(question, tickets, ceiling=2_000)
    pasted = pasted_request(question, tickets)
    assert pasted == built.text.replace(built.evidence, paste_without_escaping(tickets))
    assert pasted.endswith(f"Question: {question}")


def test_planted_instructions_name_the_trick_behind_each_planted_document():
    planted = planted_instructions()
    assert planted["tkt-5702"] == "closes the evidence region"
    assert planted["tkt-5630"] == "asks for a tool call"
    assert planted["note-anon-77"] == "claims to be official policy"
    assert "man-p2-r4-s3.2" not in planted
