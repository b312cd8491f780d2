"""The instructor edition's own solutions, loaded from the notebooks, so tests judge what the lessons ship."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]


def instructor_solution(lesson: str, name: str, *setup_cells: str) -> Callable[..., Any]:
    """The function ``name`` as the instructor edition defines it, with the cells it needs run first."""
    path = next((ROOT / "notebooks" / "instructor").glob(f"{lesson}_*.ipynb"))
    cells = {c["id"]: "".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]}
    namespace: dict[str, Any] = {}
    defining = [s for s in cells.values() if f"\ndef {name}(" in f"\n{s}"]
    for source in [cells[i] for i in setup_cells] + defining:
        exec(compile(source, f"{lesson}:{name}", "exec"), namespace)
    return namespace[name]
