"""Gatekeeper, escalation and phrasings: the demo functions compute what lesson 03 prints."""

import pytest

from botie import Record
from botie.lessons.content.injections import PhraseFilter, admitted, escalation, injection_variants


def test_stuffing_admits_everything_and_retrieval_only_what_ranks():
    recs = [Record("m", "P-2", "gland nut torque", 1), Record("x", "P-2", "weather report", 1)]
    qs = ["gland nut torque?", "what weather?"]
    assert admitted("x", qs, recs, k=1, design="stuffing") == (True, True)
    assert admitted("x", qs, recs, k=1, design="retrieval") == (False, True)
    with pytest.raises(ValueError):
        admitted("x", qs, recs, k=1, design="everything")


def test_each_escalation_step_multiplies_the_one_before():
    steps = escalation(requests_per_entry=120, users=40)
    assert [s.prompts for s in steps] == [1, 120, 4800]


def test_variants_are_repeatable_distinct_and_limited_to_the_phrasings_asked_for():
    a = injection_variants(1, 20, newest=3)
    assert a == injection_variants(1, 20, newest=3) and len(set(a)) == 20
    assert PhraseFilter(a).phrases and all(not p.startswith(("Dear", "[", "FYI")) for p in PhraseFilter(a).phrases)


def test_a_phrase_filter_catches_every_text_it_was_built_from():
    batch = injection_variants(5, 30)
    assert PhraseFilter(batch).caught(batch) == (30, 30)


def test_a_filter_built_from_older_phrasings_misses_exactly_the_new_texts_that_reuse_none_of_them():
    """Over many batches: a blocklist of last round's phrasings catches all of last round and, of a fresh
    round, only the texts that still share an opener or an override with it; a text written wholly in
    newer phrasings passes, so the examples have to be regenerated, not just replayed."""
    from botie.lessons.content.injections import OPENERS, OVERRIDES

    missed_somewhere = 0
    for seed in range(40):
        for newest in (2, 3, 4):
            old = injection_variants(seed, 20, newest=newest)
            blocklist = PhraseFilter(old)
            assert blocklist.caught(old) == (len(old), len(old))
            known = {p for p in (*OPENERS, *OVERRIDES) if any(p in text for text in old)}
            for text in injection_variants(seed + 1000, 30):
                reuses_a_known_phrase = any(p in text for p in known)
                assert blocklist.catches(text) is reuses_a_known_phrase, text
                missed_somewhere += not reuses_a_known_phrase
    assert missed_somewhere > 0  # fresh rounds do bring texts the old blocklist lets through
