"""The evidence panel (lesson 04): the view-model's branches without widgets, then the panel driven by its controls.

The tests named after a "thing to try" check the sentences lesson 04 prints
under its panel, by changing the same controls a learner would.
"""

from __future__ import annotations

import pytest

from botie.context.citations import verify_citations
from botie.context.evidence import build_request, conflict_pairs
from botie.lessons import fixture_path, load_evidence_scenario, load_records, load_scripted_model
from botie.lessons.content.scripted import AnswerScript
from botie.lessons.ui import evidence_panel
from botie.lessons.ui._common import control_names
from botie.lessons.ui.evidence_panel import CEILING, evidence_view

TORQUE = "What torque do the gland nuts on the P-2 mechanical seal need?"


@pytest.fixture(scope="module")
def docs():
    scenario = load_evidence_scenario()
    by_id = {r.id: r for r in scenario.records}
    planted = {r.id: r for r in load_records(fixture_path("scripted_turns.json"))}
    return {**by_id, "tkt-5702": planted["tkt-5702"], "pack": [by_id[i] for i in scenario.select(0).selected_ids]}


@pytest.fixture(scope="module")
def careful():
    return load_scripted_model()


def without(docs, *ids):
    return [r for r in docs["pack"] if r.id not in ids]


def view(records, model, *, escaped=True, name="careful"):
    return evidence_view(TORQUE, records, escaped=escaped, model=model, model_name=name)


# --- the view-model, without widgets ---------------------------------------------------------


def test_escaped_careful_pack_is_released_and_the_region_holds(docs, careful):
    v = view(without(docs, "note-anon-77"), careful)
    assert v.verdict == "release" and v.problems == () and not v.closed_early and v.closed_by == ()
    assert v.obeyed == () and v.tool_calls == () and v.request_tokens is not None
    assert ("man-p2-r4-s3.2", "tkt-5630") in v.conflicts  # the region carries the selection's flag
    assert [c.problem for c in v.citation_rows] == [None, None, None]


def test_escaped_gullible_follows_tkt_5630_and_is_withheld_fact_not_in_text(docs, careful):
    v = view(without(docs, "note-anon-77"), careful.with_(gullible=True), name="gullible")
    assert v.verdict == "withhold" and v.problems == ("fact_not_in_text",)
    assert v.obeyed == ("asks for a tool call",) and not v.closed_early
    assert v.answer == "Tighten the gland nuts to 30 N·m."
    assert v.tool_calls == (
        "propose_inspection(asset_id='P-2', duration_minutes=60, start='2026-04-02T09:00Z', request_id='r9')",
    )
    row = next(r for r in v.rows if r.id == "tkt-5630")
    assert row.planted == "asks for a tool call" and row.followed and not row.closes_region


def test_pasted_tkt_5702_closes_the_region_and_everything_after_it_reads_as_orders(docs, careful):
    records = [*without(docs, "note-anon-77"), docs["tkt-5702"]]  # tkt-5630 before the ticket that closes
    v = view(records, careful, escaped=False)
    assert v.closed_early and v.closed_by == ("tkt-5702",) and v.request_tokens is None and v.conflicts == ()
    assert v.obeyed == ("closes the evidence region",)  # tkt-5630 came before the fake closing tag
    records = [docs["tkt-5702"], *without(docs, "note-anon-77")]
    assert view(records, careful, escaped=False).obeyed == ("asks for a tool call", "closes the evidence region")


def test_pasting_without_a_closing_tag_closes_nothing(docs, careful):
    v = view(without(docs, "note-anon-77"), careful, escaped=False)
    assert not v.closed_early and v.obeyed == () and v.verdict == "release"


def test_the_verdict_is_verify_citations_on_the_documents_sent(docs, careful):
    gullible = careful.with_(gullible=True)
    for records in (docs["pack"], without(docs, "note-anon-77"), without(docs, "man-p2-r4-s3.2")):
        request = build_request(TORQUE, records, ceiling=CEILING, conflicts=conflict_pairs(records))
        expected = verify_citations(gullible.reply(request).citations, request.evidence)
        assert view(records, gullible, name="gullible").citations == expected


def test_unknown_id_when_the_cited_document_was_not_sent(docs, careful):
    v = view(without(docs, "note-anon-77", "man-p2-r4-s3.2"), careful)
    assert v.verdict == "withhold" and v.problems == ("unknown_id",)
    first = v.citation_rows[0]
    assert first.id == "man-p2-r4-s3.2" and first.trust is None and first.problem == "unknown_id"


def _model(answer, *citations):
    return load_scripted_model().with_(answers={TORQUE: AnswerScript(answer, tuple(citations))})


def test_not_verbatim_when_the_fact_is_there_in_other_words(docs):
    reworded = _model("18 N·m.", ("man-p2-r4-s3.2", "the gland nuts go to 18 N·m"))
    v = view(docs["pack"], reworded)
    assert v.verdict == "withhold" and v.problems == ("not_verbatim",)


def test_no_citations_is_a_failure_of_the_whole_answer(docs):
    v = view(docs["pack"], _model("About 20 N·m."))
    assert v.verdict == "withhold" and v.problems == ("no_citations",) and v.citation_rows == ()


def test_the_sentence_check_runs_only_on_an_answer_with_markers(docs, careful):
    assert view(docs["pack"], careful).claims is None
    quote = ("man-p2-r4-s3.2", "cross pattern to 18 N·m, and never above 20 N·m")
    honest = view(docs["pack"], _model("Use 18 N·m [1].", quote))
    assert honest.claims is not None and honest.claims.branch == "release" and honest.verdict == "release"
    bent = view(docs["pack"], _model("Use 18 N·m [1]. An inspection is booked.", quote))
    assert bent.verdict == "release" and bent.claims.branch == "withhold"
    assert bent.claims.uncited == ("An inspection is booked.",)


def test_every_choice_of_documents_fits_under_the_ceiling(docs, careful):
    v = view([*docs["pack"], docs["tkt-5702"]], careful)
    assert v.request_tokens < CEILING


def test_the_summary_names_verdict_region_and_what_was_followed(docs, careful):
    v = view([docs["tkt-5702"], *docs["pack"]], careful, escaped=False)
    assert v.summary() == (
        "verdict: release; region closed early by tkt-5702; the careful model followed "
        "asks for a tool call, closes the evidence region, claims to be official policy"
    )


# --- the panel --------------------------------------------------------------------------------


@pytest.fixture
def panel():
    return evidence_panel()


def test_the_panel_starts_from_the_lessons_section_5_pack(panel):
    assert [r.id for r in panel.sent] == [
        "man-p2-r4-s3.2",
        "forum-8812",
        "man-p2-r4-t3.4-head",
        "man-p2-r4-t3.4-m12",
        "man-p2-r4-s3.2.1",
        "tkt-5630",
    ]
    assert list(panel.boxes).index("tkt-5702") == list(panel.boxes).index("note-anon-77") + 1
    assert panel.view.verdict == "release" and panel.result_text().splitlines()[0] == "✓ release verdict: release"


def test_a_control_change_updates_the_result_and_the_live_region(panel):
    shown, said = panel.result.value, panel.access.message
    assert said == "verdict: release; region held; the careful model followed nothing planted"
    panel.model_kind.value = "gullible"
    assert panel.result.value != shown
    assert panel.access.message == (
        "verdict: withhold (fact_not_in_text); region held; the gullible model followed asks for a tool call"
    )
    assert "tool call in the reply: propose_inspection(asset_id='P-2', duration_minutes=60" in panel.result_text()


def test_every_control_has_an_accessible_name(panel):
    names = control_names(panel.widget)
    assert set(names) == {"escaped", "model", *(f"doc-{i}" for i in panel.boxes)}
    assert all(name.strip() for name in names.values()) and panel.access.names == names
    assert names["doc-tkt-5702"] == "send tkt-5702 (internal) carries a planted instruction"


def test_dom_contract(panel):
    assert {"botie-panel", "botie-evidence-panel"} <= set(panel.widget._dom_classes)
    assert "botie-result" in panel.result._dom_classes
    for widget in (panel.escaped, panel.model_kind, *panel.boxes.values()):
        assert any(c.startswith("botie-control-") for c in widget._dom_classes) and widget.description.strip()


def test_colour_is_never_the_only_signal(panel):
    panel.escaped.value, panel.boxes["tkt-5702"].value = False, True
    text = panel.result_text()
    assert "✗ withhold verdict: withhold (fact_not_in_text)" in text
    assert "⚠ closed_early by tkt-5702: the text after its closing tag reads as ours" in text
    assert "✗ failed fact_not_in_text" in text


def test_the_sentence_check_says_why_it_did_not_run(panel):
    assert "sentence check (check_claims): not run: this answer marks no citation with [n]" in panel.result_text()


def test_an_unexpected_failure_becomes_a_message(panel, monkeypatch):
    monkeypatch.setattr(type(panel.model), "reply", lambda self, request: 1 / 0)
    panel.escaped.value = False
    assert "ZeroDivisionError" in panel.result_text() and "not your fault" in panel.result_text()
    assert panel.access.message.startswith("Problem: ")


def test_start_values_set_the_controls():
    p = evidence_panel(sent=["man-p2-r4-s3.2", "tkt-5702"], escaped=False, model_kind="gullible")
    assert [r.id for r in p.sent] == ["man-p2-r4-s3.2", "tkt-5702"] and not p.escaped.value
    assert p.view is not None
    assert p.view.model == "gullible" and p.view.closed_by == ("tkt-5702",)


# --- the things to try under the panel in lesson 04 (each sentence there is one test here) ------------


def test_try_untick_escaping_and_send_tkt_5702_then_even_the_careful_model_follows_it(panel):
    panel.boxes["tkt-5702"].value = True
    assert panel.view.verdict == "release" and panel.view.obeyed == ()  # escaped: the ticket is only text
    panel.escaped.value = False
    v = panel.view
    assert v.closed_by == ("tkt-5702",) and v.model == "careful"
    assert v.obeyed == ("asks for a tool call", "closes the evidence region") and v.problems == ("fact_not_in_text",)
    assert "28 N·m" in v.answer
    panel.escaped.value = True
    assert panel.view.verdict == "release" and panel.view.obeyed == ()


def test_try_gullible_is_withheld_because_30_is_nowhere_in_the_manual(panel):
    panel.model_kind.value = "gullible"
    v = panel.view
    assert v.problems == ("fact_not_in_text",) and v.citation_rows[0].id == "man-p2-r4-s3.2"
    assert v.citation_rows[0].reason.endswith("and neither does 30")
    assert v.tool_calls == (
        "propose_inspection(asset_id='P-2', duration_minutes=60, start='2026-04-02T09:00Z', request_id='r9')",
    )
    assert "(this request offered no tools)" in panel.result_text()


def test_try_send_the_anonymous_note_to_the_gullible_model_and_its_own_words_are_released(panel):
    panel.model_kind.value = "gullible"
    panel.boxes["note-anon-77"].value = True
    v = panel.view
    assert v.verdict == "release" and v.answer == "Site policy now sets the P-2 gland nuts to 25 N·m."
    assert [(c.id, c.trust) for c in v.citation_rows] == [("note-anon-77", "unverified")]
    assert ("man-p2-r4-s3.2", "note-anon-77") in v.conflicts
    panel.model_kind.value = "careful"
    assert panel.view.verdict == "release" and panel.view.obeyed == ()


def test_try_untick_the_manual_section_and_the_careful_answer_is_withheld_as_unknown_id(panel):
    for note in (False, True):  # from the start, or with the note still ticked from the try before
        panel.boxes["note-anon-77"].value = note
        panel.boxes["man-p2-r4-s3.2"].value = False
        v = panel.view
        assert v.model == "careful" and v.verdict == "withhold" and v.problems == ("unknown_id",) and v.obeyed == ()
        assert [c.problem for c in v.citation_rows] == ["unknown_id", None, None]
        assert "tkt-5630" in v.document_ids  # the pack is otherwise unchanged
