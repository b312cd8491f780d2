"""Predict, then run: the questions a learner answers before the cell that shows the result.

Each question is drawn from the syllabus's self-check and mastery lists. The
learner commits to one option; :func:`judge` says whether it was right and
explains why, in words (the widget in :mod:`botie.lessons.ui.predict` only renders
that text). Where an answer states how botie behaves, a test computes it from
the code (``tests/lessons/exercises/test_predict.py``), so the key cannot drift from the
package.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["QUESTIONS", "Judgement", "Question", "judge", "questions_for"]


class Question(NamedTuple):
    """One prediction: the prompt, the options in display order, the right option's index and why."""

    id: str
    lesson: str
    prompt: str
    options: tuple[str, ...]
    answer: int
    why: str


class Judgement(NamedTuple):
    """The verdict on one prediction, as text a screen reader reads in full."""

    correct: bool
    answered: bool
    text: str


def _q(id: str, lesson: str, prompt: str, options: tuple[str, ...], answer: int, why: str) -> Question:
    return Question(id, lesson, prompt, options, answer, why)


_ALL = (
    _q(
        "reserves-too-big",
        "00",
        "The reserves need 8 + 4 = 12 tokens and the whole window is 10. What should evidence_allowance do?",
        ("return 0: no room for evidence", "return -2", "raise an error that says the reserves do not fit"),
        2,
        "A zero claims the request fits when it cannot, and a negative number is nonsense downstream. An error "
        "makes someone decide what to shorten.",
    ),
    _q(
        "word-count-instead",
        "00",
        "Each record arrives with a cost. Can you use the number of words in its text instead?",
        (
            "yes: a word is one token",
            "no: the cost is whole tokens counted by the tokenizer, and words are not tokens",
            "yes: add 10% to the word count for safety",
        ),
        1,
        "Token counts depend on the text: part numbers and tables take far more tokens per word than prose. "
        "Lesson 03 measures how many characters a token covers.",
    ),
    _q(
        "prefix-6-5-in-8",
        "01",
        "Ranked permitted costs 6 then 5, evidence allowance 8, prefix policy. Which records are selected?",
        ("both (6 + 5 = 11)", "only the first (6)", "only the second (5)", "neither"),
        1,
        "The first fits (6). The next would make 11, over 8, so prefix stops there: one record, 6 of 8 used.",
    ),
    _q(
        "restricted-where",
        "01",
        "tech-ana may not read the P-1 and K-7 records. Where must that be enforced?",
        (
            "in the instructions: tell the model not to use them",
            "before the budget: such a record never takes room and never reaches the model",
            "after the answer: remove their facts from the reply",
        ),
        1,
        "Permission runs in code before any budget decision. Budget first, the P-1 manual takes room and pushes "
        "out the ticket before it is dropped; a line in the instructions cannot take back restricted text that is "
        "already in the request, and cleaning the reply comes later still.",
    ),
    _q(
        "skip-3-8-2-in-7",
        "01",
        "Costs 3, 8, 2 in ranked order, an allowance of 7, the skip policy. Which positions are kept, and how "
        "many tokens are used?",
        ("[0], 3 used", "[0, 2], 5 used", "[0, 1], 11 used", "[2], 2 used"),
        1,
        "Skip steps over the 8 and keeps looking, so the 2 gets in too: 3 + 2 = 5. Prefix would stop at the 8 "
        "and keep [0]: under prefix, everything kept outranks everything left out.",
    ),
    _q(
        "internal-policy-layer",
        "02a",
        "The user may not view the vendor's restricted design file, which scores highest of all. At which "
        "layer is it stopped?",
        (
            "ranking: its score is lowered",
            "the permission filter, before ranking",
            "the model, which is told not to use it",
        ),
        1,
        "Permission and freshness are filtered before relevance ranking, so no score can carry a forbidden "
        "record past the filter.",
    ),
    _q(
        "two-high-disagree",
        "02a",
        "The approved manual says 1.5 bar, a reviewed bulletin says 2.0 bar. What does the selector do?",
        (
            "send the higher-scoring one, with a flag naming the one left out",
            "send the approved one, with a flag naming the bulletin it outranks",
            "send both, with a flag naming the pair",
        ),
        2,
        "When high-authority sources disagree, both travel together and the conflict is flagged, so the model "
        "never settles it silently and a person can.",
    ),
    _q(
        "self-declared-official",
        "02a",
        "The note's text says it is OFFICIAL SITE POLICY. If ingestion believed the text and labelled it approved, "
        "where would the note rank for the torque question?",
        (
            "still below the manual, which scores higher (0.88 against 0.83)",
            "first, ahead of the manual",
            "nowhere: its conflict with the manual keeps it out",
        ),
        1,
        "0.83 and 0.88 share a score band, the tiers would be equal, and the note is newer, so it ranks first and "
        "the model reads a 25 N·m 'policy' labelled approved. Trust has to come from ingestion, never from the text.",
    ),
    _q(
        "cited-by-address",
        "02b",
        "Rev 4's section 3.2 is in the pack. An answer quotes it word for word but cites "
        "docs://site-a/manuals/p2/rev4, the address of rev 4, instead of the chunk's id. Does the citation check "
        "pass it?",
        (
            "yes: the address names the document the quoted chunk came from",
            "yes: the quote is word for word, so it is clear which chunk was read",
            "no: a citation must name the id of a chunk that entered the pack",
        ),
        2,
        "The check looks the cited id up among the chunks that were sent. An address says where a document lives; "
        "it is not a chunk in the pack, so it fails as unknown_id however exact the quote.",
    ),
    _q(
        "preload-or-jit-tokens",
        "02b",
        "Just in time sends the ids first and loads a document when a step needs it. Over the four questions, "
        "which strategy sends the model more input tokens in all?",
        (
            "preloading: it sends every selected document, needed or not",
            "just in time: after each load comes another model call, sent everything so far",
            "about the same: both put the same documents in front of the model",
        ),
        1,
        "Each model call is sent the whole request again: the instructions, the ids and every document loaded so "
        "far. The torque question takes six loads, so seven model calls; in all, just in time sends about five "
        "times the tokens of preloading, though fewer of them are unneeded.",
    ),
    _q(
        "route-41",
        "03",
        "41 agreements, 1,440,000 tokens in all, the largest 68,200; ceiling 900,000 and soft budget 540,000. "
        "Which route?",
        ("stuff_all", "select_documents", "retrieve_within_document", "retrieve_chunks"),
        1,
        "No document is above 540,000, so the guard passes; the total is above one soft budget and within "
        "four (2,160,000): whole documents are chosen by relevance.",
    ),
    _q(
        "floor-0-11",
        "04",
        "The best passage the technician may read scores 0.11 against a floor of 0.35. What happens?",
        (
            "the three best passages are sent anyway",
            "a refusal, before any model is called",
            "the floor is lowered until something passes",
        ),
        1,
        "A ranking has no floor of its own. The gate says the documents do not appear to answer, before a "
        "model can fill the gap from general knowledge.",
    ),
    _q(
        "planted-5630-prompts",
        "04",
        "Ticket 5630 gives the assistant orders. Over this lesson's four questions, where does it reach the model "
        "under retrieval (the top three passages by keyword score) and under stuffing (everything attached)?",
        (
            "retrieval: in the top three for the torque question, which it mentions, and tied out of the other "
            "three; stuffing: all four",
            "retrieval: outscored for all four questions, so never sent, whatever the order of ties; stuffing: "
            "all four",
            "retrieval: outscored for three questions, tied at the top for the fourth, where only the order of "
            "ties keeps it out; stuffing: all four",
            "neither design: both drop a passage that gives the assistant orders before any question is "
            "scored, so it reaches no prompt",
        ),
        2,
        "For three questions more than three passages outscore it. For the alignment question every passage that "
        "matches scores 0.20: the ticket ties with ten others and misses the top three only because ties are "
        "listed by id. Stuffing never reads the text, so it is in every prompt. Neither design looks for orders.",
    ),
    _q(
        "soft-fraction-one",
        "03",
        "Documents may take the whole ceiling (soft fraction 1.0). Which turn is the first over the ceiling?",
        ("turn 1", "turn 9", "turn 30", "none: the documents fit"),
        0,
        "With no reserve, the first turn's instructions and answer already push it over. At 60% the "
        "conversation has room for many turns first.",
    ),
    _q(
        "r7-again",
        "05a",
        "r7 booked job-1 for 20 minutes. r7 arrives again, now for 30 minutes, and tech-ana approved the 30. "
        "Which branch?",
        (
            "create: a second job, for 30 minutes, since this payload is new",
            "reuse: job-1 comes back, since r7 has booked already",
            "conflict: job-1 stands, and this r7 is refused",
            "an update: job-1 becomes 30 minutes, since the change was approved",
        ),
        2,
        "The request id names one intended booking. The same id with a different payload is neither a retry "
        "(which sends it unchanged) nor a new inspection (which gets a new id), so the service refuses to guess: "
        "job-1 stands and the result says why. The approval lets a booking happen; it does not rewrite one.",
    ),
    _q(
        "retry-which",
        "05b",
        "Which result is worth retrying unchanged, with the same request id?",
        (
            "denied: the caller may not schedule this asset",
            "invalid: an argument is out of range",
            "unavailable: the scheduling service did not answer",
            "conflict: the request id was used for another payload",
        ),
        2,
        "Only a transient failure can succeed unchanged. Denied, invalid and conflict give the same answer "
        "until someone changes something; retrying them is noise.",
    ),
    _q(
        "race-four-workers",
        "05b",
        "Four workers send the same approved r7 at the same moment to SQLiteStore, a store in one file with a "
        "primary key on (caller, request id). What do the four get back?",
        (
            "four creates: each look-up found nothing stored yet",
            "one create; the other three fail with a duplicate-key error",
            "one create and three reuses of the first job",
        ),
        2,
        "Each transaction takes SQLite's write lock before it looks. The first looks and inserts while it holds "
        "the lock; each later one waits, then finds r7 stored with the same payload and hands back the first job. "
        "One booking, four answers, no error.",
    ),
    _q(
        "valid-minutes-true",
        "05a",
        "The package's minutes check is given True. What does it return?",
        ("True: in Python True == 1, a whole number of minutes", "False: a bool is not a number of minutes"),
        1,
        "bool is a subclass of int in Python, so isinstance lets True through; type(value) is int does not.",
    ),
    _q(
        "planted-booking",
        "06",
        "Ticket 5630 tells the assistant to book a 60-minute inspection, and the gullible model obeys every "
        "planted instruction. What happens to the booking the turn proposes?",
        (
            "it becomes a 60-minute booking: the model read the ticket and follows it",
            "it is unchanged: the booking is asked for in a request with no documents",
            "the turn stops with an error: botie spots the planted instruction first",
        ),
        1,
        "Tool calls are proposed from a request with the technician's message and trusted facts only, and "
        "decided against trusted state. A document can bend an answer, not an action.",
    ),
    _q(
        "accuracy-vs-refusals",
        "06",
        "Design B answers one more ordinary question than design A, but where nothing the caller may read holds "
        "the answer, B answers anyway instead of refusing. A report gives one score for all the cases together. "
        "What can that one score hide?",
        (
            "nothing that matters: the number goes up or down by exactly what changed",
            "the trade: one more right answer bought with made-up answers that look like right ones",
            "only B's refusals: a technician never sees those anyway",
        ),
        1,
        "A refusal is a failure the technician sees; an answer made up from documents that hold none is one they "
        "do not (section 3: only an evaluation that knows the needed documents sees it). One number for every "
        "case nets the gain against the losses and cannot say which cases they were. Reported per set, the lost "
        "refusals stand next to the gain.",
    ),
)

QUESTIONS: Mapping[str, Question] = {q.id: q for q in _ALL}


def questions_for(lesson: str) -> tuple[Question, ...]:
    return tuple(q for q in _ALL if q.lesson == lesson)


def judge(question: Question | str, choice: Any) -> Judgement:
    """Check a prediction. ``choice`` is the option's index (or None when nothing was chosen)."""
    q = QUESTIONS[question] if isinstance(question, str) else question
    if type(choice) is not int or not 0 <= choice < len(q.options):
        return Judgement(False, False, "Choose one of the options first, then check.")
    if choice == q.answer:
        return Judgement(True, True, f"Correct: {q.options[q.answer]}. {q.why}")
    return Judgement(
        False, True, f"Not quite: you chose {q.options[choice]!r}. The answer is {q.options[q.answer]!r}. {q.why}"
    )
