"""A passing check keeps the learner's function; the capstone loads it in a fresh namespace, or says why not."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from botie.lessons.content.capstone import SETS, run_capstone
from botie.lessons.exercises.catalogue import check
from botie.lessons.learner import kept

ROOT = Path(__file__).resolve().parents[3]
FLOOR_OF_NOTHING = 0  # a plain value a helper reads as a global: kept as a line of its own


def permitted(records, allowed_assets):
    return [r for r in records if r.asset in allowed_assets and r.cost >= FLOOR_OF_NOTHING]


def choose_evidence(records, allowed_assets, allowance):
    chosen, used = [], 0
    for record in permitted(records, allowed_assets):
        if used + math.floor(record.cost) > allowance:
            break
        chosen.append(record)
        used += record.cost
    return chosen


def skipping(records, allowed_assets, allowance):
    """Wrong on purpose: skips a record that does not fit instead of stopping."""
    chosen, used = [], 0
    for record in permitted(records, allowed_assets):
        if used + record.cost <= allowance:
            chosen.append(record)
            used += record.cost
    return chosen


def same(a, b):
    """Equal and of the same type, field by field: 20.0 minutes is not 20."""
    return a.keys() == b.keys() and all(type(a[k]) is type(b[k]) and a[k] == b[k] for k in a)


def choose_branch(proposal, *, caller, allowed_assets, approval, previous):
    if proposal["asset_id"] not in allowed_assets:
        return "denied"
    if approval is None or approval.actor != caller or not same(dict(approval.payload), dict(proposal)):
        return "needs_approval"
    if previous is None:
        return "create"
    return "reuse" if same(dict(previous.payload), dict(proposal)) else "conflict"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A notebook folder of its own: the progress file and the kept functions land in tmp_path."""
    monkeypatch.setenv("BOTIE_PROGRESS_FILE", str(tmp_path / "botie-progress.json"))
    return tmp_path


def run_python(script: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def kept_source(folder: Path, name: str) -> str | None:
    path = folder / kept.FILE_NAME
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))["functions"].get(name, {}).get("source")


def test_the_kept_file_sits_beside_the_progress_file(folder, monkeypatch):
    assert kept.kept_path() == folder / "botie-functions.json"
    monkeypatch.setenv("BOTIE_PROGRESS_FILE", str(folder / "lesson-06.progress.json"))
    assert kept.kept_path() == folder / "lesson-06.progress.functions.json"
    monkeypatch.setenv("BOTIE_PROGRESS_FILE", "off")
    assert kept.kept_path() is None


def test_a_passing_check_keeps_the_function_with_its_helpers_imports_and_values(folder, capsys):
    check(choose_evidence)
    assert re.search(r"all \d+ cases passed", capsys.readouterr().out)
    source = kept_source(folder, "choose_evidence")
    assert source is not None
    assert "def choose_evidence(records, allowed_assets, allowance):" in source
    assert "def permitted(records, allowed_assets):" in source  # the helper it calls
    assert "import math as math" in source and "FLOOR_OF_NOTHING = 0" in source
    assert source.index("def permitted") < source.index("def choose_evidence")


def test_a_failing_check_keeps_nothing(folder, capsys):
    check("choose_evidence", skipping)
    assert "cases passed." in capsys.readouterr().out
    assert kept_source(folder, "choose_evidence") is None


def test_a_failing_check_never_overwrites_a_passing_one_and_a_later_pass_replaces_it(folder, capsys):
    check(choose_evidence)
    first = kept_source(folder, "choose_evidence")
    check("choose_evidence", skipping)
    assert kept_source(folder, "choose_evidence") == first

    def choose_evidence_again(records, allowed_assets, allowance):
        return choose_evidence(records, allowed_assets, allowance)

    check("choose_evidence", choose_evidence_again)
    later = kept_source(folder, "choose_evidence")
    assert later is not None
    assert later != first and "def choose_evidence_again" in later
    loaded = kept.load_function("choose_evidence")
    assert loaded.function is not None and loaded.function.__name__ == "choose_evidence_again"


def test_a_check_with_record_false_or_recording_off_keeps_nothing(folder, monkeypatch, capsys):
    check(choose_evidence, record=False)
    assert kept_source(folder, "choose_evidence") is None
    monkeypatch.setenv("BOTIE_PROGRESS_FILE", "off")
    check(choose_evidence)
    assert not (folder / kept.FILE_NAME).exists()
    assert kept.load_function("choose_evidence").message == (
        "choose_evidence: nothing is kept while progress recording is off"
    )


def test_the_kept_function_loads_and_runs_in_a_fresh_process(folder, capsys):
    check(choose_evidence)
    check(choose_branch)
    script = textwrap.dedent(
        """
        from botie.lessons.learner.kept import load_function
        from botie.lessons.content.capstone import run_capstone
        from botie.lessons.content.fixtures import fixture_path, load_scene

        scene = load_scene(fixture_path("p2_seal.json"))
        loaded = load_function("choose_evidence")
        print(loaded.message)
        print([r.id for r in loaded.function(list(scene.records), ["P-2", "P-3"], 8)])
        report = run_capstone()
        print(report.whose())
        print(report.score("decisions"))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BOTIE_PROGRESS_FILE": str(folder / "botie-progress.json")}
    out = run_python(script, env)
    assert out.splitlines() == [
        "choose_evidence: yours, kept when lesson 01's check passed",
        "['man-p2-r4-s3.2', 'tkt-5521']",
        "choose_evidence: yours, kept when lesson 01's check passed",
        "choose_branch: yours, kept when lesson 05a's check passed",
        "(11, 11)",
    ]


def test_with_nothing_kept_the_capstone_says_so_in_one_line_each_and_uses_the_reference(folder):
    report = run_capstone()
    assert report.whose().splitlines() == [
        "choose_evidence: lesson 01's check has not passed yet, so the capstone uses the reference",
        "choose_branch: lesson 05a's check has not passed yet, so the capstone uses the reference",
    ]
    mine = run_capstone(choose_evidence, choose_branch)
    assert {s: report.score(s) for s in SETS} == {s: mine.score(s) for s in SETS}
    assert mine.whose().splitlines()[0] == "choose_evidence: yours, as passed to run_capstone"


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"functions": 3}', "\udcff"])
def test_a_corrupt_file_is_reported_never_raised_and_the_next_pass_sets_it_aside(folder, text, capsys):
    path = folder / kept.FILE_NAME
    path.write_bytes(b"\xff\xfe" if text == "\udcff" else text.encode())
    loaded = kept.load_function("choose_evidence")
    assert loaded.function is None and "could not be read" in loaded.message
    report = run_capstone()
    assert "could not be read" in report.whose() and "uses the reference" in report.whose()
    check(choose_evidence)
    source = kept_source(folder, "choose_evidence")
    assert source is not None
    assert "def choose_evidence" in source
    assert list(folder.glob("botie-functions.unreadable-*.json"))  # the old file kept aside, never deleted


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("raise RuntimeError('boom')\n", "no longer loads (RuntimeError: boom)"),
        ("def choose_evidence(:\n", "no longer loads (SyntaxError"),
        ("import no_such_module_anywhere\n", "no longer loads (ModuleNotFoundError"),
        ("x = 1\n", "does not define choose_evidence"),
        (None, "the kept entry in botie-functions.json is damaged"),
    ],
)
def test_a_kept_source_that_no_longer_loads_is_said_in_one_line(folder, source, said):
    body = {
        "format": 1,
        "functions": {"choose_evidence": {"lesson": "01", "defines": "choose_evidence", "source": source}},
    }
    (folder / kept.FILE_NAME).write_text(json.dumps(body), encoding="utf-8")
    loaded = kept.load_function("choose_evidence")
    assert loaded.function is None and said in loaded.message and "\n" not in loaded.message
    assert said in run_capstone().whose()


def test_a_kept_entry_naming_no_function_falls_back_to_its_exercise_name(folder):
    source = "def choose_evidence(records, allowed_assets, allowance):\n    return []\n"
    entry = {"lesson": "01", "defines": ["not", "a", "name"], "source": source}
    (folder / kept.FILE_NAME).write_text(json.dumps({"format": 1, "functions": {"choose_evidence": entry}}))
    assert kept.load_function("choose_evidence").function is not None
    entry["defines"] = "something_else"
    (folder / kept.FILE_NAME).write_text(json.dumps({"format": 1, "functions": {"choose_evidence": entry}}))
    loaded = kept.load_function("choose_evidence")
    assert (
        loaded.function is None and loaded.message == "choose_evidence: the kept source does not define something_else"
    )


def test_a_kept_function_that_raises_fails_its_cases_with_a_message(folder):
    source = "def choose_evidence(records, allowed_assets, allowance):\n    return records[99]\n"
    body = {
        "format": 1,
        "functions": {"choose_evidence": {"lesson": "01", "defines": "choose_evidence", "source": source}},
    }
    (folder / kept.FILE_NAME).write_text(json.dumps(body), encoding="utf-8")
    report = run_capstone()
    assert report.whose().startswith("choose_evidence: yours, kept when lesson 01's check passed")
    assert "your choose_evidence raised IndexError" in report.failures()


def test_in_a_notebook_kernel_the_function_is_kept_from_its_cell(tmp_path):
    """IPython: getsource reads the cell; when it cannot, the cell's text in the input history is used."""
    script = textwrap.dedent(
        """
        import inspect
        from IPython.core.interactiveshell import InteractiveShell
        from botie.lessons.learner import kept

        shell = InteractiveShell.instance()
        shell.run_cell(
            "def permitted(records, allowed_assets):\\n"
            "    return [r for r in records if r.asset in allowed_assets]\\n",
            store_history=True,
        )
        shell.run_cell(
            "def choose_evidence(records, allowed_assets, allowance):\\n"
            "    chosen, used = [], 0\\n"
            "    for r in permitted(records, allowed_assets):\\n"
            "        if used + r.cost > allowance:\\n"
            "            break\\n"
            "        chosen.append(r)\\n"
            "        used += r.cost\\n"
            "    return chosen\\n"
            "print('defined')\\n",
            store_history=True,
        )
        shell.run_cell("from botie.lessons import check\\ncheck(choose_evidence)", store_history=True)
        print(kept.load_function("choose_evidence").message)
        def no_source(fn):
            raise OSError("no source")
        inspect.getsource = no_source
        print(kept.source_bundle(shell.user_ns["choose_evidence"]))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BOTIE_PROGRESS_FILE": str(tmp_path / "botie-progress.json")}
    out = run_python(script, env)
    assert re.search(r"choose_evidence: all \d+ cases passed", out)
    assert "choose_evidence: yours, kept when lesson 01's check passed" in out
    from_cells = out[out.index("def permitted") :]
    assert "def choose_evidence(records, allowed_assets, allowance):" in from_cells
    assert "print('defined')" not in from_cells and "check(" not in from_cells  # the definition only


def test_a_lambda_passes_its_check_but_cannot_be_kept_and_says_so(folder, capsys):
    check("choose_evidence", lambda records, allowed, allowance: choose_evidence(records, allowed, allowance))
    out = capsys.readouterr().out
    assert re.search(r"all \d+ cases passed", out)
    assert kept_source(folder, "choose_evidence") is None


def test_an_alias_a_recursive_helper_and_a_helper_without_source_are_handled(tmp_path):
    module_file = tmp_path / "learner_cells.py"
    module_file.write_text(
        textwrap.dedent(
            """
            def permitted(records, allowed_assets):
                return [r for r in records if r.asset in allowed_assets]

            pick = permitted

            def count_down(n):
                return 0 if n <= 0 else count_down(n - 1)

            def choose_evidence(records, allowed_assets, allowance):
                count_down(3)
                return pick(records, allowed_assets)[:1]

            exec("def hidden(records):\\n    return records")

            def uses_hidden(records, allowed_assets, allowance):
                return hidden(records)
            """
        ),
        encoding="utf-8",
    )
    spec = importlib.util.spec_from_file_location("learner_cells", module_file)
    module = importlib.util.module_from_spec(spec)
    assert spec is not None
    assert spec.loader is not None
    spec.loader.exec_module(module)

    bundle = kept.source_bundle(module.choose_evidence)
    assert bundle is not None
    assert bundle.index("def permitted") < bundle.index("pick = permitted")
    namespace: dict = {}
    exec(bundle, namespace)
    record = type("R", (), {"asset": "P-2"})()
    assert namespace["choose_evidence"]([record], ["P-2"], 5) == [record]

    partial = kept.source_bundle(module.uses_hidden)
    assert partial is not None and "def hidden" not in partial  # kept all the same; the call will say what is missing
    exec(partial, namespace := {})
    with pytest.raises(NameError):
        namespace["uses_hidden"]([], [], 0)


def test_a_source_that_does_not_define_the_function_is_not_kept(monkeypatch):
    """A function made by exec() has "<string>" for a file; getsource may then read some other "<string>" (an
    xdist worker's bootstrap line on Python 3.13). A source is kept only if it defines the function itself."""

    def choose_evidence(records, allowed_assets, allowance):
        return records

    monkeypatch.setattr(kept.inspect, "getsource", lambda fn: "import sys;exec(eval(sys.stdin.readline()))\n")
    monkeypatch.setattr(kept, "_cell_source", lambda name: None)
    assert kept.source_bundle(choose_evidence) is None
