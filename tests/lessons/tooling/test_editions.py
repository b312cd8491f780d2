"""The learner edition is exactly what generation writes from the instructor edition."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from botie.lessons.tooling import editions as _editions
from botie.lessons.tooling.editions import BEGIN, END, STUB, EditionError, learner_notebook, shape, strip_solutions

ROOT = Path(__file__).resolve().parents[3]
SOURCES = sorted((ROOT / "notebooks" / "instructor").glob("*.ipynb"))
CHECK_CALL = re.compile(r"^check\((\w+)\)$", re.M)
MINE = {"00_welcome", "01_which_records", "05_suggestion_to_action"}


def read(path: Path):
    return nbformat.read(path, as_version=4)


def outputs_of(nb, pattern):
    return [
        "".join(o.get("text", "") for o in c.outputs)
        for c in nb.cells
        if c.cell_type == "code" and pattern.search(c.source)
    ]


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_committed_learner_edition_matches_generation(source):
    committed = read(ROOT / "notebooks" / source.name)
    generated = learner_notebook(read(source), source.name)
    assert shape(committed) == shape(generated)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_learner_edition_holds_no_solution(source):
    learner = read(ROOT / "notebooks" / source.name)
    for cell in learner.cells:
        assert BEGIN not in cell.source and END not in cell.source
        assert "instructor-only" not in cell.metadata.get("tags", [])
    instructor = read(source)
    solutions = [c.source for c in instructor.cells if c.cell_type == "code" and BEGIN in c.source]
    stubs = [c.source for c in learner.cells if STUB in c.source]
    assert len(solutions) == len(stubs)
    if source.stem in MINE:
        assert solutions, f"{source.name} has no exercise"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_every_exercise_passes_for_the_instructor_and_is_not_yet_for_the_learner(source):
    instructor, learner = read(source), read(ROOT / "notebooks" / source.name)
    passed = outputs_of(instructor, CHECK_CALL)
    waiting = outputs_of(learner, CHECK_CALL)
    assert len(passed) == len(waiting)
    if source.stem in MINE:
        assert passed, f"{source.name} never calls check(...)"
    for text in passed:
        assert re.match(r"\w+: all \d+ cases passed", text), text
    for text in waiting:
        assert re.match(r"\w+: not yet\. ", text) and "Hint 1 of" in text, text
        assert "Traceback" not in text


def test_the_check_mode_reports_no_drift():
    assert _editions.drift(ROOT / "notebooks" / "instructor", ROOT / "notebooks") == []


def test_a_stub_keeps_the_indentation_and_the_rest_of_the_cell():
    source = "\n".join(
        [
            "def f(x):",
            '    """Doc."""',
            f"    {BEGIN}",
            "    return x + 1",
            f"    {END}",
            "",
            "print('after')",
        ]
    )
    assert strip_solutions(source) == "\n".join(
        [
            "def f(x):",
            '    """Doc."""',
            f"    {_editions.STUB_COMMENT}",
            f"    {STUB}",
            "",
            "print('after')",
        ]
    )


def test_two_solutions_in_one_cell_become_two_stubs():
    source = f"def a():\n    {BEGIN}\n    return 1\n    {END}\n\ndef b():\n    {BEGIN}\n    return 2\n    {END}"
    out = strip_solutions(source)
    assert out.count(STUB) == 2 and "return" not in out


def test_the_stub_raises_not_implemented():
    namespace: dict = {}
    exec(strip_solutions(f"def f():\n    {BEGIN}\n    return 1\n    {END}"), namespace)
    with pytest.raises(NotImplementedError):
        namespace["f"]()


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (f"x = 1\n{BEGIN}\nx = 2", "never closed"),
        (f"x = 1\n{END}", "without a"),
        (f"{BEGIN}\n{BEGIN}\n{END}\n{END}", "inside another solution"),
    ],
)
def test_malformed_markers_are_refused(source, message):
    with pytest.raises(EditionError, match=message):
        strip_solutions(source, "nb, cell 3")


def test_markers_in_markdown_are_refused():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(f"{BEGIN}\nanswer\n{END}")])
    with pytest.raises(EditionError, match="code cells"):
        learner_notebook(nb)


def test_instructor_only_cells_are_dropped_and_tags_kept():
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("note", metadata={"tags": ["instructor-only"]}),
            nbformat.v4.new_code_cell("print(1)", metadata={"tags": ["lesson-check"]}),
        ]
    )
    out = learner_notebook(nb)
    assert shape(out) == [("code", "print(1)", ("lesson-check",))]
    assert out.cells[0].outputs == [] and out.cells[0].execution_count is None


def test_generation_without_execution_writes_the_learner_file(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"def f():\n    {BEGIN}\n    return 1\n    {END}")])
    nbformat.write(nb, src / "07_demo.ipynb")
    written = _editions.generate(src, tmp_path, run=False, log=lambda *a: None)
    assert written == [tmp_path / "07_demo.ipynb"]
    assert STUB in read(written[0]).cells[0].source
    assert _editions.main([str(src), str(tmp_path), "--check"]) == 0


@pytest.mark.slow
def test_a_failing_cell_stops_generation_without_writing(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("1 / 0")],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )
    nbformat.write(nb, src / "08_broken.ipynb")
    assert _editions.main([str(src), str(tmp_path)]) == 3
    assert "ZeroDivisionError" in capsys.readouterr().err
    assert not (tmp_path / "08_broken.ipynb").exists()


# --- make learner twice leaves the tree clean; no hint before it is asked for ----------------------


def _widget_nb(ids):
    nb = nbformat.v4.new_notebook()
    state = {
        i: {"model_name": "VBoxModel", "state": {"children": [f"IPY_MODEL_{j}" for j in ids if j != i]}} for i in ids
    }
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": state, "version_major": 2}}
    cell = nbformat.v4.new_code_cell("panel.widget")
    cell.id = "panel-cell"
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={
                "application/vnd.jupyter.widget-view+json": {
                    "model_id": ids[0],
                    "version_major": 2,
                    "version_minor": 0,
                },
                "text/plain": "VBox()",
            },
        )
    ]
    nb.cells.append(cell)
    return nb


def test_widget_ids_from_two_runs_become_the_same_and_stay_consistent():
    first = _editions.stable_widget_ids(_widget_nb(["a" * 32, "b" * 32]), "01_which_records")
    second = _editions.stable_widget_ids(_widget_nb(["c" * 32, "d" * 32]), "01_which_records")
    assert nbformat.writes(first) == nbformat.writes(second)
    state = first.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    shown = first.cells[0].outputs[0]["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
    assert shown in state and "a" * 32 not in nbformat.writes(first)
    (other,) = [i for i in state if i != shown]
    assert state[shown]["state"]["children"] == [f"IPY_MODEL_{other}"]


def test_widget_ids_differ_between_notebooks():
    one = _editions.stable_widget_ids(_widget_nb(["a" * 32]), "01_which_records")
    two = _editions.stable_widget_ids(_widget_nb(["a" * 32]), "02a_relevance")
    assert nbformat.writes(one) != nbformat.writes(two)


def test_printed_chunks_are_joined_into_one_output():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print('a'); print('b')")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="a\n"),
        nbformat.v4.new_output("stream", name="stdout", text="b\n"),
        nbformat.v4.new_output("stream", name="stderr", text="warn\n"),
    ]
    nb.cells.append(cell)
    outputs = _editions.merge_streams(nb).cells[0].outputs
    assert [(o.name, o.text) for o in outputs] == [("stdout", "a\nb\n"), ("stderr", "warn\n")]


def test_a_hint_cell_is_stored_without_output_and_a_check_cell_keeps_its_output():
    nb = nbformat.v4.new_notebook()
    for source in ('hint("permitted")', "check(permitted)", "from botie.lessons import check, hint"):
        cell = nbformat.v4.new_code_cell(source)
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="something\n")]
        nb.cells.append(cell)
    kept = [bool(c.outputs) for c in _editions.quiet_hints(nb).cells]
    assert kept == [False, True, True]


def test_the_nbval_marker_becomes_a_tag_in_the_learner_edition():
    source = nbformat.v4.new_notebook()
    source.cells.append(nbformat.v4.new_code_cell("# NBVAL_IGNORE_OUTPUT\n# (differs per machine)\nrows = run()"))
    (cell,) = learner_notebook(source).cells
    assert cell.source == "# (differs per machine)\nrows = run()"
    assert cell.metadata["tags"] == ["nbval-ignore-output"]


def test_a_hint_cell_is_skipped_by_nbval_in_the_learner_edition():
    source = nbformat.v4.new_notebook()
    source.cells.append(nbformat.v4.new_code_cell('hint("permitted")'))
    source.cells.append(nbformat.v4.new_code_cell("check(permitted)"))
    hint_cell, check_cell = learner_notebook(source).cells
    assert hint_cell.metadata["tags"] == ["nbval-skip"]
    assert "tags" not in check_cell.metadata


def test_cells_nbval_skips_are_not_run_when_the_edition_is_executed(tmp_path):
    """A hint cell is skipped under nbval, so it is not run when the learner edition is stored either:
    the hints it would record would otherwise show in the stored progress table and not under nbval."""
    nb = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    skipped = nbformat.v4.new_code_cell("ran = True\nprint('hint shown')")
    skipped.metadata["tags"] = ["nbval-skip"]
    after = nbformat.v4.new_code_cell("print('ran' in dir())")
    nb.cells += [skipped, after]
    _editions.execute(nb, tmp_path)
    assert nb.cells[0].source == "ran = True\nprint('hint shown')"  # put back as it was
    assert nb.cells[0].outputs == [] and nb.cells[0].execution_count is None
    assert nb.cells[1].outputs[0]["text"] == "False\n"  # the skipped cell never ran


def test_a_machine_dependent_cell_runs_but_stores_no_output_so_the_editions_do_not_depend_on_the_machine():
    """Lesson 00's pre-flight table names versions and folders: both editions store it empty, whatever ran it."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("print(1)"), nbformat.v4.new_code_cell("print(2)")]
    for cell in nb.cells:
        cell.outputs, cell.execution_count = [nbformat.v4.new_output("stream", text="x\n")], 1
    nb.cells[1].metadata["tags"] = [_editions.MACHINE_TAG]
    kept, dropped = _editions.drop_machine_output(nb).cells
    assert (kept.outputs[0].text, kept.execution_count) == ("x\n", 1)
    assert (dropped.outputs, dropped.execution_count) == ([], None)
    for folder in ("notebooks/instructor", "notebooks"):
        welcome = nbformat.read(ROOT / folder / "00_welcome.ipynb", as_version=4)
        (preflight,) = [c for c in welcome.cells if _editions.MACHINE_TAG in c.metadata.get("tags", ())]
        assert "run_preflight(" in preflight.source and preflight.outputs == []
