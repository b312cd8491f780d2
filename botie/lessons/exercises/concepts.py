"""The concept check: the same questions at the start of lesson 00 and at the end of lesson 06.

Each question is about one idea the syllabus teaches, and its wrong options are the wrong answers the
instructor guide lists as common (a citation proves the answer; a word count with a margin is a budget;
retrieval keeps planted text out; a prompt makes a retry safe; an approval follows a changed payload;
``unavailable`` means nothing was booked). Unlike a prediction, the learner answers all of them at once
and is not told the key after the first check: the second check, at the end of the day, is compared with
the first, idea by idea.

The questions reuse the predictions' :class:`~botie.lessons.exercises.questions.Question` and
:func:`~botie.lessons.exercises.questions.judge`; their ``lesson`` is the lesson to revisit, and each
concept adds the section. Every key, and every wrong option, is shown by running botie in
``tests/lessons/exercises/test_concepts.py``, one test per concept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from botie.errors import SettingError
from botie.lessons.exercises.questions import Question

__all__ = ["CHECKS", "CONCEPTS", "Concept", "check_name"]

#: The two checks: before the first lesson, after the last.
CHECKS = ("before", "after")


class Concept(NamedTuple):
    """One idea: a short name for tables, the question about it, and the section that teaches it."""

    idea: str
    question: Question
    section: int
    section_title: str

    @property
    def id(self) -> str:
        return self.question.id

    @property
    def lesson(self) -> str:
        return self.question.lesson

    @property
    def revisit(self) -> str:
        return f"lesson {self.lesson}, section {self.section}: {self.section_title}"


def _c(idea: str, id: str, where: tuple[str, int, str], prompt: str, options: tuple[str, ...], answer: int, why: str):
    lesson, section, title = where
    return Concept(idea, Question(id, lesson, prompt, options, answer, why), section, title)


_ALL = (
    _c(
        "costs are tokens, not words",
        "tokens-not-words",
        ("03", 1, "Characters are not tokens"),
        "A record is a list of nine part numbers. To be safe, you budget its word count plus 10%: "
        "10 tokens. Is that a safe budget?",
        (
            "yes: a word is about a token, and the margin covers the rest",
            "no: only the tokenizer's count says what text costs, and part numbers take several tokens each",
            "yes, if the characters divided by four are used instead of the words",
        ),
        1,
        "Nine part numbers are 55 tokens: over five times the words, and more than twice the characters over "
        "four. No margin on words or characters is both safe and useful; count with the model's tokenizer.",
    ),
    _c(
        "permission comes before the budget",
        "permission-then-budget",
        ("01", 2, "Who may read what?"),
        "The caller may read P-2 only. Ranked first is a P-1 manual (5 tokens), then a P-2 ticket (6). The "
        "evidence allowance is 6. Which way round gets the P-2 ticket into the request?",
        (
            "pack by rank first, then drop the records the caller may not read",
            "drop what the caller may not read first, then pack",
            "pack by rank, and tell the model in the instructions not to use the P-1 manual",
        ),
        1,
        "Packed first, the P-1 manual takes 5 of the 6 tokens, the ticket no longer fits, and dropping the "
        "manual afterwards leaves nothing. An instruction cannot take back text already sent to the model.",
    ),
    _c(
        "trust comes from ingestion, never from the text",
        "trust-from-ingestion",
        ("02a", 6, "Wrong on purpose: the note that says it is official"),
        "An anonymous note's text says it is OFFICIAL SITE POLICY. Ingestion filed it as unverified. "
        "Which tier does the selector give it?",
        (
            "approved: the document says so",
            "unverified, the tier ingestion gave it: the text's claim changes nothing",
            "none: a note that claims authority is dropped",
        ),
        1,
        "The tier is metadata from ingestion; the selector never reads the text to find it. The note is "
        "neither promoted nor dropped for its claim: it competes as what it is.",
    ),
    _c(
        "the oversized guard comes first",
        "oversized-first",
        ("03", 2, "Count, then choose a route"),
        "Ceiling 900,000 tokens, soft budget 540,000. Three documents: 600,000, 20,000 and 10,000 tokens "
        "(630,000 in all, within four soft budgets). Which route?",
        ("stuff_all", "select_documents", "retrieve_within_document", "retrieve_chunks"),
        2,
        "One document is above the soft budget on its own, so no choice of whole documents can fit it: the "
        "guard runs before the total is looked at and searches within that document.",
    ),
    _c(
        "a ranking has no floor",
        "ranking-has-no-floor",
        ("04", 1, "When nothing clears the floor"),
        "Nothing the technician may read answers the question. What does a top-3 retriever return, and what "
        "should happen next?",
        (
            "nothing: an empty result says the answer is absent",
            "three passages anyway; a gate on their scores refuses before any model is called",
            "three passages, which are sent because they are the best there is",
        ),
        1,
        "Ranking sorts; it never decides that something is good enough. The relevance floor is a separate "
        "gate, and below it the turn refuses instead of letting a model fill the gap.",
    ),
    _c(
        "retrieval is a gatekeeper, not a wall",
        "retrieval-not-a-wall",
        ("04", 4, "Evidence is data"),
        "Botie sends every permitted, current passage scoring at or above its relevance floor (0.35) that "
        "fits the budget. Does that keep a ticket with planted instructions out of the model's request?",
        (
            "yes: the floor lets relevant text through, never instructions",
            "no: a planted ticket over the floor that fits is sent, as the torque turn sends tkt-5630 at 0.52",
            "yes: a ticket never scores as high as a manual, so it never reaches the floor",
        ),
        1,
        "Selection ranks by score and never reads for orders, so a planted passage above the floor that fits "
        "is sent (eleventh of sixteen candidates, it still gets in). The floor keeps out what is off the "
        "question, not what gives orders.",
    ),
    _c(
        "a citation is not proof",
        "citation-is-not-proof",
        ("04", 5, "Check the quotes before anyone reads the answer"),
        "An answer says the torque is 25 N·m and cites the P-2 manual with a quote copied word for word from "
        "it. The citation check passes. What has it shown?",
        (
            "that the answer is right",
            "that the cited document was in the request and the quote is in it; not that it supports the claim",
            "only that the cited id exists: the quote is not compared",
        ),
        1,
        "The check compares the quote with the text of a document that was sent, nothing more. A claim can "
        "cite a genuine quote that says something else (here, 18 N·m).",
    ),
    _c(
        "an approval is for one exact payload",
        "approval-one-payload",
        ("05a", 2, "The decision, one check at a time"),
        "tech-ana approved a 20-minute inspection of P-2 under request r7. The model then proposes 45 minutes "
        "under r7. What does the decision say?",
        (
            "create: r7 was approved",
            "needs_approval: the approval was for 20 minutes",
            "denied: the model changed the request",
        ),
        1,
        "An approval is recorded for one payload and one actor. A changed duration is a new request that "
        "nobody has approved yet; it is not refused, it waits for an approval.",
    ),
    _c(
        "a retry is made safe by its request id",
        "retry-keeps-its-id",
        ("05a", 3, "Retries: the same request id, three ways"),
        "The connection dropped after Botie sent r7, so nobody knows whether the inspection was booked. What "
        "makes sending it again safe?",
        (
            "an instruction telling the model not to repeat itself",
            "sending it again with the same request id, so the service returns the earlier job",
            "a new request id for the new attempt, so the service treats it as fresh",
        ),
        1,
        "The service keys each job on (caller, request id): the same id returns the job already booked. A new "
        "id books a second one, and an instruction never reaches the service that books.",
    ),
    _c(
        "unavailable does not mean nothing was booked",
        "unavailable-not-nothing",
        ("05b", 1, "Which failures to retry, and what the model is told"),
        "Botie's booking went out; the scheduling service failed before it answered, and the result is "
        "`unavailable`. Was an inspection booked?",
        (
            "no: unavailable means nothing was booked, so send it as a new request",
            "perhaps: no job is confirmed; send it again with the same request id, the key a scheduler that "
            "honours it books once under",
            "yes: so it must never be sent again",
        ),
        1,
        "The failure may have come after the booking was made. Sent again under the same request id, the same "
        "key goes to the scheduler, and one that deduplicates on it hands the booking back; one that ignores "
        "the key would book twice. A new request would book a second inspection either way.",
    ),
    _c(
        "documents never choose an action",
        "documents-never-act",
        ("06", 2, "A planted instruction and the booking"),
        "A document in the evidence tells the assistant what to do, and the model obeys text it reads. What "
        "can that document change in a botie turn?",
        (
            "nothing: the evidence region keeps the model from obeying it",
            "the answer perhaps, never the tool call: the call is proposed from a request without documents",
            "the tool call: the model proposes what the evidence says",
        ),
        1,
        "The marked region is a hint, not a wall: a planted note can still change the model's answer (the "
        "answer gate withholds every one in the slice). The tool call is proposed from a request that holds no "
        "document text.",
    ),
)

CONCEPTS: Mapping[str, Concept] = {c.id: c for c in _ALL}


def check_name(check: str) -> str:
    """``check`` itself when it is one of :data:`CHECKS`; a :class:`SettingError` that names both otherwise.

    A learner types it (``concept_check("befor")``), so it raises from the one error tree.
    """
    if check not in CHECKS:
        raise SettingError(f"the concept check is 'before' or 'after', got {check!r}", field="check")
    return check
