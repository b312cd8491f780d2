"""Lesson 05's shape, in both parts (05a and 05b): each cast card, and predictions posed before the text that
answers them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from botie.lessons.exercises.questions import QUESTIONS, questions_for

ROOT = Path(__file__).resolve().parents[2]
PARTS = {"05a": ROOT / "notebooks" / "05a_suggestion_to_action.ipynb", "05b": ROOT / "notebooks" / "05b_retries.ipynb"}
WORD = r"[A-Za-z0-9'’-]+"


def _cells(part: str) -> list[dict]:
    return json.loads(PARTS[part].read_text(encoding="utf-8"))["cells"]


def _text(cell: dict) -> str:
    return "".join(cell["source"])


def _tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


@pytest.mark.parametrize(
    ("part", "card_id", "says"), [("05a", "cast-05", "| `tkt-5630` |"), ("05b", "cast-05b", "uses no records")]
)
def test_the_cast_card_follows_what_youll_learn_and_names_the_ticket_in_05a_only(part, card_id, says):
    cells = _cells(part)
    learn = next(i for i, c in enumerate(cells) if "**What you'll learn**" in _text(c))
    card = cells[learn + 1]
    assert card["id"] == card_id and "cast-card" in _tags(card)
    assert says in _text(card)


def _distinctive(qid: str) -> set[str]:
    q = QUESTIONS[qid]

    def words(text: str) -> set[str]:
        return {w.lower() for w in re.findall(WORD, text) if len(re.sub(r"[^A-Za-z0-9]", "", w)) >= 4}

    wrong = set().union(*(words(o) for i, o in enumerate(q.options) if i != q.answer))
    return words(q.options[q.answer]) - wrong


@pytest.mark.parametrize(("part", "qid"), [(part, q.id) for part in PARTS for q in questions_for(part)])
def test_a_prediction_is_posed_before_its_answer_and_resolved_by_a_run(part, qid):
    cells = _cells(part)
    at = next(i for i, c in enumerate(cells) if c["cell_type"] == "code" and f'predict("{qid}")' in _text(c))
    above, j = [], at - 1
    while j >= 0 and cells[j]["cell_type"] == "markdown":
        above.append(_text(cells[j]))
        j -= 1
    said = {w.lower() for w in re.findall(WORD, "\n".join(above))}
    assert not _distinctive(qid) <= said, f"the text above {qid} already gives its answer"
    following = []
    for cell in cells[at + 1 :]:
        if cell["cell_type"] == "markdown" and re.search(r"^## ", _text(cell), flags=re.M):
            break
        following.append(cell)
    assert any("lesson-check" in _tags(c) and c["outputs"] for c in following), f"nothing runs to resolve {qid}"
