"""The routing panel, driven without a browser: every strategy is reachable, the guard-first case included."""

from __future__ import annotations

import pytest

from botie.context.routing import plan_context
from botie.lessons.content.scenarios import attachments
from botie.lessons.ui import html_to_text, routing_panel


@pytest.fixture
def panel():
    return routing_panel()


def strategy(panel) -> str:
    first = panel.result_text().splitlines()[0]
    assert first.startswith(("▮", "▤", "⌕", "⋯")), first
    return first.split("strategy: ")[1]


def test_the_starting_point_is_the_lessons_one_point_six_ceilings(panel):
    assert strategy(panel) == "select_documents"
    text = panel.result_text()
    assert "41 attachments, 1,440,000 tokens in all" in text
    assert "soft budget 540,000 of 900,000 tokens (60%)" in text
    assert "(14 + 27 = 41)" in text


def test_a_small_set_is_stuffed_whole(panel):
    panel.count.value, panel.size.value, panel.largest.value = 3, 10_000, 10_000
    assert strategy(panel) == "stuff_all"
    assert "3 of 3 documents read in full" in panel.result_text()


def test_far_too_much_in_total_retrieves_chunks(panel):
    panel.count.value, panel.size.value = 100, 100_000
    assert strategy(panel) == "retrieve_chunks"
    assert "0 of 100 documents read in full, 100 not read" in panel.result_text()


def test_the_guard_fires_first_even_when_the_total_is_modest(panel):
    panel.count.value, panel.size.value, panel.largest.value = 4, 20_000, 600_000
    assert strategy(panel) == "retrieve_within_document"
    text = panel.result_text()
    assert "660,000 tokens in all" in text and "select limit 2,160,000" in text  # the total alone would select
    checks = [line for line in text.splitlines() if line[:2] in ("1 ", "2 ", "3 ")]
    assert len(checks) == 1 and checks[0].startswith("1 oversized_document yes, it decided")


def test_every_strategy_is_reachable(panel):
    seen = {strategy(panel)}
    for count, size, largest in ((3, 10_000, 10_000), (100, 100_000, 10_000), (4, 20_000, 600_000)):
        panel.count.value, panel.size.value, panel.largest.value = count, size, largest
        seen.add(strategy(panel))
    assert seen == {"stuff_all", "select_documents", "retrieve_within_document", "retrieve_chunks"}


def test_the_soft_fraction_and_ceiling_move_the_budget(panel):
    panel.soft_fraction.value = 1.0
    assert "soft budget 900,000 of 900,000 tokens (100%)" in panel.result_text()
    panel.ceiling.value = 2_000_000
    assert strategy(panel) == "stuff_all"


def test_the_panel_shows_what_the_core_decided(panel):
    panel.count.value, panel.size.value, panel.largest.value = 7, 90_000, 200_000
    expected = plan_context(attachments(7, 90_000, 200_000), ceiling=900_000, soft_fraction=0.6)
    assert panel.plan == expected and strategy(panel) == str(expected.strategy)
    assert panel.coverage.documents_attached == 7


def test_an_unexpected_failure_becomes_a_message(panel, monkeypatch):
    def broken():
        raise RuntimeError("boom")

    monkeypatch.setattr(panel, "docs", broken)
    panel.count.value = 5
    assert "RuntimeError: boom" in panel.result_text() and "not your fault" in panel.result_text()


def test_the_figure_states_its_numbers_in_text_and_follows_the_controls():
    a, b = routing_panel(), routing_panel()
    assert a.figure.value == b.figure.value
    said = html_to_text(a.figure.value)
    assert "strategy: select_documents" in said
    for part in (
        "largest document 100,000",
        "all attachments 1,440,000",
        "soft budget 540,000 (solid line)",
        "select limit 2,160,000 (dashed line)",
        "ceiling 900,000 (dotted line)",
    ):
        assert part in said
    a.largest.value = 600_000
    assert "largest document 600,000" in html_to_text(a.figure.value)
    assert "strategy: retrieve_within_document" in html_to_text(a.figure.value)


def test_dom_contract(panel):
    assert {"botie-panel", "botie-routing-panel"} <= set(panel.widget._dom_classes)
    assert "botie-result" in panel.result._dom_classes
    for name, widget in {
        "count": panel.count,
        "size": panel.size,
        "largest": panel.largest,
        "ceiling": panel.ceiling,
        "soft-fraction": panel.soft_fraction,
    }.items():
        assert f"botie-control-{name}" in widget._dom_classes
        assert widget.description.strip()


def test_attachments_put_the_largest_first():
    docs = attachments(3, 5, 9)
    assert [d.cost for d in docs] == [9, 5, 5] and len({d.id for d in docs}) == 3
    assert attachments(0, 5, 9) == ()
