"""The room's page: summary first with its numbers as text, the words defined on the page, polls without
names and with the right answer marked only once revealed, a table that folds away for a big class."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from botie.lessons.room.room import row_for
from botie.lessons.room.room_page import OPEN_UP_TO, room_html
from tests.lessons.room.test_room import NOW, _class, _entry, _row, _said

QUESTION = "prefix-6-5-in-8"  # options: both / only the first (right) / only the second / neither


def _poll_class():
    return [
        _row("amaranth", [_entry("passed")], {QUESTION: _said(QUESTION, 0)}),
        _row("bartholomew", [_entry(attempts=3)], {QUESTION: _said(QUESTION, 0)}),
        _row("cyprian", [], {QUESTION: _said(QUESTION, 1)}),
    ]


def _section(page: str, ident: str) -> str:
    return page[page.index(f"id='{ident}'") :].split("</section>")[0]


class _Parses(HTMLParser):
    """Collects the start tags, so a test can see the page parses and find its elements."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_the_summary_comes_first_and_writes_every_count_as_text():
    page = room_html(_class(), now=NOW, lesson="01")
    assert page.index("Where the room is stuck") < page.index("What the room predicted") < page.index("Each learner")
    found = re.search(r"<tr><th scope='row'>01.1 permitted</th>(.*?)</tr>", page)
    assert found is not None
    row = found.group(1)
    assert re.findall(r"<td class='n'>(\d+)</td>", row) == ["1", "1", "1", "2"]  # stuck, trying, passed, not started
    assert "<td class='who'>bo</td>" in row
    assert "Most stuck: 01.1 permitted (1); 01.2 choose_evidence (1)." in page


def test_the_page_states_what_stuck_and_stopped_mean():
    page = room_html(_class(), now=NOW)
    assert "3 or more checks of their own code failed or they asked for the last hint" in page
    assert "under 10 minutes old, <strong>stopped</strong> when it is older" in page
    assert "Counts cover the 5 of 6 learners whose progress could be read. 1 not counted" in page


def test_a_poll_shows_counts_and_shares_and_no_names():
    polls = _section(room_html(_poll_class(), now=NOW), "h-polls")
    assert "First tries of 3 learners." in polls
    cells = re.findall(r"<td class='n'>([^<]+)</td>", polls)
    assert cells == ["2", "67%", "1", "33%", "0", "0%", "0", "0%"]
    assert not any(name in polls for name in ("amaranth", "bartholomew", "cyprian"))


def test_the_right_answer_is_marked_only_once_revealed():
    hidden = room_html(_poll_class(), now=NOW)
    assert "(right answer)" not in hidden and f"href='?reveal={QUESTION}'" in hidden
    shown = room_html(_poll_class(), now=NOW, reveal={QUESTION}, lesson="01")
    assert "only the first (6) <strong class='right'>(right answer)</strong>" in shown
    assert shown.count("(right answer)") == 1
    assert "href='?lesson=01'>Hide the answer" in shown  # hiding keeps the lesson chosen


def test_the_projector_view_shows_the_polls_and_no_name_at_all():
    page = room_html(_poll_class(), now=NOW, lesson="01", projector=True, reveal={QUESTION})
    assert not any(name in page for name in ("amaranth", "bartholomew", "cyprian"))
    assert "Where the room is stuck" not in page and "First tries of 3 learners." in page
    assert "(right answer)" in page
    assert "href='?lesson=01&amp;show=polls'>Hide the answer" in page  # the reveal links stay on this view
    assert "href='?lesson=01&amp;reveal=prefix-6-5-in-8'>The whole room" in page
    full = room_html(_poll_class(), now=NOW, lesson="01")
    assert "href='?lesson=01&amp;show=polls'>Polls only, without names, for the projector" in full


def test_the_table_starts_open_for_a_small_class_and_folded_for_a_big_one():
    small = [row_for(f"l{i:03d}", running=False, status=None) for i in range(OPEN_UP_TO)]
    assert "<details open>" in room_html(small, now=NOW)
    big = [*small, row_for("l999", running=False, status=None)]
    page = room_html(big, now=NOW)
    assert "<details>" in page and "<details open>" not in page
    assert "Show the table of 31 learners" in page


def test_the_page_parses_and_updates_only_its_live_parts():
    parser = _Parses()
    parser.feed(room_html(_poll_class(), now=NOW, refresh=4))
    live = sorted(attrs["id"] for tag, attrs in parser.tags if "data-live" in attrs)
    assert live == ["concepts", "learners", "polls", "status", "summary"]
    assert ("body", {"data-refresh": "4"}) in parser.tags
    assert not any(tag == "meta" and attrs.get("http-equiv") == "refresh" for tag, attrs in parser.tags)


def test_learner_names_are_escaped_in_the_page():
    page = room_html([row_for("<b>x</b>", running=False, status=None)], now=NOW)
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
