"""CHANGELOG.md keeps an "Unreleased" section on top that each change adds to; released sections stay below it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # the suite runs on 3.10 too (make test-pythons); tomli is the same parser
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _sections(text: str) -> list[str]:
    return re.findall(r"^## (.+)$", text, flags=re.MULTILINE)


def _released_version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def test_the_changelog_opens_with_an_unreleased_section_above_the_released_version():
    sections = _sections((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    assert sections[0] == "Unreleased", sections
    released = [s for s in sections[1:] if s.split()[0] == _released_version()]
    assert released, f"no section for version {_released_version()} below Unreleased: {sections}"


def test_the_section_reader_sees_a_changelog_without_unreleased():
    """The check above could fail: a changelog whose first section is a version has no Unreleased on top."""
    assert _sections("# Changelog\n\n## 0.1.0 (first release)\n\n- x\n")[0] != "Unreleased"
