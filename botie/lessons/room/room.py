"""The instructor's view of the room: where it is stuck, what it predicted, what it learned, and each learner.

On a JupyterHub (see ``classroom/``) this runs as a hub service. It lists the
learners through the hub API and reads each running learner's progress file
through the proxy, with the service's own token. That token carries only the
scopes in ``ROOM_SCOPES``: it can list learners, see whether their servers
run, and read files on them; it cannot run code or write anything.

The pieces are plain functions so a test can feed them: :func:`row_for`
turns what the hub said about one learner into a :class:`Row`;
:class:`RoomReader` asks the hub (at most once per refresh, and a learner's
file again only when it changed); :func:`summarize`, :func:`polls`,
:func:`concept_gains` and :func:`activity` compute what the page shows (:func:`concepts_csv` the same
gains as a download); :func:`room_text` shows it as text and
:func:`botie.lessons.room.room_page.room_html` as a page. A stopped server, a missing file or an unreadable
file is a state in the table, never an error.

The words on the page, defined once here and printed on the page:

- an exercise is *passed* once a check passed (a later failing check does not take it away);
- *stuck*: not passed, and either ``STUCK_FAILURES`` checks that ran the learner's code failed,
  or the learner asked for the exercise's last hint;
- *not started*: no check yet, or every check so far ran the unchanged stub;
- *trying*: anything else (checked their own code, not passed, not stuck);
- a learner is *working* when their last check, hint or prediction is under ``QUIET_MINUTES``
  minutes old, and *stopped* when it is older.
"""

from __future__ import annotations

import csv
import io
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from fractions import Fraction

from botie.lessons.exercises.catalogue import EXERCISES
from botie.lessons.exercises.concepts import CONCEPTS, Concept
from botie.lessons.exercises.questions import QUESTIONS, Question
from botie.lessons.learner.progress import PASSED, PLACES, ConceptAnswer, Entry, Prediction, parse

__all__ = [
    "CSV_COLUMNS",
    "LOW_GAIN",
    "PROGRESS_PATH",
    "QUIET_MINUTES",
    "ROOM_SCOPES",
    "STUCK_FAILURES",
    "Activity",
    "ConceptGain",
    "ExerciseSummary",
    "Poll",
    "RoomReader",
    "Row",
    "activity",
    "cell_text",
    "concept_gains",
    "concepts_csv",
    "exercise_names",
    "exercise_state",
    "gather",
    "is_stuck",
    "ordered",
    "polls",
    "room_text",
    "row_for",
    "summarize",
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
#: Failed checks of the learner's own code, without a pass, after which an exercise counts as stuck.
STUCK_FAILURES = 3
#: Minutes without a check, hint or prediction after which a learner counts as stopped.
QUIET_MINUTES = 10

# A row's state, in the words the instructor sees.
WORKING = "progress read"
NOT_STARTED = "no checks yet"
STOPPED = "server stopped"
CORRUPT = "progress file unreadable"
UNREACHABLE = "server not answering"
READ = (WORKING, NOT_STARTED)  # the states whose progress the summary can count

# An exercise's state for one learner.
DONE, TRYING, STUCK, FRESH = "passed", "trying", "stuck", "not started"
EXERCISE_STATES = (DONE, TRYING, STUCK, FRESH)


def _last_hint(name: str) -> int:
    exercise = EXERCISES.get(name)
    return len(exercise.hints) if exercise is not None else 3


def _passed(entry: Entry) -> bool:
    return entry.passed_at is not None or entry.status == PASSED


def is_stuck(entry: Entry) -> bool:
    """Not passed, and either ``STUCK_FAILURES`` failed checks of real code or the last hint asked for."""
    failures = entry.attempts - entry.stubs
    return not _passed(entry) and (failures >= STUCK_FAILURES or entry.hints >= _last_hint(entry.name))


def exercise_state(entry: Entry | None) -> str:
    """passed, stuck, not started (nothing checked but the stub) or trying: in that order of precedence."""
    if entry is None:
        return FRESH
    if _passed(entry):
        return DONE
    if is_stuck(entry):
        return STUCK
    return FRESH if entry.attempts <= entry.stubs else TRYING


@dataclass(frozen=True)
class Row:
    learner: str
    state: str
    entries: dict[str, Entry]
    detail: str = ""
    predictions: dict[str, Prediction] = field(default_factory=dict)
    last_activity: str | None = None  # ISO time of the latest check, hint or prediction
    concepts: dict[str, dict[str, ConceptAnswer]] = field(default_factory=dict)  # check -> question -> answer

    @property
    def stuck(self) -> tuple[str, ...]:
        return tuple(name for name, e in self.entries.items() if is_stuck(e))

    @property
    def passed(self) -> int:
        return sum(1 for e in self.entries.values() if _passed(e))


def _when(text: str | None) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text) if text else None
    except ValueError:
        return None
    return moment if moment is None or moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _latest(last_activity: str | None, entries: dict[str, Entry]) -> str | None:
    """The file's own stamp; files written before it was kept fall back on their latest check."""
    if _when(last_activity) is not None:
        return last_activity
    checks = [(_when(e.last_tried), e.last_tried) for e in entries.values()]
    return max(((m, t) for m, t in checks if m is not None), default=(None, None))[1]


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
    state = WORKING if found.entries or found.predictions or found.concepts else NOT_STARTED
    last = _latest(found.last_activity, found.entries)
    return Row(
        learner, state, found.entries, predictions=found.predictions, last_activity=last, concepts=found.concepts
    )


# --- what the page computes ------------------------------------------------------------------


@dataclass(frozen=True)
class Activity:
    """How long since a learner's last check, hint or prediction, and what that makes them."""

    kind: str  # "working", "stopped" or "none" (nothing recorded, or nothing readable)
    seconds: float | None
    text: str


def _ago(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes < 1:
        return "under a minute"
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def activity(row: Row, now: datetime) -> Activity:
    """working (last activity under ``QUIET_MINUTES`` ago), stopped (older), or none."""
    moment = _when(row.last_activity)
    if moment is None:
        return Activity("none", None, "no activity yet")
    seconds = max(0.0, (now - moment).total_seconds())
    if seconds < QUIET_MINUTES * 60:
        return Activity("working", seconds, f"working: {_ago(seconds)} ago")
    return Activity("stopped", seconds, f"stopped: quiet for {_ago(seconds)}")


@dataclass(frozen=True)
class ExerciseSummary:
    """One exercise across the room: how many learners are in each state, and who is stuck."""

    name: str
    lesson: str
    number: int
    passed: int
    trying: int
    stuck: int
    not_started: int
    stuck_learners: tuple[str, ...]

    @property
    def counts(self) -> dict[str, int]:
        return {DONE: self.passed, TRYING: self.trying, STUCK: self.stuck, FRESH: self.not_started}

    @property
    def total(self) -> int:
        return self.passed + self.trying + self.stuck + self.not_started


def exercise_names(lesson: str | None) -> list[str]:
    """Every exercise in lesson order, or one lesson's."""
    ordered_names = [name for name, _ in sorted(PLACES.items(), key=lambda item: item[1])]
    return [n for n in ordered_names if lesson is None or PLACES[n][0] == lesson]


def summarize(rows: Iterable[Row], lesson: str | None = None) -> tuple[ExerciseSummary, ...]:
    """Per exercise (lesson order), counts over the learners whose progress could be read."""
    readable = [r for r in rows if r.state in READ]
    found = []
    for name in exercise_names(lesson):
        states = [(r.learner, exercise_state(r.entries.get(name))) for r in readable]
        count = {kind: sum(1 for _, s in states if s == kind) for kind in EXERCISE_STATES}
        stuck = tuple(sorted(learner for learner, s in states if s == STUCK))
        lesson_of, number = PLACES[name]
        found.append(
            ExerciseSummary(name, lesson_of, number, count[DONE], count[TRYING], count[STUCK], count[FRESH], stuck)
        )
    return tuple(found)


@dataclass(frozen=True)
class Poll:
    """One predict-then-run question: how many learners chose each option at their first try."""

    question: Question
    counts: tuple[int, ...]  # in the question's option order
    unrecorded: int  # answered with a version that did not keep the option chosen

    @property
    def answered(self) -> int:
        return sum(self.counts) + self.unrecorded


def _poll(question: Question, answers: list[Prediction]) -> Poll:
    counts = [0] * len(question.options)
    unrecorded = 0
    for p in answers:
        if p.first_choice is not None and 0 <= p.first_choice < len(counts):
            counts[p.first_choice] += 1
        else:
            unrecorded += 1
    return Poll(question, tuple(counts), unrecorded)


def polls(rows: Iterable[Row], lesson: str | None = None) -> tuple[Poll, ...]:
    """Every question at least one learner answered (in lesson order), counted without names."""
    answers: dict[str, list[Prediction]] = {}
    for row in rows:
        for qid, p in row.predictions.items():
            answers.setdefault(qid, []).append(p)
    return tuple(
        _poll(q, answers[q.id])
        for q in QUESTIONS.values()
        if q.id in answers and (lesson is None or q.lesson == lesson)
    )


#: Below this normalised gain an idea counts as one that did not move. 0.3 is where Hake's survey of
#: physics courses (1998) put the top of the "low gain" band, the one traditional lectures landed in.
LOW_GAIN = Fraction(3, 10)


@dataclass(frozen=True)
class ConceptGain:
    """One idea across the room, without names: how many were right before and after, and the gain.

    ``before_*`` count every learner who answered it in the first check, ``after_*`` in the second. The
    gain compares the same people, so it is taken over the ``both`` learners who answered it in both:
    (after - before) / (1 - before) with each as that group's share right, which is
    ``(both_after - both_before) / (both - both_before)``: the part of what there was to learn that was
    learned. ``None`` when nobody answered it twice, or when all of them were already right.
    """

    concept: Concept
    before_answered: int
    before_right: int
    after_answered: int
    after_right: int
    both: int
    both_before: int
    both_after: int

    @property
    def gain(self) -> Fraction | None:
        if self.both == 0 or self.both_before == self.both:
            return None
        return Fraction(self.both_after - self.both_before, self.both - self.both_before)

    @property
    def moved(self) -> bool:
        """Whether the room gained on this idea: a gain of at least :data:`LOW_GAIN`."""
        return self.gain is not None and self.gain >= LOW_GAIN


def _gain(concept: Concept, rows: list[Row]) -> ConceptGain:
    before = [r.concepts.get("before", {}).get(concept.id) for r in rows]
    after = [r.concepts.get("after", {}).get(concept.id) for r in rows]
    pairs = [(b, a) for b, a in zip(before, after, strict=True) if b is not None and a is not None]
    return ConceptGain(
        concept,
        sum(1 for b in before if b is not None),
        sum(1 for b in before if b is not None and b.right),
        sum(1 for a in after if a is not None),
        sum(1 for a in after if a is not None and a.right),
        len(pairs),
        sum(1 for b, _ in pairs if b.right),
        sum(1 for _, a in pairs if a.right),
    )


def _did_not_move_first(g: ConceptGain) -> tuple[int, float]:
    """Ideas with a gain, smallest first; then those nobody answered twice, least known first (unanswered
    last among them); then those everyone already knew."""
    if g.gain is not None:
        return (0, float(g.gain))
    if g.both == 0:
        return (1, g.before_right / g.before_answered if g.before_answered else 2.0)
    return (2, 0.0)


def concept_gains(rows: Iterable[Row]) -> tuple[ConceptGain, ...]:
    """Every concept over the learners whose progress could be read, the ideas that did not move first."""
    readable = [r for r in rows if r.state in READ]
    found = [_gain(c, readable) for c in CONCEPTS.values()]
    return tuple(sorted(found, key=_did_not_move_first))  # sorted() is stable: ties keep the check's order


#: The CSV's columns, in order (shares and gain as decimals; an empty gain: nothing to compute it from).
CSV_COLUMNS = (
    "concept",
    "idea",
    "lesson",
    "section",
    "before_answered",
    "before_right",
    "before_share",
    "after_answered",
    "after_right",
    "after_share",
    "answered_both",
    "both_right_before",
    "both_right_after",
    "normalised_gain",
)


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.3f}" if whole else ""


def concepts_csv(rows: Iterable[Row]) -> str:
    """The concept figures as CSV, one line per concept in the page's order, for the workshop's report."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for g in concept_gains(rows):
        c = g.concept
        writer.writerow(
            [
                c.id,
                c.idea,
                c.lesson,
                f"{c.section}. {c.section_title}",
                g.before_answered,
                g.before_right,
                _share(g.before_right, g.before_answered),
                g.after_answered,
                g.after_right,
                _share(g.after_right, g.after_answered),
                g.both,
                g.both_before,
                g.both_after,
                "" if g.gain is None else f"{float(g.gain):.3f}",
            ]
        )
    return out.getvalue()


def ordered(rows: Iterable[Row]) -> list[Row]:
    """Learners with the most stuck exercises first, then by name."""
    return sorted(rows, key=lambda r: (-len(r.stuck), r.learner))


# --- reading the room through the hub --------------------------------------------------------


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


def _stamp(status: int | None, body: str) -> str | None:
    """The file's ``last_modified`` from a contents-API answer, or None."""
    if status != 200:
        return None
    try:
        stamp = json.loads(body).get("last_modified")
    except (ValueError, AttributeError):
        return None
    return stamp if isinstance(stamp, str) else None


class RoomReader:
    """The room as the hub sees it, read at most once per ``max_age`` seconds however many pages ask.

    Each learner's file is first asked for without its content (the server only looks at the
    file's modification time); the content is fetched, and parsed, only when that time changed
    since the last read. ``get(url) -> (status, body)`` and ``clock`` are injectable for tests.
    """

    def __init__(
        self,
        hub_api: str,
        public_url: str,
        token: str,
        *,
        path: str = PROGRESS_PATH,
        max_age: float = 5.0,
        timeout: float = 5.0,
        workers: int = 8,
        clock: Callable[[], float] = time.monotonic,
        get: Callable[[str], tuple[int | None, str]] | None = None,
    ) -> None:
        self.hub_api, self.public_url, self.path = hub_api.rstrip("/"), public_url.rstrip("/"), path
        self.max_age, self.workers, self.clock = max_age, workers, clock
        self.get = get or (lambda url: _get(url, token, timeout))
        self._files: dict[str, tuple[str, Row]] = {}  # learner -> (last_modified, row read then)
        self._rows: list[Row] | None = None
        self._read_at = 0.0
        self._lock = threading.Lock()

    def rows(self) -> list[Row]:
        """The room; read afresh only when the last read is ``max_age`` seconds old."""
        with self._lock:  # a second page asking meanwhile waits for this read rather than starting its own
            if self._rows is None or self.clock() - self._read_at >= self.max_age:
                started = self.clock()  # the data's age counts from when the reading began
                self._rows = self._read()
                self._read_at = started
            return self._rows

    def _read(self) -> list[Row]:
        status, body = self.get(f"{self.hub_api}/users")
        if status != 200:
            raise ConnectionError(f"the hub's user list answered HTTP {status}")
        users = sorted(json.loads(body), key=lambda u: u["name"])
        if not users:
            return []
        with ThreadPoolExecutor(max_workers=min(self.workers, len(users))) as pool:
            return list(pool.map(self._one, users))

    def _one(self, user: dict) -> Row:
        name = user["name"]
        if not _server_ready(user):
            self._files.pop(name, None)
            return row_for(name, running=False, status=None)
        url = f"{self.public_url}/user/{urllib.parse.quote(name, safe='')}/api/contents/{self.path}"
        status, body = self.get(f"{url}?content=0")
        known = self._files.get(name)
        if status == 200 and known is not None and known[0] == _stamp(status, body):
            return known[1]
        if status == 200:
            status, body = self.get(f"{url}?type=file&format=text&content=1")
        row = row_for(name, running=True, status=status, body=body)
        stamp = _stamp(status, body)
        if stamp is not None and row.state in READ:
            self._files[name] = (stamp, row)
        return row


def gather(hub_api: str, public_url: str, token: str, *, path: str = PROGRESS_PATH, timeout: float = 5.0) -> list[Row]:
    """Ask the hub for the learners, then read each running learner's progress file through the proxy.

    The token's scopes decide who is a learner: with ``list:users!group=learners`` the hub lists
    only that group, so instructors do not appear as rows.
    """
    return RoomReader(hub_api, public_url, token, path=path, timeout=timeout).rows()


# --- text -----------------------------------------------------------------------------------


def cell_text(entry: Entry | None) -> str:
    """One learner's exercise in a few characters: ok, 3x (checks of their own code), 3x! (stuck), stub, -."""
    state = exercise_state(entry)
    if entry is None or (state == FRESH and entry.attempts == 0):
        return "-"
    if state == DONE:
        return "ok"
    if state == FRESH:
        return "stub"
    return f"{entry.attempts - entry.stubs}x{'!' if state == STUCK else ''}"


def _summary_line(s: ExerciseSummary) -> str:
    who = f"; stuck: {', '.join(s.stuck_learners)}" if s.stuck_learners else ""
    return (
        f"{s.lesson}.{s.number} {s.name}: {s.passed} passed, {s.trying} trying, {s.stuck} stuck, "
        f"{s.not_started} not started{who}"
    )


def room_text(rows: list[Row], now: datetime | None = None) -> str:
    """The room as text: the summary per exercise, then one line per learner; ``!`` marks a stuck exercise."""
    now = now or datetime.now(timezone.utc)
    columns = exercise_names(None)
    lines = [_summary_line(s) for s in summarize(rows)]
    lines.append("  ".join(["learner", "state", "activity", *(f"{PLACES[c][0]}.{PLACES[c][1]}" for c in columns)]))
    for row in ordered(rows):
        cells = [cell_text(row.entries.get(c)) for c in columns]
        lines.append("  ".join([row.learner, row.state, activity(row, now).text, *cells]))
    stuck = [r.learner for r in ordered(rows) if r.stuck]
    lines.append(f"{len(rows)} learners; stuck: {', '.join(stuck) or 'nobody'}")
    return "\n".join(lines)
