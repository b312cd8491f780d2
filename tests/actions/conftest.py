"""Fixtures that more than one actions test module needs."""

from __future__ import annotations

import time

import pytest


@pytest.fixture
def machine_in_tokyo(monkeypatch):
    """The process's local time zone set to UTC+9, so that anything leaning on local time shows it."""
    if not hasattr(time, "tzset"):
        pytest.skip("time.tzset, needed to change the local time zone, exists only on Unix")
    monkeypatch.setenv("TZ", "JST-9")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
