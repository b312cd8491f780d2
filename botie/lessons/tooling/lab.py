"""Open the workshop, quietly: JupyterLab for learners, Voila for the projector.

``python -m botie.lessons.tooling.lab [NOTEBOOKS_DIR] [JUPYTER LAB ARGS...]``
``python -m botie.lessons.tooling.lab --present LESSON [VOILA ARGS...]``
``python -m botie.lessons.tooling.lab --write-settings``   (Binder's postBuild: quiet settings for the environment)

``make lab`` calls this. It serves ``NOTEBOOKS_DIR`` (default ``notebooks``),
opens the welcome lesson, and keeps JupyterLab from reaching for the network
or covering a lesson with a toast: no news feed, no update check, a read-only
extension manager. The same settings are written into the environment's
JupyterLab settings overrides, so they hold however JupyterLab is started
afterwards; ``--write-settings`` does only that, plus a server config file
with the same switches, for servers this module does not start (Binder's
postBuild calls it). Any further arguments are passed to ``jupyter lab`` and
win over ours, e.g. ``make lab LAB_ARGS=--no-browser``; a
``--LabApp.app_settings_dir=...`` among them gets the overrides instead.

``make present LESSON=01`` calls the ``--present`` form: Voila shows one
lesson's panels and outputs without its code (``--strip_sources=True``) for
projecting in a room, on this machine only, with nothing fetched from outside.
``LESSON`` is a lesson number (``01``) or a notebook path.

Standard library only at import time; JupyterLab is imported when launched.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

__all__ = [
    "OVERRIDES",
    "PRESENT_ARGS",
    "QUIET_ARGS",
    "VOILA_TEMPLATE",
    "WELCOME",
    "find_lesson",
    "install_voila_template",
    "lab_argv",
    "main",
    "present_argv",
    "with_extra",
    "write_overrides",
]

WELCOME = "00_welcome.ipynb"

#: JupyterLab settings overrides (overrides.json): nothing fetched, nothing asked.
OVERRIDES: dict[str, dict[str, object]] = {
    # The news toast ("Would you like to receive official Jupyter news?") and
    # the update check both sit over the notebook and both call out to the web.
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}

#: Server-side switches with the same intent: no news handler, no update check,
#: an extension manager that never queries a package index.
QUIET_ARGS = [
    "--LabApp.news_url=None",
    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    "--LabApp.extension_manager=readonly",
]


#: The same switches as :data:`QUIET_ARGS`, as a Jupyter server config file for the environment,
#: for servers this module does not start (Binder's).
SERVER_CONFIG = {
    "LabApp": {
        "news_url": None,
        "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
        "extension_manager": "readonly",
    }
}


def app_settings_dir() -> Path:
    """JupyterLab's application settings folder for this environment (where overrides.json lives)."""
    from jupyterlab.commands import get_app_dir

    return Path(get_app_dir()) / "settings"


def merge_overrides(existing: dict, ours: dict) -> dict:
    """``existing`` with ours laid over it, plugin by plugin; other settings are kept."""
    merged = {plugin: dict(values) for plugin, values in existing.items() if isinstance(values, dict)}
    merged.update({k: v for k, v in existing.items() if not isinstance(v, dict)})
    for plugin, values in ours.items():
        merged.setdefault(plugin, {}).update(values)
    return merged


def _read_json(path: Path) -> dict:
    """A JSON object from ``path``; an absent, unreadable or non-object file counts as empty."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return found if isinstance(found, dict) else {}


def write_overrides(settings_dir: str | os.PathLike[str], overrides: dict | None = None) -> Path:
    """Merge ``overrides`` (default :data:`OVERRIDES`) into ``settings_dir/overrides.json``."""
    path = Path(settings_dir) / "overrides.json"
    existing = _read_json(path)
    merged = merge_overrides(existing, OVERRIDES if overrides is None else overrides)
    if merged != existing or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
    return path


def _settings_args(extra: list[str]) -> list[str]:
    """Write the overrides where JupyterLab will read them; return any arguments that point it there.

    A settings folder given on the command line gets them; else the environment's own;
    if that is read-only, a private folder we point JupyterLab at.
    """
    given = [a.split("=", 1)[1] for a in extra if a.startswith("--LabApp.app_settings_dir=")]
    if given:
        write_overrides(given[-1])
        return []
    try:
        write_overrides(app_settings_dir())
        return []
    except OSError:
        private = Path(tempfile.mkdtemp(prefix="botie-lab-settings-"))
        write_overrides(private)
        return [f"--LabApp.app_settings_dir={private}"]


def write_server_config(config_dir: str | os.PathLike[str]) -> Path:
    """Merge :data:`SERVER_CONFIG` into ``config_dir/jupyter_lab_config.json``, keeping whatever else is there."""
    path = Path(config_dir) / "jupyter_lab_config.json"
    existing = _read_json(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(merge_overrides(existing, SERVER_CONFIG), indent=2) + "\n", encoding="utf-8")
    return path


def write_environment_settings() -> list[Path]:
    """Make every JupyterLab of this environment quiet: settings overrides plus a server config file."""
    from jupyter_core.paths import ENV_CONFIG_PATH

    return [write_overrides(app_settings_dir()), write_server_config(ENV_CONFIG_PATH[0])]


def _option(arg: str) -> str | None:
    """The trait an argument sets, without its class: ``--ServerApp.port=1`` and ``--port=1`` -> ``port``."""
    if not arg.startswith("--"):
        return None
    return arg[2:].split("=", 1)[0].rsplit(".", 1)[-1].replace("-", "_")


def with_extra(ours: list[str], extra: list[str] | None) -> list[str]:
    """Our arguments, minus any the caller sets again, then the caller's (a trait given twice is an error)."""
    extra = list(extra or [])
    theirs = {_option(a) for a in extra} - {None}
    return [a for a in ours if _option(a) not in theirs] + extra


def lab_argv(root: str | os.PathLike[str], extra: list[str] | None = None) -> list[str]:
    """The ``jupyter lab`` arguments: serve ``root``, open the welcome lesson, stay quiet; ``extra`` wins."""
    root = Path(root).resolve()
    argv = [f"--ServerApp.root_dir={root}", *QUIET_ARGS]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # Containers (Binder, CI, a classroom VM) often run as root; JupyterLab refuses unless told.
        argv.append("--ServerApp.allow_root=True")
    if (root / WELCOME).exists():
        argv.append(f"--LabApp.default_url=/lab/tree/{WELCOME}")
    return with_extra(argv, extra)


#: Voila for a room: code hidden, served on this machine only, no tracebacks on the wall,
#: and a template that fetches nothing from outside (see :data:`VOILA_TEMPLATE`).
PRESENT_ARGS = ["--strip_sources=True", "--Voila.ip=127.0.0.1", "--show_tracebacks=False", "--template=botie"]

#: Voila's own "lab" template links Font Awesome from a CDN, which a room without
#: internet cannot reach (and a slow network stalls the page on). This template is
#: that one, minus every line of its stylesheet block that points off the machine.
#: The panels use no Font Awesome icons.
VOILA_TEMPLATE = {
    "conf.json": '{"base_template": "lab"}\n',
    "index.html.j2": (
        "{%- extends 'voila/templates/lab/index.html.j2' -%}\n"
        "{%- block notebook_css -%}\n"
        "{%- for line in super().split('\\n') if 'https://' not in line and 'http://' not in line %}\n"
        "{{ line }}\n"
        "{%- endfor %}\n"
        "{%- endblock notebook_css -%}\n"
    ),
}


def install_voila_template(data_dir: str | os.PathLike[str]) -> Path:
    """Write the ``botie`` Voila template under ``data_dir`` (a Jupyter data folder); return its folder."""
    folder = Path(data_dir) / "voila" / "templates" / "botie"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in VOILA_TEMPLATE.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def find_lesson(lesson: str, notebooks: str | os.PathLike[str] = "notebooks") -> Path:
    """A notebook path as given, or the learner notebook whose name starts with ``<lesson>_``."""
    given = Path(lesson)
    if given.suffix == ".ipynb":
        if not given.is_file():
            raise FileNotFoundError(f"no notebook {lesson}")
        return given
    matches = sorted(Path(notebooks).glob(f"{lesson}_*.ipynb"))
    if not matches:
        have = ", ".join(p.stem for p in sorted(Path(notebooks).glob("*.ipynb"))) or "none"
        raise FileNotFoundError(f"no lesson {lesson!r} in {notebooks}/ (lessons: {have})")
    return matches[0]


def present_argv(notebook: str | os.PathLike[str], extra: list[str] | None = None) -> list[str]:
    """The ``voila`` arguments for presenting ``notebook``; ``extra`` wins over ours."""
    return [str(notebook), *with_extra(PRESENT_ARGS, extra)]


def _present(args: list[str]) -> int:
    if not args or args[0].startswith("-"):
        print(
            "usage: python -m botie.lessons.tooling.lab --present LESSON [VOILA ARGS...]"
            "   (e.g. make present LESSON=01)",
            file=sys.stderr,
        )
        return 2
    try:
        notebook = find_lesson(args[0])
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 2
    try:
        from voila.app import Voila
    except ImportError:
        print('Voila is not installed: `pip install -e ".[present]"` (make present does this for you)', file=sys.stderr)
        return 2
    # The template lives in a private Jupyter data folder for as long as Voila runs.
    data_dir = tempfile.mkdtemp(prefix="botie-voila-")
    atexit.register(shutil.rmtree, data_dir, ignore_errors=True)
    install_voila_template(data_dir)
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (data_dir, os.environ.get("JUPYTER_PATH")) if p)
    Voila.launch_instance(argv=present_argv(notebook, args[1:]))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--write-settings"]:
        for path in write_environment_settings():
            print(f"wrote {path}")
        return 0
    if args[:1] == ["--present"]:
        return _present(args[1:])
    root = args.pop(0) if args and not args[0].startswith("-") else "notebooks"
    if not Path(root).is_dir():
        print(f"no folder {root!r}: run this from the workshop folder (where notebooks/ is)", file=sys.stderr)
        return 2
    full = _settings_args(args) + lab_argv(root, args)
    from jupyterlab.labapp import LabApp

    LabApp.launch_instance(argv=full)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
