"""The answer gate (stage 8): what must hold before an answer leaves the turn.

Three checks, each a rule a lesson teaches, run on every answer whatever path built the request:

1. **quotes** (:func:`~botie.context.citations.verify_citations`): every quote is verbatim in a document that
   was sent, and that document is about the asset asked about (seed 000);
2. **sentences** (:func:`~botie.context.citations.check_claims` and
   :func:`~botie.context.citations.unsupported_sentences`): every sentence carries a citation, and every
   figure it states is in a quote it cites (seed 003, and seed 002: a citation supports its sentence);
3. **sides**: where the request carried a note that two documents disagree, the answer does not settle it
   by text. Tiers come from ingestion, never from what a document says about itself (seed 002), so a
   sentence may not rest on the lower tier of the pair without the higher one beside it, and of two
   sources kept together (both high authority, or one tier) an answer citing one cites the other. Each
   side the answer cites must be stated, not only cited: some sentence cites it with a quote holding a
   figure that the sentence states (so an answer giving one side's figure while citing the other side
   for a figure-free quote is withheld). The rule is about figures: a disagreement stated in words only
   is beyond it.

Any failure withholds the answer. How the turn knows the asked asset: the caller says so (``asset``, from
trusted application state such as the asset page the technician is on); failing that, the readable
assets the technician's own question names (in any case, with a hyphen or an en dash, spaces around it
allowed, a space or nothing between the id's letter and number parts: "P-2", "P–2", "P - 2", "p2", "P 2");
failing that, none is known and the quotes are checked
against the read scope alone (the stage says so).

The evidence region's guard is the escaping the lessons teach: every body and attribute is escaped, so no
document can close ``<evidence>`` early, on every request. The turn does not add a random fence: its
length in tokens would vary from request to request, and every count the budget makes is exact.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from botie.context.citations import (
    CitationCheck,
    ClaimCheck,
    asked_about,
    check_claims,
    cited_by_sentence,
    stated_ids,
    unsupported_sentences,
    verify_citations,
)
from botie.context.evidence import ModelRequest, conflicts_in
from botie.context.provenance import authority, kept_together, trust_of
from botie.context.records import Record
from botie.model import Reply

__all__ = ["Gate", "answer_gate", "asked_assets", "settled_sides"]


class Gate(NamedTuple):
    """The verdict of the answer gate: each check's result, and the assets the answer had to be about."""

    quotes: CitationCheck
    claims: ClaimCheck
    unsupported: tuple[tuple[str, str], ...]  # (sentence, the figure none of its quotes holds)
    sides: tuple[str, ...]  # one reason per disagreement the answer settled by itself
    asked: frozenset[str] | None  # None: no asset was named, so none was required

    @property
    def ok(self) -> bool:
        return self.quotes.ok and self.claims.ok and not self.unsupported and not self.sides

    def reasons(self) -> list[str]:
        """Why the answer is withheld, quotes first, then sentences, then sides (empty when released)."""
        out = [f.reason for f in self.quotes.failures]
        out += [f"no citation for the sentence {s!r:.80}" for s in self.claims.uncited]
        out += [f"no quote the sentence {s!r:.80} cites holds its {f}" for s, f in self.unsupported]
        return out + list(self.sides)


_DASH = "[-\u2013]"  # a hyphen or an en dash (a word processor turns one into the other)
_SEPARATOR = rf"(?:\s*{_DASH}\s*|\s?)"


def _spellings(asset: str) -> str:
    """A pattern for the ways a person writes ``asset``: any case, and between its letter and number parts a
    hyphen or an en dash (spaces around it allowed), a space, or nothing ("P-2", "P–2", "P - 2", "p2", "P 2"),
    derived from the id itself, so no asset vocabulary is kept."""
    parts = re.findall(r"[^\W\d_]+|\d+", asset)
    body = _SEPARATOR.join(re.escape(p) for p in parts) if parts else re.escape(asset)
    # Not inside a longer id: "P-2" is not named by "P-12", "P-21", "P–21" or "VENDOR-P2".
    return rf"(?<!\w)(?<!\w{_DASH}){body}(?!{_DASH}?\w)"


def _named(question: str, readable: Iterable[str]) -> frozenset[str]:
    """The readable assets the question names. A mention inside a longer id's mention names only the longer
    one: "vendor p2" names VENDOR-P2, not P-2 as well."""
    spans = {a: [m.span() for m in re.finditer(_spellings(a), question, flags=re.IGNORECASE)] for a in readable}
    every = [(a, span) for a, found in spans.items() for span in found]

    def inside(a: str, span: tuple[int, int]) -> bool:
        return any(b != a and s <= span[0] and span[1] <= e and (e - s) > (span[1] - span[0]) for b, (s, e) in every)

    return frozenset(a for a, found in spans.items() if any(not inside(a, span) for span in found))


def asked_assets(question: str, readable: Iterable[str], asset: str | Iterable[str] | None) -> frozenset[str] | None:
    """The asset(s) the answer must be about: ``asset`` when given, else the readable ones the question names."""
    if asset is not None:
        return asked_about(asset)  # checked here, before any model is asked, not after the answer came back
    return _named(question, readable) or None


def settled_sides(
    answer: str, citations: object, pairs: Iterable[tuple[str, str]], sent: Mapping[str, Record]
) -> tuple[str, ...]:
    """The disagreements (pairs noted in the request) that the answer settles by itself, each with why."""
    sentences = cited_by_sentence(answer, citations)
    cited = {i for _, ids in sentences for i in ids}
    stated = stated_ids(answer, citations)
    problems: list[str] = []
    for side in sorted({i for pair in pairs for i in pair} & cited - stated):
        problems.append(f"cites {side} but states none of its figures: the answer presents each side it cites")
    for a, b in pairs:
        first, second = sent[a], sent[b]
        if kept_together(first, second):
            if (a in cited) != (b in cited):
                one, other = (a, b) if a in cited else (b, a)
                problems.append(f"cites {one} but not {other}: the two disagree, so the answer presents both")
            continue
        low, high = sorted((first, second), key=authority)
        for sentence, ids in sentences:
            if low.id in ids and high.id not in ids:
                problems.append(
                    f"the sentence {sentence!r:.60} rests on {low.id} ({trust_of(low)}) without {high.id} "
                    f"({trust_of(high)}), which it disagrees with: a tier comes from ingestion, not from the text"
                )
    return tuple(problems)


def answer_gate(reply: Reply, request: ModelRequest, sent: Sequence[Record], asked: frozenset[str] | None) -> Gate:
    """Run the three checks on an answer to ``request`` (whose documents are ``sent``)."""
    quotes = verify_citations(reply.citations, request.documents, asset=asked)
    claims = check_claims(reply.answer, reply.citations)
    unsupported = unsupported_sentences(reply.answer, reply.citations)
    by_id = {r.id: r for r in sent}
    sides = settled_sides(reply.answer, reply.citations, conflicts_in(request.evidence), by_id)
    return Gate(quotes, claims, unsupported, sides, asked)
