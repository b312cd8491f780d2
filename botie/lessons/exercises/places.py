"""Each lesson's exercises in the order its notebook asks them, and so where each exercise sits.

This is the catalogue's table of lessons, kept apart from :mod:`~botie.lessons.exercises.catalogue`
so that the learner's progress can read where an exercise sits (lesson, number) without importing
the catalogue, which records checks in that progress: the arrow runs one way only.
"""

from __future__ import annotations

from collections.abc import Mapping

from botie.lessons.exercises import lesson00, lesson01, lesson02a, lesson02b, lesson03, lesson04, lesson05, lesson06
from botie.lessons.exercises.engine import Exercise

__all__ = ["BY_LESSON", "PLACES"]

#: Each lesson's exercises, in the order its notebook asks them (homework exercises last).
BY_LESSON: Mapping[str, tuple[Exercise, ...]] = {
    "00": lesson00.EXERCISES,
    "01": lesson01.EXERCISES,
    "02a": lesson02a.EXERCISES,
    "02b": lesson02b.EXERCISES,
    "03": lesson03.EXERCISES,
    "04": lesson04.EXERCISES,
    "05a": lesson05.PART_A,
    "05b": lesson05.PART_B,
    "06": lesson06.EXERCISES,
}

#: Where each exercise sits: (its lesson, its number within the lesson, counting from 1).
PLACES: Mapping[str, tuple[str, int]] = {
    exercise.name: (lesson, number)
    for lesson, group in BY_LESSON.items()
    for number, exercise in enumerate(group, start=1)
}
