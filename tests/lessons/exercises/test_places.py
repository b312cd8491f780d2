"""Where each exercise sits is read from the catalogue's table of lessons, never written a second time."""

from __future__ import annotations

import subprocess
import sys

from botie.lessons.exercises import catalogue, places
from botie.lessons.learner import progress

#: The table progress.py used to restate by hand, written out as the oracle (homework exercises included).
TODAY = {
    "evidence_allowance": ("00", 1),
    "permitted": ("01", 1),
    "choose_evidence": ("01", 2),
    "shortlist": ("02a", 1),
    "settle_conflict": ("02a", 2),
    "untraceable": ("02b", 1),
    "design_pack": ("02b", 2),
    "route": ("03", 1),
    "choose_documents": ("03", 2),
    "coverage_record": ("03", 3),  # homework, after section 6
    "release": ("04", 1),
    "span_check": ("04", 2),  # homework, after section 7
    "valid_minutes": ("05a", 1),
    "choose_branch": ("05a", 2),
    "next_request": ("05b", 1),
    "field_errors": ("05b", 2),
    "first_lost_stage": ("06", 1),
    "may_ship": ("06", 2),
}


def test_every_catalogued_exercise_has_a_place_and_the_places_are_the_lessons_order():
    assert set(places.PLACES) == set(catalogue.EXERCISES)
    assert dict(places.PLACES) == TODAY


def test_progress_reads_the_catalogues_places_and_the_catalogue_has_one_table():
    assert progress.PLACES is places.PLACES
    assert catalogue.BY_LESSON is places.BY_LESSON


def test_reading_progress_does_not_import_the_exercises_until_a_place_is_asked_for():
    """The lesson modules cost a tenth of a second; the hub and ``import botie.lessons`` do not pay it up front."""
    code = (
        "import sys, botie.lessons.learner.progress as p\n"
        "print('botie.lessons.exercises.places' in sys.modules)\n"
        "p.PLACES\n"
        "print('botie.lessons.exercises.places' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]
