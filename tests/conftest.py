"""Test-wide isolation: nothing is written into the home directory, nothing leaves the machine.

Jupyter, IPython, matplotlib and tiktoken all keep config or caches under ~ by
default. Point them at one temporary folder before any kernel (nbval) or
import (tiktoken) can touch them; kernels inherit the environment.
"""

from __future__ import annotations

import os
import tempfile

import pytest
from hypothesis import HealthCheck, settings

from botie.actions.stores import MemoryStore, SQLiteStore

_SCRATCH = tempfile.mkdtemp(prefix="botie-test-home-")
_DIRS = {
    "JUPYTER_CONFIG_DIR": "jupyter-config",
    "JUPYTER_DATA_DIR": "jupyter-data",
    "JUPYTER_RUNTIME_DIR": "jupyter-runtime",
    "IPYTHONDIR": "ipython",
    "MPLCONFIGDIR": "matplotlib",
    "TIKTOKEN_CACHE_DIR": "tiktoken",
    "XDG_CACHE_HOME": "cache",
}
for _var, _sub in _DIRS.items():
    os.environ[_var] = os.path.join(_SCRATCH, _sub)
    os.makedirs(os.environ[_var], exist_ok=True)
# Exercise checks record progress; keep that record out of the repository's notebooks/ folder.
os.environ["BOTIE_PROGRESS_FILE"] = os.path.join(_SCRATCH, "botie-progress.json")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ["JUPYTER_PLATFORM_DIRS"] = "1"
os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
# Lesson 06's last cell runs the turn through a real model when a key is set. Tests (and the notebook
# kernels, which inherit this environment) never do: no network, and the same output with or without a key.
for _var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "BOTIE_MODEL"):
    os.environ.pop(_var, None)

# Examples are generated, not stored: no .hypothesis database under the repo.
settings.register_profile("botie", database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# `make mutation` (BOTIE_MUTATION=1) reruns the suite once per surviving mutant: fewer examples there.
settings.register_profile("mutation", parent=settings.get_profile("botie"), max_examples=10)
settings.load_profile("mutation" if os.environ.get("BOTIE_MUTATION") == "1" else "botie")


class _ProgressFilePerNotebook:
    """Give each notebook's kernel a progress file of its own, empty when the kernel starts.

    nbval starts a notebook's kernel while setting up its first cell, and the kernel
    inherits this environment. A lesson ends by showing the learner's progress; with
    one file per notebook that table holds exactly what this notebook's own checks
    recorded (as when `make learner` stored it), whichever worker ran which lesson before.
    Registered as a plugin, not written as a hook here: a conftest's hooks only reach
    the items under its own folder, and the notebooks are not under tests/.
    """

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        notebook = item.parent
        if not str(getattr(notebook, "path", "")).endswith(".ipynb"):
            return
        name = "-".join(notebook.path.parts[-2:]).replace(".ipynb", "") + ".progress.json"
        path = os.path.join(_SCRATCH, "notebooks", name)
        if os.environ.get("BOTIE_PROGRESS_FILE") != path:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if os.path.exists(path):
                os.remove(path)
            os.environ["BOTIE_PROGRESS_FILE"] = path


def pytest_configure(config):
    config.pluginmanager.register(_ProgressFilePerNotebook(), "botie-progress-file-per-notebook")


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    """Each idempotency store in turn: every store test and service test runs against both."""
    if request.param == "memory":
        yield MemoryStore()
    else:
        with SQLiteStore(tmp_path / "botie.db") as s:
            yield s
