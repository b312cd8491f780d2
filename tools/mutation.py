"""`make mutation`: mutmut over the library, one module at a time, then one table.

Run as ``python -m tools.mutation [MODULE_PREFIX ...] [--report-only]``. For each
library module (the scope is ``[tool.mutmut] only_mutate`` in pyproject.toml),
``mutmut run`` tests that module's mutants against the fast library tests, with
a time limit per module so one slow module cannot hold the machine. Then the
results are read back and printed: killed, timed out, survived, no tests and
equivalent per module, and a total score.

A survivor is either killed by a new test or listed in
``tools/mutation_equivalents.txt`` with the code it changed and a one-line
reason why no caller can observe the change. A listed mutant whose code no
longer matches (the source moved on, mutmut renumbered) or that is now killed
is reported as stale, so the list cannot quietly excuse a different mutant.
The command exits 1 while any survivor is unexplained or any entry is stale.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: mutmut brings the toml package there
    import toml as tomllib

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "tools" / "mutation_equivalents.txt"
MUTMUT = Path(sys.executable).with_name("mutmut")
# The modules the lead engineer may be reworking run last, so the rest is measured first.
LAST = ("botie.context.selection", "botie.actions.decision")

# mutmut's exit codes for a mutant (see mutmut.stats.status_by_exit_code), folded into our columns.
_STATUS = {
    1: "killed",
    3: "killed",
    0: "survived",
    5: "no tests",
    33: "no tests",
    34: "skipped",
    36: "timeout",
    24: "timeout",
    -24: "timeout",
    152: "timeout",
    255: "timeout",
    None: "not checked",
}
SHOWN = 25  # unexplained survivors printed; the rest go to mutants/unexplained.txt
COLUMNS = ("killed", "timeout", "survived", "no tests", "not checked", "other")


@dataclass(frozen=True)
class Equivalent:
    """One listed survivor: its name, a piece of the mutated code, and why nobody can tell."""

    name: str
    code: str
    reason: str


@dataclass
class ModuleResult:
    module: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COLUMNS, 0))
    survivors: list[str] = field(default_factory=list)
    equivalent: int = 0


def parse_equivalents(text: str) -> dict[str, Equivalent]:
    """``name | mutated code | reason`` a line; ``#`` starts a comment. Every part is required."""
    found: dict[str, Equivalent] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" | ")]
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"{EQUIVALENTS.name} line {number}: expected 'name | mutated code | reason'")
        if parts[0] in found:
            raise ValueError(f"{EQUIVALENTS.name} line {number}: {parts[0]} is listed twice")
        found[parts[0]] = Equivalent(*parts)
    return found


def module_of(path: Path) -> str:
    """botie/context/budget.py -> botie.context.budget; a package's __init__.py is the package."""
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def library_modules() -> list[str]:
    """The modules in scope, in the order they are run (the lead's modules last)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    paths = sorted(p.relative_to(ROOT) for p in (ROOT / "botie").rglob("*.py"))
    chosen = [module_of(p) for p in paths if any(fnmatch.fnmatch(str(p), pat) for pat in config["only_mutate"])]
    return sorted(chosen, key=lambda m: (m in LAST, m))


def status(code: int | None) -> str:
    found = _STATUS.get(code, "other")
    return found if found in COLUMNS else "other"


def run_module(module: str, *, max_children: int, timeout: float, log_dir: Path) -> str:
    """``mutmut run`` for one module's mutants; 'done', 'timed out' or 'failed (exit N)'."""
    log = log_dir / f"{module}.log"
    env = {**os.environ, "BOTIE_MUTATION": "1"}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [str(MUTMUT), "run", "--max-children", str(max_children), f"{module}.x*"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)  # our own child's group: mutmut and the workers it forked
            proc.wait()
            return "timed out"
    if code != 0 and "nothing matches" in log.read_text(errors="replace"):
        return "no mutants (no functions)"
    return "done" if code == 0 else f"failed (exit {code}), see {log}"


def read_results(modules: list[str]) -> dict[str, ModuleResult]:
    results = {m: ModuleResult(m) for m in modules}
    for meta in (ROOT / "mutants" / "botie").rglob("*.py.meta"):
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            name = name.replace("__init__.", "")
            matches = [m for m in modules if name.startswith(m + ".x")]
            if not matches:
                continue
            result = results[max(matches, key=len)]
            column = status(code)
            result.counts[column] += 1
            if column in ("survived", "no tests"):
                result.survivors.append(name)
    return results


def mutated_code(name: str) -> str:
    """The lines ``mutmut show`` marks as added for this mutant."""
    shown = subprocess.run([str(MUTMUT), "show", name], cwd=ROOT, capture_output=True, text=True).stdout
    return "\n".join(line[1:] for line in shown.splitlines() if line.startswith("+") and not line.startswith("+++"))


def explain(results: dict[str, ModuleResult], equivalents: dict[str, Equivalent]) -> tuple[list[str], list[str]]:
    """Move listed survivors to 'equivalent'. Returns the unexplained survivors and the stale entries."""
    unexplained, stale = [], []
    survivors = {name: r for r in results.values() for name in r.survivors}
    for name, entry in equivalents.items():
        module = survivors.get(name)
        if module is None:
            if any(name.startswith(m + ".x") for m in results):
                stale.append(f"{name}: listed as equivalent but not a survivor (killed now, or renumbered)")
            continue
        if entry.code not in mutated_code(name):
            stale.append(f"{name}: the mutant no longer changes `{entry.code}` (mutmut renumbered?)")
            continue
        module.equivalent += 1
    for name in survivors:
        if name not in equivalents or any(s.startswith(name + ":") for s in stale):
            unexplained.append(name)
    return sorted(unexplained), stale


def table(results: dict[str, ModuleResult]) -> str:
    head = (
        f"{'module':<38}{'mutants':>8}{'killed':>8}{'timeout':>8}{'survived':>9}{'no test':>8}"
        f"{'equiv':>7}{'unchkd':>7}{'score':>8}"
    )
    lines = [head, "-" * len(head)]
    total = ModuleResult("total")
    for r in results.values():
        n = sum(r.counts.values())
        if n == 0:
            continue
        lines.append(_row(r))
        for column, value in r.counts.items():
            total.counts[column] += value
        total.equivalent += r.equivalent
    lines += ["-" * len(head), _row(total)]
    return "\n".join(lines)


def _row(r: ModuleResult) -> str:
    c = r.counts
    n = sum(c.values())
    caught = c["killed"] + c["timeout"]
    judged = n - r.equivalent - c["not checked"]
    score = f"{100 * caught / judged:.1f}%" if judged else "-"
    return (
        f"{r.module:<38}{n:>8}{c['killed']:>8}{c['timeout']:>8}{c['survived']:>9}{c['no tests']:>8}"
        f"{r.equivalent:>7}{c['not checked'] + c['other']:>7}{score:>8}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", help="only modules starting with these (e.g. botie.context.budget)")
    parser.add_argument("--report-only", action="store_true", help="print the table from the last run")
    parser.add_argument("--max-children", type=int, default=int(os.environ.get("MUTATION_JOBS", "1")))
    parser.add_argument(
        "--timeout",
        type=float,
        default=float(os.environ.get("MUTATION_TIMEOUT", "1800")),
        help="seconds per module before its run is stopped (default 1800)",
    )
    args = parser.parse_args(argv)
    if not MUTMUT.exists():
        print(f"mutmut is not installed in {MUTMUT.parent}: run `make env` (it is in the test extra)")
        return 2
    modules = library_modules()
    chosen = [m for m in modules if not args.prefixes or m.startswith(tuple(args.prefixes))]
    if not args.report_only:
        log_dir = ROOT / "mutants" / "logs"
        log_dir.mkdir(parents=True, exist_ok=True)
        for module in chosen:
            outcome = run_module(module, max_children=args.max_children, timeout=args.timeout, log_dir=log_dir)
            print(f"{module:<40}{outcome}", flush=True)
    results = read_results(modules)
    results = {m: results[m] for m in chosen}
    unexplained, stale = explain(results, parse_equivalents(EQUIVALENTS.read_text(encoding="utf-8")))
    print(table(results))
    for name in unexplained[:SHOWN]:
        print(f"unexplained survivor: {name}  (mutmut show {name})")
    if len(unexplained) > SHOWN:
        listing = ROOT / "mutants" / "unexplained.txt"
        listing.write_text("\n".join(unexplained) + "\n", encoding="utf-8")
        print(f"... and {len(unexplained) - SHOWN} more, all listed in {listing}")
    for line in stale:
        print(f"stale equivalent: {line}")
    return 1 if unexplained or stale else 0


if __name__ == "__main__":
    sys.exit(main())
