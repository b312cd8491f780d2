"""The instructor's view of the room: every learner's progress, one table, stuck learners marked.

On a JupyterHub (see ``classroom/``) this runs as a hub service. It lists the
learners through the hub API and reads each running learner's progress file
through the proxy, with the service's own token. That token carries only the
scopes in ``ROOM_SCOPES``: it can list learners, see whether their servers
run, and read files on them; it cannot run code or write anything.

The pieces are plain functions so a test can feed them: :func:`row_for`
turns what the hub said about one learner into a :class:`Row`;
:func:`gather` asks the hub; :func:`room_text` and :func:`room_html` show it.
A stopped server, a missing file or an unreadable file is a state in the
table, never an error.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from html import escape

from botie.lessons.classroom.progress import PASSED, PLACES, Entry, parse

__all__ = [
    "PROGRESS_PATH",
    "ROOM_SCOPES",
    "STUCK_ATTEMPTS",
    "STUCK_HINTS",
    "Row",
    "gather",
    "is_stuck",
    "room_html",
    "room_text",
    "row_for",
]

#: The token scopes the room needs, and no more (JupyterHub RBAC). The last one is a custom
#: scope that classroom/jupyter_server_config.py enforces on every learner's server.
ROOM_SCOPES = (
    "list:users!group=learners",  # who is in the room (instructors are not listed)
    "read:servers!group=learners",  # whose server is running and ready
    # Pass a learner server's login check. Unfiltered: a server cannot resolve a group filter
    # (JupyterHub's check_scopes), so "!group=learners" here would lock the room out; the next
    # scope is what keeps this token to reading files.
    "access:servers",
    "custom:jupyter_server:read:contents",  # ...which then lets this token read files, nothing else
)
#: Where the progress file sits inside a learner's home, as the nbgitpuller link lays it out.
PROGRESS_PATH = "botie-workshop/notebooks/botie-progress.json"
STUCK_ATTEMPTS = 3
STUCK_HINTS = 2

# A row's state, in the words the instructor sees.
WORKING = "working"
NOT_STARTED = "no checks yet"
STOPPED = "server stopped"
CORRUPT = "progress file unreadable"
UNREACHABLE = "server not answering"


def is_stuck(entry: Entry) -> bool:
    """Not passed yet, and either many attempts or several hints."""
    return entry.status != PASSED and (entry.attempts >= STUCK_ATTEMPTS or entry.hints >= STUCK_HINTS)


@dataclass(frozen=True)
class Row:
    learner: str
    state: str
    entries: dict[str, Entry]
    detail: str = ""

    @property
    def stuck(self) -> tuple[str, ...]:
        return tuple(name for name, e in self.entries.items() if is_stuck(e))

    @property
    def passed(self) -> int:
        return sum(1 for e in self.entries.values() if e.status == PASSED)


def row_for(learner: str, *, running: bool, status: int | None, body: str = "") -> Row:
    """One learner's row from what the hub said: is the server running, and the HTTP answer for the file."""
    if not running:
        return Row(learner, STOPPED, {})
    if status == 404:
        return Row(learner, NOT_STARTED, {})
    if status != 200:
        return Row(learner, UNREACHABLE, {}, f"HTTP {status}" if status else "no answer")
    try:
        text = json.loads(body)["content"]
    except (ValueError, KeyError, TypeError):
        return Row(learner, UNREACHABLE, {}, "the server's answer was not a file")
    found = parse(text or "")
    if found.state == "corrupt":
        return Row(learner, CORRUPT, {}, found.problem)
    return Row(learner, WORKING if found.entries else NOT_STARTED, found.entries)


def _get(url: str, token: str, timeout: float) -> tuple[int | None, str]:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, answer.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, ""
    except (urllib.error.URLError, OSError):
        return None, ""


def _server_ready(user: dict) -> bool:
    server = (user.get("servers") or {}).get("")
    return bool(server and server.get("ready"))


def gather(hub_api: str, public_url: str, token: str, *, path: str = PROGRESS_PATH, timeout: float = 5.0) -> list[Row]:
    """Ask the hub for the learners, then read each running learner's progress file through the proxy.

    The token's scopes decide who is a learner: with ``list:users!group=learners`` the hub lists
    only that group, so instructors do not appear as rows.
    """
    status, body = _get(f"{hub_api.rstrip('/')}/users", token, timeout)
    if status != 200:
        raise ConnectionError(f"the hub's user list answered HTTP {status}")
    users = json.loads(body)
    rows = []
    for user in sorted(users, key=lambda u: u["name"]):
        name = user["name"]
        if not _server_ready(user):
            rows.append(row_for(name, running=False, status=None))
            continue
        quoted = urllib.parse.quote(name, safe="")
        url = f"{public_url.rstrip('/')}/user/{quoted}/api/contents/{path}?type=file&format=text&content=1"
        status, text = _get(url, token, timeout)
        rows.append(row_for(name, running=True, status=status, body=text))
    return rows


def _columns() -> list[str]:
    return [name for name, _ in sorted(PLACES.items(), key=lambda item: item[1])]


def _cell_text(entry: Entry | None) -> str:
    if entry is None:
        return "-"
    mark = "ok" if entry.status == PASSED else f"{entry.attempts}x"
    return f"{mark}{'!' if is_stuck(entry) else ''}"


def room_text(rows: list[Row]) -> str:
    """The room as text: one line per learner; ``!`` marks a stuck exercise."""
    columns = _columns()
    head = ["learner", "state", *(f"{PLACES[c][0]}.{PLACES[c][1]}" for c in columns)]
    lines = ["  ".join(head)]
    for row in rows:
        cells = [_cell_text(row.entries.get(c)) for c in columns]
        lines.append("  ".join([row.learner, row.state, *cells]))
    stuck = [r.learner for r in rows if r.stuck]
    lines.append(f"{len(rows)} learners; stuck: {', '.join(stuck) or 'nobody'}")
    return "\n".join(lines)


def room_html(rows: list[Row], *, refresh: int = 5) -> str:
    """The room as a page that reloads itself every ``refresh`` seconds."""
    columns = _columns()
    head = "".join(f"<th title='{escape(c)}'>{PLACES[c][0]}.{PLACES[c][1]}</th>" for c in columns)
    body = []
    for row in rows:
        cells = []
        for c in columns:
            e = row.entries.get(c)
            kind = "none" if e is None else ("stuck" if is_stuck(e) else ("ok" if e.status == PASSED else "trying"))
            tip = "" if e is None else f"{e.attempts} tries, {e.hints} hints"
            cells.append(f"<td class='{kind}' title='{tip}'>{escape(_cell_text(e))}</td>")
        state = escape(row.state + (f" ({row.detail})" if row.detail else ""))
        mark = " class='stuck'" if row.stuck else ""
        body.append(f"<tr{mark}><th>{escape(row.learner)}</th><td>{state}</td>{''.join(cells)}</tr>")
    return _PAGE.format(refresh=refresh, head=head, body="\n".join(body), count=len(rows))


_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="{refresh}"><title>Botie: the room</title>
<style>body{{font-family:sans-serif}} td,th{{padding:2px 8px;text-align:center}}
.ok{{background:#d8f0d8}} .trying{{background:#fff4cc}} .stuck{{background:#f7c6c6;font-weight:bold}}
tr.stuck th{{color:#a00}}</style></head><body>
<h1>The room: {count} learners</h1>
<p>ok = passed; 3x = three tries, not passed yet; ! and red = stuck (many tries or hints, no pass).
This page refreshes every {refresh} seconds.</p>
<table><tr><th>learner</th><th>state</th>{head}</tr>
{body}
</table></body></html>
"""
