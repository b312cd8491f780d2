"""The workshop's lesson machinery, kept apart from the library it teaches.

What a notebook calls comes from here, in one ``__all__`` (pinned by ``tests/test_api.py``)::

    from botie.lessons import check, hint, show_progress, reset_exercise, load_scene

The package is split by job, so a name in the tree says where a thing lives:

* ``content/``: the lessons' worlds: fixtures and scenes, the evidence scenario, the scripted
  stand-in model, retrieval, injections, the loading simulation, the adversarial slice, the capstone;
* ``exercises/``: the grading engine, one module of exercises per lesson, the catalogue that finds
  them by name, the predict-then-run questions, and "your function drives the panel";
* ``classroom/``: the learner's progress file, resetting one exercise, and the instructor's room view;
* ``tooling/``: the lab launcher, the pre-flight check, the two notebook editions, reading the lock.

Everything here may import the library (``botie.context``, ``botie.actions``, ``botie.turn``);
the library never imports anything from here, and nothing here imports the panels (``botie.ui``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from botie._lazy import lazy_names

_HOMES: dict[str, tuple[str, ...]] = {
    # exercises: check an answer, ask for a hint
    "botie.lessons.exercises.catalogue": (
        "check",
        "hint",
    ),
    # the learner's progress across lessons
    "botie.lessons.classroom.progress": ("show_progress",),
    "botie.lessons.classroom.reset": ("reset_exercise",),
    # the lessons' worlds: scenes, scenarios, the scripted model, simulations
    "botie.lessons.content.fixtures": (
        "Scene",
        "fixture_path",
        "load_records",
        "load_scene",
    ),
    "botie.lessons.content.scenarios": (
        "EvidenceScenario",
        "load_evidence_scenario",
    ),
    "botie.lessons.content.business": ("load_booking_rules",),
    "botie.lessons.content.scripted": (
        "ScriptedModel",
        "load_scripted_model",
    ),
    "botie.lessons.content.loading": (
        "DocumentTool",
        "FailureInjector",
        "LatencyModel",
        "compare_loading",
    ),
    "botie.lessons.content.adversarial": (
        "SliceSet",
        "compare_designs",
        "run_slice",
    ),
    "botie.lessons.content.capstone": ("run_capstone",),
}

__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())

if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors, which do not run __getattr__
    from botie.lessons.classroom.progress import show_progress
    from botie.lessons.classroom.reset import reset_exercise
    from botie.lessons.content.adversarial import SliceSet, compare_designs, run_slice
    from botie.lessons.content.business import load_booking_rules
    from botie.lessons.content.capstone import run_capstone
    from botie.lessons.content.fixtures import Scene, fixture_path, load_records, load_scene
    from botie.lessons.content.loading import DocumentTool, FailureInjector, LatencyModel, compare_loading
    from botie.lessons.content.scenarios import EvidenceScenario, load_evidence_scenario
    from botie.lessons.content.scripted import ScriptedModel, load_scripted_model
    from botie.lessons.exercises.catalogue import check, hint

__all__ = [
    "check",
    "hint",
    "show_progress",
    "reset_exercise",
    "Scene",
    "fixture_path",
    "load_records",
    "load_scene",
    "EvidenceScenario",
    "load_evidence_scenario",
    "load_booking_rules",
    "ScriptedModel",
    "load_scripted_model",
    "DocumentTool",
    "FailureInjector",
    "LatencyModel",
    "compare_loading",
    "SliceSet",
    "compare_designs",
    "run_slice",
    "run_capstone",
]
