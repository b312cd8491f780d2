"""The workshop: everything a lesson notebook calls that is not the library, behind one front door.

A notebook imports from two places only, ``botie`` (the library) and this package::

    from botie.lessons import check, hint, predict, selection_panel, show_progress, load_scene

The package is split by job, so a name in the tree says where a thing lives:

* ``content/``: the lessons' worlds: fixtures and scenes, the evidence scenario, the scripted
  stand-in model, retrieval, injections, the loading simulation, the adversarial slice, the capstone;
* ``exercises/``: the grading engine, one module of exercises per lesson, the catalogue that finds
  them by name, the predict-then-run questions, and "your function drives the panel";
* ``learner/``: the learner's own files: progress, the functions kept for the capstone, resetting one exercise;
* ``room/``: the instructor's view of the class and the hub service that serves it;
* ``tooling/``: the lab launcher, the pre-flight check, the two notebook editions, reading the lock;
* ``ui/``: the panels and figures: they render what the rest computed and decide nothing.

Everything here may import the library (``botie.context``, ``botie.actions``, ``botie.turn``); the
library never imports anything from here. Only ``ui/`` (and this front door, lazily) imports the panels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from botie._lazy import lazy_names

_HOMES: dict[str, tuple[str, ...]] = {
    # exercises: check an answer, ask for a hint, predict before running
    "botie.lessons.exercises.catalogue": ("check", "hint"),
    "botie.lessons.ui.predict": ("predict",),
    # the concept check: the same questions before lesson 00 and after lesson 06
    "botie.lessons.ui.concepts": ("concept_check",),
    "botie.lessons.exercises.concept_check": ("show_concepts",),
    # the learner's progress across lessons
    "botie.lessons.learner.progress": ("show_progress",),
    "botie.lessons.learner.reset": ("reset_exercise",),
    # the lessons' worlds: scenes, scenarios, the scripted model, simulations
    "botie.lessons.content.fixtures": ("Scene", "fixture_path", "load_records", "load_scene"),
    "botie.lessons.content.scenarios": ("EvidenceScenario", "load_evidence_scenario"),
    "botie.lessons.content.business": ("load_booking_rules",),
    "botie.lessons.content.scripted": ("AnswerScript", "ScriptedModel", "load_scripted_model"),
    "botie.lessons.content.retrieval": ("embedding_score", "keyword_score", "rank", "rerank"),
    "botie.lessons.content.injections": (
        "PhraseFilter",
        "Standing",
        "admitted",
        "escalation",
        "injection_variants",
        "standing",
    ),
    "botie.lessons.content.loading": ("DocumentTool", "FailureInjector", "LatencyModel", "compare_loading"),
    "botie.lessons.content.adversarial": (
        "SliceSet",
        "compare_designs",
        "injection_table",
        "run_slice",
        "scores_table",
    ),
    "botie.lessons.content.capstone": ("run_capstone",),
    "botie.lessons.content.own_model": ("overloaded_model", "usage_lines", "your_turn"),
    # the panels and figures
    "botie.lessons.ui": (
        "decision_panel",
        "evidence_panel",
        "provenance_panel",
        "routing_panel",
        "selection_panel",
        "turn_panel",
    ),
    "botie.lessons.ui.evidence_figures": (
        "alert_figure",
        "as_image",
        "density_figure",
        "loading_figure",
        "slice_figure",
    ),
    # is this machine ready for the workshop?
    "botie.lessons.tooling.preflight": ("run_preflight",),
}

__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())

if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors, which do not run __getattr__
    from botie.lessons.content.adversarial import (
        SliceSet as SliceSet,
        compare_designs as compare_designs,
        injection_table as injection_table,
        run_slice as run_slice,
        scores_table as scores_table,
    )
    from botie.lessons.content.business import (
        load_booking_rules as load_booking_rules,
    )
    from botie.lessons.content.capstone import (
        run_capstone as run_capstone,
    )
    from botie.lessons.content.fixtures import (
        Scene as Scene,
        fixture_path as fixture_path,
        load_records as load_records,
        load_scene as load_scene,
    )
    from botie.lessons.content.injections import (
        PhraseFilter as PhraseFilter,
        Standing as Standing,
        admitted as admitted,
        escalation as escalation,
        injection_variants as injection_variants,
        standing as standing,
    )
    from botie.lessons.content.loading import (
        DocumentTool as DocumentTool,
        FailureInjector as FailureInjector,
        LatencyModel as LatencyModel,
        compare_loading as compare_loading,
    )
    from botie.lessons.content.own_model import (
        overloaded_model as overloaded_model,
        usage_lines as usage_lines,
        your_turn as your_turn,
    )
    from botie.lessons.content.retrieval import (
        embedding_score as embedding_score,
        keyword_score as keyword_score,
        rank as rank,
        rerank as rerank,
    )
    from botie.lessons.content.scenarios import (
        EvidenceScenario as EvidenceScenario,
        load_evidence_scenario as load_evidence_scenario,
    )
    from botie.lessons.content.scripted import (
        AnswerScript as AnswerScript,
        ScriptedModel as ScriptedModel,
        load_scripted_model as load_scripted_model,
    )
    from botie.lessons.exercises.catalogue import (
        check as check,
        hint as hint,
    )
    from botie.lessons.exercises.concept_check import (
        show_concepts as show_concepts,
    )
    from botie.lessons.learner.progress import (
        show_progress as show_progress,
    )
    from botie.lessons.learner.reset import (
        reset_exercise as reset_exercise,
    )
    from botie.lessons.tooling.preflight import (
        run_preflight as run_preflight,
    )
    from botie.lessons.ui import (
        decision_panel as decision_panel,
        evidence_panel as evidence_panel,
        provenance_panel as provenance_panel,
        routing_panel as routing_panel,
        selection_panel as selection_panel,
        turn_panel as turn_panel,
    )
    from botie.lessons.ui.concepts import (
        concept_check as concept_check,
    )
    from botie.lessons.ui.evidence_figures import (
        alert_figure as alert_figure,
        as_image as as_image,
        density_figure as density_figure,
        loading_figure as loading_figure,
        slice_figure as slice_figure,
    )
    from botie.lessons.ui.predict import (
        predict as predict,
    )

#: What a notebook may import from here: every name in the map above, each written once (a test holds the
#: ``TYPE_CHECKING`` imports to the same names).
__all__ = [name for names in _HOMES.values() for name in names]
