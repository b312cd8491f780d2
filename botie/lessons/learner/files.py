"""Writing a learner's file whole or not at all.

A kernel can die, or a disk fill, in the middle of a write. The progress file
and a notebook being reset must then still hold either the old text or the
new one, never half of each: the text goes to a temporary file in the same
folder, reaches the disk, and is renamed over the old file in one step.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_atomically"]


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8): readers see the old file or the new one, nothing between."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)  # atomic on one filesystem
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
