"""The three toy retrieval methods score as documented, and each fails the way the lesson says."""

import pytest

from botie import Record
from botie.lessons.content.retrieval import concept_vector, embedding_score, keyword_score, rank, rerank, words


def test_words_drop_stop_words_and_keep_asset_ids_whole():
    assert words("What is the torque for P-2?") == ("torque", "p-2")


def test_keyword_score_is_the_share_of_question_words_found():
    assert keyword_score("gland nuts torque", "tighten the gland nuts") == 2 / 3
    assert keyword_score("the of", "anything") == 0.0


def test_embedding_treats_every_pump_as_the_same_concept():
    assert concept_vector("P-1 pump") == concept_vector("P-2 pump")
    assert embedding_score("P-2 seal", "P-1 seal") == pytest.approx(1.0)


def test_rank_drops_zero_scores_and_breaks_ties_by_id():
    recs = [Record("b", "P-2", "seal", 1), Record("a", "P-2", "seal", 1), Record("c", "P-2", "nothing", 1)]
    assert [r.record_id for r in rank("seal", recs, keyword_score)] == ["a", "b"]


def test_rerank_only_reorders_the_shortlist():
    recs = [Record("a", "P-2", "seal seal", 1), Record("b", "P-2", "torque", 1)]
    shortlist = rank("seal", recs, keyword_score)
    assert {r.record_id for r in rerank("torque", shortlist, recs, embedding_score)} <= {"a"}
