"""canonical_json and fingerprint: one text per payload, against values written out by hand."""

from __future__ import annotations

import pytest

from botie.actions.canonical import canonical_json, fingerprint

P2 = {"request_id": "r7", "duration_minutes": 20, "asset_id": "P-2"}  # keys deliberately out of order


def test_canonical_text_sorts_keys_and_drops_spaces():
    assert canonical_json(P2) == '{"asset_id":"P-2","duration_minutes":20,"request_id":"r7"}'


def test_twenty_twenty_point_oh_and_true_stay_three_texts():
    assert [canonical_json(v) for v in (20, 20.0, True)] == ["20", "20.0", "true"]


def test_non_ascii_is_kept_as_itself():
    assert canonical_json({"note": "N·m é"}) == '{"note":"N·m é"}'


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_nan_and_infinity_have_no_canonical_form(value):
    with pytest.raises(ValueError):
        canonical_json({"duration_minutes": value})


def test_fingerprint_is_the_sha256_of_the_canonical_text():
    """Known vector: sha256 of '{"asset_id":"P-2","duration_minutes":20,"request_id":"r7"}' (computed once)."""
    assert fingerprint(P2) == "ae2d05ea73a580bcb34bc26d5c1f94de7fd3b601ac68ecb8b632e3f1d64097fc"
