"""One class, two renderings: the one-server hub configuration and the Zero to JupyterHub values agree.

Both come from classroom/definition.py. These tests read what each rendering hands JupyterHub (the
traitlets config the hub would load, the values the Helm chart would read) and compare them role by
role, scope by scope, service by service; then check that the values hold what the chart needs.
"""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest
import yaml

from tests.notebooks.test_notebooks import ROOT

LEARNERS, INSTRUCTORS = "ana,bo,cy", "lee"
#: What the Zero to JupyterHub chart adds when cull.enabled is true: its culler service, under this name,
#: with jupyterhub-idle-culler's documented minimum scopes (the chart's own jupyterhub_config.py).
CHART_CULLER = ("jupyterhub-idle-culler", ["list:users", "read:users:activity", "read:servers", "delete:servers"])
#: The chart's documented keys that a class uses (its values schema rejects any key it does not know).
CHART_KEYS = {
    "": {"hub", "proxy", "singleuser", "cull", "custom"},
    "hub": {"config", "services", "loadRoles"},
    "singleuser": {"image", "defaultUrl", "extraEnv", "memory", "cpu", "extraFiles", "lifecycleHooks"},
    "cull": {"enabled", "timeout", "every"},
    "proxy": {"chp"},
}


def _load(name: str, path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("BOTIE_LEARNERS", LEARNERS)
    monkeypatch.setenv("BOTIE_INSTRUCTORS", INSTRUCTORS)
    monkeypatch.setenv("BOTIE_HUB_STATE", str(tmp_path / "state"))
    for variable in ("BOTIE_CLASSROOM_TEST", "BOTIE_OPERATOR_TOKEN", "BOTIE_KERNEL_IDLE", "BOTIE_SERVER_IDLE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the config file puts classroom/ on the path
    return tmp_path


@pytest.fixture
def hub(env):
    """What classroom/jupyterhub_config.py hands JupyterHub: the traitlets config it builds."""
    from traitlets.config import Config

    config = Config()
    code = (ROOT / "classroom" / "jupyterhub_config.py").read_text(encoding="utf-8")
    namespace = {"get_config": lambda: config, "__file__": str(ROOT / "classroom" / "jupyterhub_config.py")}
    exec(compile(code, "jupyterhub_config.py", "exec"), namespace)
    return config


@pytest.fixture
def values(env):
    definition = _load("botie_class_definition", ROOT / "classroom" / "definition.py")
    return definition.helm_values(definition.settings())


def _roles(items):
    return {
        r["name"]: (sorted(r["scopes"]), sorted(r.get("users", [])), sorted(r.get("services", [])), r.get("groups", []))
        for r in items
    }


def test_both_renderings_grant_the_same_roles(hub, values):
    on_kubernetes = [{"name": name, **role} for name, role in values["hub"]["loadRoles"].items()]
    culler, scopes = CHART_CULLER
    on_kubernetes.append({"name": culler, "scopes": scopes, "services": [culler]})  # cull.enabled adds it
    assert values["cull"]["enabled"] is True
    assert _roles(hub.JupyterHub.load_roles) == _roles(on_kubernetes)
    assert set(_roles(on_kubernetes)) == {"user", "botie-room", "instructor", culler}
    assert _roles(on_kubernetes)["instructor"][1] == ["lee"]


def test_both_renderings_define_the_same_custom_scopes_and_server_scopes(hub, values):
    assert hub.JupyterHub.custom_scopes == values["hub"]["config"]["JupyterHub"]["custom_scopes"]
    assert "custom:jupyter_server:read:contents" in hub.JupyterHub.custom_scopes  # the room's one right
    assert (
        hub.Spawner.oauth_client_allowed_scopes == values["hub"]["config"]["KubeSpawner"]["oauth_client_allowed_scopes"]
    )


def test_both_renderings_run_the_same_services(hub, values):
    one_server = {s["name"]: s for s in hub.JupyterHub.services}
    on_kubernetes = {**values["hub"]["services"], CHART_CULLER[0]: {}}
    assert set(one_server) == set(on_kubernetes) == {"botie-room", "jupyterhub-idle-culler"}
    room, room_k8s = one_server["botie-room"], values["hub"]["services"]["botie-room"]
    assert {k: room[k] for k in ("oauth_no_confirm", "display")} == {
        k: room_k8s[k] for k in ("oauth_no_confirm", "display")
    }
    assert room["url"].endswith(":10101") and room_k8s["url"].endswith(":10101")
    timeout = [a for a in one_server["jupyterhub-idle-culler"]["command"] if a.startswith("--timeout=")]
    assert timeout == [f"--timeout={values['cull']['timeout']}"]


def test_both_renderings_start_learners_servers_alike(hub, values):
    own = [a for a in hub.Spawner.args if not a.startswith("--config=") and a != "--allow-root"]
    assert own == values["hub"]["config"]["KubeSpawner"]["args"]
    assert "--MappingKernelManager.cull_idle_timeout=3600" in own  # idle kernels are culled on both
    assert hub.Spawner.default_url == values["singleuser"]["defaultUrl"] == "/lab"
    assert values["singleuser"]["extraEnv"].items() <= hub.Spawner.environment.items()
    assert (hub.Spawner.mem_guarantee, hub.Spawner.mem_limit) == tuple(values["singleuser"]["memory"].values())
    assert hub.ConfigurableHTTPProxy.command[1:] == values["proxy"]["chp"]["extraCommandLineFlags"]


def test_both_renderings_let_the_same_people_in(hub, values):
    auth = values["hub"]["config"]["Authenticator"]
    assert set(auth["allowed_users"]) == hub.Authenticator.allowed_users == {"ana", "bo", "cy", "lee"}
    assert set(auth["admin_users"]) == hub.Authenticator.admin_users == {"lee"}
    assert values["hub"]["config"]["JupyterHub"]["load_groups"] == hub.JupyterHub.load_groups


def test_a_changed_setting_reaches_both_renderings(env, monkeypatch):
    monkeypatch.setenv("BOTIE_KERNEL_IDLE", "1800")
    monkeypatch.setenv("BOTIE_SERVER_IDLE", "5400")
    definition = _load("botie_class_definition", ROOT / "classroom" / "definition.py")
    values = definition.helm_values(definition.settings())
    assert "--MappingKernelManager.cull_idle_timeout=1800" in values["hub"]["config"]["KubeSpawner"]["args"]
    assert values["cull"]["timeout"] == 5400


def _keys_known_to_the_chart(values):
    for where, known in CHART_KEYS.items():
        node = values if not where else values[where]
        assert set(node) <= known, f"{where or 'top level'}: {sorted(set(node) - known)} are not chart keys"


def _mebibytes(size: str) -> float:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT])i?", size)
    assert match is not None, size
    number, unit = match.groups()
    return float(number) * {"K": 2**-10, "M": 1, "G": 2**10, "T": 2**20}[unit]


def test_the_values_hold_what_the_chart_needs_for_a_class(values):
    definition = _load("botie_class_definition", ROOT / "classroom" / "definition.py")
    _keys_known_to_the_chart(values)
    single = values["singleuser"]
    assert single["image"]["name"] and single["image"]["tag"]
    guarantee, limit = (_mebibytes(single["memory"][k]) for k in ("guarantee", "limit"))
    assert definition.MEASURED_PEAK_MIB < guarantee <= limit  # a learner's measured peak fits the guarantee
    assert definition.MEASURED_ALL_OPEN_MIB < limit  # and every lesson open at once fits the limit
    assert values["cull"]["enabled"] and values["cull"]["timeout"] > 0
    mounted = single["extraFiles"]["jupyter-server-config"]
    assert mounted["stringData"] == (ROOT / "classroom" / "jupyter_server_config.py").read_text(encoding="utf-8")
    assert mounted["mountPath"] == "/etc/jupyter/jupyter_server_config.py"  # where Jupyter Server looks
    assert single["lifecycleHooks"]["postStart"]["exec"]["command"][0] == "gitpuller"
    assert single["lifecycleHooks"]["postStart"]["exec"]["command"][2:] == ["learner", "botie-workshop"]
    link = values["custom"]["botie"]["learnerLink"]
    assert "/hub/user-redirect/git-pull?" in link and "branch=learner" in link and "00_welcome.ipynb" in link


def test_the_helm_command_prints_yaml_of_these_values(env, capsys):
    definition = _load("botie_class_definition", ROOT / "classroom" / "definition.py")
    assert definition.main(["helm"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("# helm for the Botie class")
    assert yaml.safe_load(printed) == definition.helm_values(definition.settings())


def test_the_example_values_file_is_the_current_rendering(monkeypatch, capsys):
    """classroom/z2jh-values.example.yaml shows reviewers and instructors the rendering; it must not drift."""
    for variable in list(__import__("os").environ):
        if variable.startswith("BOTIE_"):
            monkeypatch.delenv(variable)
    monkeypatch.setenv("BOTIE_LEARNERS", LEARNERS)
    monkeypatch.setenv("BOTIE_INSTRUCTORS", INSTRUCTORS)
    definition = _load("botie_class_definition", ROOT / "classroom" / "definition.py")
    definition.main(["helm"])
    committed = (ROOT / "classroom" / "z2jh-values.example.yaml").read_text(encoding="utf-8")
    assert capsys.readouterr().out == committed, (
        "re-render: BOTIE_LEARNERS=ana,bo,cy BOTIE_INSTRUCTORS=lee python classroom/definition.py helm "
        "> classroom/z2jh-values.example.yaml"
    )


def test_the_room_on_kubernetes_is_where_the_values_say_and_holds_the_charts_token(env):
    definition = _load("botie_class_definition", ROOT / "classroom" / "definition.py")
    deployment, service = definition.room_manifests(definition.settings())
    url = definition.helm_values(definition.settings())["hub"]["services"]["botie-room"]["url"]
    assert url == f"http://{service['metadata']['name']}:{service['spec']['ports'][0]['port']}"
    pod = deployment["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    env = {e["name"]: e for e in container["env"]}
    assert env["JUPYTERHUB_API_TOKEN"]["valueFrom"]["secretKeyRef"]["key"] == "hub.services.botie-room.apiToken"
    assert env["JUPYTERHUB_SERVICE_PREFIX"]["value"] == "/services/botie-room/"
    assert pod["metadata"]["labels"]["hub.jupyter.org/network-access-hub"] == "true"  # else the chart blocks it
    assert service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()


def test_the_learners_image_is_built_from_the_lock_and_holds_no_solutions():
    lines = (ROOT / "classroom" / "Dockerfile").read_text(encoding="utf-8").splitlines()
    copied = " ".join(line for line in lines if line.startswith("COPY"))
    assert "requirements/classroom.txt" in copied and any("--require-hashes" in line for line in lines)
    assert "notebooks" not in copied and "tests" not in copied and "COPY . " not in copied
    assert lines[-1] == 'CMD ["jupyterhub-singleuser"]'


def test_the_instructor_guide_states_the_timeouts_the_class_uses(env):
    """Each row of the guide's 'what stops on its own' table: its setting's default, in the unit it says."""
    definition = _load("botie_class_definition", ROOT / "classroom" / "definition.py")
    guide = (ROOT / "notebooks" / "instructor" / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| [^|]+ \| (\d+) (minutes|seconds) \| `(BOTIE_\w+)=(\d+)` \|", guide, flags=re.M)
    field = {variable: name for name, variable in definition._VARIABLES.items()}
    defaults = definition.Settings()
    assert {variable for *_, variable, _ in rows} == {
        "BOTIE_KERNEL_IDLE",
        "BOTIE_SERVER_IDLE",
        "BOTIE_PROXY_TIMEOUT",
        "BOTIE_KERNEL_INFO_WAIT",
    }
    for amount, unit, variable, seconds in rows:
        assert getattr(defaults, field[variable]) == int(seconds), variable
        assert int(amount) * (60 if unit == "minutes" else 1) == int(seconds), variable
