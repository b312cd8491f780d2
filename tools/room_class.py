"""A simulated class for the room: progress files in mixed states, and a stand-in for the hub that serves them.

    python -m tools.room_class --learners 12 --screenshot docs/room.png
    python -m tools.room_class --learners 20 --end-of-day --show concepts --screenshot gains.png

Used by ``bench/bench_room.py`` (what a refresh costs with 100 learners), by the room's
accessibility test, and to take the guide's screenshot. The files are what learners' kernels write
(``botie.lessons.learner.progress``); the stand-in answers the two requests the room makes, the
hub's user list and Jupyter Server's contents API (with or without the content), from a folder.
"""

from __future__ import annotations

import argparse
import json
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from botie.lessons.exercises.concepts import CONCEPTS
from botie.lessons.exercises.questions import QUESTIONS
from botie.lessons.learner.progress import FORMAT, PLACES, ConceptAnswer, Entry, Prediction

__all__ = ["NAMES", "FakeHub", "progress_files", "serve"]

NAMES = ("ana bo cy dev eli fen gus hal ida jo kai lin mo nia oz pia quin ray sol tam uma vic wes xia yan zoe").split()
ORDER = [name for name, _ in sorted(PLACES.items(), key=lambda item: item[1])]


def _name(i: int) -> str:
    return NAMES[i % len(NAMES)] + ("" if i < len(NAMES) else str(i // len(NAMES)))


def _stamp(now: datetime, minutes: float) -> str:
    return (now - timedelta(minutes=minutes)).isoformat(timespec="seconds")


def _entry(name: str, state: str, now: datetime, minutes: float) -> Entry:
    lesson, number = PLACES[name]
    when = _stamp(now, minutes)
    if state == "passed":
        return Entry(name, lesson, number, "passed", 2, 1, when, when, when)
    if state == "stuck":
        return Entry(name, lesson, number, "not yet", 4, 2, when, when, None)
    if state == "stub":
        return Entry(name, lesson, number, "not yet", 1, 1, when, when, None, 1)
    return Entry(name, lesson, number, "not yet", 1, 1, when, when, None)  # trying


def _predictions(rng: random.Random, upto: str, now: datetime, minutes: float) -> dict[str, Prediction]:
    found = {}
    for q in QUESTIONS.values():
        if q.lesson > upto:
            continue
        # Most of the room picks the right option; a wrong one draws a third, as a tempting distractor does.
        weights = [
            1 + (4 if i == q.answer else 2 if i == (q.answer + 1) % len(q.options) else 0)
            for i in range(len(q.options))
        ]
        choice = rng.choices(range(len(q.options)), weights)[0]
        found[q.id] = Prediction(q.id, q.lesson, 1, choice == q.answer, choice == q.answer, choice, choice)
    return found


#: Per concept, in the check's order: the chance a learner is right before the workshop, and the chance the
#: day teaches it to one who was not. Two ideas barely move, so the room's figure has something to show.
CONCEPT_ODDS = {
    "tokens-not-words": (0.45, 0.8),
    "permission-then-budget": (0.5, 0.85),
    "trust-from-ingestion": (0.6, 0.75),
    "oversized-first": (0.15, 0.7),
    "ranking-has-no-floor": (0.25, 0.75),
    "retrieval-not-a-wall": (0.2, 0.1),
    "citation-is-not-proof": (0.3, 0.65),
    "approval-one-payload": (0.35, 0.9),
    "retry-keeps-its-id": (0.4, 0.8),
    "unavailable-not-nothing": (0.1, 0.05),
    "documents-never-act": (0.3, 0.6),
}


def _concept_check(rng: random.Random, after: bool, when: str) -> dict[str, dict[str, ConceptAnswer]]:
    """Both checks, or the first alone: a wrong answer picks a wrong option, as a tempting distractor does."""

    def answer(cid: str, right: bool) -> ConceptAnswer:
        q = CONCEPTS[cid].question
        wrong = [i for i in range(len(q.options)) if i != q.answer]
        return ConceptAnswer(q.answer if right else rng.choice(wrong), right, when)

    before, later = {}, {}
    for cid in CONCEPTS:
        knew, learns = CONCEPT_ODDS.get(cid, (0.3, 0.6))
        right = rng.random() < knew
        before[cid] = answer(cid, right)
        later[cid] = answer(cid, (rng.random() < 0.95) if right else (rng.random() < learns))
    return {"before": before, "after": later} if after else {"before": before}


def _one(rng: random.Random, now: datetime, concepts: dict[str, dict[str, ConceptAnswer]] | None = None) -> str:
    """One learner somewhere in the workshop: some exercises passed, the current one in some state."""
    reached = rng.randrange(1, len(ORDER) + 1)
    quiet = rng.choice([0.5, 1, 2, 4, 7, 15, 40]) if rng.random() < 0.85 else 0.2
    entries = {name: _entry(name, "passed", now, quiet + 5) for name in ORDER[: reached - 1]}
    current = ORDER[reached - 1]
    entries[current] = _entry(current, rng.choice(["passed", "trying", "trying", "stuck", "stub"]), now, quiet)
    predictions = _predictions(rng, PLACES[current][0], now, quiet)
    body = {
        "format": FORMAT,
        "exercises": {n: e.to_json() for n, e in sorted(entries.items())},
        "predictions": {q: p.to_json() for q, p in sorted(predictions.items())},
        "concepts": {k: {q: a.to_json() for q, a in v.items()} for k, v in (concepts or {}).items()},
        "last_activity": _stamp(now, quiet),
    }
    return json.dumps(body, indent=1)


def progress_files(n: int, now: datetime, seed: int = 7, *, end_of_day: bool = False) -> dict[str, str | None]:
    """``n`` learners' files by name; ``None`` for a learner whose server is stopped, and one file is corrupt.

    Every learner took the first concept check; with ``end_of_day`` every one took the second too, else
    about a third of the room has (as late in lesson 06). The concept answers come from a generator of
    their own, so the exercises and predictions are the same with or without them.
    """
    rng = random.Random(seed)
    when = _stamp(now, 60)
    files: dict[str, str | None] = {}
    for i in range(n):
        own = random.Random(seed * 10_000 + i)
        after = end_of_day or own.random() < 1 / 3
        files[_name(i)] = _one(rng, now, _concept_check(own, after, when))
    names = list(files)
    if n >= 10:
        files[names[3]] = None  # server stopped
        files[names[8]] = '{"format": 1, "exercises": {"permitted": "half a fi'  # unreadable
    return files


class FakeHub:
    """The room's two questions answered from ``folder``: who is here, and each learner's file."""

    def __init__(self, folder: Path, files: dict[str, str | None]) -> None:
        self.folder = folder
        self.running = {name for name, text in files.items() if text is not None}
        self.names = sorted(files)
        self.requests = 0
        self.sent = 0  # bytes of answers
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            if text is not None:
                (folder / f"{name}.json").write_text(text, encoding="utf-8")

    def answer(self, path: str, query: dict[str, list[str]]) -> tuple[int, str]:
        if path.endswith("/hub/api/users"):
            users = [{"name": n, "servers": {"": {"ready": True}} if n in self.running else {}} for n in self.names]
            return 200, json.dumps(users)
        learner = path.split("/user/", 1)[1].split("/", 1)[0]
        file = self.folder / f"{learner}.json"
        if learner not in self.running or not file.is_file():
            return 404, ""
        modified = datetime.fromtimestamp(file.stat().st_mtime_ns / 1e9, timezone.utc).isoformat()
        model = {"name": file.name, "type": "file", "format": None, "content": None, "last_modified": modified}
        if query.get("content") == ["1"]:
            model.update(format="text", content=file.read_text(encoding="utf-8"))
        return 200, json.dumps(model)


@contextmanager
def serve(hub: FakeHub) -> Iterator[str]:
    """The stand-in on a free loopback port, for as long as the block runs; yields its address."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            where = urlparse(self.path)
            status, body = hub.answer(where.path, parse_qs(where.query))
            data = body.encode()
            hub.requests += 1
            hub.sent += len(data)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        request_queue_size = 128  # the default 5 drops concurrent connects, which then wait a second to retry

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def page_for(n: int, now: datetime, scratch: Path, *, end_of_day: bool = False, **options: Any) -> str:
    """The room's page for ``n`` simulated learners, read through the stand-in as the service reads them."""
    from botie.lessons.room.room import RoomReader
    from botie.lessons.room.room_page import room_html

    hub = FakeHub(scratch, progress_files(n, now, end_of_day=end_of_day))
    with serve(hub) as url:
        rows = RoomReader(f"{url}/hub/api", url, "token", path="botie-progress.json").rows()
    return room_html(rows, now=now, **options)


def screenshot(html: str, out: Path, width: int = 1400) -> None:
    """A PNG of the page in the system Chromium (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.set_content(html)
            page.screenshot(path=str(out), full_page=True)
        finally:
            browser.close()


def main() -> None:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=12)
    parser.add_argument("--lesson", default=None)
    parser.add_argument("--reveal", action="append", default=[])
    parser.add_argument("--end-of-day", action="store_true", help="every learner has taken both concept checks")
    parser.add_argument("--show", choices=["polls", "concepts"], help="the projector view of one part only")
    parser.add_argument("--html", type=Path)
    parser.add_argument("--screenshot", type=Path)
    args = parser.parse_args()
    now = datetime.now(timezone.utc).replace(microsecond=0)
    with tempfile.TemporaryDirectory() as scratch:
        html = page_for(
            args.learners,
            now,
            Path(scratch),
            end_of_day=args.end_of_day,
            lesson=args.lesson,
            reveal=args.reveal,
            projector=args.show is not None,
            show=args.show or "polls",
        )
    if args.html:
        args.html.write_text(html, encoding="utf-8")
    if args.screenshot:
        screenshot(html, args.screenshot)


if __name__ == "__main__":
    main()
