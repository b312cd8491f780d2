"""Lesson 01 as a learner meets it: its size, its cast card, predictions before answers, terms where first used.

These read the committed learner edition (no kernel), so they run in the fast suite.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from botie.lessons.exercises.questions import QUESTIONS

ROOT = Path(__file__).resolve().parents[2]
LEARNER = ROOT / "notebooks" / "01_which_records.ipynb"
WORD = re.compile(r"[A-Za-z0-9'’-]+")


def _cells() -> list[dict]:
    cells = json.loads(LEARNER.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        cell["text"] = "".join(cell["source"])
        cell["printed"] = "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))
    return cells


def _tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def _fixture_records() -> dict[str, dict]:
    records: dict[str, dict] = {}
    for path in sorted((ROOT / "fixtures").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for record in data.get("records", []) if isinstance(data, dict) else []:
            records.setdefault(record["id"], record)
    return records


# --- the cast card ---------------------------------------------------------------------------------------------


def _card() -> tuple[int, dict]:
    cells = _cells()
    (index,) = [i for i, c in enumerate(cells) if "cast-card" in _tags(c)]
    return index, cells[index]


def _rows(card: dict) -> dict[str, str]:
    return dict(re.findall(r"^\| `([^`]+)` \| (.+) \|$", card["text"], flags=re.M))


def test_the_cast_card_comes_right_after_what_youll_learn_in_the_agreed_shape():
    index, card = _card()
    assert card["id"] == "cast-01" and card["cell_type"] == "markdown"
    assert "**What you'll learn**" in _cells()[index - 1]["text"]
    assert card["text"].startswith(
        "<details><summary><b>Cast card</b>: the records this lesson uses (select to open)</summary>\n\n"
        "| id | what it is |\n|---|---|\n"
    )
    assert card["text"].rstrip().endswith("</details>")


def test_every_fixture_record_the_lesson_mentions_has_a_row_and_every_row_is_a_fixture_record():
    index, card = _card()
    records = _fixture_records()
    elsewhere = "\n".join(c["text"] + "\n" + c["printed"] for i, c in enumerate(_cells()) if i != index)
    mentioned = {rid for rid in records if re.search(rf"(?<![\w.-]){re.escape(rid)}(?![\w-]|\.\d)", elsewhere)}
    rows = _rows(card)
    assert set(rows) == mentioned
    for rid, line in rows.items():
        # True to the fixture: each line names the record's asset.
        assert records[rid]["asset"] in line, (rid, line)


# --- predictions before answers, each resolved by a run before the next section -----------------------------------

#: What the lesson-check cell after each prediction prints: the run that settles it.
RESOLVED_BY = {
    "restricted-where": (
        "budget first, then permission: ['man-p2-r4-s3.2']",
        "took room, then dropped:     ['man-p1-r2-s3.2']",
        "RESTRICTED. Compressor K-7",
    ),
    "prefix-6-5-in-8": ("selected: ['first'] - 1 source, used 6",),
    "skip-3-8-2-in-7": ("skip   kept [0, 2], used 5",),
}


def _predictions() -> list[tuple[int, str]]:
    found = []
    for i, cell in enumerate(_cells()):
        match = re.search(r'predict\("([^"]+)"\)\.widget', cell["text"])
        if cell["cell_type"] == "code" and match:
            found.append((i, match.group(1)))
    return found


def test_lesson_01_asks_exactly_its_own_three_predictions():
    asked = [qid for _, qid in _predictions()]
    assert sorted(asked) == sorted(RESOLVED_BY)
    assert {qid for qid, q in QUESTIONS.items() if q.lesson == "01"} == set(asked)


def _distinctive(qid: str) -> set[str]:
    question = QUESTIONS[qid]
    words = {w.lower() for w in WORD.findall(question.options[question.answer]) if len(w) >= 4 or w.isdigit()}
    others = {w.lower() for i, o in enumerate(question.options) if i != question.answer for w in WORD.findall(o)}
    return words - others


@pytest.mark.parametrize("qid", sorted(RESOLVED_BY))
def test_the_text_just_above_a_prediction_does_not_give_its_answer(qid):
    cells = _cells()
    (at,) = [i for i, q in _predictions() if q == qid]
    start = max(i for i in range(at) if cells[i]["cell_type"] == "code") + 1
    above = {w.lower() for c in cells[start:at] for w in WORD.findall(c["text"])}
    distinctive = _distinctive(qid)
    assert distinctive, f"{qid}: the right option has no word of its own"
    assert not distinctive <= above, (qid, distinctive)


@pytest.mark.parametrize("qid", sorted(RESOLVED_BY))
def test_each_prediction_is_followed_by_a_run_that_settles_it_before_the_next_section(qid):
    cells = _cells()
    (at,) = [i for i, q in _predictions() if q == qid]
    after = []
    for cell in cells[at + 1 :]:
        if cell["cell_type"] == "markdown" and re.search(r"^## ", cell["text"], flags=re.M):
            break
        if cell["cell_type"] == "code" and "lesson-check" in _tags(cell):
            after.append(cell["printed"])
    printed = "\n".join(after)
    assert all(line in printed for line in RESOLVED_BY[qid]), (qid, printed)


# --- terms where first used, and the progress block's place ---------------------------------------------------

#: Terms the lesson relies on, each defined (in italics) where it first appears in text or printed output.
TERMS = {
    "evidence": r"\bevidence\b",
    "tokens": r"\btokens?\b",
    "token window": r"\btoken window\b",
    "input reserve": r"\binput reserve\b",
    "output reserve": r"\boutput reserve\b",
    "evidence allowance": r"\ballowance\b",
    "packing policies": r"\bpolic(y|ies)\b",
    "prefix": r"\bprefix\b",
    "skip": r"\bskip\b",
    "document tag": r"<document|\bdocument tag\b",
    "stub": r"\bstub\b",
    "chunks": r"\bchunks?\b",
}


@pytest.mark.parametrize("term", sorted(TERMS))
def test_each_term_is_defined_where_it_is_first_used(term):
    for cell in _cells():
        if "cast-card" in _tags(cell):
            continue
        seen = cell["text"] if cell["cell_type"] == "markdown" else cell["printed"]
        if re.search(TERMS[term], seen, flags=re.I):
            assert cell["cell_type"] == "markdown" and f"*{term}*" in cell["text"], (term, seen[:300])
            return
    pytest.fail(f"{term} is never used")


def test_the_progress_block_follows_the_last_sections_closing_paragraph():
    cells = _cells()
    heading = next(i for i, c in enumerate(cells) if c["text"].startswith("## Where you stand"))
    closing = cells[heading - 1]
    assert closing["cell_type"] == "markdown" and not closing["text"].lstrip().startswith("#")
    assert "show_progress()" in cells[heading + 1]["text"] and cells[heading + 2]["text"].startswith("## Summary")
    for word in ("test", "nbval", "import", "fixture"):
        assert not re.search(rf"\b{word}\b", cells[heading]["text"], flags=re.I), word
