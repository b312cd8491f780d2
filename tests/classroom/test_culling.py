"""Idle kernels are culled on the one server: a kernel left idle, its tab still connected, is stopped.

A hub of its own with a short idle time (the class's BOTIE_KERNEL_IDLE, seconds), so the module's wait is short;
the real class uses the definition's default. Select it with ``-m hub``; it needs the ``classroom`` extra.
"""

from __future__ import annotations

import time

import pytest

from tests.classroom.test_hub import _require_classroom
from tests.notebooks.test_notebooks import ROOT

pytestmark = [pytest.mark.hub, pytest.mark.slow]

IDLE = 6  # seconds; the server checks every min(300, IDLE) seconds


def _kernels(client, user, token):
    status, kernels = client.request("GET", f"/user/{user}/api/kernels", token)
    assert status == 200
    return {k["id"] for k in kernels}


def test_an_idle_kernel_is_stopped_even_with_its_channel_open(tmp_path):
    _require_classroom()
    from tools.hub_driver import LocalHub

    with LocalHub(ROOT, tmp_path, ("ana",), settings={"BOTIE_KERNEL_IDLE": str(IDLE)}) as local:
        client = local.client
        client.start_server(local.operator, "ana")
        token = client.token_for(local.operator, "ana")
        status, made = client.request("POST", "/user/ana/api/kernels", token, {"name": "python3"})
        assert status == 201
        ws = client.channel("ana", token, made["id"])  # a tab left open on the lesson
        try:
            assert client.execute("ana", token, made["id"], "print(6 * 7)", ws=ws).stdout == "42\n"
            assert made["id"] in _kernels(client, "ana", token)  # right after it ran, it is there
            deadline = time.monotonic() + 120
            while made["id"] in _kernels(client, "ana", token) and time.monotonic() < deadline:
                time.sleep(1)
            assert made["id"] not in _kernels(client, "ana", token), "the idle kernel was never culled"
        finally:
            ws.close()
    assert not local.left_behind
