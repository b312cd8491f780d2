"""write_atomically: the old text or the new one, never half, and no temporary file left behind."""

from __future__ import annotations

import pytest

from botie.lessons.learner import files
from botie.lessons.learner.files import write_atomically


def test_a_new_file_and_its_missing_folder_are_created_with_the_exact_text(tmp_path):
    path = tmp_path / "made" / "here.json"
    write_atomically(path, "é\n{}\n")
    assert path.read_bytes() == "é\n{}\n".encode()
    assert [p.name for p in path.parent.iterdir()] == ["here.json"]


def test_an_existing_file_is_replaced_whole(tmp_path):
    path = tmp_path / "book.json"
    path.write_text("old and longer than the new text", encoding="utf-8")
    write_atomically(path, "new")
    assert path.read_text(encoding="utf-8") == "new"


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "book.json"
    path.write_text("old", encoding="utf-8")

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_atomically(path, "new")
    assert path.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["book.json"]


def test_the_text_reaches_the_disk_before_the_rename(tmp_path, monkeypatch):
    """fsync runs on the temporary file while the old file is still in place."""
    path = tmp_path / "book.json"
    path.write_text("old", encoding="utf-8")
    seen = []
    real_fsync = files.os.fsync

    def watch(fd):
        seen.append(path.read_text(encoding="utf-8"))
        real_fsync(fd)

    monkeypatch.setattr(files.os, "fsync", watch)
    write_atomically(path, "new")
    assert seen == ["old"] and path.read_text(encoding="utf-8") == "new"
