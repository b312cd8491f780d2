"""The instructor's room page in the system Chromium: axe-core finds nothing serious, the answer is revealed
by a link, updates can be paused from the keyboard, and the page takes in a learner's new check by itself.

The class is simulated (12 learners in mixed states, ``tools/room_class.py``) and served by a
stand-in for the hub; the page is rendered by the room's own code on every request, as the
service renders it, so the page's script fetches real updates.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from botie.lessons.exercises.concepts import CONCEPTS
from botie.lessons.room.room import RoomReader
from botie.lessons.room.room_page import room_html
from tools.room_class import FakeHub, progress_files, serve

from . import a11y, servers

QUESTION = "prefix-6-5-in-8"


class Site:
    def __init__(self, url: str, hub: FakeHub, folder: Path) -> None:
        self.url, self.hub, self.folder = url, hub, folder


@pytest.fixture(scope="module")
def site(browser_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("room")
    hub = FakeHub(folder, progress_files(12, datetime.now(timezone.utc)))
    with serve(hub) as hub_url:
        reader = RoomReader(f"{hub_url}/hub/api", hub_url, "token", path="botie-progress.json", max_age=0)

        class Page(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                query = parse_qs(urlparse(self.path).query)
                lesson = query.get("lesson", [None])[0]
                show = query.get("show", [""])[0]
                html = room_html(
                    reader.rows(),
                    refresh=1,
                    reveal=query.get("reveal", []),
                    lesson=lesson,
                    projector=show in ("polls", "concepts"),
                    show=show or "polls",
                )
                data = html.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer((servers.HOST, 0), Page)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield Site(f"http://{servers.HOST}:{server.server_address[1]}/", hub, folder)
        finally:
            server.shutdown()
            server.server_close()


def _scan(page, what: str) -> None:
    found = a11y.scan(page, "header, nav, main > p, main > section")
    print(f"\naxe, the room, {what}:\n{a11y.table(found)}")
    bad = a11y.blocking(found)
    assert not bad, f"the room ({what}): axe-core found critical or serious violations:\n{a11y.report(bad)}"


def test_axe_finds_nothing_serious_on_the_whole_room(page, site):
    page.goto(site.url)
    assert page.locator("h1").inner_text() == "The room: 12 learners"
    _scan(page, "all lessons")
    assert not page.js_errors


def test_axe_finds_nothing_serious_on_one_lesson_with_its_answer_revealed(page, site):
    page.goto(f"{site.url}?lesson=01&reveal={QUESTION}")
    assert page.locator("tr.right").count() == 1
    _scan(page, "lesson 01, answer revealed")


def test_axe_finds_nothing_serious_on_the_projector_view(page, site):
    page.goto(f"{site.url}?lesson=02a&show=polls")
    assert page.locator("h1").inner_text() == "What the room predicted in lesson 02a"
    found = a11y.scan(page, "main")
    print(f"\naxe, the room, projector view:\n{a11y.table(found)}")
    assert not a11y.blocking(found), a11y.report(a11y.blocking(found))


def test_the_reveal_link_marks_the_right_answer_and_the_hide_link_takes_it_away(page, site):
    page.goto(f"{site.url}?lesson=01")
    poll = page.locator(f"section[aria-labelledby='poll-{QUESTION}']")
    assert poll.locator("text=(right answer)").count() == 0
    poll.get_by_role("link", name="Reveal the answer").click()
    poll = page.locator(f"section[aria-labelledby='poll-{QUESTION}']")
    assert poll.locator("tr.right th").inner_text() == "only the first (6) (right answer)"
    poll.get_by_role("link", name="Hide the answer").click()
    assert page.locator("tr.right").count() == 0 and "lesson=01" in page.url


def test_updates_pause_from_the_keyboard_and_say_so(page, site):
    page.goto(site.url)
    page.keyboard.press("Tab")
    focus = a11y.active(page) or {}
    assert focus.get("tag") == "button" and focus.get("label") == "Pause updates" and focus.get("outline")
    page.keyboard.press("Enter")
    button = page.locator("#pause")
    assert button.get_attribute("aria-pressed") == "true" and button.inner_text() == "Resume updates"


def _not_yet_passed(site: Site, exercise: str) -> Iterator[tuple[Path, dict]]:
    """Readable files of running learners who have not passed ``exercise``."""
    for name in sorted(site.hub.running):
        file = site.folder / f"{name}.json"
        try:
            body = json.loads(file.read_text())
        except ValueError:
            continue
        if body["exercises"].get(exercise, {}).get("status") != "passed":
            yield file, body


def test_the_page_takes_in_a_learners_new_check_by_itself(page, site):
    page.goto(f"{site.url}?lesson=06")
    cell = page.locator("table.summary tbody tr").first.locator("td.n").nth(2)  # 06.1 passed
    before = int(cell.inner_text())
    file, body = next(_not_yet_passed(site, "first_lost_stage"))
    body["exercises"]["first_lost_stage"] = {
        "lesson": "06",
        "exercise": 1,
        "status": "passed",
        "attempts": 1,
        "hints": 0,
        "passed_at": "2026-12-01T15:00:00+00:00",
        "stubs": 0,
    }
    file.write_text(json.dumps(body))
    page.wait_for_function(
        "n => Number(document.querySelector('table.summary tbody tr td.n:nth-of-type(3)').innerText) === n",
        arg=before + 1,
        timeout=20_000,
    )


def test_axe_finds_nothing_serious_on_the_concept_check_for_the_projector(page, site):
    page.goto(f"{site.url}?show=concepts")
    assert page.locator("h1").inner_text() == "What the room learned: the concept check"
    assert page.locator("table.concepts tbody tr").count() == len(CONCEPTS)
    found = a11y.scan(page, "main")
    print(f"\naxe, the room, concept check for the projector:\n{a11y.table(found)}")
    assert not a11y.blocking(found), a11y.report(a11y.blocking(found))


def _answered_both(page, idea: str) -> int:
    row = page.locator("table.concepts tbody tr").filter(has=page.locator("th", has_text=idea))
    return int(row.locator("td").last.inner_text().split()[0])


def test_the_gain_table_takes_in_a_learners_second_check_by_itself(page, site):
    page.goto(site.url)
    concept = next(iter(CONCEPTS.values()))
    before = _answered_both(page, concept.idea)
    file, body = next(
        (f, b) for f, b in _not_yet_passed(site, "__none__") if "after" not in b.get("concepts", {})
    )  # a learner who has not taken the second check
    q = concept.question
    body["concepts"]["after"] = {concept.id: {"choice": q.answer, "right": True, "at": "2026-12-02T15:00:00+00:00"}}
    file.write_text(json.dumps(body))
    page.wait_for_function(
        """([idea, n]) => [...document.querySelectorAll('table.concepts tbody tr')].some(
             r => r.querySelector('th').innerText.startsWith(idea)
                  && Number(r.lastElementChild.innerText.split(/\\s/)[0]) === n)""",
        arg=[concept.idea, before + 1],
        timeout=20_000,
    )
    text = page.locator("#concepts").inner_text()
    assert "Download these figures as CSV" in page.inner_text("main") and concept.idea in text
