"""botie.lessons.content.scenarios: the scenes the panels and lessons start from."""

from __future__ import annotations

import pytest

from botie.actions.decision import StoredRequest, decide
from botie.errors import PolicyError
from botie.lessons.content.scenarios import attachments, stored_previous

PROPOSAL = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}


def test_the_lesson_attachments_are_41_documents_of_1_440_000_tokens():
    docs = attachments(41, 33_500, 100_000)
    assert len(docs) == 41 and sum(d.cost for d in docs) == 1_440_000
    assert docs[0].cost == 100_000 and {d.cost for d in docs[1:]} == {33_500}
    assert attachments(0, 10, 10) == ()


@pytest.mark.parametrize(("minutes", "stored"), [(20, 30), (50, 60), (51, 41), (60, 50), (1, 11)])
def test_a_different_stored_payload_differs_in_duration_only_and_stays_valid(minutes, stored):
    proposal = {**PROPOSAL, "duration_minutes": minutes}
    other = stored_previous(proposal, "different")
    assert other == {**proposal, "duration_minutes": stored}
    assert 1 <= other["duration_minutes"] <= 60


def test_each_stored_choice_leads_decide_to_its_branch():
    """none -> create, same -> reuse, different -> conflict, with approval for the proposal."""
    from botie.actions.decision import Approval

    branches = []
    for choice in ("none", "same", "different"):
        payload = stored_previous(PROPOSAL, choice)
        previous = None if payload is None else StoredRequest.settled(payload, "job-1")
        d = decide(
            PROPOSAL, caller="tech-1", allowed_assets=["P-2"], approval=Approval("tech-1", PROPOSAL), previous=previous
        )
        branches.append(str(d.branch))
    assert branches == ["create", "reuse", "conflict"]


def test_an_unknown_choice_names_the_field():
    with pytest.raises(PolicyError, match="choice must be one of none, same, different") as caught:
        stored_previous(PROPOSAL, "other")
    assert caught.value.field == "previous"
