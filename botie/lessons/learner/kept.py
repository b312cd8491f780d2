"""A learner's passing functions, kept beside the progress file so a later lesson can run them.

When ``check(fn)`` passes, the function's source is kept in ``botie-functions.json`` in
the same folder as ``botie-progress.json`` (with a scratch progress file, as in tests:
``<its name>.functions.json`` beside it; with recording off, nothing is kept). The
capstone of lesson 06 loads ``choose_evidence`` (lesson 01) and ``choose_branch``
(lesson 05a) from it by name, so a learner does not copy code between notebooks.

What is kept is everything the function needs to run again in a fresh kernel: its own
source (``inspect.getsource``, or the notebook cell that defined it when that fails),
the source of the learner's own helpers it calls (``permitted`` for ``choose_evidence``),
and an import line for each module, function or class it uses from a package. A later
pass replaces the kept version; a check that does not pass never touches it.

Loading runs the kept source in a namespace of its own and never raises: a file that
cannot be read, a source that no longer runs, or a name that is not there comes back as
one plain line, and the caller uses the reference instead. The source is the learner's
own code from their own folder, run in their own kernel, as when they ran the cell.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import json
import re
import textwrap
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from botie.lessons.learner import progress
from botie.lessons.learner.files import write_atomically

__all__ = ["FILE_NAME", "Kept", "keep_function", "kept_path", "load_function", "source_bundle"]

FILE_NAME = "botie-functions.json"
FORMAT = 1
# Plain values a helper may read as a global (a floor, a list of assets): kept as their repr.
_LITERALS = (bool, int, float, str, type(None), tuple, list, frozenset, set, dict)


def kept_path() -> Path | None:
    """The kept-functions file beside the progress file, or None when recording is turned off."""
    path = progress.progress_path()
    if path is None:
        return None
    if path.name == progress.FILE_NAME:
        return path.with_name(FILE_NAME)
    return path.with_name(f"{path.stem}.functions.json")


# --- what to keep ----------------------------------------------------------------------------


def _cell_source(name: str) -> str | None:
    """The definition of ``name`` from the latest notebook cell that defines it (IPython only)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    cells = shell.user_ns.get("In", []) if shell is not None else []
    for cell in reversed(cells):
        if not re.search(rf"^\s*def {re.escape(name)}\s*\(", cell, re.M):
            continue
        try:
            tree = ast.parse(cell)
        except SyntaxError:
            continue  # a cell with IPython magics: try an earlier one
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return ast.get_source_segment(cell, node, padded=False)
    return None


def _own_source(fn: Any) -> str | None:
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return _cell_source(fn.__name__)
    # A function made by exec() has "<string>" for its file, and getsource then returns whatever else that name
    # holds (under pytest-xdist on Python 3.13, the worker's bootstrap line): keep a source only if it defines fn.
    return source if _defines(source, fn.__name__) else _cell_source(fn.__name__)


def _defines(source: str, name: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name for node in tree.body)


def _global_names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):  # comprehensions, lambdas and inner functions
            yield from _global_names(const)


def _importable(value: Any) -> str | None:
    """``from m import q`` for a package's function or class that can be imported again; else None."""
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", "")
    if not module or module == "__main__" or "." in qualname or "<" in qualname:
        return None
    return f"from {module} import {qualname}"


def source_bundle(fn: Callable[..., Any]) -> str | None:
    """``fn``'s source with the helpers, imports and plain values it reads as globals; None if it has none.

    A helper whose source cannot be found is left out: the function is still kept, and a call that
    needs the helper says so (a NameError, reported by the capstone like any error of the learner's).
    """
    if not isinstance(fn, types.FunctionType) or not fn.__name__.isidentifier():
        return None  # a lambda or a callable object: nothing to keep by name
    lines: list[str] = []  # imports, plain values and aliases, in the order first met
    sources: list[str] = []  # helpers before the functions that call them; fn itself after its helpers
    done: set[str] = {fn.__name__}

    def visit(f: types.FunctionType) -> bool:
        for name in dict.fromkeys(_global_names(f.__code__)):
            if name in done or name not in f.__globals__:
                continue  # a builtin, an attribute name, or a global already kept
            done.add(name)
            value = f.__globals__[name]
            if isinstance(value, types.ModuleType):
                lines.append(f"import {value.__name__} as {name}")
            elif isinstance(value, types.FunctionType) and value.__module__ == fn.__module__:
                if value.__name__ not in done or value.__name__ == name:
                    done.add(value.__name__)
                    visit(value)
                if value.__name__ != name:
                    lines.append(f"{name} = {value.__name__}")
            elif callable(value) and (line := _importable(value)):
                lines.append(line if value.__name__ == name else f"{line} as {name}")
            elif isinstance(value, _LITERALS) and _round_trips(value):
                lines.append(f"{name} = {value!r}")
        own = _own_source(f)
        if own is not None:
            sources.append(own.strip())
        return own is not None

    if not visit(fn):
        return None
    # Imports first; plain values and aliases (``name = helper``) last, after the helpers they may name.
    imports = [line for line in dict.fromkeys(lines) if line.startswith(("import ", "from "))]
    values = [line for line in dict.fromkeys(lines) if line not in imports]
    parts = ["\n".join(imports), *sources, "\n".join(values)]
    return "\n\n\n".join(part for part in parts if part) + "\n"


def _round_trips(value: Any) -> bool:
    try:
        return ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


# --- keeping -------------------------------------------------------------------------------------


def _read(path: Path) -> dict[str, Any]:
    """The kept entries; raises ValueError (or OSError) when the file cannot be read as kept functions."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise ValueError(f"it is not text ({exc.reason})") from exc
    if not text.strip():
        return {}
    raw = json.loads(text)
    if not isinstance(raw, dict) or not isinstance(raw.get("functions"), dict):
        raise ValueError("it holds no 'functions' object")
    return raw["functions"]


def keep_function(name: str, fn: Callable[..., Any], lesson: str = "?") -> bool:
    """Keep ``fn`` as the passing answer to exercise ``name``; True when kept. Never raises.

    Called by ``check`` after a pass. A problem (no source to be found, a folder that cannot be
    written) is said once in one line; the check's own answer is not affected.
    """
    book, path = progress.progress_path(), kept_path()
    if book is None or path is None:
        return False
    try:
        source = source_bundle(fn)
    except Exception:  # an odd object in the learner's globals must not spoil a passing check
        source = None
    if source is None:
        progress._say_once(f"nosource:{name}", f"(Your {name} passed, but its source could not be found to keep.)")
        return False
    entry = {"lesson": lesson, "defines": fn.__name__, "source": source, "kept_at": _now()}
    try:
        # The progress file's own lock: one lock file in the folder, and no writer of either file in between.
        with progress._locked(book):
            try:
                functions = _read(path)
            except ValueError as exc:
                _set_aside(path, str(exc))
                functions = {}
            functions = {**functions, name: entry}
            write_atomically(path, json.dumps({"format": FORMAT, "functions": functions}, indent=1, sort_keys=True))
    except OSError as exc:
        progress._say_once(f"keep:{path}", f"(Your {name} could not be kept in {path}: {exc.strerror or exc}.)")
        return False
    return True


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _set_aside(path: Path, problem: str) -> None:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.stem}.unreadable-{stamp}{path.suffix}")
    path.replace(aside)
    progress._say_once(f"aside:{path}", f"(Your kept functions could not be read: {problem}. Kept as {aside.name}.)")


# --- loading ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kept:
    """A kept function loaded again, or why not: ``function`` is None and ``message`` says why in one line."""

    name: str
    function: Callable[..., Any] | None
    message: str
    kept_at: str | None = None


def load_function(name: str) -> Kept:
    """Load the kept passing answer to exercise ``name`` into a namespace of its own. Never raises."""
    path = kept_path()
    lesson = f"lesson {progress.PLACES[name][0]}" if name in progress.PLACES else "its lesson"
    not_yet = Kept(name, None, f"{name}: {lesson}'s check has not passed yet")
    if path is None:
        return Kept(name, None, f"{name}: nothing is kept while progress recording is off")
    try:
        entry = _read(path).get(name)
    except (ValueError, OSError) as exc:
        return Kept(name, None, f"{name}: the file {path.name} could not be read ({exc})")
    if entry is None:
        return not_yet
    if not isinstance(entry, dict) or not isinstance(entry.get("source"), str):
        return Kept(name, None, f"{name}: the kept entry in {path.name} is damaged")
    defines = entry.get("defines")
    defines = defines if isinstance(defines, str) else name
    namespace: dict[str, Any] = {"__name__": f"botie_kept_{name}", "__builtins__": builtins}
    try:
        exec(compile(entry["source"], f"<your kept {name}>", "exec"), namespace)
    except BaseException as exc:  # the learner's code, run again: any failure is a message, never a traceback
        if isinstance(exc, KeyboardInterrupt):
            raise
        from botie.lessons.exercises.engine import describe_exception

        return Kept(name, None, f"{name}: the kept version no longer loads ({describe_exception(exc)})")
    fn = namespace.get(defines)
    if not callable(fn):
        return Kept(name, None, f"{name}: the kept source does not define {defines}")
    return Kept(name, fn, f"{name}: yours, kept when {lesson}'s check passed", entry.get("kept_at"))
