"""The class, written once: who comes, what each may do, which services run, the learners' server and limits.

Two renderings read this one definition:

- ``classroom/jupyterhub_config.py``: one JupyterHub on one machine (what The Littlest JupyterHub gives);
- ``python classroom/definition.py helm > values.yaml``: the values for Zero to JupyterHub, the Helm chart
  that runs the same class on Kubernetes once one machine is outgrown.

Every setting an instructor may change is an environment variable with a default, read once by
:func:`settings`, so both renderings see the same values. ``tests/classroom/test_definition.py`` checks
that the two agree on every role, scope and service.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # botie.lessons.room.room, for the room's scopes
from botie.lessons.room.room import ROOM_SCOPES  # noqa: E402

#: Where the learner edition is published (classroom/publish.py) and where nbgitpuller puts it.
BRANCH = "learner"
TARGET = "botie-workshop"
FIRST_LESSON = "notebooks/00_welcome.ipynb"
ROOM = "botie-room"
CULLER = "jupyterhub-idle-culler"  # the name the Zero to JupyterHub chart gives its culler
ROOM_PORT = 10101
#: Measured by `make bench-class LEARNERS=20`: a learner's server plus one running kernel at its peak, the
#: highest learner (MiB); and the same learner's server with every lesson's kernel open (nine lessons).
MEASURED_PEAK_MIB = 346
MEASURED_ALL_OPEN_MIB = 1370


@dataclass(frozen=True)
class Settings:
    """What an instructor may change for one class. Times in seconds."""

    learners: tuple[str, ...] = ()
    instructors: tuple[str, ...] = ()
    repo: str = "https://git.example.org/botie.git"  # where the learner branch is pushed
    image: str = "registry.example.org/botie-workshop"  # the learners' image (classroom/Dockerfile)
    tag: str = "latest"
    # A kernel nobody has used for this long is stopped, tab open or not; longer than the longest break
    # (lunch, 45 minutes). A busy kernel is never stopped.
    kernel_idle: int = 3600
    # A server without activity for this long is stopped by the hub's culler (files stay).
    server_idle: int = 7200
    cull_every: int = 300
    # How long a learner's server waits for a new kernel to answer before giving up on it...
    kernel_info_wait: int = 60
    # ...and how long the proxy waits for a learner's server: longer than that, so the learner gets the
    # server's answer rather than the proxy's timeout (599) when a room starts kernels at once.
    proxy_timeout: int = 120
    room_refresh: int = 5
    # Kernels talk to the learner's server over Unix sockets (IPC) in a private folder named this plus
    # "-<learner>", rather than over TCP ports: ports picked free for 20 servers' kernels at once were
    # taken by another connection before the kernel bound them ("Address already in use"). A socket's path
    # may be at most 107 bytes, so the folder is short, not under the learner's home.
    kernel_sockets: str = "/tmp/botie-k"
    # Per learner: the measured peak plus a second lesson's kernel guaranteed (what kernel culling leaves a
    # learner moving through lessons of up to an hour); a limit that holds all nine lessons open.
    memory_guarantee: str = "512M"
    memory_limit: str = "1536M"
    # 20 learners on 2 cores (a tenth each) waited 47 s for lesson 00 when all ran it at once; a fifth halves that
    cpu_guarantee: float = 0.2
    cpu_limit: float = 1.0


_VARIABLES = {  # field: environment variable
    "repo": "BOTIE_WORKSHOP_REPO",
    "image": "BOTIE_IMAGE",
    "tag": "BOTIE_IMAGE_TAG",
    "kernel_idle": "BOTIE_KERNEL_IDLE",
    "server_idle": "BOTIE_SERVER_IDLE",
    "cull_every": "BOTIE_CULL_EVERY",
    "kernel_info_wait": "BOTIE_KERNEL_INFO_WAIT",
    "proxy_timeout": "BOTIE_PROXY_TIMEOUT",
    "room_refresh": "BOTIE_ROOM_REFRESH",
    "kernel_sockets": "BOTIE_KERNEL_SOCKETS",
    "memory_guarantee": "BOTIE_MEMORY_GUARANTEE",
    "memory_limit": "BOTIE_MEMORY_LIMIT",
    "cpu_guarantee": "BOTIE_CPU_GUARANTEE",
    "cpu_limit": "BOTIE_CPU_LIMIT",
}


def _names(text: str) -> tuple[str, ...]:
    return tuple(sorted({name.strip() for name in text.split(",") if name.strip()}))


def settings(env: Mapping[str, str] = os.environ) -> Settings:
    """The class's settings from the environment (BOTIE_LEARNERS, BOTIE_INSTRUCTORS, and the others above)."""
    defaults = Settings()
    chosen: dict[str, Any] = {
        "learners": _names(env.get("BOTIE_LEARNERS", "")),
        "instructors": _names(env.get("BOTIE_INSTRUCTORS", "")),
    }
    for name, variable in _VARIABLES.items():
        if variable in env:
            chosen[name] = type(getattr(defaults, name))(env[variable])
    return Settings(**chosen)


# --- permissions: the same on one server and on Kubernetes ---------------------------------------------

#: Jupyter Server asks "may this user <read|write|execute> <resource>?"; these custom scopes answer it
#: (classroom/jupyter_server_config.py enforces them on every learner's server).
CUSTOM_SCOPES = {
    "custom:jupyter_server:read:*": {"description": "read anything on a server"},
    "custom:jupyter_server:read:contents": {"description": "read files on a server, nothing else"},
    "custom:jupyter_server:write:*": {"description": "change files", "subscopes": ["custom:jupyter_server:read:*"]},
    "custom:jupyter_server:execute:*": {
        "description": "run code",
        "subscopes": ["custom:jupyter_server:write:*", "custom:jupyter_server:read:*"],
    },
}
#: What a learner's browser session may ask its own server for: everything, on that server only.
SERVER_OAUTH_SCOPES = ["access:servers!server", "custom:jupyter_server:execute:*!server"]
#: The culler's scopes, and no more (jupyterhub-idle-culler's documented minimum, without deleting users).
CULLER_SCOPES = ["list:users", "read:users:activity", "read:servers", "delete:servers"]


def groups(s: Settings) -> dict[str, Any]:
    return {"learners": {"users": list(s.learners)}}


def roles(s: Settings) -> list[dict[str, Any]]:
    """Every role of the class. The culler's role is here too: on Kubernetes the chart runs the same culler."""
    return [
        {"name": "user", "scopes": ["self", "custom:jupyter_server:execute:*!user"]},
        {"name": ROOM, "scopes": list(ROOM_SCOPES), "services": [ROOM]},
        {"name": "instructor", "scopes": [f"access:services!service={ROOM}"], "users": list(s.instructors)},
        {"name": CULLER, "scopes": list(CULLER_SCOPES), "services": [CULLER]},
    ]


def room_service(s: Settings, url: str) -> dict[str, Any]:
    """The room view as a hub service at ``url`` (how it is started differs: see each rendering)."""
    return {"name": ROOM, "url": url, "oauth_no_confirm": True, "display": True}


def culler_args(s: Settings) -> list[str]:
    return [f"--timeout={s.server_idle}", f"--cull-every={s.cull_every}"]


# --- each learner's server -----------------------------------------------------------------------------


def server_args(s: Settings) -> list[str]:
    """Arguments every learner's server starts with: idle kernels culled, the wait for a new kernel."""
    return [
        f"--MappingKernelManager.cull_idle_timeout={s.kernel_idle}",
        f"--MappingKernelManager.cull_interval={min(300, s.kernel_idle)}",
        "--MappingKernelManager.cull_connected=True",  # a tab left open does not keep a kernel forever
        "--MappingKernelManager.cull_busy=False",  # a running cell is never stopped
        f"--MappingKernelManager.kernel_info_timeout={s.kernel_info_wait}",
        # Over IPC no port is picked and then bound, so none can be taken in between; the sockets' folder
        # comes from server_environment (Settings.kernel_sockets).
        "--KernelManager.transport=ipc",
    ]


def server_environment(s: Settings) -> dict[str, str]:
    """The learners' environment variables: the Jupyter Server 2 extension, which honours custom scopes; and
    where kernels' sockets go (jupyter_server_config.py makes the learner's own private folder there)."""
    return {"JUPYTERHUB_SINGLEUSER_EXTENSION": "1", "BOTIE_KERNEL_SOCKETS": s.kernel_sockets}


DEFAULT_URL = "/lab"


def proxy_flags(s: Settings) -> list[str]:
    return [f"--proxy-timeout={s.proxy_timeout * 1000}"]  # milliseconds


def learner_link(s: Settings, hub: str) -> str:
    """The nbgitpuller link that hands each learner the learner edition, opening lesson 00."""
    query = urlencode(
        {"repo": s.repo, "branch": BRANCH, "targetpath": TARGET, "urlpath": f"lab/tree/{TARGET}/{FIRST_LESSON}"}
    )
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{query}"


# --- the Zero to JupyterHub rendering ------------------------------------------------------------------


def _by_name(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The chart takes roles and services as a mapping from name to the rest."""
    return {item["name"]: {k: v for k, v in item.items() if k != "name"} for item in items}


def helm_values(s: Settings, hub: str = "https://hub.example.org") -> dict[str, Any]:
    """Values for the Zero to JupyterHub chart: the same class, one pod per learner."""
    room_url = f"http://{ROOM}:{ROOM_PORT}"  # the room runs beside the hub: classroom/README.md shows how
    return {
        "hub": {
            "config": {
                "Authenticator": {
                    "allowed_users": sorted({*s.learners, *s.instructors}),
                    "admin_users": list(s.instructors),
                },
                "JupyterHub": {"custom_scopes": CUSTOM_SCOPES, "load_groups": groups(s)},
                "KubeSpawner": {"args": server_args(s), "oauth_client_allowed_scopes": SERVER_OAUTH_SCOPES},
            },
            "services": _by_name([room_service(s, room_url)]),
            # The chart runs the culler itself (cull: below) and grants it this same role under this same
            # name; declaring it again would define the role twice.
            "loadRoles": _by_name([role for role in roles(s) if role["name"] != CULLER]),
        },
        "proxy": {"chp": {"extraCommandLineFlags": proxy_flags(s)}},
        "singleuser": {
            "image": {"name": s.image, "tag": s.tag},
            "defaultUrl": DEFAULT_URL,
            "extraEnv": server_environment(s),
            "memory": {"guarantee": s.memory_guarantee, "limit": s.memory_limit},
            "cpu": {"guarantee": s.cpu_guarantee, "limit": s.cpu_limit},
            "extraFiles": {
                "jupyter-server-config": {
                    "mountPath": "/etc/jupyter/jupyter_server_config.py",
                    "stringData": (HERE / "jupyter_server_config.py").read_text(encoding="utf-8"),
                }
            },
            # Every learner's server starts with the learner edition already pulled; the link does the same.
            "lifecycleHooks": {
                "postStart": {"exec": {"command": ["gitpuller", s.repo, BRANCH, TARGET]}},
            },
        },
        "cull": {"enabled": True, "timeout": s.server_idle, "every": s.cull_every},
        "custom": {"botie": {"learnerLink": learner_link(s, hub)}},
    }


def room_manifests(s: Settings) -> list[dict[str, Any]]:
    """The room view on Kubernetes: a Deployment running it from the learners' image, and its Service.

    The chart registers the service (hub.services) and keeps its token in the hub's Secret; the room
    reads learners' files through the proxy, as on one server.
    """
    prefix = f"/services/{ROOM}/"
    env = {
        "JUPYTERHUB_API_URL": "http://hub:8081/hub/api",
        "JUPYTERHUB_SERVICE_NAME": ROOM,
        "JUPYTERHUB_SERVICE_URL": f"http://0.0.0.0:{ROOM_PORT}",
        "JUPYTERHUB_SERVICE_PREFIX": prefix,
        "JUPYTERHUB_CLIENT_ID": f"service-{ROOM}",
        "JUPYTERHUB_OAUTH_CALLBACK_URL": f"{prefix}oauth_callback",
        "JUPYTERHUB_BASE_URL": "/",
        "BOTIE_HUB_PUBLIC_URL": "http://proxy-public",
        "BOTIE_ROOM_REFRESH": str(s.room_refresh),
    }
    token = {"secretKeyRef": {"name": "hub", "key": f"hub.services.{ROOM}.apiToken"}}
    labels = {"app": ROOM}
    container = {
        "name": ROOM,
        "image": f"{s.image}:{s.tag}",
        "command": ["python", "-m", "botie.lessons.room.room_service"],
        "env": [{"name": k, "value": v} for k, v in env.items()]
        + [{"name": "JUPYTERHUB_API_TOKEN", "valueFrom": token}],
        "ports": [{"containerPort": ROOM_PORT}],
    }
    # The chart's network policy lets the hub be reached only by pods carrying this label.
    pod_labels = {**labels, "hub.jupyter.org/network-access-hub": "true"}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": ROOM, "labels": dict(labels)},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": dict(labels)},
            "template": {"metadata": {"labels": pod_labels}, "spec": {"containers": [container]}},
        },
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": ROOM},
        "spec": {"selector": dict(labels), "ports": [{"port": ROOM_PORT, "targetPort": ROOM_PORT}]},
    }
    return [deployment, service]


def main(argv: list[str] | None = None) -> int:
    import argparse

    import yaml  # PyYAML: installed with Jupyter Server (jupyter_events), so with the classroom extra

    parser = argparse.ArgumentParser(description="Render the class for Zero to JupyterHub.")
    parser.add_argument("what", choices=["helm", "room"], help="helm: the chart's values; room: the room's manifests")
    parser.add_argument("--hub", default="https://hub.example.org", help="the hub's public address, for the link")
    args = parser.parse_args(argv)
    header = f"# {args.what} for the Botie class on Zero to JupyterHub, from classroom/definition.py. Re-render.\n"
    if args.what == "helm":
        print(header + yaml.safe_dump(helm_values(settings(), args.hub), sort_keys=False, width=120), end="")
    else:
        print(header + yaml.safe_dump_all(room_manifests(settings()), sort_keys=False, width=120), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
