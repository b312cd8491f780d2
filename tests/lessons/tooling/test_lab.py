"""The launchers behind `make lab` and `make present`: quiet settings, the welcome lesson, offline Voila.

The servers themselves are exercised in tests/browser/; these check the arguments and files they are given.
"""

from __future__ import annotations

import json

import jinja2
import pytest

from botie.lessons.tooling import lab as _lab


def _values(argv: list[str]) -> dict[str, str]:
    return dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)


def test_lab_serves_the_folder_opens_the_welcome_lesson_and_stays_quiet(tmp_path):
    (tmp_path / _lab.WELCOME).write_text("{}")
    args = _values(_lab.lab_argv(tmp_path))
    assert args["ServerApp.root_dir"] == str(tmp_path.resolve())
    assert args["LabApp.default_url"] == "/lab/tree/00_welcome.ipynb"
    assert args["LabApp.news_url"] == "None"
    assert args["LabApp.check_for_updates_class"] == "jupyterlab.NeverCheckForUpdate"
    assert args["LabApp.extension_manager"] == "readonly"


def test_without_the_welcome_lesson_lab_opens_its_default_page(tmp_path):
    assert "LabApp.default_url" not in _values(_lab.lab_argv(tmp_path))


def test_lab_args_pass_through_and_win(tmp_path):
    argv = _lab.lab_argv(tmp_path, ["--no-browser", "--ServerApp.root_dir=/elsewhere", "--port=9999"])
    assert argv[-3:] == ["--no-browser", "--ServerApp.root_dir=/elsewhere", "--port=9999"]
    assert [a for a in argv if "root_dir" in a] == ["--ServerApp.root_dir=/elsewhere"], "given twice is an error"


def test_overrides_merge_into_existing_settings_without_losing_them(tmp_path):
    plugin = "@jupyterlab/apputils-extension:notification"
    (tmp_path / "overrides.json").write_text(
        json.dumps(
            {
                "@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"},
                plugin: {"fetchNews": "true", "doNotDisturbMode": True},
            }
        )
    )
    _lab.write_overrides(tmp_path)
    saved = json.loads((tmp_path / "overrides.json").read_text())
    assert saved["@jupyterlab/apputils-extension:themes"] == {"theme": "JupyterLab Dark"}
    assert saved[plugin] == {"fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True}
    _lab.write_overrides(tmp_path)
    assert json.loads((tmp_path / "overrides.json").read_text()) == saved, "writing twice changes nothing"


def test_a_broken_overrides_file_is_replaced(tmp_path):
    (tmp_path / "overrides.json").write_text("{not json")
    _lab.write_overrides(tmp_path)
    assert json.loads((tmp_path / "overrides.json").read_text()) == _lab.OVERRIDES


def test_a_settings_folder_given_on_the_command_line_gets_the_overrides(tmp_path):
    assert _lab._settings_args([f"--LabApp.app_settings_dir={tmp_path}"]) == []
    assert json.loads((tmp_path / "overrides.json").read_text()) == _lab.OVERRIDES


def test_a_lesson_is_found_by_number_or_path(tmp_path):
    (tmp_path / "01_which_records.ipynb").write_text("{}")
    (tmp_path / "05_suggestion_to_action.ipynb").write_text("{}")
    assert _lab.find_lesson("01", tmp_path).name == "01_which_records.ipynb"
    assert _lab.find_lesson(str(tmp_path / "05_suggestion_to_action.ipynb")).name.startswith("05_")
    with pytest.raises(FileNotFoundError, match="01_which_records, 05_suggestion_to_action"):
        _lab.find_lesson("07", tmp_path)


def test_present_hides_code_stays_local_and_lets_the_caller_override(tmp_path):
    args = _values(_lab.present_argv("nb.ipynb"))
    assert args["strip_sources"] == "True" and args["Voila.ip"] == "127.0.0.1" and args["template"] == "botie"
    over = _lab.present_argv("nb.ipynb", ["--strip_sources=False", "--port=8870"])
    assert (
        over[0] == "nb.ipynb"
        and "--strip_sources=True" not in over
        and over[-2:] == ["--strip_sources=False", "--port=8870"]
    )


def test_the_voila_template_drops_every_off_machine_link_and_keeps_the_rest(tmp_path):
    folder = _lab.install_voila_template(tmp_path)
    assert json.loads((folder / "conf.json").read_text()) == {"base_template": "lab"}
    parent = (
        "{% block notebook_css %}<style>.a{}</style>\n"
        '<link rel="stylesheet" href="https://cdn.example/fa.css">\n'
        '<script src="static/voila-style.js"></script>\n{% endblock %}'
    )
    env = jinja2.Environment(
        loader=jinja2.DictLoader(
            {
                "voila/templates/lab/index.html.j2": parent,
                "botie.j2": (folder / "index.html.j2").read_text(),
            }
        )
    )
    page = env.get_template("botie.j2").render()
    assert "https://" not in page
    assert "<style>.a{}</style>" in page and "static/voila-style.js" in page


@pytest.mark.parametrize("argv", [["no-such-folder"], ["--present"], ["--present", "99"]])
def test_bad_arguments_explain_themselves_with_exit_status_2(argv, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert _lab.main(argv) == 2
    assert capsys.readouterr().err.strip()


def test_write_settings_quiets_every_jupyterlab_of_the_environment(monkeypatch, tmp_path, capsys):
    """What Binder's postBuild runs: overrides.json plus a server config, both merged, never clobbered."""
    import jupyter_core.paths

    settings, config = tmp_path / "lab" / "settings", tmp_path / "etc" / "jupyter"
    config.mkdir(parents=True)
    (config / "jupyter_lab_config.json").write_text(json.dumps({"ServerApp": {"port": 9000}}))
    monkeypatch.setattr(_lab, "app_settings_dir", lambda: settings)
    monkeypatch.setattr(jupyter_core.paths, "ENV_CONFIG_PATH", [str(config)])
    assert _lab.main(["--write-settings"]) == 0
    assert json.loads((settings / "overrides.json").read_text()) == _lab.OVERRIDES
    server = json.loads((config / "jupyter_lab_config.json").read_text())
    assert server["ServerApp"] == {"port": 9000}
    assert server["LabApp"] == {
        "news_url": None,
        "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
        "extension_manager": "readonly",
    }
    assert capsys.readouterr().out.count("wrote ") == 2
