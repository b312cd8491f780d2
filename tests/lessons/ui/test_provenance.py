"""The provenance panel, driven without a browser: every exclusion reason is reachable from the controls."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from botie.context.provenance import EvidenceStatus
from botie.lessons.content.scenarios import load_evidence_scenario
from botie.lessons.ui import provenance_panel
from tests.lessons.exercises.test_exercises_evidence import shortlist

STATUSES = tuple(s.value for s in EvidenceStatus)


@pytest.fixture(scope="module")
def scenario():
    return load_evidence_scenario()


@pytest.fixture
def panel(scenario):
    return provenance_panel(scenario)


def shown(panel) -> dict[str, tuple[str, str]]:
    """Each candidate's fate and status word as the panel displays them, by id."""
    found = {}
    for line in panel.result_text().splitlines():
        match = re.match(rf"^\d+ (\S+) \S+ [\d.]+ (survived|excluded) \S ({'|'.join(STATUSES)}) ", line)
        if match:
            found[match.group(1)] = (match.group(2), match.group(3))
    return found


def statuses(panel) -> dict[str, str]:
    return {rid: status for rid, (_, status) in shown(panel).items()}


def test_the_starting_scene_shows_six_reasons_and_the_pack(panel, scenario):
    s = statuses(panel)
    assert list(s) == [r.id for r in scenario.records]
    assert s["man-p2-r3-s3.2"] == "superseded"
    assert s["man-p2-r5-s3.2"] == "not_yet_effective"
    assert s["portal-p2-r4-s3.2"] == s["binder-p2-r4-s3.2"] == "duplicate"
    assert s["vendor-p2-seal-design"] == "not_permitted"
    assert s["man-p3-r1-s2"] == "below_floor"
    assert s["tkt-5521"] == "over_budget"
    assert s["man-p2-r4-t3.4-head"] == "selected"  # brought along below the floor
    text = panel.result_text()
    assert "pack: man-p2-r4-s3.2, forum-8812" in text and "(243 of 250 tokens)" in text
    assert "superseded by man-p2-r4-s3.2, in force since 2026-01-10" in text


def test_survived_or_excluded_is_said_in_words(panel):
    for rid, (fate, status) in shown(panel).items():
        assert fate == ("survived" if status == "selected" else "excluded"), rid


def test_a_smaller_budget_reaches_incomplete_and_not_considered(panel):
    panel.budget.value = 150
    s = statuses(panel)
    assert s["man-p2-r4-t3.4-m12"] == "incomplete"
    assert s["man-p2-r4-s3.2.1"] == "not_considered"
    assert "alone it would be misread" in panel.result_text()


def test_every_exclusion_reason_is_reachable(panel):
    """All but contradicted: it needs a source whose higher-tier rival is incomplete, which this scene has not."""
    seen = set(statuses(panel).values())
    panel.budget.value = 150
    seen |= set(statuses(panel).values())
    assert seen == set(STATUSES) - {"contradicted"}


def test_moving_the_date_changes_what_is_current(panel):
    panel.observed_on.value = dt.date(2026, 4, 1)
    s = statuses(panel)
    assert s["man-p2-r5-s3.2"] == "selected"
    assert s["man-p2-r4-s3.2"] == "superseded"
    panel.observed_on.value = dt.date(2025, 12, 31)
    s = statuses(panel)
    assert s["man-p2-r4-s3.2"] == "not_yet_effective" and s["man-p2-r3-s3.2"] != "superseded"


def test_allowing_the_vendor_file_lets_its_score_count(panel):
    panel.assets["VENDOR-P2"].value = True
    assert statuses(panel)["vendor-p2-seal-design"] == "selected"
    for box in panel.assets.values():
        box.value = False
    assert set(statuses(panel).values()) == {"not_permitted"}
    assert "refused:" in panel.result_text()


def test_conflicting_high_authority_sources_are_shown_together_and_flagged(panel):
    panel.question.value = 1
    text = panel.result_text()
    s = statuses(panel)
    assert s["man-p2-r4-s6.1"] == s["eng-bulletin-2026-02"] == "selected"
    assert "conflict (kept together, flagged)" in text
    assert "keep the flush line at 1.5 bar" in text and "keep the P-2 seal flush at 2.0 bar" in text


def test_a_question_nothing_answers_is_refused_before_any_model(panel):
    panel.question.value = 2
    text = panel.result_text()
    assert "refused: best score 0.11 is below the 0.35 floor" in text
    assert "selected" not in statuses(panel).values()
    panel.floor.value = 0.1
    assert "pack:" in panel.result_text()


def test_no_date_is_a_message_not_a_traceback(panel):
    panel.observed_on.value = None
    assert panel.error is not None and panel.selection is None
    assert "Pick an observation date" in panel.result_text()
    panel.observed_on.value = dt.date(2026, 3, 15)
    assert panel.error is None and statuses(panel)


def test_an_unexpected_failure_becomes_a_message(panel, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(type(panel.scenario), "select", broken)
    panel.floor.value = 0.4
    assert "RuntimeError: boom" in panel.result_text() and "not your fault" in panel.result_text()


def test_dom_contract(panel):
    assert {"botie-panel", "botie-provenance-panel"} <= set(panel.widget._dom_classes)
    assert "botie-result" in panel.result._dom_classes
    controls = {
        "question": panel.question,
        "observed-on": panel.observed_on,
        "floor": panel.floor,
        "budget": panel.budget,
    }
    controls.update({f"asset-{a}": box for a, box in panel.assets.items()})
    assert set(panel.assets) == {"P-2", "P-3", "VENDOR-P2"}
    for name, widget in controls.items():
        assert f"botie-control-{name}" in widget._dom_classes
        assert widget.description.strip()


# --- your function beside the reference (lesson 02a's shortlist plugged into the panel) ------------------


def _no_successor_check(candidates, allowed_assets, observed_on, k, register):
    """Wrong on purpose: forgets that a revision in force replaces the one before it (reads only its own date)."""
    kept = [r for r in candidates if r.asset in allowed_assets and r.effective_date <= observed_on]
    return [r.id for r in sorted(kept, key=lambda r: -r.score)[:k]]


def test_a_right_shortlist_shows_the_same_top_three_as_the_reference(scenario):
    panel = provenance_panel(scenario, yours=shortlist)
    assert panel.yours_box in panel.widget.children
    assert "= same Your function: same as the reference." in panel.yours_text()
    assert "man-p2-r4-s3.2, portal-p2-r4-s3.2, binder-p2-r4-s3.2" in panel.yours_text()


def test_moving_the_date_reruns_the_shortlist_and_shows_where_a_wrong_one_differs(scenario):
    days = []

    def counted(candidates, allowed_assets, observed_on, k, register):
        days.append(observed_on)
        return _no_successor_check(candidates, allowed_assets, observed_on, k, register)

    panel = provenance_panel(scenario, yours=counted)
    assert "only yours keeps man-p2-r3-s3.2" in panel.yours_text()
    panel.observed_on.value = dt.date(2026, 4, 1)
    assert days == [dt.date(2026, 3, 15), dt.date(2026, 4, 1)]
    # On 1 April rev 5 is in force and replaces rev 4 as well as rev 3; the wrong answer keeps both.
    assert "Your function differs: only yours keeps man-p2-r3-s3.2, man-p2-r4-s3.2;" in panel.yours_text()
    assert "differs" in panel.access.message


def test_a_shortlist_that_raises_is_a_message_and_no_date_calls_nothing(scenario):
    def broken(candidates, allowed_assets, observed_on, k, register):
        return sorted(candidates)  # records do not order: TypeError

    panel = provenance_panel(scenario, yours=broken)
    assert "Your function raised an error: TypeError: '<' not supported" in panel.yours_text()
    assert panel.error is None and "Traceback" not in panel.yours_text()
    panel.observed_on.value = None
    assert "not called, because no observation date is set" in panel.yours_text()


def test_a_strict_date_test_agrees_on_the_default_date_and_differs_on_the_day_rev_5_takes_effect(scenario):
    """The instructor guide's claim: `<` instead of `<=` shows only when the date moves to 2026-04-01."""
    panel = provenance_panel(scenario, yours=lambda *args: shortlist(*args, strict=True))
    assert "same as the reference" in panel.yours_text()
    panel.observed_on.value = dt.date(2026, 4, 1)
    assert "only the reference keeps man-p2-r5-s3.2" in panel.yours_text()


def test_a_lower_tier_conflict_is_labelled_flagged_and_sent_only_alongside_not_ordered(panel):
    panel.question.value = 0
    text = panel.result_text()
    assert statuses(panel)["note-anon-77"] == statuses(panel)["man-p2-r4-s3.2"] == "selected"
    assert "conflict (flagged, the lower tier sent only alongside):" in text
    assert "ordered by authority" not in text
