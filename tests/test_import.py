"""`import botie` stays light: no tokenizer, no widgets, no plotting."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("matplotlib", "ipywidgets", "tiktoken", "IPython", "numpy")


def test_import_botie_pulls_in_nothing_heavy():
    code = f"import sys, botie\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_heavy_check_can_fail():
    """Guard the guard: importing a heavy module is seen by the same probe."""
    probe = f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    quiet = subprocess.run(
        [sys.executable, "-c", "import sys, botie\n" + probe], capture_output=True, text=True, check=True
    )
    loud = subprocess.run(
        [sys.executable, "-c", "import sys, botie, botie.lessons.ui\n" + probe],
        capture_output=True,
        text=True,
        check=True,
    )
    # botie.lessons.ui brings ipywidgets and matplotlib, which `import botie` alone does not load.
    assert quiet.stdout.strip() == ""
    assert {"ipywidgets", "matplotlib"} <= set(loud.stdout.strip().split(","))


def _modules_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(','.join(sorted(m for m in sys.modules if m.startswith('botie'))))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.strip().split(","))


def test_import_botie_loads_no_module_until_a_name_is_used():
    """Every public name, the errors included, loads its module on first use (botie/__init__.py's __getattr__)."""
    assert _modules_after("import botie") == {"botie", "botie._lazy"}
    assert "botie.errors" in _modules_after("from botie import RecordError")


def test_import_botie_lessons_loads_no_lesson_module_until_a_name_is_used():
    assert _modules_after("import botie.lessons") == {"botie", "botie._lazy", "botie.lessons"}
    loaded = _modules_after("from botie.lessons import check")
    assert {"botie.lessons.exercises.catalogue", "botie.lessons.learner.progress"} <= loaded
    assert not any(m.startswith(("botie.lessons.content", "botie.lessons.tooling", "botie.lessons.ui")) for m in loaded)


def test_a_public_name_loads_its_own_module_and_not_the_rest():
    loaded = _modules_after("import botie; botie.select")
    assert "botie.context.selection" in loaded
    assert not any(m.startswith(("botie.actions", "botie.lessons", "botie.lessons.ui")) for m in loaded)


def test_every_public_name_resolves_and_unknown_names_raise_attribute_error():
    import botie

    assert all(getattr(botie, name) is not None for name in botie.__all__)
    assert set(botie.__all__) <= set(dir(botie))
    try:
        botie.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")
