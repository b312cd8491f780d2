"""The room as a JupyterHub service: ``/services/botie-room/`` (a page) and ``.../api/room`` (JSON).

The hub starts it (``classroom/jupyterhub_config.py``) and hands it its own
API token. Visitors log in through the hub (OAuth); only those granted
``access:services!service=botie-room`` (the instructors) get in. The page
reloads itself every few seconds; each load asks the hub afresh.

Run by the hub as ``python -m botie.lessons.classroom.room_service``; it needs
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

from botie.lessons.classroom.room import PROGRESS_PATH, gather, room_html

REFRESH_SECONDS = int(os.environ.get("BOTIE_ROOM_REFRESH", "5"))


def _rows() -> list:
    return gather(
        os.environ["JUPYTERHUB_API_URL"],
        os.environ["BOTIE_HUB_PUBLIC_URL"],
        os.environ["JUPYTERHUB_API_TOKEN"],
        path=os.environ.get("BOTIE_ROOM_PROGRESS", PROGRESS_PATH),
    )


class RoomPage(HubOAuthenticated, web.RequestHandler):
    @web.authenticated
    async def get(self) -> None:
        rows = await asyncio.to_thread(_rows)  # urllib blocks; keep the event loop free
        self.set_header("Cache-Control", "no-store")
        self.write(room_html(rows, refresh=REFRESH_SECONDS))


class RoomApi(HubOAuthenticated, web.RequestHandler):
    @web.authenticated
    async def get(self) -> None:
        rows = await asyncio.to_thread(_rows)
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
                        "entries": {n: dataclasses.asdict(e) for n, e in r.entries.items()},
                    }
                    for r in rows
                ]
            )
        )


def make_app() -> web.Application:
    prefix = os.environ["JUPYTERHUB_SERVICE_PREFIX"]
    return web.Application(
        [
            (prefix, RoomPage),
            (url_path_join(prefix, "api/room"), RoomApi),
            (url_path_join(prefix, "oauth_callback"), HubOAuthCallbackHandler),
        ],
        cookie_secret=os.urandom(32),
    )


async def main() -> None:
    where = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    server = make_app().listen(where.port, where.hostname)
    stop = asyncio.Event()
    # The hub stops its services with SIGINT, then SIGTERM; a parent shell may have told us to ignore SIGINT.
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    await stop.wait()
    server.stop()


if __name__ == "__main__":
    asyncio.run(main())
