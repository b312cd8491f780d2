"""The claims of the syllabus topics' worked examples (chunks, retrieval, memory, injections...), pinned without nbval.

Each test is named after a sentence a lesson says about botie's behaviour; the numbers are the ones the
lesson prints. Lesson 06's capstone claims live in ``test_capstone.py``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random

import pytest

from botie import InspectionService, MemoryStore, render_evidence, select
from botie.actions.decision import Approval
from botie.actions.retry import submit_with_retries
from botie.context.chunks import document_of, split_record, summary_of
from botie.context.citations import check_claims, verify_citations
from botie.context.evidence import build_request, new_fence, region_closed_early
from botie.context.memory import MemoryEntry, Origin, carry_forward
from botie.context.subquestions import SubQuestion, select_per_subquestion
from botie.lessons import fixture_path, load_scene
from botie.lessons.content.fixtures import load_records
from botie.lessons.content.injections import PhraseFilter, admitted, escalation, injection_variants, standing
from botie.lessons.content.pasting import paste_without_escaping
from botie.lessons.content.retrieval import embedding_score, keyword_score, rank, rerank
from botie.lessons.content.scenarios import load_evidence_scenario

SCENARIO = load_evidence_scenario()
BY_ID = {r.id: r for r in SCENARIO.records}

# --- lesson 01, section 4: smaller pieces, or a shorter stand-in ------------------------------------------

FITTING, EXCEPTION = BY_ID["man-p2-r4-s3.2"], BY_ID["man-p2-r4-s3.2.1"]


def test_at_40_tokens_whole_records_send_nothing():
    assert (FITTING.cost, EXCEPTION.cost) == (48, 44)
    assert select([FITTING, EXCEPTION], ["P-2"], 40).selected_ids == ()


def test_at_40_tokens_chunks_send_the_first_sentence_and_leave_the_exception_behind():
    chunks = split_record(FITTING, 40) + split_record(EXCEPTION, 40)
    packed = select(chunks, ["P-2"], 40)
    assert packed.selected_ids == ("man-p2-r4-s3.2#part1",)
    assert "18 N·m" in chunks[0].text and chunks[1].text == "Exceptions are listed in 3.2.1."
    assert [document_of(c.id) for c in chunks] == ["man-p2-r4-s3.2", "man-p2-r4-s3.2", "man-p2-r4-s3.2.1"]


def test_the_summary_carries_both_figures_in_34_tokens_and_says_it_is_a_summary():
    text = "Gland nuts: 18 N·m in a cross pattern, never above 20; 16 N·m if the seal faces were lapped on site."
    summary = summary_of([FITTING, EXCEPTION], text, summary_id="sum-p2-gland-torque")
    assert summary.cost == 34 and "18 N·m" in summary.text and "16 N·m" in summary.text
    assert 'version="summary"' in render_evidence([summary])
    assert summary.depends_on == ("man-p2-r4-s3.2", "man-p2-r4-s3.2.1")


# --- lesson 02a, section 1: where the scores came from ------------------------------------------------------

P1 = next(r for r in load_scene(fixture_path("p2_seal.json")).records if r.id == "man-p1-r2-s3.2")
CORPUS = [*SCENARIO.records, P1]
ASKED = SCENARIO.questions[0].question
REWORDED = "How hard should I do up the packing bolts on pump two?"


def _ids(ranked):
    return [r.record_id for r in ranked]


def test_keyword_search_ties_the_three_revisions_on_the_asked_question():
    top = rank(ASKED, CORPUS, keyword_score, k=3)
    assert _ids(top) == ["man-p2-r3-s3.2", "man-p2-r4-s3.2", "man-p2-r5-s3.2"] and len({r.score for r in top}) == 1


def test_keyword_search_misses_the_fitting_section_for_the_reworded_question():
    assert "man-p2-r4-s3.2" not in _ids(rank(REWORDED, CORPUS, keyword_score))


def test_the_toy_embedding_ties_p1s_manual_with_p2s_and_puts_the_note_first_on_the_rewording():
    top = rank(ASKED, CORPUS, embedding_score, k=3)
    assert top[0].record_id == "man-p1-r2-s3.2" and top[0].score == top[1].score
    assert rank(REWORDED, CORPUS, embedding_score, k=1)[0].record_id == "note-anon-77"


def test_the_reranker_cannot_bring_back_the_fitting_section_for_the_rewording():
    shortlist = rank(REWORDED, CORPUS, keyword_score, k=4)
    assert "man-p2-r4-s3.2" not in _ids(rerank(REWORDED, shortlist, CORPUS, embedding_score))


@pytest.mark.parametrize("p1_id", ["man-p1-r2-s3.2", "zz-p1-manual"])
def test_p1s_manual_shares_the_top_score_under_the_embedding_and_the_reranker_though_not_permitted(p1_id):
    """Shares, not tops: it ties with P-2's revisions 3 and 5, so which of them a sort lists first is only the ids'
    order. The keyword shortlist keeps every passage tied with its fourth (lesson 02a's cell), whatever the names."""
    assert "P-1" not in SCENARIO.allowed_assets
    corpus = [dataclasses.replace(r, id=p1_id) if r.id == "man-p1-r2-s3.2" else r for r in CORPUS]
    keyword = rank(ASKED, corpus, keyword_score)
    shortlist = [r for r in keyword if r.score >= keyword[3].score]
    for ranked in (rank(ASKED, corpus, embedding_score), rerank(ASKED, shortlist, corpus, embedding_score)):
        assert p1_id in {r.record_id for r in ranked if r.score == ranked[0].score}


# --- lesson 02a, section 2: one question, two needs ------------------------------------------------------------


def test_as_one_question_seven_records_and_243_tokens_leave_out_the_replacement_ticket():
    as_one = SCENARIO.select(0)
    assert (len(as_one.selected_ids), as_one.used) == (7, 243) and "tkt-5521" not in as_one.selected_ids


def test_split_in_two_five_records_and_177_tokens_cover_both_needs():
    split = select_per_subquestion(
        [SubQuestion("torque", SCENARIO.candidates(0), 150), SubQuestion("replaced", SCENARIO.candidates(3), 40)],
        SCENARIO.allowed_assets,
        observed_on=SCENARIO.observed_on,
        band=1.0,
    )
    assert (len(split.selected_ids), split.used, split.gaps) == (5, 177, ())
    assert "tkt-5521" in split.selected_ids and set(SCENARIO.questions[0].answered_by) <= set(split.selected_ids)


# --- lesson 03, section 7: what the conversation carries forward ------------------------------------------------


def _at(day, hour):
    return dt.datetime(2026, 3, day, hour, tzinfo=dt.timezone.utc)


MEMORY = [
    MemoryEntry("asset", "P-2", Origin.TECHNICIAN, _at(15, 9), expires_at=_at(15, 17)),
    MemoryEntry("torque", "25 N·m", Origin.MODEL, _at(15, 9)),
    MemoryEntry("torque", "18 N·m", Origin.DOCUMENT, _at(15, 10), source_id="man-p2-r4-s3.2"),
    MemoryEntry("seal_replaced", "2026-03-01", Origin.TECHNICIAN, _at(15, 10)),
    MemoryEntry(
        "summary",
        "P-2 seal replaced 2026-03-01, torque 18 N·m",
        Origin.SUMMARY,
        _at(15, 11),
        covers=("seal_replaced", "torque"),
    ),
    MemoryEntry("seal_replaced", "2026-03-14", Origin.DOCUMENT, _at(15, 12), source_id="tkt-5521"),
]


def test_by_next_morning_the_focus_expired_the_model_guess_never_counted_and_the_stale_summary_is_dropped():
    carried = carry_forward(MEMORY, now=_at(16, 8))
    assert [(e.key, e.value) for e in carried.kept] == [("torque", "18 N·m"), ("seal_replaced", "2026-03-14")]
    assert [str(o.status) for o in carried.outcomes] == [
        "expired",
        "provisional",
        "kept",
        "replaced",
        "stale_summary",
        "kept",
    ]
    assert all(e.source_id for e in carried.kept)


def test_that_afternoon_the_asset_focus_is_still_carried():
    assert ("asset", "P-2") in [(e.key, e.value) for e in carry_forward(MEMORY, now=_at(15, 14)).kept]


# --- lesson 03, section 8: gatekeeper, escalation, random fence ---------------------------------------------------

QUESTIONS = [q.question for q in SCENARIO.questions]


def test_retrieval_outscores_ticket_5630_for_three_questions_ties_it_for_one_and_stuffing_puts_it_in_all_four():
    places = standing("tkt-5630", QUESTIONS, SCENARIO.records, k=3)
    assert [p.verdict for p in places] == ["outscored", "outscored", "tied at the cut", "outscored"]
    assert admitted("tkt-5630", QUESTIONS, SCENARIO.records, k=3, design="stuffing") == (True,) * 4


def test_the_ticket_stuffed_with_the_questions_words_wins_every_question():
    words = (
        "What torque gland nuts P-2 mechanical seal flush pressure shaft alignment tolerance coupling last replaced? "
    )
    stuffed = dataclasses.replace(BY_ID["tkt-5630"], id="tkt-5630-stuffed", text=words + BY_ID["tkt-5630"].text)
    assert admitted("tkt-5630-stuffed", QUESTIONS, [*SCENARIO.records, stuffed], k=3, design="retrieval") == (True,) * 4


def test_one_upload_in_a_shared_cached_prefix_reaches_4800_prompts():
    assert [s.prompts for s in escalation(requests_per_entry=120, users=40)] == [1, 120, 4800]


def _tickets():
    planted = {r.id: r for r in load_records(fixture_path("scripted_turns.json"))}
    return [BY_ID["tkt-5521"], planted["tkt-5702"], BY_ID["tkt-5630"]]


def test_unescaped_ticket_5702_closes_the_fixed_region_but_not_a_random_one():
    fence = new_fence(random.Random(2026))
    assert region_closed_early(paste_without_escaping(_tickets(), "evidence"), "evidence")
    assert not region_closed_early(paste_without_escaping(_tickets(), f"evidence-{fence}"), f"evidence-{fence}")
    assert not region_closed_early(render_evidence(_tickets(), fence=fence), f"evidence-{fence}")


# --- lesson 03, section 9: every sentence needs a citation ----------------------------------------------------------

CITED = [
    {"id": "man-p2-r4-s3.2", "quote": "tighten the gland nuts evenly in a cross pattern to 18 N·m"},
    {"id": "man-p2-r4-s3.2.1", "quote": "tighten the gland nuts to 16 N·m only"},
]
HONEST = (
    "Tighten the P-2 gland nuts to 18 N·m in a cross pattern [1]. "
    "If the seal faces were lapped on site, use 16 N·m [2]."
)


def test_both_answers_quotes_are_genuine_so_the_span_check_alone_releases_both():
    pack = [BY_ID[i] for i in SCENARIO.select(0).selected_ids]
    assert verify_citations(CITED, build_request(ASKED, pack, ceiling=1_200).evidence).ok


def test_the_sentence_that_cites_nothing_withholds_the_bent_answer():
    assert check_claims(HONEST, CITED).ok
    bent = check_claims(HONEST + " A 60-minute inspection has been booked for you.", CITED)
    assert not bent.ok and bent.uncited == ("A 60-minute inspection has been booked for you.",)


# --- lesson 03, section 11: why 1.6x, and regenerating injection examples ---------------------------------------------


def _cut_to_fit(docs, ceiling):
    kept, used = [], 0
    for doc in docs:
        if used + doc.cost > ceiling:
            break
        kept.append(doc.id)
        used += doc.cost
    return kept


@pytest.mark.parametrize("factor, dropped", [(0.9, 0), (1.0, 0), (1.6, 17)])
def test_a_slice_at_or_under_the_ceiling_cannot_catch_the_cut_and_one_at_1_6x_loses_17(factor, dropped):
    agreements = load_records(fixture_path("agreements_41.json"))
    scaled = [dataclasses.replace(d, cost=round(d.cost * factor / 1.6)) for d in agreements]
    assert len(scaled) - len(_cut_to_fit(scaled, 900_000)) == dropped


def test_a_filter_of_last_quarters_phrasings_catches_all_of_them_and_16_of_20_new_ones():
    blocklist = PhraseFilter(injection_variants(2025, 20, newest=3))
    assert blocklist.caught(injection_variants(2025, 20, newest=3)) == (20, 20)
    assert blocklist.caught(injection_variants(2026, 20)) == (16, 20)


# --- lesson 05, section 3: which failures to retry, and what the model is told ---------------------------------


def _lesson_service():
    calls = []

    def scheduler(order):
        calls.append(order.idempotency_key)
        if len(calls) <= 2:
            raise ConnectionError("the scheduler did not answer")
        return "ext-77"

    clock = lambda: dt.datetime(2026, 3, 20, 9, tzinfo=dt.timezone.utc)  # noqa: E731
    service = InspectionService(MemoryStore(), clock=clock, downstream=scheduler)

    def send(proposal, allowed=("P-2", "P-3")):
        return lambda: service.submit(
            proposal, caller="tech-ana", allowed_assets=list(allowed), approval=Approval("tech-ana", proposal)
        )

    return send, calls


R7 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}


def test_two_silences_one_booking_one_key_and_the_denial_tried_once():
    send, calls = _lesson_service()
    booked = submit_with_retries(send(R7))
    assert [str(d.branch) for d in booked.attempts] == ["unavailable", "unavailable", "create"]
    assert (len(calls), len(set(calls))) == (3, 1)
    assert [str(d.branch) for d in submit_with_retries(send({**R7, "request_id": "r9"}, ("P-3",))).attempts] == [
        "denied"
    ]


def test_the_90_minute_call_reads_invalid_names_its_field_and_the_repaired_call_is_created():
    send, _ = _lesson_service()
    submit_with_retries(send(R7))  # as in the lesson: r7 went first and spent the scheduler's two silences
    failed = submit_with_retries(
        send({**R7, "duration_minutes": 90, "start": "2026-04-02T09:00Z", "request_id": "r10"})
    ).tool_result()
    assert (failed["status"], failed["retryable"], failed["attempts"]) == ("invalid", False, 1)
    assert [e["field"] for e in failed["errors"]] == ["duration_minutes"] and "job_id" not in failed
    repaired = submit_with_retries(
        send({**R7, "duration_minutes": 60, "start": "2026-04-02T09:00Z", "request_id": "r10"})
    )
    assert str(repaired.final.branch) == "create"
