"""Check an answer's citations against what actually entered the context, before anyone sees it.

A model can write an id that looks right, or a quote that sounds right. Only
code can confirm that the id names a document that was in the request and
that the quoted words appear in that document, character for character. An
instruction smuggled into a document can change an answer, but it usually
cannot supply a genuine quote that supports the change: the check fails and
the answer is withheld. That is a smaller promise than "injection prevented",
and one we can keep.

The model's citations are untrusted output, so nothing about them raises:
a malformed citation is a failure with a reason. Only the context (our own
data) can be bad input.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from botie._checks import has_text
from botie._enum import ShortName
from botie.context.evidence import parse_evidence
from botie.errors import CitationError

__all__ = [
    "CitationCheck",
    "CitationFailure",
    "CitationProblem",
    "ClaimCheck",
    "check_claims",
    "cited_by_sentence",
    "stated_ids",
    "unsupported_sentences",
    "verify_citations",
]


class CitationProblem(ShortName):
    """Why a citation failed."""

    MALFORMED = "malformed"  # not an {"id": str, "quote": str} object
    UNKNOWN_ID = "unknown_id"  # the id did not enter the context
    NOT_VERBATIM = "not_verbatim"  # what it states is in that document, but not in those exact words
    FACT_NOT_IN_TEXT = "fact_not_in_text"  # what it states is not in that document at all
    NO_CITATIONS = "no_citations"  # the answer cites nothing at all
    WRONG_ASSET = "wrong_asset"  # verbatim, but in a document about another asset than the one asked about


class CitationFailure(NamedTuple):
    """One failed citation: its position in the list (None for the list as a whole), the id and why.

    The field is ``position``, not ``index``: a NamedTuple is a tuple, and a field named ``index``
    would hide ``tuple.index`` (and a type checker rejects the override).
    """

    position: int | None
    citation_id: str | None
    problem: CitationProblem
    reason: str


@dataclass(frozen=True)
class CitationCheck:
    """The verdict on an answer's citations. Any failure withholds the answer."""

    ok: bool
    failures: tuple[CitationFailure, ...]
    verified: tuple[tuple[str, str], ...]  # (id, quote) pairs that checked out, in order
    context_ids: tuple[str, ...]

    @property
    def branch(self) -> str:
        return "release" if self.ok else "withhold"

    def explain(self) -> str:
        if self.ok:
            n = len(self.verified)
            what = "the one citation is" if n == 1 else f"all {n} citations are"
            return f"release: {what} verbatim in documents that were in the context"
        lines = [f"withhold: {len(self.failures)} citation problem(s)"]
        lines += [f"  {'-' if f.position is None else f.position}: {f.problem}: {f.reason}" for f in self.failures]
        return "\n".join(lines)


def _context_assets(context: Any) -> dict[str, str | None]:
    """The asset each document of the context is about (None where the context does not say: a mapping)."""
    if isinstance(context, str):
        return {d.id: d.asset for d in parse_evidence(context)}
    if isinstance(context, Mapping):
        return dict.fromkeys(context)
    return {doc.id: getattr(doc, "asset", None) for doc in context}


def _context_texts(context: Any) -> dict[str, str]:
    """The documents that entered the context, as id -> text.

    Accepts what a caller naturally holds: the records that were rendered (or
    anything with ``id`` and ``text``), a mapping of id to text, or the
    rendered ``<evidence>`` region itself, which is the most faithful of all.
    """
    if isinstance(context, str):
        items: Iterable[tuple[Any, Any]] = ((d.id, d.text) for d in parse_evidence(context))
    elif isinstance(context, Mapping):
        items = context.items()
    else:
        try:
            items = [(doc.id, doc.text) for doc in context]
        except (TypeError, AttributeError) as exc:
            raise CitationError(
                "context must be the records that entered the request, a mapping of id to text, "
                f"or a rendered evidence region; got {context!r:.80}",
                field="context",
            ) from exc
    texts: dict[str, str] = {}
    for doc_id, text in items:
        if not isinstance(doc_id, str) or not isinstance(text, str):
            raise CitationError(f"context entry {doc_id!r:.40} must have a str id and str text", field="context")
        if doc_id in texts:
            raise CitationError(f"context has {doc_id!r} twice", field="context", record=doc_id)
        texts[doc_id] = text
    return texts


def _check_one(position: int, citation: Any, texts: Mapping[str, str]) -> CitationFailure | tuple[str, str]:
    def fail(problem: CitationProblem, reason: str, cid: str | None = None) -> CitationFailure:
        return CitationFailure(position, cid, problem, reason)

    if not isinstance(citation, Mapping):
        return fail(CitationProblem.MALFORMED, f"expected an object with id and quote, got {type(citation).__name__}")
    missing = [key for key in ("id", "quote") if key not in citation]
    if missing:
        return fail(CitationProblem.MALFORMED, f"missing {' and '.join(missing)}")
    cid, quote = citation["id"], citation["quote"]
    if not has_text(cid):
        return fail(CitationProblem.MALFORMED, f"id must be a non-empty string, got {cid!r:.40}")
    if not has_text(quote):
        return fail(CitationProblem.MALFORMED, f"quote must be a non-empty string, got {quote!r:.40}", cid)
    if cid not in texts:
        return fail(CitationProblem.UNKNOWN_ID, f"{cid} did not enter the context", cid)
    if quote not in texts[cid]:
        absent = _missing_fact(quote, texts[cid])
        why = f"the quote {quote[:50]!r} does not appear verbatim in {cid}"
        if absent is None:
            why += ", though what it states does: the quote is not verbatim, the fact is in the text"
            return fail(CitationProblem.NOT_VERBATIM, why, cid)
        return fail(CitationProblem.FACT_NOT_IN_TEXT, f"{why}, and neither does {absent}", cid)
    return cid, quote


_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[^\W\d_]{4,}")


def _missing_fact(quote: str, text: str) -> str | None:
    """What the quote states that the document does not, or None when only the wording differs.

    Two failures need two names: "the model paraphrased" sends you to the
    prompt, "the fact is not there" to selection. In a maintenance answer the
    facts are figures, so a quote with figures is judged by them alone (every
    one must occur in the text as a number); a quote without figures by its
    words of four letters or more, in any case and order. A heuristic, and
    either way the answer is withheld: this only decides what the trace says.
    """
    figures = _FIGURE.findall(quote)
    if figures:
        present = set(_FIGURE.findall(text))
        return next((f for f in figures if f not in present), None)
    if not _WORD.search(quote):
        return repr(quote[:50])  # nothing that could be checked: no figure and no word
    words = {w.casefold() for w in _WORD.findall(text)}
    return next((repr(w[:50]) for w in _WORD.findall(quote) if w.casefold() not in words), None)


def asked_about(asset: str | Iterable[str] | None) -> frozenset[str] | None:
    """The asked asset(s) as a set, or None when no asset was asked about (then any asset passes)."""
    if asset is None:
        return None
    assets = frozenset((asset,) if isinstance(asset, str) else asset)
    if not assets or not all(isinstance(a, str) and a for a in assets):
        raise CitationError(f"asset must be a non-empty str or a set of them, got {asset!r:.60}", field="asset")
    return assets


def _wrong_asset(position: int, cid: str, about: frozenset[str], assets: Mapping[str, str | None]) -> CitationFailure:
    asked = " or ".join(sorted(about))
    what = f"is about {assets[cid]}" if assets[cid] is not None else "does not say which asset it is about"
    why = f"{cid} {what}, not {asked}, the asset asked about: a passage about another pump answers nothing here"
    return CitationFailure(position, cid, CitationProblem.WRONG_ASSET, why)


def verify_citations(
    citations: Any, context: Any, *, allow_empty: bool = False, asset: str | Iterable[str] | None = None
) -> CitationCheck:
    """Verify each ``{"id": ..., "quote": ...}`` against the documents that entered the context.

    A citation fails when it is malformed, when its id was not in the
    context (even if the id exists somewhere else: it was not what the model
    read), or when its quote is not an exact substring of that document. With
    ``asset`` (the asset, or assets, the question is about), a verbatim quote
    from a document about another asset fails too (seed 000: a citation must
    refer to the right asset); so does one from a context that does not say
    what its documents are about (a mapping of id to text). An answer with no
    citations fails too, unless ``allow_empty``. ``ok`` is true only when
    nothing failed; otherwise the answer should be withheld.
    """
    about = asked_about(asset)
    if about is not None and not isinstance(context, (str, Mapping)):
        context = list(context)
    assets = _context_assets(context) if about is not None else {}
    texts = _context_texts(context)
    ids = tuple(texts)
    if isinstance(citations, (str, bytes, Mapping)) or not isinstance(citations, Iterable):
        failure = CitationFailure(
            None,
            None,
            CitationProblem.MALFORMED,
            f"citations must be a list of {{id, quote}} objects, got {type(citations).__name__}",
        )
        return CitationCheck(False, (failure,), (), ids)
    failures: list[CitationFailure] = []
    verified: list[tuple[str, str]] = []
    for position, citation in enumerate(citations):
        result = _check_one(position, citation, texts)
        if about is not None and not isinstance(result, CitationFailure) and assets[result[0]] not in about:
            result = _wrong_asset(position, result[0], about, assets)
        if isinstance(result, CitationFailure):
            failures.append(result)
        else:
            verified.append(result)
    if not failures and not verified and not allow_empty:
        failures.append(CitationFailure(None, None, CitationProblem.NO_CITATIONS, "the answer cites nothing to check"))
    return CitationCheck(not failures, tuple(failures), tuple(verified), ids)


# --- every sentence carries a citation ---------------------------------------------------------

_MARKER = re.compile(r"\[(\d+)\]")
# A stop, with any markers right after it ("done. [2]"), before a space: "1.5 bar" stays one sentence.
# Markers followed by a capital end a sentence too, stop or not: "18 N·m [1] Book P-9" is two sentences.
_SENTENCE_END = re.compile(r"[.!?](?:\s*\[\d+\])*(?=\s)|\[\d+\](?=\s+[A-Z])")
# A list item's bullet or number at the start of a line: the item is a sentence, its "1." is not one.
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")
# Stops that end an abbreviation, not a sentence (compared in lower case); "No." only before a number.
_ABBREVIATIONS = frozenset({"e.g.", "i.e.", "approx.", "cf.", "vs."})
_NUMBER_AFTER = re.compile(r"\s+\d")


def _abbreviation(line: str, stop: int) -> bool:
    """Is the stop at ``line[stop]`` the end of an abbreviation such as "e.g." or "No. 4"?"""
    word = line[: stop + 1].rsplit(maxsplit=1)[-1].lstrip("([\"'")
    if word.casefold() in _ABBREVIATIONS:
        return True
    return word == "No." and _NUMBER_AFTER.match(line, stop + 1) is not None


def _sentences(answer: str) -> tuple[str, ...]:
    """Split at a stop followed by a space, at every line break, and before each list item."""
    out: list[str] = []
    for line in answer.splitlines():
        line = _BULLET.sub("", line, count=1)
        start = 0
        for end in _SENTENCE_END.finditer(line):
            if not _abbreviation(line, end.start()):
                out.append(line[start : end.end()])
                start = end.end()
        out.append(line[start:])
    return tuple(s.strip() for s in out if s.strip())


# A figure a sentence states: a number not glued to a name ("P-2", "M12" and the "03" of a date name things).
_STATED_FIGURE = re.compile(r"(?<![\w-])\d+(?:[.,]\d+)*")


def _unsupported_figure(sentence: str, citations: Sequence[Any]) -> str | None:
    """The first figure ``sentence`` states that none of the quotes it cites contains, or None.

    The check :func:`_missing_fact` makes of a quote against its document, made of a sentence against
    its quotes (seed 002: a citation must support the sentence it is attached to): in a maintenance
    answer the facts are figures, so a sentence citing a torque quote cannot carry a booking's minutes.
    """
    quotes = []
    for n in _MARKER.findall(sentence):
        cited = citations[int(n) - 1] if 1 <= int(n) <= len(citations) else None
        if isinstance(cited, Mapping) and isinstance(cited.get("quote"), str):
            quotes.append(cited["quote"])
    # One rule for what a figure is, in the sentence and in its quotes: the 2 of "P-2" supports no "2 bar".
    present = {f for q in quotes for f in _STATED_FIGURE.findall(q)}
    return next((f for f in _STATED_FIGURE.findall(_MARKER.sub("", sentence)) if f not in present), None)


@dataclass(frozen=True)
class ClaimCheck:
    """Which sentences of an answer rest on a citation. Any uncited sentence withholds the answer.

    ``uncited`` holds the sentences with no marker, or whose markers name no
    citation in the list, in the order they appear.
    """

    ok: bool
    sentences: tuple[str, ...]
    uncited: tuple[str, ...]

    @property
    def branch(self) -> str:
        return "release" if self.ok else "withhold"

    def explain(self) -> str:
        if self.ok:
            return f"release: each of the {len(self.sentences)} sentences cites a quote"
        return "\n".join(
            [f"withhold: {len(self.uncited)} sentence(s) with no citation"] + [f"  uncited: {s}" for s in self.uncited]
        )


def check_claims(answer: str, citations: Any) -> ClaimCheck:
    """Flag every sentence of ``answer`` that cites nothing.

    A sentence cites by carrying a marker ``[n]``: the n-th entry (from 1) of
    ``citations``. A marker past the end of the list cites nothing. Whether
    the quotes themselves are genuine is :func:`verify_citations`' job; this
    check asks the other question: does every claim point at a quote at all?
    An instruction slipped into an answer usually arrives as a sentence of
    its own, with nothing to cite. A sentence ends at ``.``, ``!`` or ``?``
    before a space (markers right after the stop stay with it), but not
    after an abbreviation such as "e.g."; it ends after a marker followed by
    a capital letter, stop or not; a line break ends one too, and a list
    item ("- ", "* ", "1. ") is one without its bullet.
    """
    if not isinstance(answer, str):
        raise CitationError(f"an answer is text, got {type(answer).__name__}", field="answer")
    count = len(_listed(citations))
    sentences = _sentences(answer)
    uncited = tuple(s for s in sentences if not any(1 <= int(n) <= count for n in _MARKER.findall(s)))
    return ClaimCheck(bool(sentences) and not uncited, sentences, uncited)


def unsupported_sentences(answer: str, citations: Any) -> tuple[tuple[str, str], ...]:
    """Each cited sentence of ``answer`` stating a figure that none of the quotes it cites holds, with that figure.

    :func:`check_claims` asks whether a sentence points at a quote at all; this asks whether what it points
    at supports it (seed 002: a citation must support the sentence it is attached to). A sentence with no
    marker is :func:`check_claims`' to flag and is not repeated here.
    """
    listed = _listed(citations)
    out = []
    for sentence in _sentences(answer) if isinstance(answer, str) else ():
        if any(1 <= int(n) <= len(listed) for n in _MARKER.findall(sentence)):
            figure = _unsupported_figure(sentence, listed)
            if figure is not None:
                out.append((sentence, figure))
    return tuple(out)


def _listed(citations: Any) -> Sequence[Any]:
    """The citations as a list a marker can index (anything that is not a list of them cites nothing)."""
    if isinstance(citations, (str, bytes, Mapping)) or not isinstance(citations, Iterable):
        return ()
    return list(citations)


def cited_by_sentence(answer: str, citations: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each sentence of ``answer`` (split as :func:`check_claims` splits it) with the document ids its markers cite."""
    if not isinstance(answer, str):
        raise CitationError(f"an answer is text, got {type(answer).__name__}", field="answer")
    listed = _listed(citations)
    out = []
    for sentence in _sentences(answer):
        ids: list[str] = []
        for n in _MARKER.findall(sentence):
            cited = listed[int(n) - 1] if 1 <= int(n) <= len(listed) else None
            cid = cited.get("id") if isinstance(cited, Mapping) else None
            if isinstance(cid, str) and cid not in ids:
                ids.append(cid)
        out.append((sentence, tuple(ids)))
    return tuple(out)


def stated_ids(answer: str, citations: Any) -> frozenset[str]:
    """The document ids whose own figures the answer states: a sentence cites the id with a quote holding a figure
    that the sentence states too (seed 002: presenting a side of a disagreement is stating what that side says;
    citing a document for a figure-free quote, or beside another document's figure, does not present it)."""
    listed = _listed(citations)
    out: set[str] = set()
    for sentence in _sentences(answer) if isinstance(answer, str) else ():
        stated = set(_STATED_FIGURE.findall(_MARKER.sub("", sentence)))
        for n in _MARKER.findall(sentence):
            cited = listed[int(n) - 1] if 1 <= int(n) <= len(listed) else None
            if not isinstance(cited, Mapping) or not isinstance(cited.get("quote"), str):
                continue
            if stated & set(_STATED_FIGURE.findall(cited["quote"])) and isinstance(cited.get("id"), str):
                out.add(cited["id"])
    return frozenset(out)
