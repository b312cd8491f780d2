"""The predict-then-run widget: options, a check button, and the verdict written out as text.

It decides nothing: :func:`botie.lessons.exercises.questions.judge` does. The verdict is
plain text appended to an ``Output`` (read by screen readers, no colour
needed), and the radio group and button are ordinary keyboard-operable
controls with their own names.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from botie.lessons.exercises.predict import answer
from botie.lessons.exercises.questions import QUESTIONS, Judgement, Question

from ._common import RESULT_CLASS, control, esc

__all__ = ["PredictWidget", "predict"]


class PredictWidget:
    """Controls: ``choice`` (RadioButtons, nothing chosen at first) and ``button``; the verdict in ``output``."""

    def __init__(self, question: Question) -> None:
        self.question = question
        self.judgement: Judgement | None = None
        prompt = widgets.HTML(f"<b>Predict, then run.</b> {esc(question.prompt)}")
        self.choice = control(
            widgets.RadioButtons(
                options=[(text, i) for i, text in enumerate(question.options)],
                value=None,
                description="Your prediction",
                layout=widgets.Layout(width="auto"),
            ),
            "prediction",
        )
        self.button = control(
            widgets.Button(description="Check my prediction", tooltip="Check the option you chose and read why"),
            "check",
        )
        self.output = widgets.Output()
        self.output.add_class(RESULT_CLASS)
        self.button.on_click(self._on_click)
        self.widget = widgets.VBox([prompt, self.choice, self.button, self.output])
        # Not a "botie-panel": a question, not one of the lesson panels the browser tests operate.
        self.widget.add_class("botie-predict")

    def _on_click(self, _button: Any = None) -> None:
        self.check()

    def check(self) -> Judgement:
        """Judge the current choice and write the verdict (replacing any earlier one)."""
        self.judgement = answer(self.question, self.choice.value)
        self.output.outputs = ()
        self.output.append_stdout(self.judgement.text + "\n")
        return self.judgement

    def result_text(self) -> str:
        return "".join(o.get("text", "") for o in self.output.outputs).strip()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


def predict(question_id: str) -> PredictWidget:
    """The widget for one question of :data:`botie.lessons.exercises.questions.QUESTIONS`."""
    return PredictWidget(QUESTIONS[question_id])
