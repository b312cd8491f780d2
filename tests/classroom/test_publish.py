"""Publishing: the learner branch holds no solutions and leaves the instructor's checkout untouched."""

from __future__ import annotations

import importlib.util
import subprocess
from urllib.parse import parse_qs, urlparse

from tests.notebooks.test_notebooks import ROOT

_spec = importlib.util.spec_from_file_location("botie_publish", ROOT / "classroom" / "publish.py")
assert _spec is not None and _spec.loader is not None, "classroom/publish.py is missing"
publish = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(publish)


def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def test_the_learner_branch_has_no_solutions_and_grows_from_its_last_commit(tmp_path):
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
    (repo / "scratch.txt").write_text("uncommitted work")
    head, status = _git(repo, "rev-parse", "HEAD"), _git(repo, "status", "--porcelain")
    first = publish.learner_branch(cwd=str(repo))
    files = _git(repo, "ls-tree", "-r", "--name-only", "learner").split()
    assert "notebooks/01_which_records.ipynb" in files and "botie/lessons/exercises/engine.py" in files
    assert not [f for f in files if f.startswith(("notebooks/instructor/", "tests/", "classroom/", "bench/"))]
    assert "BEGIN SOLUTION" not in _git(repo, "show", "learner:notebooks/01_which_records.ipynb")
    # the instructor's checkout is as it was: same HEAD, same uncommitted work, same branch
    assert _git(repo, "rev-parse", "HEAD") == head and _git(repo, "status", "--porcelain") == status
    second = publish.learner_branch(cwd=str(repo))
    assert _git(repo, "rev-parse", f"{second}^").strip() == first  # nbgitpuller can move learners forward


def test_the_link_opens_the_first_lesson_after_pulling_the_learner_branch():
    link = publish.pull_link("https://hub.example.org/", "https://git.example.org/botie.git")
    parsed = urlparse(link)
    query = {k: v[0] for k, v in parse_qs(parsed.query).items()}
    assert parsed.path == "/hub/user-redirect/git-pull"
    assert query == {
        "repo": "https://git.example.org/botie.git",
        "branch": "learner",
        "targetpath": "botie-workshop",
        "urlpath": "lab/tree/botie-workshop/notebooks/00_welcome.ipynb",
    }
