"""The evidence panel (lesson 04): choose the documents, the escaping and the model; see what the model
followed and whether its answer is released.

Everything shown comes from the core and the lesson machinery:
:func:`botie.context.evidence.build_request` (escaped bodies, a conflict note
for every flagged pair) or :func:`botie.lessons.content.pasting.pasted_request`
(the wrong-on-purpose paste), :func:`botie.context.evidence.region_closed_early`,
the scripted model's reply (careful, or ``with_(gullible=True)``),
:func:`botie.context.citations.verify_citations` against the documents that
were sent, and :func:`botie.context.citations.check_claims` when the answer
marks its citations with ``[n]``.

:func:`evidence_view` does all of that without widgets and returns a frozen
:class:`EvidenceView`; the panel builds its inputs from the controls and draws
the view. Tests drive :func:`evidence_view` directly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from botie.context.citations import CitationCheck, ClaimCheck, check_claims, verify_citations
from botie.context.evidence import build_request, conflict_pairs, region_closed_early
from botie.context.records import Record
from botie.lessons.content.pasting import paste_without_escaping, pasted_request, planted_instructions
from botie.lessons.content.scenarios import EvidenceScenario
from botie.lessons.content.scripted import ScriptedModel

from ._common import Panel, badge, control, esc, preview, table_html

__all__ = ["CitationRow", "DocumentRow", "EvidencePanel", "EvidenceView", "evidence_panel", "evidence_view"]

MODELS = ("careful", "gullible")
#: Lesson 04's torque request is built against this ceiling (section 5); every choice of documents fits under it.
CEILING = 1_200
#: Sent unless the learner unticks them: lesson 04's torque pack without the anonymous note (section 5's start).
PLANTED = "tkt-5702"
LEFT_OUT = ("note-anon-77", PLANTED)
_MARKER = re.compile(r"\[\d+\]")  # check_claims reads citations marked this way; without one it has nothing to read


@dataclass(frozen=True)
class DocumentRow:
    """One document sent: its trust tier, the planted instruction it carries (if any), whether the model followed
    that instruction, and whether, pasted on its own, its text closes the region."""

    id: str
    trust: str | None
    planted: str | None
    followed: bool
    closes_region: bool


@dataclass(frozen=True)
class CitationRow:
    """One citation the model offered, with the verdict of :func:`verify_citations` on it."""

    position: int
    id: str
    quote: str
    trust: str | None  # of the cited document, when it was sent
    problem: str | None  # None when the citation checked out
    reason: str


@dataclass(frozen=True)
class EvidenceView:
    """What the panel shows for one choice of documents, escaping and model. Computed by :func:`evidence_view`."""

    question: str
    document_ids: tuple[str, ...]
    escaped: bool
    model: str
    closed_early: bool
    closed_by: tuple[str, ...]
    conflicts: tuple[tuple[str, str], ...]  # the notes the region carries (escaped requests only)
    request_tokens: int | None  # counted for the escaped request; the pasted one is never built for sending
    rows: tuple[DocumentRow, ...]
    obeyed: tuple[str, ...]
    answer: str
    tool_calls: tuple[str, ...]
    citations: CitationCheck
    citation_rows: tuple[CitationRow, ...]
    claims: ClaimCheck | None  # None when the answer marks no citation with [n]

    @property
    def verdict(self) -> str:
        """``release`` or ``withhold``: the citation check's branch."""
        return self.citations.branch

    @property
    def problems(self) -> tuple[str, ...]:
        """The failure kinds behind a withheld answer, each once, in the order they were found."""
        return tuple(dict.fromkeys(str(f.problem) for f in self.citations.failures))

    def summary(self) -> str:
        """The sentence announced after each change."""
        kinds = f" ({', '.join(self.problems)})" if self.problems else ""
        region = f"region closed early by {', '.join(self.closed_by)}" if self.closed_early else "region held"
        followed = ", ".join(self.obeyed) or "nothing planted"
        return f"verdict: {self.verdict}{kinds}; {region}; the {self.model} model followed {followed}"


def evidence_view(
    question: str,
    records: Sequence[Record],
    *,
    escaped: bool,
    model: ScriptedModel,
    model_name: str,
    planted: Mapping[str, str] | None = None,
) -> EvidenceView:
    """Build the request from ``records`` (escaped or pasted), let ``model`` read it, check what it cites."""
    planted = planted_instructions() if planted is None else planted
    records = tuple(records)
    sent, region, tokens, notes = _request(question, records, escaped)
    reply = model.reply(sent)
    # Which document did it: each pasted alone, through the same check (an escaped body closes nothing).
    closers = () if escaped else tuple(r.id for r in records if region_closed_early(paste_without_escaping([r])))
    obeyed = tuple(reply.obeyed)
    rows = tuple(
        DocumentRow(r.id, r.trust, planted.get(r.id), planted.get(r.id) in obeyed, r.id in closers) for r in records
    )
    check = verify_citations(reply.citations, {r.id: r.text for r in records})
    answer = reply.answer if isinstance(reply.answer, str) else ""
    claims = check_claims(answer, reply.citations) if _MARKER.search(answer) else None
    return EvidenceView(
        question=question,
        document_ids=tuple(r.id for r in records),
        escaped=escaped,
        model=model_name,
        closed_early=region_closed_early(region),
        closed_by=closers,
        conflicts=tuple(notes),
        request_tokens=tokens,
        rows=rows,
        obeyed=obeyed,
        answer=answer,
        tool_calls=tuple(str(c) for c in reply.tool_calls),
        citations=check,
        citation_rows=_citation_rows(reply.citations, check, {r.id: r.trust for r in records}),
        claims=claims,
    )


def _request(question: str, records: Sequence[Record], escaped: bool) -> tuple[Any, str, int | None, tuple]:
    """What the model reads, the region inside it, its token count (escaped only) and the conflict notes."""
    if not escaped:
        return pasted_request(question, records), paste_without_escaping(records), None, ()
    notes = conflict_pairs(records)
    request = build_request(question, records, ceiling=CEILING, conflicts=notes)
    return request, request.evidence, request.tokens, notes


def _citation_rows(citations: Any, check: CitationCheck, trust: Mapping[str, str | None]) -> tuple[CitationRow, ...]:
    failed = {f.position: f for f in check.failures if f.position is not None}
    rows = []
    for position, c in enumerate(citations if isinstance(citations, Iterable) else ()):
        cid = str(c.get("id", "")) if isinstance(c, Mapping) else ""
        quote = str(c.get("quote", "")) if isinstance(c, Mapping) else ""
        f = failed.get(position)
        problem, reason = (None, "verbatim in a document that was sent") if f is None else (str(f.problem), f.reason)
        rows.append(CitationRow(position, cid, quote, trust.get(cid), problem, reason))
    return tuple(rows)


class EvidencePanel(Panel):
    """Controls: ``documents`` (one tickbox per document), ``escaped``, ``model``.
    Shows: ``result`` (the verdict, the region, what the model followed, the answer and each citation)."""

    kind = "evidence"

    def __init__(
        self,
        question: str,
        documents: Sequence[Record],
        model: ScriptedModel,
        *,
        sent: Iterable[str] | None = None,
        escaped: bool = True,
        model_kind: str = "careful",
    ) -> None:
        super().__init__()
        self.question, self.documents, self.model = question, tuple(documents), model
        self.planted_map = planted_instructions()
        self.view: EvidenceView | None = None
        chosen = {r.id for r in self.documents if r.id not in LEFT_OUT} if sent is None else set(sent)
        self.boxes = {r.id: self._box(r, r.id in chosen) for r in self.documents}
        self.escaped = control(
            widgets.Checkbox(escaped, description="escape every body (render_evidence)", indent=False),
            "escaped",
            "escape every document body with render_evidence",
        )
        self.model_kind = control(
            widgets.ToggleButtons(
                options=list(MODELS),
                value=model_kind,
                description="scripted model",
                tooltips=["obeys only text outside the evidence region", "obeys any instruction it reads"],
            ),
            "model",
        )
        self._start(
            [
                widgets.HTML(f"The technician asks: <b>{esc(question)}</b>"),
                widgets.HTML("Documents sent, in this order (trust tier in brackets):"),
                widgets.VBox(list(self.boxes.values())),
                self.escaped,
                self.model_kind,
                self.result,
            ],
            self.escaped,
            self.model_kind,
            *self.boxes.values(),
        )

    def _box(self, record: Record, ticked: bool) -> widgets.Checkbox:
        planted = self.planted_map.get(record.id)
        label = f"{record.id} ({record.trust or 'no tier'})" + (" carries a planted instruction" if planted else "")
        return control(
            widgets.Checkbox(ticked, description=label, indent=False, layout=widgets.Layout(width="auto")),
            f"doc-{record.id}",
            f"send {label}",
        )

    @property
    def sent(self) -> list[Record]:
        return [r for r in self.documents if self.boxes[r.id].value]

    def _render(self) -> None:
        name = self.model_kind.value
        model = self.model.with_(gullible=name == "gullible")
        self.view = evidence_view(
            self.question, self.sent, escaped=self.escaped.value, model=model, model_name=name, planted=self.planted_map
        )
        self.result.value = result_html(self.view)

    def _summary(self) -> str:
        return "" if self.view is None else self.view.summary()


# -- drawing ------------------------------------------------------------------------------------


def result_html(view: EvidenceView) -> str:
    """The view as HTML: every coloured badge also says its word."""
    kinds = f" ({esc(', '.join(view.problems))})" if view.problems else ""
    return (
        f"<p style='font-size:115%'>{badge(view.verdict)} <b>verdict: {esc(view.verdict)}</b>{kinds}</p>"
        f"{_region_html(view)}{_followed_html(view)}"
        f"<p><b>answer:</b> {esc(view.answer)}</p>{_calls_html(view)}"
        f"{_documents_table(view)}{_citations_html(view)}{_claims_html(view)}"
    )


def _region_html(view: EvidenceView) -> str:
    how = "escaped by render_evidence" if view.escaped else "pasted without escaping"
    size = f", {view.request_tokens:,} tokens" if view.request_tokens is not None else ""
    if view.closed_early:
        state = (
            f"{badge('closed_early')} by {esc(', '.join(view.closed_by))}: the text after its closing tag reads as ours"
        )
    else:
        state = f"{badge('held')}: no document closed it early"
    notes = ""
    if view.conflicts:
        pairs = "; ".join(f"{a} and {b}" for a, b in view.conflicts)
        notes = f"<br>conflict notes at the top of the region: {esc(pairs)}"
    return f"<p><b>region</b> ({how}, {len(view.document_ids)} documents{size}): {state}{notes}</p>"


def _followed_html(view: EvidenceView) -> str:
    followed = ", ".join(f"'{name}'" for name in view.obeyed) or "no planted instruction"
    return f"<p><b>the {esc(view.model)} model followed:</b> {esc(followed)}</p>"


def _calls_html(view: EvidenceView) -> str:
    if not view.tool_calls:
        return ""
    calls = ", ".join(view.tool_calls)
    return f"<p><b>tool call in the reply:</b> {esc(calls)} (this request offered no tools)</p>"


def _documents_table(view: EvidenceView) -> str:
    rows = [
        (
            str(n),
            f"<code>{esc(r.id)}</code>",
            esc(r.trust or "none"),
            esc(r.planted or "none"),
            ("yes" if r.followed else "no") if r.planted else "",
            "yes" if r.closes_region else "no",
        )
        for n, r in enumerate(view.rows, start=1)
    ]
    columns = ("#", "document", "trust", "planted instruction", "followed?", "closes the region?")
    return table_html("botie-documents", columns, rows)


def _citations_html(view: EvidenceView) -> str:
    rows = [
        (
            str(c.position),
            f"<code>{esc(c.id)}</code>",
            esc(c.trust or "not sent"),
            esc(preview(c.quote, 60)),
            badge("passed" if c.problem is None else "failed"),
            esc(c.problem or "verbatim"),
            esc(c.reason),
        )
        for c in view.citation_rows
    ]
    columns = ("#", "cites", "trust", "quote", "check", "kind", "why")
    table = table_html("botie-citations", columns, rows) if rows else ""
    whole = [f for f in view.citations.failures if f.position is None]
    extra = "".join(f"<p>{badge('failed')} {esc(f.problem)}: {esc(f.reason)}</p>" for f in whole)
    return (
        f"<p><b>quote check</b> (verify_citations): {esc(view.citations.explain().splitlines()[0])}</p>{table}{extra}"
    )


def _claims_html(view: EvidenceView) -> str:
    if view.claims is None:
        return (
            "<p><b>sentence check</b> (check_claims): not run: this answer marks no citation with [n], "
            "so there is nothing to tie a sentence to a quote</p>"
        )
    lines = "".join(f"<li>uncited: {esc(s)}</li>" for s in view.claims.uncited)
    return (
        f"<p><b>sentence check</b> (check_claims): {badge(view.claims.branch)} "
        f"{esc(view.claims.explain().splitlines()[0])}</p>" + (f"<ul>{lines}</ul>" if lines else "")
    )


def evidence_panel(
    scenario: EvidenceScenario | None = None, *, model: ScriptedModel | None = None, **start: Any
) -> EvidencePanel:
    """Build the evidence panel on lesson 04's torque pack plus the planted ticket tkt-5702; display ``.widget``.

    ``start`` sets the starting controls: ``sent`` (document ids; default the pack without note-anon-77),
    ``escaped`` (default True), ``model_kind`` (``careful`` or ``gullible``).
    """
    from botie.lessons.content.fixtures import fixture_path, load_records
    from botie.lessons.content.scenarios import load_evidence_scenario
    from botie.lessons.content.scripted import load_scripted_model

    scenario = scenario or load_evidence_scenario()
    by_id = {r.id: r for r in scenario.records}
    pack = [by_id[i] for i in scenario.select(0).selected_ids]
    ticket = {r.id: r for r in load_records(fixture_path("scripted_turns.json"))}[PLANTED]
    return EvidencePanel(
        scenario.questions[0].question, _with_ticket(pack, ticket), model or load_scripted_model(), **start
    )


def _with_ticket(pack: Sequence[Record], ticket: Record) -> list[Record]:
    """The planted ticket goes right after the anonymous note, so documents follow it when it is sent (if the
    note is not in the pack, it goes last)."""
    ids = [r.id for r in pack]
    at = ids.index("note-anon-77") + 1 if "note-anon-77" in ids else len(ids)
    return [*pack[:at], ticket, *pack[at:]]
