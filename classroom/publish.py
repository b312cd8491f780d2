"""Publish the learner edition for a class, and form the nbgitpuller link that hands it out.

    python classroom/publish.py learner-branch            # writes the branch `learner` (make publish-learner)
    python classroom/publish.py link --hub https://hub.example.org --repo https://git.example.org/botie.git

``learner-branch`` commits the current HEAD's tree, minus everything that
holds solutions (the instructor notebooks, the tests with their reference
answers, the benchmarks, CI and this folder), onto the branch ``learner``,
whose previous commit becomes its parent so that nbgitpuller can bring a
learner's copy forward. It uses a private git index: your working tree, your
index and your checked-out branch are left exactly as they were. Push that
branch to wherever learners pull from.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from urllib.parse import urlencode

BRANCH = "learner"
TARGET = "botie-workshop"
#: Paths that never reach learners: they hold solutions or are of no use on the hub.
WITHHELD = ("notebooks/instructor", "tests", "bench", ".ci", "classroom")


def _git(*args: str, env: dict | None = None, cwd: str = ".") -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def learner_branch(cwd: str = ".", branch: str = BRANCH) -> str:
    """Commit HEAD's tree without the withheld paths onto ``branch``; return the new commit."""
    with tempfile.TemporaryDirectory(prefix="botie-publish-") as scratch:
        env = {**os.environ, "GIT_INDEX_FILE": os.path.join(scratch, "index")}
        _git("read-tree", "HEAD", env=env, cwd=cwd)
        _git("rm", "-r", "-q", "--cached", "--ignore-unmatch", *WITHHELD, env=env, cwd=cwd)
        tree = _git("write-tree", env=env, cwd=cwd)
    source = _git("rev-parse", "--short", "HEAD", cwd=cwd)
    try:
        parent = ["-p", _git("rev-parse", "--verify", "-q", f"refs/heads/{branch}", cwd=cwd)]
    except subprocess.CalledProcessError:
        parent = []  # the first publication
    commit = _git("commit-tree", tree, *parent, "-m", f"Learner edition of {source} (no solutions)", cwd=cwd)
    _git("update-ref", f"refs/heads/{branch}", commit, cwd=cwd)
    return commit


def pull_link(hub: str, repo: str, *, branch: str = BRANCH, lesson: str = "00_welcome.ipynb") -> str:
    """The link a learner clicks: log in, clone (or update) the workshop, open the first lesson in JupyterLab."""
    query = {
        "repo": repo,
        "branch": branch,
        "targetpath": TARGET,
        "urlpath": f"lab/tree/{TARGET}/notebooks/{lesson}",
    }
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{urlencode(query)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("learner-branch", help=f"commit the learner edition onto the branch {BRANCH!r}")
    link = sub.add_parser("link", help="print the nbgitpuller link for learners")
    link.add_argument("--hub", required=True, help="the hub's address, e.g. https://hub.example.org")
    link.add_argument("--repo", required=True, help="the git address learners pull from")
    link.add_argument("--branch", default=BRANCH)
    args = parser.parse_args(argv)
    if args.command == "learner-branch":
        commit = learner_branch()
        print(f"branch {BRANCH} is now {commit[:12]}: the workshop without {', '.join(WITHHELD)}")
    else:
        print(pull_link(args.hub, args.repo, branch=args.branch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
