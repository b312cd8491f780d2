"""Chunks lead back to their document and never cut a sentence; a summary says it is one."""

import pytest

from botie import Record, count_tokens
from botie.context.chunks import document_of, split_record, summary_of
from botie.errors import RecordError

TEXT = "First sentence about the seal. Second one gives 18 N·m. Third says exceptions are in 3.2.1."
DOC = Record("man-x", "P-2", TEXT, count_tokens(TEXT), version="rev 4", location="section 3.2")


def test_every_chunk_maps_back_to_its_document_and_keeps_its_provenance():
    chunks = split_record(DOC, 12)
    assert len(chunks) > 1
    assert {document_of(c.id) for c in chunks} == {"man-x"}
    assert all(c.version == "rev 4" and c.asset == "P-2" for c in chunks)
    assert chunks[0].location == f"section 3.2, part 1 of {len(chunks)}"


def test_chunks_are_whole_sentences_that_join_back_to_the_text():
    chunks = split_record(DOC, 12)
    assert " ".join(c.text for c in chunks) == TEXT
    assert all(c.text.endswith(".") for c in chunks)
    assert all(c.cost == count_tokens(c.text) for c in chunks)


def test_a_large_chunk_size_gives_one_part():
    assert [c.id for c in split_record(DOC, 1000)] == ["man-x#part1"]


def test_an_id_that_is_not_a_chunk_is_its_own_document():
    assert document_of("policy#section-3") == "policy#section-3"


def test_a_summary_is_labelled_and_links_every_source():
    other = Record("man-y", "P-2", "Exception text.", 3)
    s = summary_of([DOC, other], "Short.", summary_id="sum-1")
    assert s.version == "summary" and s.depends_on == ("man-x", "man-y")
    assert s.location == "summary of man-x, man-y"


def test_a_summary_across_assets_or_of_nothing_is_refused():
    with pytest.raises(RecordError):
        summary_of([DOC, Record("p1", "P-1", "x", 1)], "mixed", summary_id="s")
    with pytest.raises(RecordError):
        summary_of([], "empty", summary_id="s")


def test_a_bad_chunk_size_is_refused():
    with pytest.raises(RecordError) as info:
        split_record(DOC, 0)
    assert info.value.field == "max_tokens"


def test_a_chunk_that_reaches_max_tokens_exactly_is_kept_whole():
    """The first two sentences cost 15 tokens together: at max_tokens=15 they share a chunk, at 14 they do not."""
    assert [c.cost for c in split_record(DOC, 15)] == [15, 12]
    assert [c.cost for c in split_record(DOC, 14)] == [6, 9, 12]


def test_one_token_is_the_smallest_chunk_size_and_gives_a_sentence_a_chunk():
    assert [c.text for c in split_record(DOC, 1)] == [
        "First sentence about the seal.",
        "Second one gives 18 N·m.",
        "Third says exceptions are in 3.2.1.",
    ]


def test_the_chunk_size_and_every_cost_are_counted_in_the_encoding_the_caller_names(monkeypatch):
    """A stand-in encoding that counts words: the first two sentences are ten words, so they share a chunk."""
    from botie.context import chunks

    def fake_count(text, encoding="cl100k_base"):
        assert encoding == "words", f"counted with {encoding!r}, not the caller's encoding"
        return len(text.split())

    monkeypatch.setattr(chunks, "count_tokens", fake_count)
    parts = split_record(DOC, 10, encoding="words")
    assert [(c.text, c.cost) for c in parts] == [
        ("First sentence about the seal. Second one gives 18 N·m.", 10),
        ("Third says exceptions are in 3.2.1.", 6),
    ]
    assert summary_of([DOC], "Seal torque and its exceptions.", summary_id="s", encoding="words").cost == 5


def test_bad_chunking_input_names_the_field_and_the_record():
    with pytest.raises(RecordError) as info:
        split_record("man-x", 12)
    assert (str(info.value), info.value.field, info.value.record) == (
        "split_record takes a Record, got 'man-x'",
        "record",
        None,
    )
    with pytest.raises(RecordError) as info:
        split_record(DOC, 0)
    assert (str(info.value), info.value.field, info.value.record) == (
        "max_tokens must be a whole number of tokens (an int >= 1), got 0",
        "max_tokens",
        "man-x",
    )


def test_a_summary_costs_the_tokens_of_its_own_text():
    """'Short.' is two cl100k_base tokens ('Short', '.')."""
    assert summary_of([DOC], "Short.", summary_id="sum-1").cost == 2


def test_a_refused_summary_names_the_field_and_the_summary():
    with pytest.raises(RecordError) as info:
        summary_of([], "empty", summary_id="s")
    assert (str(info.value), info.value.field, info.value.record) == (
        "a summary condenses at least one record",
        "records",
        "s",
    )
    with pytest.raises(RecordError) as info:
        summary_of([DOC, Record("p1", "P-1", "x", 1)], "mixed", summary_id="s")
    assert (str(info.value), info.value.field, info.value.record) == (
        "a summary covers one asset, got ['P-1', 'P-2']",
        "asset",
        "s",
    )
