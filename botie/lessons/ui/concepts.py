"""The concept check as a widget: every question with its options, one save button, the result in words.

It decides nothing: :func:`botie.lessons.exercises.concept_check.answer_check` judges and keeps the
answers, :class:`~botie.lessons.exercises.concept_check.ConceptReport` compares the checks. Each question's
options are an ordinary radio group, named for screen readers by the panel's
:class:`~botie.lessons.ui._access.Access` widget, which also announces the result. The first check shows no
key (the second one measures what the day taught); the second shows the learner's before and after, each
as a word and a symbol, and the section to revisit for each idea still missed.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from botie.lessons.exercises.concept_check import CheckSaved, ConceptReport, answer_check, report_from, stored
from botie.lessons.exercises.concepts import CONCEPTS, check_name

from ._common import RESULT_CLASS, badge, control, control_names, esc, html_to_text, table_html

__all__ = ["CONCEPTS_CLASS", "ConceptCheckWidget", "concept_check", "report_html"]

#: Not a "botie-panel" (the browser tests operate those); :mod:`._access` names controls inside this too.
CONCEPTS_CLASS = "botie-concepts"

_INTRO = {
    "before": "<b>Concept check, before the workshop.</b> One answer per question; guess when you do not know. "
    "Nothing is marked now: at the end of lesson 06 you take the same check and see both side by side.",
    "after": "<b>Concept check, after the workshop.</b> The same questions as at the start of lesson 00. "
    "Save, then read your before and after, and what to revisit.",
}


def _mark(value: bool | None) -> str:
    return badge("not answered" if value is None else "right" if value else "missed")


def report_html(report: ConceptReport) -> str:
    """The before and after per idea (a word and a symbol in each cell), then what to revisit."""
    rows = [(esc(ln.concept.idea), _mark(ln.before), _mark(ln.after)) for ln in report.lines]
    table = table_html("botie-concepts-table", ("idea", "before", "after"), rows)
    items = "".join(
        f"<li><b>{esc(c.idea)}</b>: revisit {esc(c.revisit)}. The answer: "
        f"{esc(c.question.options[c.question.answer])}. {esc(c.question.why)}</li>"
        for c in report.revisit
    )
    revisit = f"<p><b>To revisit</b></p><ul>{items}</ul>" if items else ""
    return f"{table}<p>{esc(report.summary())}</p>{revisit}"


class ConceptCheckWidget:
    """Controls: one RadioButtons per question in ``choices`` (by question id) and ``button``; words in ``result``."""

    def __init__(self, check: str) -> None:
        from ._access import Access

        self.check = check_name(check)
        self.saved: CheckSaved | None = None
        earlier = stored().get(self.check, {})
        self.choices: dict[str, widgets.RadioButtons] = {}
        parts: list[widgets.Widget] = [widgets.HTML(_INTRO[self.check])]
        for n, (cid, concept) in enumerate(CONCEPTS.items(), start=1):
            q = concept.question
            parts.append(widgets.HTML(f"<p><b>{n}.</b> {esc(q.prompt)}</p>"))
            radio = widgets.RadioButtons(
                options=[(text, i) for i, text in enumerate(q.options)],
                value=earlier[cid].choice if cid in earlier else None,
                layout=widgets.Layout(width="auto"),
            )
            self.choices[cid] = control(radio, f"concept-{n}", f"Question {n} of {len(CONCEPTS)}")
            parts.append(radio)
        self.button = control(
            widgets.Button(description="Save my answers", tooltip="Keep these answers in your progress file"),
            "save",
        )
        self.result = widgets.HTML()
        self.result.add_class(RESULT_CLASS)
        self.access = Access()
        self.widget = widgets.VBox([*parts, self.button, self.result, self.access])
        self.widget.add_class(CONCEPTS_CLASS)
        self.widget.add_class(f"botie-concepts-{self.check}")
        self.access.names = control_names(self.widget)
        self.button.on_click(self._on_click)
        if earlier:  # the cell ran again: say what is kept rather than offering a blank form
            self._show(CheckSaved(self.check, dict(earlier), 0, self._open(earlier), True))

    def _open(self, answers: dict[str, Any]) -> tuple[str, ...]:
        return tuple(cid for cid in CONCEPTS if cid not in answers)

    def _on_click(self, _button: Any = None) -> None:
        self.save()

    def save(self) -> CheckSaved:
        """Keep the chosen options (first answers stay) and write what happened."""
        self.saved = answer_check(self.check, {cid: radio.value for cid, radio in self.choices.items()})
        self._show(self.saved)
        return self.saved

    def _show(self, saved: CheckSaved) -> None:
        status = f"<p>{self._status(saved)}</p>"
        report = None
        if self.check == "after" and saved.answers:
            report = report_from({**stored(), "after": saved.answers})
        self.result.value = status + (report_html(report) if report else "")
        # Spoken: what was kept and, after the second check, the counts (the table is there to read).
        self.access.message = html_to_text(status) + (f" {report.summary()}" if report else "")

    def _status(self, saved: CheckSaved) -> str:
        n, total = len(saved.answers), len(CONCEPTS)
        open_ = f" {len(saved.unanswered)} still open: answer them and save again." if saved.unanswered else ""
        where = "" if saved.saved else " (not saved to a file: recording is off or the file could not be written)"
        kept = " Answers saved earlier are kept as first given." if saved.new < n else ""
        return esc(f"{n} of {total} answers kept for the {saved.check} check{where}.{kept}{open_}")

    def result_text(self) -> str:
        return html_to_text(self.result.value)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


def concept_check(check: str) -> ConceptCheckWidget:
    """The concept check: ``concept_check("before")`` opens lesson 00, ``concept_check("after")`` ends lesson 06."""
    return ConceptCheckWidget(check)
