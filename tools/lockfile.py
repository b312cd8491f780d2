"""Write the lock (`make lock`): re-resolve requirements/*.txt with uv and pin environment.yml to it.

Reading the lock is :mod:`botie.lessons.tooling.locks` (the pre-flight check needs it, so it
ships with the package); writing needs uv, which only a maintainer runs, so it lives here,
outside the package learners install. It reads no existing lock it cannot parse, so it can be
re-run after a merge that left conflict markers in one.

Usage, from the repository's root: ``python -m tools.lockfile [--upgrade]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

# Run as `python -m tools.lockfile` from the root, before botie is installed: find it beside us.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from botie.lessons.tooling.locks import (
    ALL,
    DIGEST_PREFIX,
    INSTALLER,
    LOCK_DIR,
    canonical_name,
    dependency_digest,
    lock_path,
    lock_sets,
    oldest_python,
    pins_for,
    read_pins,
    repository_root,
)

__all__ = ["CONDA_PLATFORM", "UV", "conda_pins", "main", "pin_environment", "write_locks"]

#: The resolver `make lock` installs: pinned, so two maintainers produce the same file.
UV = "uv==0.13.9"
#: A conda environment resolves on this platform; its pins are the lock's versions here.
CONDA_PLATFORM = "linux"


def _uv() -> str:
    """The uv beside this interpreter: the pinned one `_install_tools` put there (not whichever is on PATH)."""
    return str(Path(sys.executable).parent / ("uv.exe" if os.name == "nt" else "uv"))


def _install_tools() -> None:
    """What writing needs, into this interpreter: the pinned uv, packaging (markers), tomli on 3.10.

    Nothing else is required, so `make lock` works in a fresh or half-built environment.
    """
    uv = Path(_uv())
    seen = subprocess.run([str(uv), "--version"], capture_output=True, text=True).stdout if uv.is_file() else ""
    wanted = [] if seen.split()[1:2] == [UV.split("==")[1]] else [UV]
    modules = ["packaging"] + (["tomli"] if sys.version_info < (3, 11) else [])
    wanted += [name for name in modules if importlib.util.find_spec(name) is None]
    if wanted:
        print(f"botie: installing {', '.join(wanted)} to write the lock", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *wanted], check=True)


def _compile(root: Path, name: str, *options: str, source: str = "pyproject.toml", stdin: str | None = None) -> str:
    """Run uv in the repository root with relative paths (they appear in the file's `# via` notes)."""
    output = f"{LOCK_DIR}/{name}.txt"
    command = [_uv(), "pip", "compile", source, "--quiet", "--no-header", "-o", output, *options]
    subprocess.run(command, cwd=root, check=True, input=stdin, text=True)
    return (root / output).read_text(encoding="utf-8")


def _header(name: str, extras: Sequence[str], digest: str) -> str:
    what = "the runtime" + "".join(f" + {e}" for e in extras)
    return (
        f"# requirements/{name}.txt: {what}, every supported Python and platform, with hashes.\n"
        f"# Written by `make lock` ({UV}, pip compile --universal --generate-hashes); "
        "edit pyproject.toml, never this file.\n"
        f"{DIGEST_PREFIX}{digest}\n"
    )


def _clear_unparsable(path: Path) -> None:
    """uv starts from the versions in its output file; one with merge-conflict markers is dropped first."""
    if path.is_file() and any(
        line.startswith(("<<<<<<<", "=======", ">>>>>>>")) for line in path.read_text(encoding="utf-8").splitlines()
    ):
        print(f"botie: {path.name} has merge-conflict markers; resolving it afresh", flush=True)
        path.unlink()


def write_locks(root: Path, *, upgrade: bool = False) -> list[Path]:
    """Resolve every lock set with uv; all.txt first, then each set constrained to all.txt's versions."""
    pyproject = root / "pyproject.toml"
    digest, sets = dependency_digest(pyproject), lock_sets(pyproject)
    # uv takes the oldest Python to resolve for from --python-version, not from requires-python.
    universal = ["--universal", "--generate-hashes", f"--python-version={oldest_python(pyproject)}"]
    (root / LOCK_DIR).mkdir(exist_ok=True)
    written = []
    for name, extras in sets.items():
        final = lock_path(name, root)
        _clear_unparsable(final)
        if name == ALL:
            options = ["--all-extras", *(["--upgrade"] if upgrade else [])]
        else:  # the same versions as all.txt, so the sets can be installed over one another
            options = [*(f"--extra={e}" for e in extras), "-c", f"{LOCK_DIR}/{ALL}.txt"]
        print(f"botie: locking {LOCK_DIR}/{name}.txt ({', '.join(extras)})", flush=True)
        body = _compile(root, name, *universal, *options)
        final.write_text(_header(name, extras, digest) + body, encoding="utf-8")
        written.append(final)
    written.append(_write_installer(root, universal))
    return written


def _write_installer(root: Path, options: Sequence[str]) -> Path:
    """requirements/pip.txt: pip itself, hashed, installed before the rest (an old pip cannot be trusted)."""
    final = lock_path(INSTALLER, root)
    _clear_unparsable(final)
    print(f"botie: locking {LOCK_DIR}/{INSTALLER}.txt (the installer)", flush=True)
    body = _compile(root, INSTALLER, *options, source="-", stdin="pip\n")
    final.write_text(
        f"# {LOCK_DIR}/{INSTALLER}.txt: the installer `make env` puts in first, with hashes.\n"
        f"# Written by `make lock` ({UV}); never edit by hand.\n" + body,
        encoding="utf-8",
    )
    return final


# --- environment.yml ------------------------------------------------------------


def _conda_python(environment_yml: Path) -> str:
    m = re.search(r"^\s*-\s*python=(\d+\.\d+)\s*$", environment_yml.read_text(encoding="utf-8"), re.M)
    if not m:
        raise SystemExit(f"{environment_yml}: no `python=X.Y` line to resolve the conda pins for")
    return m.group(1)


def conda_pins(environment_yml: Path, lock: Path) -> dict[str, str]:
    """The lock's versions on the Python and platform environment.yml builds (its python=X.Y, on Linux)."""
    version = _conda_python(environment_yml)
    marker_env = {
        "python_version": version,
        "python_full_version": f"{version}.0",
        "sys_platform": CONDA_PLATFORM,
        "platform_system": "Linux",
        "os_name": "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "platform_machine": "x86_64",
    }
    return pins_for(read_pins(lock), marker_env)


_ENTRY = re.compile(r"^(\s*-\s+)([A-Za-z0-9][A-Za-z0-9._-]*)(\s*[=<>!~][^#\n]*?)?(\s*(#.*)?)$")


def pin_environment(environment_yml: Path, versions: Mapping[str, str]) -> list[str]:
    """Rewrite each package entry of environment.yml as `name==version`; return the names not in the lock."""
    lines, missing, in_dependencies = [], [], False
    for line in environment_yml.read_text(encoding="utf-8").splitlines():
        in_dependencies = in_dependencies or line.startswith("dependencies:")
        m = _ENTRY.match(line) if in_dependencies else None
        if m and m.group(2) not in ("python", "pip"):
            version = versions.get(canonical_name(m.group(2)))
            if version is None:
                missing.append(m.group(2))
            else:
                line = f"{m.group(1)}{m.group(2)}=={version}{m.group(4) or ''}"
        lines.append(line)
    environment_yml.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return missing


# --- command line -----------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.lockfile",
        description="Rewrite requirements/*.txt and environment.yml's pins (make lock).",
    )
    parser.add_argument("--upgrade", action="store_true", help="move every package to its newest allowed version")
    args = parser.parse_args(argv)
    _install_tools()
    root = repository_root()
    written = write_locks(root, upgrade=args.upgrade)
    env = root / "environment.yml"
    missing = pin_environment(env, conda_pins(env, lock_path(ALL, root)))
    for path in written:
        print(f"botie: wrote {path.relative_to(root)} ({len({p.name for p in read_pins(path)})} packages)")
    print("botie: pinned environment.yml to the lock" + (f"; not in the lock: {', '.join(missing)}" if missing else ""))
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
