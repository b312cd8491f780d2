"""Lessons 02, 03 and 06: both editions present, the seeds' numbers printed by lesson checks, exercises wired up.

tests/notebooks/test_notebooks.py and tests/lessons/tooling/test_editions.py already check every notebook
they find (executed, no errors, lesson-check cells with stored text, learner edition generated from the
instructor edition). This file adds what is specific to these three lessons.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ("02a_relevance", "02b_provenance", "03_count_then_route", "04_evidence_is_data", "06_one_turn_end_to_end")
EDITIONS = ("notebooks", "notebooks/instructor")
#: Lessons whose results are all tables, each with the reason: lesson 02's figure (preload against just in time)
#: went to 02b when it was split; 02a's results are the selector's statuses and reasons, read as lines.
WITHOUT_FIGURE = {"02a_relevance": "the selector's statuses and reasons are lines to read, not a chart"}


def read(edition: str, lesson: str):
    return nbformat.read(ROOT / edition / f"{lesson}.ipynb", as_version=4)


def lesson_checks(nb) -> str:
    return "\n".join(
        "".join(o.get("text", "") for o in c.outputs if o.output_type == "stream")
        for c in nb.cells
        if c.cell_type == "code" and "lesson-check" in c.metadata.get("tags", [])
    )


SEED_EXAMPLES = {
    "02a_relevance": [
        "man-p2-r5-s3.2         not_yet_effective effective from 2026-04-01, after the observation date 2026-03-15",
        "man-p2-r3-s3.2         superseded        superseded by man-p2-r4-s3.2, in force since 2026-01-10",
        "vendor-p2-seal-design  not_permitted     VENDOR-P2 is not in your allowed assets",
        "flag: man-p2-r4-s6.1 (approved) and eng-bulletin-2026-02 (reviewed) disagree: both are in the context",
        "tier assigned at ingestion: unverified",
        "exception clause: not_considered; 113 of 150 tokens",
        "exception clause: selected; 141 of 150 tokens",
    ],
    "02b_provenance": [
        "docs://site-a/manuals/p2/rev4  fails  unknown_id",
        "read_document('vendor-p2-seal-design'): not_permitted",
        "read_document('man-p2-r4-s3.2'): too_large",
        "total                                    just_in_time",
        "turns failed",
    ],
    "03_count_then_route": [
        "41 agreements, 1,440,000 tokens: 1.6 times the 900,000-token ceiling",
        "soft budget 540,000 tokens; select limit 2,160,000",
        "12 + 29 = 41",
        "budget used: 512,400 of 540,000",
        "guard first: retrieve_within_document - agreement-big alone is 600,000 tokens",
        "judged on the total alone (660,000 <= 2,160,000) it would have been select_documents",
        "read in full, reversed:       12 512,400 tokens",
        "the same agreements either way: True",
        "soft fraction 1.0: documents 900,000 tokens; first turn over the ceiling: 1",
        "characters per token",
    ],
    "04_evidence_is_data": [
        "best permitted score 0.11 against 0.35: refuse",
        "turn 2: version_changed",
        "turn 6: ALERT",
        "escaped: the careful model follows []",
        "withhold: 1 citation problem(s)",
    ],
    "06_one_turn_end_to_end": [
        "-> answered",
        # Seed 004: a create books a job, and the same request id with the same payload returns the earlier result.
        "2026-04-02 09:00 UTC; booked job-1",
        "the same turn again: reuse: r7 already created job-1 with this exact payload",
        "ordinary questions           3      3/3      3/3",
        "retrieval coverage: 3 of 4 needed documents retrieved",
        "answer support:     release: the one citation is verbatim",
        "documents whose text appears in this request: []",
        "lost at candidates (missing candidate)",
        "lost at permitted  (not authorised)",
        "lost at fit        (did not fit)",
        "lost at relevant   (below the relevance floor)",
        "lost at citations  (quote not verbatim)",
        "1.6x the ceiling             3      3/3      0/3",
        "injected instructions        5      5/5      0/5",
    ],
}


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("lesson", LESSONS)
def test_the_lesson_exists_and_prints_the_seed_numbers(edition, lesson):
    text = lesson_checks(read(edition, lesson))
    for expected in SEED_EXAMPLES[lesson]:
        assert expected in text, expected


@pytest.mark.parametrize("edition", EDITIONS)
def test_each_injected_instruction_is_shown_not_to_change_the_call_or_the_authorisation(edition):
    text = lesson_checks(read(edition, "06_one_turn_end_to_end"))
    lines = [line for line in text.splitlines() if "same as without" in line]
    assert len(lines) == 5
    for line in lines:
        assert (
            "tool call propose_inspection(asset_id='P-2', duration_minutes=20, "
            "start='2026-04-02T09:00Z', request_id='r7')" in line
        )
        assert line.endswith("authorisation unchanged")
    table = text[text.index("planted instruction") :].splitlines()[2:7]
    assert all(re.search(r"yes +yes +\w+ +unchanged +unchanged$", row) for row in table), table


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_exercise_a_notebook_checks_is_one_of_its_own_lesson(lesson):
    """check(fn) finds an exercise by name with no import; each one a notebook checks is its lesson's."""
    from botie.lessons.exercises.catalogue import BY_LESSON

    nb = read("notebooks/instructor", lesson)
    sources = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    checked = re.findall(r"^check\((\w+)\)$", sources, re.M)
    assert checked and set(checked) <= {e.name for e in BY_LESSON[lesson.split("_")[0]]}


@pytest.mark.parametrize("lesson", LESSONS)
def test_learner_checks_say_not_yet_and_instructor_checks_pass(lesson):
    for edition, pattern in (("notebooks", r"^\w+: not yet\. "), ("notebooks/instructor", r"^\w+: all \d+ cases")):
        nb = read(edition, lesson)
        outputs = [
            "".join(o.get("text", "") for o in c.outputs)
            for c in nb.cells
            if c.cell_type == "code" and re.match(r"^check\(\w+\)$", c.source)
        ]
        assert outputs and all(re.match(pattern, out) for out in outputs), (edition, outputs)


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("lesson", LESSONS)
def test_figures_are_stored_and_panels_ignored(edition, lesson):
    nb = read(edition, lesson)
    images = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    panels = [c for c in nb.cells if c.cell_type == "code" and "_panel(" in c.source]
    assert panels and all(
        c.source.startswith("# NBVAL_IGNORE_OUTPUT") or "nbval-ignore-output" in c.metadata.get("tags", [])
        for c in panels
    )
    assert images or lesson in WITHOUT_FIGURE, "each lesson shows at least one figure"
