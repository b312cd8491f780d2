"""How quickly a panel answers a learner, and what `import botie` costs a fresh process.

Panel update: one control changed programmatically (as a click would change
it), which runs the panel's refresh: the core call, the result HTML and, where
the panel has one, the matplotlib figure. 200 updates per panel, reported as
p50/p95 against the core call alone on the same inputs (the part a panel
cannot avoid). Goal: p95 at most 50 ms, well inside the point where a slider starts to lag.

Panels are discovered from ``botie.lessons.ui`` (every ``*_panel`` factory), so a panel
that lands later is measured too; one this file cannot build with the workshop
fixtures is reported as skipped, with the reason.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._harness import Row, fmt, latency_row, samples

UPDATES = 200
WARMUP = 10
IMPORT_RUNS = 15
GOAL = "p95 ≤ 50 ms"


@dataclass
class Case:
    """One panel to time: which control moves through which values, and the core call it triggers."""

    kind: str
    panel: Any
    control: Any
    values: list[Any]
    baseline_name: str
    baseline: Callable[[Any], object]


def _scene():
    from botie.lessons import fixture_path, load_scene

    return load_scene(fixture_path("p2_seal.json"))


def _controls(widget: Any) -> dict[str, Any]:
    """``botie-control-<name>`` -> widget, walking the panel's widget tree."""
    found: dict[str, Any] = {}
    stack = [widget]
    while stack:
        w = stack.pop()
        for cls in getattr(w, "_dom_classes", ()):
            if cls.startswith("botie-control-"):
                found[cls[len("botie-control-") :]] = w
        stack.extend(getattr(w, "children", ()))
    return found


def _two_values(control: Any) -> list[Any] | None:
    """Two valid values to alternate between, so every update is a real change."""
    value = control.value
    if isinstance(value, bool):
        return [not value, value]
    if isinstance(value, int):
        low = getattr(control, "min", value - 1)
        return [value - 1 if value - 1 >= low else value + 1, value]
    options = [o[1] if isinstance(o, tuple) else o for o in getattr(control, "options", ())]
    others = [o for o in options if o != value]
    return [others[0], value] if others else None


def _selection(panel: Any) -> Case:
    from botie import Budget, select

    scene = panel.scene
    allowed = list(scene.allowed_assets)
    budget = scene.budget
    totals = [budget.total - 1, budget.total]  # both leave room for the reserves

    def core(value: int) -> object:
        return select(scene.records, allowed, Budget(value, budget.input_reserve, budget.output_reserve))

    return Case("selection", panel, panel.total, totals, "select() alone", core)


def _decision(panel: Any) -> Case:
    from botie.actions.decision import decide

    start = panel.duration.value

    def core(value: int) -> object:
        proposal = dict(panel.proposal(), duration_minutes=value)
        return decide(proposal, caller=panel.caller, allowed_assets=panel.allowed_assets, approval=None, previous=None)

    return Case("decision", panel, panel.duration, [start + 5, start], "decide() alone", core)


def _routing(panel: Any) -> Case:
    from botie.context.routing import SELECT_FACTOR, execute_plan, plan_context
    from botie.lessons.ui.routing import attachments

    start = panel.count.value

    def core(count: int) -> object:
        docs = attachments(count, panel.size.value, panel.largest.value)
        plan = plan_context(
            docs, ceiling=panel.ceiling.value, soft_fraction=panel.soft_fraction.value, select_factor=SELECT_FACTOR
        )
        return execute_plan(plan)

    return Case("routing", panel, panel.count, [start - 1, start], "plan_context() + execute_plan() alone", core)


def _provenance(panel: Any) -> Case:
    start = panel.budget.value

    def core(budget: int) -> object:
        return panel.scenario.select(
            panel.question.value,
            observed_on=panel.observed_on.value,
            allowed_assets=panel.allowed,
            floor=panel.floor.value,
            budget=budget,
        )

    return Case("provenance", panel, panel.budget, [start - 10, start], "select_evidence() alone", core)


def _turn(panel: Any) -> Case:
    from botie.actions.decision import Approval
    from botie.lessons.ui.turn import _with_evidence
    from botie.turn import ActionRequest, run_turn

    start = panel.budget.value

    def core(budget: int) -> object:  # the same call the panel's refresh makes, without the drawing
        index = panel.question.value
        q = panel.scenario.questions[index]
        candidates = list(panel.scenario.candidates(index))
        if panel.planted.value:
            candidates.append(panel.planted_docs[panel.planted.value])
        allowed = tuple(a for a, box in panel.assets.items() if box.value)
        setup = panel.setup.with_(budget=_with_evidence(panel.setup.budget, budget), allowed_assets=allowed)
        model = panel.model.with_(gullible=panel.model_kind.value == "gullible")
        approval = Approval(panel.setup.caller, panel.payload) if panel.approved.value else None
        action = ActionRequest(panel.message, approval) if panel.ask.value else None
        return run_turn(q.question, candidates, setup, model, action=action, needed=q.answered_by)

    return Case("turn", panel, panel.budget, [start - 10, start], "run_turn() alone", core)


def _generic(kind: str, panel: Any) -> Case:
    """A panel this file has no recipe for: its first control with two usable values; no-op set as baseline."""
    for name, control in sorted(_controls(panel.widget).items()):
        values = _two_values(control)
        if values is not None:

            def same(_: Any, c: Any = control) -> None:
                c.value = c.value  # trait machinery only: nothing changes, nothing redraws

            return Case(f"{kind} ({name})", panel, control, values, "control set to its own value", same)
    raise ValueError("no control with two usable values")


RECIPES: dict[str, Callable[[Any], Case]] = {
    "selection": _selection,
    "decision": _decision,
    "routing": _routing,
    "provenance": _provenance,
    "turn": _turn,
}


def _cases() -> tuple[list[Case], list[str]]:
    import botie.lessons.ui as ui

    scene = _scene()
    cases, skipped = [], []
    for name in sorted(n for n in ui.__all__ if n.endswith("_panel")):
        factory = getattr(ui, name)
        kind = name[: -len("_panel")]
        try:
            try:
                panel = factory()  # the lesson's defaults, where the panel has them
            except TypeError:
                panel = factory(scene)
            cases.append(RECIPES.get(getattr(panel, "kind", kind), lambda p, k=kind: _generic(k, p))(panel))
        except Exception as exc:  # a panel we cannot build here is a note, not a crash of the report
            skipped.append(f"{name}: {type(exc).__name__}: {exc}")
    return cases, skipped


def _time_case(case: Case) -> Row:
    def move(i: int) -> None:
        case.control.value = case.values[i % 2]

    def core(i: int) -> None:
        case.baseline(case.values[i % 2])

    samples(move, WARMUP)
    if getattr(case.panel, "error", None):
        raise RuntimeError(f"the {case.kind} panel shows a problem: {case.panel.error}")
    ours = samples(move, UPDATES)
    base = samples(core, UPDATES)
    return latency_row(f"{case.kind} panel update ×{UPDATES}", ours, case.baseline_name, base, GOAL)


def _wall(code: str) -> float:
    import time

    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def import_row() -> Row:
    """`import botie` in a fresh interpreter, against starting the same interpreter with nothing to do."""
    _wall("import botie")  # bytecode compiled once, outside the measurement
    ours, bare = [], []
    for _ in range(IMPORT_RUNS):  # interleaved, so background load hits both alike
        bare.append(_wall("pass"))
        ours.append(_wall("import botie"))
    ours_m, bare_m = statistics.median(ours), statistics.median(bare)
    return Row(
        f"import botie, fresh process (median of {IMPORT_RUNS}; +{fmt(ours_m - bare_m, 'time')})",
        ours_m,
        "python -c pass",
        bare_m,
        "adds ≤ 100 ms",
    )


def run() -> list[Row]:
    os.environ.setdefault("MPLBACKEND", "Agg")
    rows = []
    try:
        cases, skipped = _cases()
    except ImportError as exc:  # the notebooks extra (ipywidgets, matplotlib) is not installed
        cases, skipped = [], [f"botie.lessons.ui: {exc}"]
    for case in cases:
        try:
            rows.append(_time_case(case))
        except Exception as exc:
            skipped.append(f"{case.kind}: {type(exc).__name__}: {exc}")
    for note in skipped:
        print(f"bench_panels: skipped {note}", file=sys.stderr)
    rows.append(import_row())
    return rows
