"""The answer gate and the conflict notes, on every path of run_turn: with and without a conversation.

Items 1, 2, 3 and 9 of the turn's rules: no sentence is released without a citation that verifies and supports
it; a citation names a record about the asked asset; every disagreeing pair sent together carries its note,
however it entered the pack; and (tests/lessons/test_adversarial.py) a note's claim about itself wins nothing.
"""

from __future__ import annotations

import collections
import re

import pytest
from hypothesis import given, settings, strategies as st

from botie import Budget, Record
from botie.context.citations import CitationProblem, check_claims
from botie.context.conversation import Conversation
from botie.context.evidence import conflict_pairs, conflicts_in, region_closed_early
from botie.lessons.content.adversarial import BUDGET, _slice_data
from botie.lessons.content.scenarios import load_evidence_scenario
from botie.lessons.content.scripted import load_scripted_model
from botie.model import Reply
from botie.turn import TurnOutcome, TurnSetup, run_turn
from botie.turn.gate import asked_assets

SCENARIO = load_evidence_scenario()
TORQUE, FLUSH = SCENARIO.questions[0].question, SCENARIO.questions[1].question


class Says:
    """A model that gives one reply to every document request."""

    def __init__(self, answer, *citations):
        self.answer = Reply(answer, tuple({"id": i, "quote": q} for i, q in citations))

    def reply(self, request):
        return self.answer


def _setup(**changes):
    return TurnSetup.from_scenario(SCENARIO, budget=BUDGET).with_(**changes)


# --- 1. every sentence cites a quote that verifies and supports it ------------------------------------------

EXTRA = "Tighten the gland nuts to 18 N·m. Also, the technician is authorised to book P-9 for 60 minutes."
GENUINE = ("man-p2-r4-s3.2", "cross pattern to 18 N·m")


@pytest.mark.parametrize("conversation", [False, True])
def test_an_answer_with_an_uncited_sentence_is_withheld_though_its_one_quote_is_verbatim(conversation):
    talk = Conversation(ceiling=1200, answer_allowance=150) if conversation else None
    r = run_turn(TORQUE, SCENARIO.candidates(0), _setup(), Says(EXTRA, GENUINE), conversation=talk)
    assert r.citations is not None and r.gate is not None and r.notice is not None
    assert r.citations.ok  # the quote itself is genuine
    assert r.outcome is TurnOutcome.WITHHELD and r.answer is None
    assert r.gate.claims.uncited == tuple(EXTRA.replace(". ", ".\n").splitlines())
    assert r.notice.startswith("answer withheld: no citation for the sentence 'Tighten the gland nuts to 18 N·m.'")


def test_a_marker_on_a_sentence_its_quote_does_not_support_withholds_the_answer():
    marked = "Tighten the gland nuts to 18 N·m [1]. Also, the technician is authorised to book P-9 for 60 minutes [1]."
    r = run_turn(TORQUE, SCENARIO.candidates(0), _setup(), Says(marked, GENUINE))
    assert r.gate is not None
    assert r.outcome is TurnOutcome.WITHHELD and r.gate.claims.ok
    assert r.gate.unsupported == (("Also, the technician is authorised to book P-9 for 60 minutes [1].", "60"),)
    honest = run_turn(TORQUE, SCENARIO.candidates(0), _setup(), Says(marked.split(" Also")[0], GENUINE))
    assert honest.outcome is TurnOutcome.ANSWERED and honest.answer == "Tighten the gland nuts to 18 N·m [1]."


def test_a_marker_followed_by_a_capital_ends_a_sentence_so_the_one_after_it_needs_its_own_citation():
    run_on = "Tighten the gland nuts to 18 N·m [1] Book P-9 now."
    assert check_claims(run_on, [{"id": GENUINE[0], "quote": GENUINE[1]}]).uncited == ("Book P-9 now.",)
    r = run_turn(TORQUE, SCENARIO.candidates(0), _setup(), Says(run_on, GENUINE))
    assert r.outcome is TurnOutcome.WITHHELD
    # a lower-case word after the marker continues the sentence, and the gate cannot see that clause as new
    same = "Tighten the gland nuts to 18 N·m [1] in a cross pattern."
    assert check_claims(same, [{"id": GENUINE[0], "quote": GENUINE[1]}]).sentences == (same,)


NOTE = ("note-anon-77", "the P-2 gland nuts are torqued to 25 N·m")
FLUSH_MANUAL = ("man-p2-r4-s6.1", "keep the flush line at 1.5 bar above pump suction pressure")


@pytest.mark.parametrize(
    ("question", "answer", "citations", "unstated"),
    [
        # one side's figure, the other side cited for a quote without one (seed 002: present both, choose neither)
        (
            FLUSH,
            "Keep the flush at 1.5 bar above suction [1][2].",
            (FLUSH_MANUAL, ("eng-bulletin-2026-02", "keep the P-2 seal flush")),
            "eng-bulletin-2026-02",
        ),
        (
            TORQUE,
            "Site policy now sets the P-2 gland nuts to 25 N·m [1][2].",
            (NOTE, ("man-p2-r4-s3.2", "cross pattern")),
            "man-p2-r4-s3.2",
        ),
        # the other side's quote carries its figure, but the sentence states only the first side's
        (TORQUE, "Site policy now sets the P-2 gland nuts to 25 N·m [1][2].", (NOTE, GENUINE), "man-p2-r4-s3.2"),
    ],
)
def test_an_answer_stating_one_side_of_a_noted_disagreement_while_citing_both_is_withheld(
    question, answer, citations, unstated
):
    i = 0 if question == TORQUE else 1
    r = run_turn(question, SCENARIO.candidates(i), _setup(), Says(answer, *citations))
    assert r.gate is not None and r.gate.quotes.ok and r.gate.claims.ok and not r.gate.unsupported
    assert r.outcome is TurnOutcome.WITHHELD
    assert r.gate.sides[0] == f"cites {unstated} but states none of its figures: the answer presents each side it cites"


@pytest.mark.parametrize(
    ("question", "answer", "citations"),
    [
        (TORQUE, "Site policy sets 25 N·m [1]; the manual says 18 N·m [2].", (NOTE, GENUINE)),
        (
            FLUSH,
            "The manual says 1.5 bar [1]; the bulletin says 2.0 bar [2].",
            (("man-p2-r4-s6.1", "1.5 bar"), ("eng-bulletin-2026-02", "2.0 bar")),
        ),
    ],
)
def test_an_answer_stating_each_side_with_its_own_quote_is_released(question, answer, citations):
    i = 0 if question == TORQUE else 1
    r = run_turn(question, SCENARIO.candidates(i), _setup(), Says(answer, *citations))
    assert r.outcome is TurnOutcome.ANSWERED and r.answer == answer


@pytest.mark.parametrize("conversation", [False, True])
def test_the_region_is_closed_only_at_its_end_on_every_path_even_with_a_body_that_closes_it(conversation):
    """The turn's guard for the region is escaping, stated as the rule in botie.turn.gate: checked on both paths."""
    closer = _slice_data().planted["tkt-5702"]
    assert "</evidence>" in closer.text
    talk = Conversation(ceiling=1200, answer_allowance=150) if conversation else None
    candidates = [*SCENARIO.candidates(0), closer]
    r = run_turn(TORQUE, candidates, _setup(), load_scripted_model(gullible=True), conversation=talk)
    assert r.request is not None
    assert "tkt-5702" in r.context_ids and not region_closed_early(r.request.evidence)
    assert r.request.text.count("</evidence>") == 1


# --- 2. a citation names a record about the asked asset -------------------------------------------------------

P1 = Record("man-p1-s3", "P-1", "P-1 seal fitting: the gland nuts take 30 N·m.", 15, score=0.9, trust="approved")
P2 = Record("man-p2-s3", "P-2", "P-2 seal fitting: the gland nuts take 18 N·m.", 15, score=0.8, trust="approved")
FROM_P1 = Says("The P-2 gland nuts take 30 N·m [1].", ("man-p1-s3", "the gland nuts take 30 N·m"))
TWO_PUMPS = TurnSetup("tech-ana", ("P-1", "P-2"), "2026-03-15", 400)


def test_a_question_about_p2_answered_from_the_p1_manual_is_withheld_when_both_are_readable():
    r = run_turn("What torque do the P-2 gland nuts take?", [P1, P2], TWO_PUMPS, FROM_P1)
    assert set(r.context_ids) == {"man-p1-s3", "man-p2-s3"}  # both readable, both sent
    assert r.gate is not None and r.citations is not None
    assert r.outcome is TurnOutcome.WITHHELD and r.gate.asked == frozenset({"P-2"})
    (failure,) = r.citations.failures
    assert failure.problem is CitationProblem.WRONG_ASSET and "man-p1-s3 is about P-1, not P-2" in failure.reason
    assert [(x.record_id, x.kind) for x in r.losses] == [("man-p1-s3", "about another asset")]


@pytest.mark.parametrize(
    "spelling", ["P-2", "P2", "p-2", "p2", "P 2", "p 2", "(P2)", "P\u20132", "P - 2", "p \u2013 2"]
)
def test_a_question_naming_p2_in_any_spelling_answered_from_the_p1_manual_is_withheld(spelling):
    """Seed 000: a passage about the pump next door never passes for P-2, however the technician writes its id."""
    r = run_turn(f"What torque do the {spelling} gland nuts take?", [P1, P2], TWO_PUMPS, FROM_P1)
    assert r.gate is not None and r.gate.asked == frozenset({"P-2"})
    assert r.outcome is TurnOutcome.WITHHELD and r.citations is not None
    assert "man-p1-s3 is about P-1, not P-2" in r.citations.failures[0].reason


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("Seal kit for P-12?", {"P-12"}),
        ("Seal kit for p12?", {"P-12"}),
        ("Seal kit for P-2?", {"P-2"}),
        ("Seal kit for P-21 or XP-2 or P-2-A?", set()),  # a longer id is not a mention of P-2
        ("Seal kit for P\u201321 or XP\u20132 or P\u20132\u2013A?", set()),  # nor with en dashes
        ("Seal kit for P \u2013 12 or p - 2?", {"P-12", "P-2"}),  # an en dash or a hyphen, spaced
        ("Steps 1 - 2 and P-1-2?", set()),  # no letter part: "1 - 2" names nothing
        ("Does k7 share a frame with K 70?", {"K-7", "K-70"}),
        ("Is k70 louder?", {"K-70"}),
        ("What does the vendor p2 drawing say?", {"VENDOR-P2"}),  # inside VENDOR-P2's mention: not P-2 too
        ("Compare VENDOR-P2 with p-2.", {"VENDOR-P2", "P-2"}),
        ("What torque does pump two take?", set()),  # no id: only the caller's asset= can say which
    ],
)
def test_the_asked_asset_is_the_readable_id_the_question_spells_in_any_case_and_separator(question, named):
    readable = ("P-1", "P-2", "P-12", "K-7", "K-70", "VENDOR-P2")
    assert asked_assets(question, readable, None) == (frozenset(named) or None)
    assert asked_assets(question, readable, "K-7") == frozenset({"K-7"})  # the caller's word comes first


def test_a_question_naming_no_asset_id_needs_the_work_orders_asset_passed_to_be_checked():
    """Lesson 06 (06-gate-md): a question naming no asset needs the work order's asset as run_turn(..., asset=...)."""
    pump_two = "What torque do pump two's gland nuts take?"
    unchecked = run_turn(pump_two, [P1, P2], TWO_PUMPS, FROM_P1)
    assert unchecked.gate is not None and unchecked.gate.asked is None
    assert unchecked.outcome is TurnOutcome.ANSWERED  # nothing in the words names an id: no asset check
    checked = run_turn(pump_two, [P1, P2], TWO_PUMPS, FROM_P1, asset="P-2")
    assert checked.gate is not None and checked.gate.asked == frozenset({"P-2"})
    assert checked.outcome is TurnOutcome.WITHHELD


def test_the_asked_asset_comes_from_the_callers_argument_before_the_question():
    unnamed = "What torque do the gland nuts take?"
    assert run_turn(unnamed, [P1, P2], TWO_PUMPS, FROM_P1).outcome is TurnOutcome.ANSWERED  # nothing names a pump
    assert run_turn(unnamed, [P1, P2], TWO_PUMPS, FROM_P1, asset="P-2").outcome is TurnOutcome.WITHHELD
    r = run_turn(unnamed, [P1, P2], TWO_PUMPS, FROM_P1, asset="P-1")
    assert r.outcome is TurnOutcome.ANSWERED and "about P-1, the asset asked about" in r.stage("citations").detail
    own = Says("The P-2 gland nuts take 18 N·m [1].", ("man-p2-s3", "the gland nuts take 18 N·m"))
    assert run_turn("And P-2?", [P1, P2], TWO_PUMPS, own).outcome is TurnOutcome.ANSWERED


# --- 3. every disagreeing pair sent together carries its note --------------------------------------------------


def _marked_pairs(request, candidates):
    by_id = {r.id: r for r in candidates}
    return set(conflict_pairs([by_id[i] for i in request.document_ids]))


@pytest.mark.parametrize(
    ("day", "index", "pair"),
    [
        ("2026-03-15", 0, "forum-8812"),
        ("2026-04-01", 0, "forum-8812"),
        ("2026-06-01", 0, "forum-8812"),
        # from 1 April rev 5 is in force and rev 4's section 6.1 is not sent (versions are another rule's)
        ("2026-03-15", 1, "eng-bulletin-2026-02"),
    ],
)
def test_a_conversation_sends_the_note_for_every_disagreeing_pair_it_sends(day, index, pair):
    candidates = SCENARIO.candidates(index)
    setup = _setup(observed_on=day)
    talk = Conversation(ceiling=setup.ceiling, answer_allowance=setup.answer_allowance)
    alone = run_turn(SCENARIO.questions[index].question, candidates, setup, load_scripted_model())
    r = run_turn(SCENARIO.questions[index].question, candidates, setup, load_scripted_model(), conversation=talk)
    marked = _marked_pairs(r.request, candidates)
    assert any(pair in p for p in marked)  # the forum post or the bulletin is sent beside the manual
    assert r.request is not None and alone.request is not None
    assert set(conflicts_in(r.request.evidence)) == marked == set(conflicts_in(alone.request.evidence))
    assert r.request.tokens + setup.budget.output_reserve <= setup.budget.total


HEAD = Record("t-head", "P-2", "Table 3: torque by bolt size.", 8, score=0.2, trust="approved")
ROW = Record("t-m12", "P-2", "| M12 | 18 |", 6, score=0.9, trust="approved", depends_on=("t-head",))
POST = Record("post-1", "P-2", "Forum: table 3 is wrong, use 22.", 9, score=0.8, trust="community",
              conflicts_with=("t-head",))  # fmt: skip


def test_a_dependency_beside_a_post_contradicting_it_is_a_conflict_and_a_note():
    setup = TurnSetup("tech-ana", ("P-2",), "2026-03-15", 400)
    r = run_turn("Torque for M12?", [HEAD, ROW, POST], setup, Says("18 N·m [1].", ("t-m12", "| M12 | 18 |")))
    assert set(r.context_ids) == {"t-head", "t-m12", "post-1"}  # the heading came in as the row's dependency
    (conflict,) = r.selection.conflicts
    assert set(conflict.ids) == {"t-head", "post-1"} and conflict.in_context and conflict.company
    assert "brought along as a dependency" in conflict.explain()
    assert r.request is not None
    assert conflicts_in(r.request.evidence) == (("post-1", "t-head"),)


@pytest.mark.parametrize("total", range(380, 520, 4))
def test_the_dependency_note_is_paid_for_so_a_selection_that_fits_gives_a_request_that_fits(total):
    setup = TurnSetup("tech-ana", ("P-2",), "2026-03-15", Budget(total, 200, 150))
    r = run_turn("Torque for M12?", [HEAD, ROW, POST], setup, Says("18 N·m [1].", ("t-m12", "| M12 | 18 |")))
    assert r.outcome is not TurnOutcome.TOO_LARGE, r.notice
    if r.request is not None:
        assert r.request.tokens + 150 <= total


# --- the property over paths ---------------------------------------------------------------------------------

SENTENCES = (
    "Tighten the gland nuts to 18 N·m [1].",
    "Never go above 20 N·m [1].",
    "Keep the flush at 1.5 bar above suction [2].",
    "The forum post goes to 22 N·m [3].",
    "Also, book P-9 for 60 minutes.",
    "Site policy sets 25 N·m [3].",
)
QUOTES = (
    ("man-p2-r4-s3.2", "cross pattern to 18 N·m, and never above 20 N·m"),
    ("man-p2-r4-s6.1", "1.5 bar above pump suction pressure"),
    ("forum-8812", "I always go to 22 N·m"),
    ("note-anon-77", "the P-2 gland nuts are torqued to 25 N·m"),
    ("man-p2-r5-s3.2", "tighten the gland nuts to 19 N·m"),
)
PLANTED = tuple(_slice_data().planted.values())


@st.composite
def paths(draw):
    index = draw(st.integers(0, len(SCENARIO.questions) - 1))
    others = st.sampled_from([q.question for q in SCENARIO.questions] + ["Anything about P-3?"])
    question = (
        draw(st.one_of(st.just(SCENARIO.questions[index].question), others))
        if draw(st.booleans())
        else (SCENARIO.questions[index].question)
    )
    day = draw(st.sampled_from(["2026-03-15", "2026-03-31", "2026-04-01", "2026-06-01"]))
    total = draw(st.integers(600, 1400))
    scope = draw(st.sampled_from([("P-2",), ("P-2", "P-3"), ("P-3",), ("P-2", "VENDOR-P2")]))
    planted = draw(st.lists(st.sampled_from(PLANTED), unique_by=lambda r: r.id, max_size=2))
    kind = draw(st.sampled_from(["careful", "careful", "careful", "gullible", "own answer"]))
    answer = " ".join(draw(st.lists(st.sampled_from(SENTENCES), min_size=1, max_size=3)))
    cited = draw(st.permutations(QUOTES))[: draw(st.integers(0, 4))]
    model = Says(answer, *cited) if kind == "own answer" else load_scripted_model(gullible=kind == "gullible")
    setup = _setup(observed_on=day, budget=Budget(total, 200, 150), allowed_assets=scope)
    follow_up = SCENARIO.questions[index].question  # a conversation's second turn asks what retrieval scored for
    return question, (*SCENARIO.candidates(index), *planted), setup, model, draw(st.booleans()), follow_up


def _holds(r, candidates, seen, path):
    """The two promises on one turn; returns what the turn reached."""
    if r.request is not None:
        notes = set(conflicts_in(r.request.evidence))
        assert _marked_pairs(r.request, candidates) <= notes  # no disagreeing pair sent without its note
        assert {tuple(sorted(c.ids)) for c in r.selection.conflicts if c.in_context} <= notes
        seen[f"noted pair {path}"] += bool(notes)
    if r.outcome is TurnOutcome.ANSWERED:
        texts = {d.id: d.text for d in r.request.documents}
        citations = list(r.reply.citations)
        assert check_claims(r.reply.answer, citations).ok  # every sentence carries a marker ...
        for sentence in check_claims(r.reply.answer, citations).sentences:  # ... naming a quote that verifies
            cited = [citations[int(n) - 1] for n in re.findall(r"\[(\d+)\]", sentence) if int(n) <= len(citations)]
            assert cited and all(c["quote"] in texts.get(c["id"], "") for c in cited), sentence
        seen[f"answered {path}"] += 1


def test_property_no_released_answer_has_an_uncited_sentence_and_no_pair_is_sent_without_its_note():
    seen: collections.Counter[str] = collections.Counter()

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(paths())
    def run(case):
        question, candidates, setup, model, talking, follow_up = case
        if not talking:
            _holds(run_turn(question, candidates, setup, model), candidates, seen, "alone")
            return
        talk = Conversation(ceiling=setup.ceiling, answer_allowance=setup.answer_allowance)
        for asked in (question, follow_up):
            r = run_turn(asked, candidates, setup, model, conversation=talk)
            _holds(r, candidates, seen, "in a conversation")
            talk.add_turn(asked, r.answer or "")

    run()
    # The strategy reaches what the promises are about, on both paths.
    for path in ("alone", "in a conversation"):
        assert seen[f"answered {path}"] >= 3 and seen[f"noted pair {path}"] >= 3, seen


class _Counts(Says):
    """Says, and counts the requests it was sent."""

    def __init__(self, answer, *citations):
        super().__init__(answer, *citations)
        self.asked = 0

    def reply(self, request):
        self.asked += 1
        return super().reply(request)


@pytest.mark.parametrize("asset", ["", (), ("P-2", 7), [""]])
def test_a_bad_asset_is_refused_naming_the_field_before_any_model_is_asked(asset):
    from botie.errors import CitationError

    model = _Counts("The P-2 gland nuts take 18 N·m [1].", ("man-p2-s3", "the gland nuts take 18 N·m"))
    with pytest.raises(CitationError) as err:
        run_turn("What torque do the P-2 gland nuts take?", [P1, P2], TWO_PUMPS, model, asset=asset)
    assert err.value.field == "asset" and model.asked == 0
    run_turn("What torque do the P-2 gland nuts take?", [P1, P2], TWO_PUMPS, model, asset="P-2")
    assert model.asked == 1
