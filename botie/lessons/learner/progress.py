"""A learner's progress: one small JSON file in their working folder.

Every exercise check records its result here (lesson, exercise, passed or
not yet, attempts, how many of them ran the unchanged stub, hints shown, when),
every hint shown is counted, and every predict-then-run answer is kept (how
many tries, the option chosen at the first try and the latest, right at the
first one or not). The concept check's answers are kept per check (before and after), each question's
first answer only. The file also keeps the time of the learner's last check,
hint or prediction, which the instructor's room shows. ``show_progress()``
prints the learner's table across all lessons.

Fields added over time are optional when read, so a file written by an older
version still reads (its missing choices and times are ``None``).

The file is the learner's own. Nothing here sends it anywhere; on a class
server the instructor's view reads it through the hub (see ``classroom/``).

Recording progress must never get in the way of a check:

- the file is written whole to a temporary file beside it, then renamed over
  the old one, so a kernel stopped mid-write leaves the previous file intact,
  and a reader (the room view) gets the whole new file or the whole old one;
- every change holds a lock across reading, changing and writing, so two
  kernels recording at once (one running all cells, the learner pressing
  check in another lesson) never overwrite each other's update;
- a missing or empty file is a fresh start; a file that cannot be read as
  progress is kept aside (renamed, never deleted) and a fresh one begins;
- any problem is said once per session, plainly, and the check still answers.

Where the file lives: ``BOTIE_PROGRESS_FILE`` if set (tests point it at a
scratch folder; ``off`` turns recording off), else ``botie-progress.json``
in the current folder, which in Jupyter is the notebook's folder.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from botie.lessons.exercises.questions import QUESTIONS
from botie.lessons.learner.files import write_atomically

if TYPE_CHECKING:
    import filelock

__all__ = [
    "FILE_NAME",
    "FORMAT",
    "PLACES",  # noqa: F822 (given by the module's __getattr__, on first use)
    "Entry",
    "ConceptAnswer",
    "ProgressFile",
    "load",
    "lock_path",
    "progress_path",
    "record_check",
    "record_concepts",
    "record_hint",
    "record_prediction",
    "show_progress",
    "table_text",
]

FILE_NAME = "botie-progress.json"
FORMAT = 1


def _places() -> Mapping[str, tuple[str, int]]:
    """Where each exercise sits, (lesson, its number there), read from the exercise catalogue's table.

    Imported on first use: the catalogue's lesson modules cost a tenth of a second, which
    ``import botie.lessons`` and a progress file's mere reading by the hub should not pay up front.
    """
    from botie.lessons.exercises.places import PLACES

    return PLACES


def __getattr__(name: str) -> Any:
    """``progress.PLACES`` (the catalogue's :data:`~botie.lessons.exercises.places.PLACES`), loaded on first use."""
    if name == "PLACES":
        return _places()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


PASSED = "passed"
NOT_YET = "not yet"

# Problems already reported this session, so each is said once, not at every check.
_SAID: set[str] = set()


@dataclass(frozen=True)
class Entry:
    """One exercise's line in the progress file."""

    name: str
    lesson: str
    number: int
    status: str  # "passed" or "not yet": the latest check
    attempts: int
    hints: int  # the highest hint level shown
    first_tried: str | None
    last_tried: str | None
    passed_at: str | None  # the first time it passed
    stubs: int = 0  # checks that ran the unchanged stub: the learner has not written code for it yet

    @classmethod
    def from_json(cls, name: str, raw: Any) -> Entry:
        if not isinstance(raw, dict):
            raise ValueError(f"entry {name!r} is not an object")
        lesson, number = _places().get(name, (str(raw.get("lesson", "?")), int(raw.get("exercise", 0))))
        status = raw.get("status", NOT_YET)
        attempts, hints, stubs = raw.get("attempts", 0), raw.get("hints", 0), raw.get("stubs", 0)
        if status not in (PASSED, NOT_YET) or any(type(n) is not int for n in (attempts, hints, stubs)):
            raise ValueError(f"entry {name!r} has a status, attempts or hints that make no sense")
        return cls(
            name,
            lesson,
            number,
            status,
            attempts,
            hints,
            raw.get("first_tried"),
            raw.get("last_tried"),
            raw.get("passed_at"),
            stubs,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "lesson": self.lesson,
            "exercise": self.number,
            "status": self.status,
            "attempts": self.attempts,
            "hints": self.hints,
            "first_tried": self.first_tried,
            "last_tried": self.last_tried,
            "passed_at": self.passed_at,
            "stubs": self.stubs,
        }


@dataclass(frozen=True)
class ProgressFile:
    """What a progress file held, and what happened when it was read."""

    entries: dict[str, Entry]
    state: str  # "ok", "missing", "empty" or "corrupt"
    problem: str = ""  # for "corrupt": what was wrong with it
    predictions: dict[str, Prediction] = field(default_factory=dict)
    last_activity: str | None = None  # the latest check, hint or prediction (absent in older files)
    #: the concept check: "before" and "after", each question id -> its first answer (absent in older files)
    concepts: dict[str, dict[str, ConceptAnswer]] = field(default_factory=dict)


@dataclass(frozen=True)
class Prediction:
    """One predict-then-run question's line: the tries, the options chosen, whether the first was right."""

    question: str
    lesson: str
    attempts: int
    first_right: bool
    right: bool  # the latest answer
    first_choice: int | None = None  # the option's index at the first try; None in files from before choices
    choice: int | None = None  # the latest option's index

    @classmethod
    def from_json(cls, question: str, raw: Any) -> Prediction:
        if not isinstance(raw, dict):
            raise ValueError(f"prediction {question!r} is not an object")
        values: tuple[Any, Any, Any] = (raw.get("attempts"), raw.get("first_right"), raw.get("right"))
        if type(values[0]) is not int or type(values[1]) is not bool or type(values[2]) is not bool:
            raise ValueError(f"prediction {question!r} has attempts or answers that make no sense")
        choices = (raw.get("first_choice"), raw.get("choice"))
        if any(c is not None and type(c) is not int for c in choices):
            raise ValueError(f"prediction {question!r} has a chosen option that is not an option number")
        return cls(question, str(raw.get("lesson", "?")), *values, *choices)

    def to_json(self) -> dict[str, Any]:
        return {
            "lesson": self.lesson,
            "attempts": self.attempts,
            "first_right": self.first_right,
            "right": self.right,
            "first_choice": self.first_choice,
            "choice": self.choice,
        }


@dataclass(frozen=True)
class ConceptAnswer:
    """One concept-check question as first answered: the option chosen, whether it was the key, and when."""

    choice: int
    right: bool
    at: str | None = None

    @classmethod
    def from_json(cls, where: str, raw: Any) -> ConceptAnswer:
        if not isinstance(raw, dict) or type(raw.get("choice")) is not int or type(raw.get("right")) is not bool:
            raise ValueError(f"concept answer {where!r} has no option number or no right/wrong")
        when = raw.get("at")
        return cls(raw["choice"], raw["right"], when if isinstance(when, str) else None)

    def to_json(self) -> dict[str, Any]:
        return {"choice": self.choice, "right": self.right, "at": self.at}


def _concepts_from_json(raw: Any) -> dict[str, dict[str, ConceptAnswer]]:
    """The ``concepts`` object: check -> question -> answer. Absent in files from before the concept check."""
    if not isinstance(raw, dict) or any(not isinstance(answers, dict) for answers in raw.values()):
        raise ValueError("its 'concepts' is not an object of checks")
    return {
        check: {q: ConceptAnswer.from_json(f"{check}/{q}", item) for q, item in answers.items()}
        for check, answers in raw.items()
    }


def progress_path() -> Path | None:
    """The file to use, or None when recording is turned off."""
    setting = os.environ.get("BOTIE_PROGRESS_FILE", "")
    if setting.lower() == "off":
        return None
    return Path(setting) if setting else Path.cwd() / FILE_NAME


def parse(text: str) -> ProgressFile:
    """Read the text of a progress file. Never raises: a bad file is reported as ``corrupt``."""
    if not text.strip():
        return ProgressFile({}, "empty")
    try:
        raw = json.loads(text)
        if not isinstance(raw, dict) or not isinstance(raw.get("exercises"), dict):
            raise ValueError("it is not a progress file (no 'exercises' object)")
        entries = {name: Entry.from_json(name, item) for name, item in raw["exercises"].items()}
        answers = raw.get("predictions", {})  # absent in files written before predictions were kept
        if not isinstance(answers, dict):
            raise ValueError("its 'predictions' is not an object")
        predictions = {q: Prediction.from_json(q, item) for q, item in answers.items()}
        concepts = _concepts_from_json(raw.get("concepts", {}))
    except (ValueError, TypeError) as exc:
        return ProgressFile({}, "corrupt", str(exc))
    # A time that is not text is ignored rather than costing the learner their file.
    when = raw.get("last_activity")
    last = when if isinstance(when, str) else None
    return ProgressFile(entries, "ok", predictions=predictions, last_activity=last, concepts=concepts)


def load(path: Path) -> ProgressFile:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ProgressFile({}, "missing")
    except UnicodeDecodeError as exc:
        return ProgressFile({}, "corrupt", f"it is not text ({exc.reason})")
    return parse(text)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _say_once(key: str, message: str) -> None:
    if key not in _SAID:
        _SAID.add(key)
        print(message)


def _keep_aside(path: Path, problem: str) -> None:
    """Rename an unreadable file out of the way (never delete a learner's file) and say so once."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.stem}.unreadable-{stamp}{path.suffix}")
    path.replace(aside)
    _say_once(
        f"corrupt:{path}",
        f"(Your progress file could not be read: {problem}. It is kept as {aside.name}; "
        "a fresh one starts now. Your check above is not affected.)",
    )


#: How long a change waits for another writer before giving up (said once; the check still answers).
#: A writer holds the lock for milliseconds; only a stopped-but-not-dead process could hold it longer.
LOCK_WAIT = 10.0


def lock_path(path: Path) -> Path:
    """The lock file beside a progress file (a dot file: JupyterLab's file browser does not list it).

    The lock has a file of its own because the progress file is replaced by a rename on every
    write, and a lock taken on it would be left on the old copy.
    """
    return path.with_name(f".{path.name}.lock")


def _lock_for(path: Path) -> filelock.BaseFileLock:
    """The kind of lock this system can take, chosen by one rule: the operating system's, where it has one.

    ``filelock.FileLock`` is flock (Linux, macOS) or msvcrt (Windows), which the system releases
    when the process holding it dies: a killed kernel leaves nothing held. Pyodide's ``fcntl`` has
    no ``flock`` (and Pyodide has no threads), so there the lock is filelock's SoftFileLock, a lock
    file created exclusively, whose holder a later writer on the same host reclaims once that
    holder's process is gone. The rule is read at every change, not once at import.
    """
    import filelock  # on the first change: it costs tens of milliseconds, which reading the table need not pay

    native = sys.platform == "win32" or hasattr(_fcntl(), "flock")
    kind = filelock.FileLock if native else filelock.SoftFileLock
    return kind(str(lock_path(path)), timeout=LOCK_WAIT, mode=0o600)


def _fcntl() -> Any:
    import fcntl  # POSIX only; never reached on Windows

    return fcntl


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold the progress file's lock for the body; raise TimeoutError (an OSError) after ``LOCK_WAIT`` seconds."""
    import filelock

    lock = _lock_for(path)
    try:
        lock.acquire(poll_interval=0.005)
    except filelock.Timeout as exc:
        raise TimeoutError(errno.ETIMEDOUT, f"another notebook kept it locked for {LOCK_WAIT:.0f} s") from exc
    except NotImplementedError as exc:  # a file system without locks: said like any other write problem
        raise OSError(errno.ENOLCK, f"this folder cannot be locked ({exc})") from exc
    try:
        yield
    finally:
        lock.release()


def _clear_leftovers(path: Path) -> None:
    """Remove temporary files a killed writer left (only called under the lock, so none is in use)."""
    for leftover in path.parent.glob(f".{path.name}.*.tmp"):
        leftover.unlink(missing_ok=True)


def _write(path: Path, book: ProgressFile) -> None:
    """Write the whole file at once, so a reader never finds half of it."""
    body = {
        "format": FORMAT,
        "exercises": {name: e.to_json() for name, e in sorted(book.entries.items())},
        "predictions": {q: p.to_json() for q, p in sorted(book.predictions.items())},
        "concepts": {
            check: {q: a.to_json() for q, a in sorted(answers.items())}
            for check, answers in sorted(book.concepts.items())
        },
        "last_activity": book.last_activity,
    }
    write_atomically(path, json.dumps(body, indent=1))


def _update(change: Callable[[ProgressFile], ProgressFile]) -> bool:
    """Read the file, change it, write it back. Never raises: a problem is said once. True when it was written."""
    path = progress_path()
    if path is None:
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path):  # read, change and write as one step: no other writer in between
            _clear_leftovers(path)
            current = load(path)
            if current.state == "corrupt":
                _keep_aside(path, current.problem)
            _write(path, change(current))
    except OSError as exc:
        _say_once(
            f"write:{path}",
            f"(Your progress could not be saved in {path}: {exc.strerror or exc}. "
            "Checks and hints still work; only the record is missing.)",
        )
        return False
    return True


def _update_entry(name: str, change: Callable[[Entry], Entry], when: str) -> None:
    """Change one exercise's entry, starting from an empty one the first time; ``when`` is the activity's time."""

    def change_file(book: ProgressFile) -> ProgressFile:
        lesson, number = _places().get(name, ("?", 0))
        old = book.entries.get(name) or Entry(name, lesson, number, NOT_YET, 0, 0, None, None, None)
        entries = {**book.entries, name: change(old)}
        return dataclasses.replace(book, entries=entries, state="ok", problem="", last_activity=when)

    _update(change_file)


def record_check(name: str, passed: bool, *, hint_shown: int = 0, stub: bool = False) -> None:
    """Count one check of exercise ``name`` and keep its latest result (and any hint it showed).

    ``stub``: the check ran the unchanged stub, so the room can tell "not started" from "trying".
    """
    when = _now()

    def change(e: Entry) -> Entry:
        hints = max(e.hints, hint_shown)
        return Entry(
            e.name,
            e.lesson,
            e.number,
            PASSED if passed else NOT_YET,
            e.attempts + 1,
            hints,
            e.first_tried or when,
            when,
            e.passed_at or (when if passed else None),
            e.stubs + (1 if stub else 0),
        )

    _update_entry(name, change, when)


def record_hint(name: str, level: int) -> None:
    """Remember the highest hint level shown for exercise ``name``."""

    def change(e: Entry) -> Entry:
        return Entry(
            e.name,
            e.lesson,
            e.number,
            e.status,
            e.attempts,
            max(e.hints, level),
            e.first_tried,
            e.last_tried,
            e.passed_at,
            e.stubs,
        )

    _update_entry(name, change, _now())


def record_prediction(question: str, lesson: str, right: bool, choice: int | None = None) -> None:
    """Count one answer to a predict-then-run question: the option chosen, and whether the first was right."""

    def change_file(book: ProgressFile) -> ProgressFile:
        old = book.predictions.get(question)
        new = (
            Prediction(question, lesson, 1, right, right, choice, choice)
            if old is None
            else Prediction(question, lesson, old.attempts + 1, old.first_right, right, old.first_choice, choice)
        )
        predictions = {**book.predictions, question: new}
        return dataclasses.replace(book, predictions=predictions, state="ok", problem="", last_activity=_now())

    _update(change_file)


def record_concepts(check: str, answers: dict[str, ConceptAnswer]) -> tuple[dict[str, ConceptAnswer], bool]:
    """Keep the concept check's answers for ``check`` ("before" or "after"): a question already answered in
    that check keeps its first answer, so running the cell again changes nothing.

    Returns the answers the check holds now (read under the lock, so a second notebook's answers count) and
    whether they were saved; when recording is off or the file cannot be written, the answers given here.
    """
    kept: dict[str, ConceptAnswer] = dict(answers)

    def change_file(book: ProgressFile) -> ProgressFile:
        nonlocal kept
        kept = {**answers, **book.concepts.get(check, {})}  # what was stored first wins
        concepts = {**book.concepts, check: kept}
        return dataclasses.replace(book, concepts=concepts, state="ok", problem="", last_activity=_now())

    saved = _update(change_file)
    return kept, saved


def _result(e: Entry | None) -> str:
    """An exercise stays passed once passed: a later failing check (a demo of a wrong function,
    or an edit that broke it) is flagged with a star rather than taking the pass away."""
    if e is None:
        return "-"
    if e.status == NOT_YET and e.passed_at is not None:
        return "passed*"
    return e.status


def table_text(entries: dict[str, Entry], predictions: dict[str, Prediction] | None = None, questions: int = 0) -> str:
    """The learner's table: every exercise of every lesson, in lesson order, then the predictions."""
    lines = [f"{'lesson':<7}{'exercise':<22}{'result':<10}{'tries':>6}{'hints':>6}"]
    places = _places()
    for name, (lesson, number) in sorted(places.items(), key=lambda item: item[1]):
        e = entries.get(name)
        tries = 0 if e is None else e.attempts
        hints = 0 if e is None else e.hints
        lines.append(f"{lesson:<7}{f'{number}. {name}':<22}{_result(e):<10}{tries:>6}{hints:>6}")
    done = sum(1 for e in entries.values() if e.passed_at is not None and e.name in places)
    lines.append(f"{done} of {len(places)} exercises passed.")
    if any(_result(e) == "passed*" for e in entries.values()):
        lines.append("* passed earlier; your latest check of it did not pass.")
    answered = predictions or {}
    first = sum(1 for p in answered.values() if p.first_right)
    lines.append(
        f"Predict-then-run: {len(answered)} of {questions} questions answered, {first} right at the first try."
    )
    return "\n".join(lines)


def show_progress() -> None:
    """Print your progress across all lessons. Never raises."""
    path = progress_path()
    if path is None:
        print("Progress recording is turned off (BOTIE_PROGRESS_FILE=off).")
        return
    current = load(path)
    if current.state == "corrupt":
        print(
            f"Your progress file ({path.name}) could not be read: {current.problem}. "
            "The next check keeps it aside and starts a fresh one."
        )
    print(table_text(current.entries, current.predictions, len(QUESTIONS)))
