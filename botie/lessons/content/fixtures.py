"""Load the workshop's JSON scenarios, reporting a bad entry by file, index and field."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from botie.context.budget import Budget
from botie.context.records import Record, unique_records
from botie.context.register import DocumentRegister
from botie.errors import BotieError, FixtureError, RecordError
from botie.lessons.tooling.locks import checkout_root

__all__ = ["Scene", "fixture_dir", "fixture_path", "load_records", "load_register", "load_scene", "registered"]

_RECORD_FIELDS = frozenset(Record.__dataclass_fields__)


#: Where a wheel carries the fixtures: pyproject.toml ships the checkout's fixtures/ as botie/lessons/fixtures/.
_SHIPPED = Path(__file__).resolve().parents[1] / "fixtures"


def fixture_dir() -> Path:
    """``$BOTIE_FIXTURES`` if set; else the fixtures inside an installed wheel; else the checkout's ``fixtures/``."""
    override = os.environ.get("BOTIE_FIXTURES")
    if override:
        return Path(override)
    root = checkout_root()
    return root / "fixtures" if root is not None and not _SHIPPED.is_dir() else _SHIPPED


def fixture_path(name: str) -> Path:
    """Where a named fixture lives (see :func:`fixture_dir`)."""
    base = fixture_dir()
    path = base / name
    if not path.exists():
        raise FileNotFoundError(f"no fixture named {name!r} in {base}")
    return path


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise FixtureError(f"{path}: not valid JSON ({exc})", path=str(path)) from exc


def _record(entry: Any, path: Path, index: int) -> Record:
    where = f"{path.name}, record {index}"
    if not isinstance(entry, dict):
        raise FixtureError(f"{where}: expected an object, got {entry!r}", path=str(path), index=index)
    unknown = sorted(set(entry) - _RECORD_FIELDS)
    if unknown:
        raise FixtureError(
            f"{where}: unknown field {unknown[0]!r}",
            path=str(path),
            index=index,
            field=unknown[0],
            record=entry.get("id"),
        )
    for required in ("id", "asset", "text", "cost"):
        if required not in entry:
            raise FixtureError(
                f"{where}: missing field {required!r}",
                path=str(path),
                index=index,
                field=required,
                record=entry.get("id"),
            )
    try:
        return Record(**entry)
    except BotieError as exc:
        raise FixtureError(
            f"{where}: {exc.message}", path=str(path), index=index, field=exc.field, record=exc.record
        ) from exc


def load_records(path: str | os.PathLike[str]) -> tuple[Record, ...]:
    """Records from a fixture: a JSON list, or an object with a ``records`` list."""
    path = Path(path)
    data = _read_json(path)
    entries = data.get("records") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise FixtureError(f"{path}: expected a list of records", path=str(path), field="records")
    records = tuple(_record(entry, path, i) for i, entry in enumerate(entries))
    try:
        return unique_records(records)
    except RecordError as exc:  # the shared rule, with the file and the index added
        index = max(i for i, r in enumerate(records) if r.id == exc.record)
        raise FixtureError(
            f"{path.name}, record {index}: {exc.message}",
            path=str(path),
            index=index,
            field=exc.field,
            record=exc.record,
        ) from exc


def load_register(path: str | os.PathLike[str] = "manual_revisions.json") -> DocumentRegister:
    """Document control's register held in a scene's fixture under ``register``: each document's revisions
    and effective dates (a bare name is looked up in ``fixtures/``)."""
    path = Path(path)
    if not path.exists() and len(path.parts) == 1:
        path = fixture_path(str(path))
    data = _read_json(path)
    entries = data.get("register") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise FixtureError(f"{path.name}: expected a register mapping each document to its revisions",
                           path=str(path), field="register")  # fmt: skip
    try:
        return DocumentRegister.of(entries)
    except BotieError as exc:
        raise FixtureError(f"{path.name}: {exc.message}", path=str(path), field=exc.field, record=exc.record) from exc


def registered(records: tuple[Record, ...], register: DocumentRegister, path: Path) -> tuple[Record, ...]:
    """Ingestion's check: every record names a document and revision the register holds, or the file is refused.

    The error names the file, the record's index and id, and the field (``document``, ``version`` or
    ``effective_date``), so a chunk with no document is caught here, not passed over by the selector.
    """
    for index, r in enumerate(records):
        try:
            register.revision_of(r)
        except RecordError as exc:
            raise FixtureError(
                f"{path.name}, record {index}: {exc.message}", path=str(path), index=index, field=exc.field, record=r.id
            ) from exc
    return records


@dataclass(frozen=True)
class Scene:
    """A lesson scenario: who asks what, what they may read, and the ranked candidates."""

    question: str
    caller: str
    allowed_assets: tuple[str, ...]
    budget: Budget
    records: tuple[Record, ...]


def load_scene(path: str | os.PathLike[str]) -> Scene:
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, dict):
        raise FixtureError(f"{path}: expected an object with a scene", path=str(path))
    try:
        budget = Budget(**data["budget"])
        allowed = data["allowed_assets"]
        if not isinstance(allowed, list) or not all(isinstance(a, str) for a in allowed):
            raise FixtureError(
                f"{path.name}: allowed_assets must be a list of strings", path=str(path), field="allowed_assets"
            )
        return Scene(str(data["question"]), str(data["caller"]), tuple(allowed), budget, load_records(path))
    except KeyError as exc:
        raise FixtureError(f"{path.name}: missing field {exc.args[0]!r}", path=str(path), field=exc.args[0]) from exc
    except BotieError as exc:
        if isinstance(exc, FixtureError):
            raise
        raise FixtureError(f"{path.name}: {exc.message}", path=str(path), field=exc.field) from exc
