"""botie.lessons.ui._common: the table every panel draws, the asset tickboxes and the question drop-down."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from botie.lessons.ui._common import RIGHT, SMALL, asset_boxes, html_to_text, question_control, table_html


def test_a_table_names_its_columns_and_styles_only_the_named_columns():
    html = table_html(
        "botie-x", ("#", "cost", "text"), [("1", "5", "a &amp; b")], styles={"cost": RIGHT, "text": SMALL}
    )
    assert html == (
        "<table class='botie-x'><thead><tr><th style='text-align:left'>#</th>"
        "<th style='text-align:left'>cost</th><th style='text-align:left'>text</th></tr></thead>"
        "<tbody><tr><td>1</td><td style='text-align:right'>5</td><td style='font-size:90%'>a &amp; b</td></tr>"
        "</tbody></table>"
    )
    assert html_to_text(html).splitlines() == ["# cost text", "1 5 a & b"]


def test_a_table_escapes_its_column_names_and_refuses_a_row_of_the_wrong_width():
    assert "<th style='text-align:left'>a&lt;b</th>" in table_html("t", ("a<b",), [])
    with pytest.raises(ValueError):
        table_html("t", ("a", "b"), [("only one",)])


def test_asset_boxes_cover_the_records_and_the_allowed_assets_ticked_where_allowed():
    records = [SimpleNamespace(asset="P-2"), SimpleNamespace(asset="K-7")]
    boxes = asset_boxes(records, ("P-2", "P-3"))
    assert list(boxes) == ["K-7", "P-2", "P-3"]
    assert {a: b.value for a, b in boxes.items()} == {"K-7": False, "P-2": True, "P-3": True}
    assert "botie-control-asset-K-7" in boxes["K-7"]._dom_classes


def test_the_question_control_offers_each_question_by_index():
    dropdown = question_control([SimpleNamespace(question="first?"), SimpleNamespace(question="second?")])
    assert dropdown.options == (("first?", 0), ("second?", 1)) and dropdown.value == 0
