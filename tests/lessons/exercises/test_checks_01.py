"""Lesson 01's checks: wrong shapes of answer are rejected in plain words, and only cases the lesson shows are marked.

`permitted` and `choose_evidence` must hand back a list of the Record objects: the next step (and the capstone)
reads each record's cost and may walk the answer twice, so a generator, an iterator, a tuple or a list of ids
has to fail the check rather than crash later.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from botie.lessons.exercises.catalogue import run
from botie.lessons.exercises.engine import Verdict
from botie.lessons.exercises.lesson01 import EXERCISES

ROOT = Path(__file__).resolve().parents[3]
LEARNER = ROOT / "notebooks" / "01_which_records.ipynb"


def permitted(records, allowed_assets):
    return [record for record in records if record.asset in allowed_assets]


def choose_evidence(records, allowed_assets, allowance):
    chosen, used = [], 0
    for record in permitted(records, allowed_assets):
        if used + record.cost > allowance:
            break
        chosen.append(record)
        used += record.cost
    return chosen


def _failures(name, fn):
    report = run(name, fn)
    assert not isinstance(report, str)
    return report, [r.message for r in report.results if not r.passed]


def test_the_reference_answers_pass_both_checks():
    report = run("permitted", permitted)
    assert not isinstance(report, str)
    assert report.verdict is Verdict.PASSED
    report = run("choose_evidence", choose_evidence)
    assert not isinstance(report, str)
    assert report.verdict is Verdict.PASSED


WRONG_PERMITTED = {
    "a generator expression": (
        lambda records, allowed: (r for r in records if r.asset in allowed),
        ("generator", "read only once", "build a list"),
    ),
    "filter(), an iterator": (
        lambda records, allowed: filter(lambda r: r.asset in allowed, records),
        ("filter", "read only once"),
    ),
    "a tuple of records": (
        lambda records, allowed: tuple(r for r in records if r.asset in allowed),
        ("tuple", "return a list"),
    ),
    "a tuple of ids": (
        lambda records, allowed: tuple(r.id for r in records if r.asset in allowed),
        ("tuple", "return a list"),
    ),
    "a list of ids": (
        lambda records, allowed: [r.id for r in records if r.asset in allowed],
        ("the records themselves", "found ids"),
    ),
}


@pytest.mark.parametrize("label", sorted(WRONG_PERMITTED))
def test_permitted_rejects_an_answer_that_is_not_a_list_of_records_and_says_why(label):
    fn, words = WRONG_PERMITTED[label]
    report, messages = _failures("permitted", fn)
    assert report.verdict is Verdict.FAILED
    # Every case with something to return fails, and each message is one plain sentence, never a traceback.
    nonempty = [r for r in report.results if r.case.expected]
    assert all(not r.passed for r in nonempty), label
    assert all("Traceback" not in message for message in messages)
    assert all(word in messages[0] for word in words), messages[0]


def test_choose_evidence_written_as_a_generator_is_rejected():
    def choose_evidence_lazily(records, allowed_assets, allowance):
        used = 0
        for record in permitted(records, allowed_assets):
            if used + record.cost > allowance:
                return
            used += record.cost
            yield record

    report, messages = _failures("choose_evidence", choose_evidence_lazily)
    assert report.verdict is Verdict.FAILED and "generator" in messages[0]


def test_choose_evidence_returning_ids_is_rejected():
    report, messages = _failures("choose_evidence", lambda *a: [r.id for r in choose_evidence(*a)])
    assert report.verdict is Verdict.FAILED and "found ids" in messages[0]


# --- "(the example above)" marks only what the notebook shows before the exercise ------------------------------

#: For each case marked shown: text the learner edition prints (or states) before that exercise's check cell.
SHOWN_IN_THE_NOTEBOOK = {
    ("permitted", "the workshop scene, allowed ['P-2', 'P-3']"): "man-k7-r1-s4    not_permitted",
    (
        "choose_evidence",
        "the workshop scene: allowed ['P-2', 'P-3'], allowance 8",
    ): "selected: ['man-p2-r4-s3.2', 'tkt-5521']",
    ("choose_evidence", "costs [6, 5] in 8: the second would make 11"): "selected: ['first'] - 1 source, used 6",
    ("choose_evidence", "costs [3, 8, 2] in 7: stop at the 8, even though the 2 would fit"): "[0]\n3\n",
}


def _text_before_check(name: str) -> str:
    cells = json.loads(LEARNER.read_text(encoding="utf-8"))["cells"]
    parts: list[str] = []
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and source.strip() == f"check({name})":
            return "\n".join(parts)
        parts.append(source)
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
    raise AssertionError(f"no check({name}) cell in {LEARNER.name}")


def test_every_case_marked_shown_is_on_the_page_before_its_check():
    marked = {(ex.name, c.label) for ex in EXERCISES for c in ex.cases() if c.shown}
    assert marked == set(SHOWN_IN_THE_NOTEBOOK)
    for (name, _label), evidence in SHOWN_IN_THE_NOTEBOOK.items():
        assert evidence in _text_before_check(name), (name, evidence)
