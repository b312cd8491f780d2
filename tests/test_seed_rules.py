"""docs/seed_rules.md: every function, test and lesson cell it names exists, and its counts match its rows."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "docs" / "seed_rules.md"
SEEDS = ("000", "002", "003", "004")
_ROW = re.compile(r"^\| (\d+) \| (\d{3}) \| (.+?) \| (.*?) \| (.*?) \| (.*?) \|(.*)\|$")


def _rows() -> list[dict[str, str]]:
    rows = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        match = _ROW.match(line)
        if match:
            number, seed, rule, name, test, cell, differs = (part.strip() for part in match.groups())
            rows.append(
                {
                    "n": number,
                    "seed": seed,
                    "rule": rule,
                    "name": name.strip("`"),
                    "test": test.strip("`"),
                    "cell": cell.strip("`"),
                    "differs": differs,
                }
            )
    return rows


ROWS = _rows()


def _resolve(dotted: str) -> object:
    """Import the longest module prefix of ``dotted``, then follow the rest as attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            found = getattr(found, attr)
        return found
    raise ImportError(dotted)


def test_the_table_has_rows_numbered_in_order_for_every_seed():
    assert [int(r["n"]) for r in ROWS] == list(range(1, len(ROWS) + 1))
    assert {r["seed"] for r in ROWS} == set(SEEDS)


def test_the_counts_per_seed_match_the_rows():
    text = TABLE.read_text(encoding="utf-8")
    stated = dict(re.findall(r"^- (\d{3}): (\d+) rules$", text, flags=re.M))
    counted = {seed: str(sum(r["seed"] == seed for r in ROWS)) for seed in SEEDS}
    assert stated == counted


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["n"])
def test_every_botie_name_in_the_table_exists(row):
    assert row["name"].startswith("botie."), row["name"]
    _resolve(row["name"])


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["n"])
def test_every_test_in_the_table_exists(row):
    path, _, name = row["test"].partition("::")
    source = (ROOT / path).read_text(encoding="utf-8")
    assert re.search(rf"^def {re.escape(name)}\(", source, flags=re.M), row["test"]


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["n"])
def test_every_lesson_cell_in_the_table_exists_or_the_gap_is_explained(row):
    if row["cell"] == "—":
        assert row["differs"], f"row {row['n']}: a rule no lesson teaches must say why"
        return
    stem, _, cell_id = row["cell"].partition("#")
    notebook = json.loads((ROOT / "notebooks" / "instructor" / f"{stem}.ipynb").read_text(encoding="utf-8"))
    assert cell_id in {c.get("id") for c in notebook["cells"]}, row["cell"]
