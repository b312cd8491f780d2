"""The room as a JupyterHub service: ``/services/botie-room/`` (a page) and JSON under ``.../api/``.

The hub starts it (``classroom/jupyterhub_config.py``) and hands it its own
API token. Visitors log in through the hub (OAuth); only those granted
``access:services!service=botie-room`` (the instructors) get in. The page
updates itself every few seconds; however many pages and API calls ask, the
hub and the learners' servers are asked at most once per refresh period
(:class:`botie.lessons.room.room.RoomReader`).

Query parameters, on the page and on ``api/summary``: ``lesson=01`` shows one
lesson; ``reveal=<question id>`` (repeatable) marks that question's right answer;
``show=polls`` or ``show=concepts`` (the page only) shows the polls, or the concept check, alone, with no
learner's name, for the projector. ``api/concepts.csv`` is the concept check's figures as a download.

Run by the hub as ``python -m botie.lessons.room.room_service``; it needs
jupyterhub and tornado (``pip install -e ".[classroom]"``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
from urllib.parse import urlparse

from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated
from jupyterhub.utils import url_path_join
from tornado import web

from botie.lessons.room.room import PROGRESS_PATH, RoomReader, concept_gains, concepts_csv, polls, summarize
from botie.lessons.room.room_page import room_html

REFRESH_SECONDS = int(os.environ.get("BOTIE_ROOM_REFRESH", "5"))


def _reader() -> RoomReader:
    return RoomReader(
        os.environ["JUPYTERHUB_API_URL"],
        os.environ["BOTIE_HUB_PUBLIC_URL"],
        os.environ["JUPYTERHUB_API_TOKEN"],
        path=os.environ.get("BOTIE_ROOM_PROGRESS", PROGRESS_PATH),
        # a little under the page's period, so a page that asks every REFRESH_SECONDS gets a fresh read each time
        max_age=max(1.0, REFRESH_SECONDS - 1.0),
    )


class _Room(HubOAuthenticated, web.RequestHandler):
    async def rows(self) -> list:
        return await asyncio.to_thread(self.settings["reader"].rows)  # urllib blocks; keep the loop free

    def choices(self) -> tuple[str | None, frozenset[str]]:
        """The lesson to show (or all) and the questions whose answer the instructor revealed."""
        return self.get_query_argument("lesson", None) or None, frozenset(self.get_query_arguments("reveal"))


class RoomPage(_Room):
    @web.authenticated
    async def get(self) -> None:
        lesson, reveal = self.choices()
        rows = await self.rows()
        self.set_header("Cache-Control", "no-store")
        show = self.get_query_argument("show", "")
        projector = show in ("polls", "concepts")
        self.write(
            room_html(rows, refresh=REFRESH_SECONDS, reveal=reveal, lesson=lesson, projector=projector, show=show)
        )


class RoomApi(_Room):
    """One object per learner: state, stuck exercises and entries (predictions are only in the polls)."""

    @web.authenticated
    async def get(self) -> None:
        rows = await self.rows()
        self.set_header("Content-Type", "application/json")
        self.write(
            json.dumps(
                [
                    {
                        "learner": r.learner,
                        "state": r.state,
                        "detail": r.detail,
                        "stuck": list(r.stuck),
                        "passed": r.passed,
                        "last_activity": r.last_activity,
                        "entries": {n: dataclasses.asdict(e) for n, e in r.entries.items()},
                    }
                    for r in rows
                ]
            )
        )


class SummaryApi(_Room):
    """The summary per exercise and the polls, without names next to choices."""

    @web.authenticated
    async def get(self) -> None:
        lesson, reveal = self.choices()
        rows = await self.rows()
        exercises = [
            {**dataclasses.asdict(s), "stuck_learners": list(s.stuck_learners)} for s in summarize(rows, lesson)
        ]
        answers = [
            {
                "question": p.question.id,
                "lesson": p.question.lesson,
                "options": list(p.question.options),
                "counts": list(p.counts),
                "unrecorded": p.unrecorded,
                "answer": p.question.answer if p.question.id in reveal else None,
            }
            for p in polls(rows, lesson)
        ]
        concepts = [
            {
                "concept": g.concept.id,
                "before_answered": g.before_answered,
                "before_right": g.before_right,
                "after_answered": g.after_answered,
                "after_right": g.after_right,
                "answered_both": g.both,
                "gain": None if g.gain is None else float(g.gain),
            }
            for g in concept_gains(rows)
        ]
        self.set_header("Content-Type", "application/json")
        self.write(json.dumps({"learners": len(rows), "exercises": exercises, "polls": answers, "concepts": concepts}))


class ConceptsCsv(_Room):
    """The concept check's figures, one line per idea and no names, as a file for the workshop's report."""

    @web.authenticated
    async def get(self) -> None:
        rows = await self.rows()
        self.set_header("Content-Type", "text/csv; charset=utf-8")
        self.set_header("Content-Disposition", 'attachment; filename="concept-check.csv"')
        self.set_header("Cache-Control", "no-store")
        self.write(concepts_csv(rows))


def make_app() -> web.Application:
    prefix = os.environ["JUPYTERHUB_SERVICE_PREFIX"]
    return web.Application(
        [
            (prefix, RoomPage),
            (url_path_join(prefix, "api/room"), RoomApi),
            (url_path_join(prefix, "api/summary"), SummaryApi),
            (url_path_join(prefix, "api/concepts.csv"), ConceptsCsv),
            (url_path_join(prefix, "oauth_callback"), HubOAuthCallbackHandler),
        ],
        cookie_secret=os.urandom(32),
        reader=_reader(),
    )


async def main() -> None:
    where = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    if where.port is None:  # the hub gives every service it starts a port; without one there is nothing to bind
        raise SystemExit(f"JUPYTERHUB_SERVICE_URL names no port: {where.geturl()}")
    server = make_app().listen(where.port, where.hostname)
    stop = asyncio.Event()
    # The hub stops its services with SIGINT, then SIGTERM; a parent shell may have told us to ignore SIGINT.
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    await stop.wait()
    server.stop()


if __name__ == "__main__":
    asyncio.run(main())
