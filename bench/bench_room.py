"""What one refresh of the instructor's room costs with 100 learners, against reading every file every time.

The learners are simulated: 100 progress files in mixed states (``tools/room_class.py``),
served over loopback HTTP by a stand-in that answers as the hub's user list and Jupyter
Server's contents API do. The room reads them as it reads a real class:

* ours: :class:`botie.lessons.room.room.RoomReader`: the user list, then per running
  learner a look at the file without its content, and the content only when the file changed
  since the last refresh (eight requests in flight);
* baseline: the way the room read before, one request with the content per learner, one
  after another, every refresh.

Rows: a refresh when nothing changed, one when 10 of the 100 files changed, and the page's
rendering for 100 learners (against the JSON of the same rows). The requests and bytes the
hub serves per refresh are in each row's name. On loopback a request costs about the same with
or without the file's content, so the time is about the baseline's and the saving is in bytes
(and in the learners' servers not reading and the room not parsing unchanged files). Not shown
here: however many pages or API calls ask within one refresh period, the hub is asked once.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import urllib.parse
from datetime import datetime, timezone
from pathlib import Path

from botie.lessons.room.room import RoomReader, _get, row_for
from botie.lessons.room.room_page import room_html
from tools.room_class import FakeHub, progress_files, serve

from ._harness import Row, interleaved

LEARNERS = 100
CHANGED = 10
NOW = datetime(2026, 12, 1, 15, 0, tzinfo=timezone.utc)


def _read_every_file(url: str) -> list:
    """The baseline: the user list, then each running learner's file with its content, one after another."""
    _, body = _get(f"{url}/hub/api/users", "token", 5.0)
    rows = []
    for user in sorted(json.loads(body), key=lambda u: u["name"]):
        if not user["servers"]:
            rows.append(row_for(user["name"], running=False, status=None))
            continue
        quoted = urllib.parse.quote(user["name"], safe="")
        status, text = _get(f"{url}/user/{quoted}/api/contents/botie-progress.json?content=1", "token", 5.0)
        rows.append(row_for(user["name"], running=True, status=status, body=text))
    return rows


def _touch(folder: Path, names: list[str], tick: int) -> None:
    for name in names:
        file = folder / f"{name}.json"
        os.utime(file, ns=(time.time_ns(), time.time_ns() + tick))


def _cost(hub: FakeHub, fn) -> tuple[int, float]:
    before, sent = hub.requests, hub.sent
    fn()
    return hub.requests - before, (hub.sent - sent) / 1024


def run() -> list[Row]:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        hub = FakeHub(folder, progress_files(LEARNERS, NOW))
        running = sorted(hub.running)
        with serve(hub) as url:
            reader = RoomReader(f"{url}/hub/api", url, "token", path="botie-progress.json", max_age=0)
            rows = reader.rows()  # the first refresh reads everything; the rows below are the ones after it
            tick = [0]

            def some_changed() -> None:
                tick[0] += 1
                _touch(folder, running[:CHANGED], tick[0])
                reader.rows()

            ours_still, base_requests = _cost(hub, reader.rows), _cost(hub, lambda: _read_every_file(url))
            ours_some = _cost(hub, some_changed)
            times = interleaved(
                {"still": reader.rows, "some": some_changed, "base": lambda: _read_every_file(url)}, rounds=5
            )
        render = interleaved(
            {
                "page": lambda: room_html(rows, now=NOW),
                "json": lambda: json.dumps([r.entries for r in rows], default=repr),
            }
        )
    base_name = f"every file read, one by one: {base_requests[0]} requests, {base_requests[1]:.0f} KiB"
    return [
        Row(
            f"room refresh, {LEARNERS} learners, none changed: {ours_still[0]} requests, {ours_still[1]:.0f} KiB",
            times["still"],
            base_name,
            times["base"],
            "≤ 1.1× the time, far fewer bytes",
        ),
        Row(
            f"room refresh, {CHANGED} of {LEARNERS} changed: {ours_some[0]} requests, {ours_some[1]:.0f} KiB",
            times["some"],
            base_name,
            times["base"],
            "≤ 1.3× the time, fewer bytes",
        ),
        Row(
            f"room page, {LEARNERS} learners ({len(room_html(rows, now=NOW)) // 1024} KiB of HTML)",
            render["page"],
            "json.dumps of the same rows' entries",
            render["json"],
            "under 50 ms",
        ),
    ]
