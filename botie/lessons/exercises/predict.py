"""Commit to a prediction: judge it and keep it in the learner's progress file.

The questions and their key are :mod:`botie.lessons.exercises.questions`; the widget in
:mod:`botie.lessons.ui.predict` calls :func:`answer` and renders its text.
"""

from __future__ import annotations

from typing import Any

from botie.lessons.exercises.questions import QUESTIONS, Judgement, Question, judge
from botie.lessons.learner.progress import record_prediction

__all__ = ["answer"]


def answer(question: Question | str, choice: Any) -> Judgement:
    """Judge a prediction the learner committed to, and keep it (with the option chosen) in their progress file.

    Pressing the button with nothing chosen is not an answer, so it is not counted.
    """
    q = QUESTIONS[question] if isinstance(question, str) else question
    verdict = judge(q, choice)
    if verdict.answered:
        record_prediction(q.id, q.lesson, verdict.correct, choice)
    return verdict
