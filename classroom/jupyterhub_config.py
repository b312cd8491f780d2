"""JupyterHub for one workshop on one machine (the shape The Littlest JupyterHub gives you).

Start it from the repository root, in the environment where botie and the
``classroom`` extra are installed (``pip install -e ".[notebooks,classroom]"``):

    BOTIE_LEARNERS=ana,bo,cy BOTIE_INSTRUCTORS=lee jupyterhub -f classroom/jupyterhub_config.py

What the class is (who comes, roles and scopes, services, the learners' server, the
timeouts and limits) is written once in ``classroom/definition.py``, which also renders the
Zero to JupyterHub values; this file adds only what is particular to one machine. Every
setting is an environment variable (the class's are listed in definition.py), so the tests,
the benchmark and a real class share this one file:

- BOTIE_HUB_URL (default http://127.0.0.1:8000): where people reach the hub. Keep
  127.0.0.1 and put TLS in front (nginx, caddy), or set a public address.
- BOTIE_HUB_STATE (default ./hub-state): the hub's database, cookie secret, pid file.
- BOTIE_LEARNERS, BOTIE_INSTRUCTORS: comma-separated user names.
- BOTIE_CLASSROOM_TEST=1: test mode only. The dummy authenticator (any password;
  BOTIE_DUMMY_PASSWORD sets one), every learner's server run as this same system user
  with its home under BOTIE_HUB_HOMES. Never for a real class: learners sharing a
  system user can read each other's files from a kernel.

A real class uses system accounts: the default LocalProcessSpawner starts each
learner's server as that learner's own Unix user (create them first, e.g.
``useradd -m ana``), with the PAM authenticator. The Littlest JupyterHub does the
same with systemd units and adds per-learner memory limits.
"""

import os
import shutil
import sys
from pathlib import Path

c = get_config()  # noqa: F821  (JupyterHub provides get_config in config files)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import definition  # noqa: E402  (classroom/definition.py: the class, written once)

CLASS = definition.settings()
BIN = Path(sys.executable).parent
TEST_MODE = os.environ.get("BOTIE_CLASSROOM_TEST") == "1"
STATE = Path(os.environ.get("BOTIE_HUB_STATE", "hub-state")).resolve()
STATE.mkdir(parents=True, exist_ok=True)
HUB_URL = os.environ.get("BOTIE_HUB_URL", "http://127.0.0.1:8000")

# --- where things listen: everything internal stays on the loopback --------------------
c.JupyterHub.bind_url = HUB_URL
c.JupyterHub.hub_bind_url = os.environ.get("BOTIE_HUB_API_URL", "http://127.0.0.1:8081")
c.ConfigurableHTTPProxy.api_url = os.environ.get("BOTIE_PROXY_API_URL", "http://127.0.0.1:8001")
# The Python configurable-http-proxy package (no Node.js needed), from this environment, with the
# class's proxy timeout: unset, this proxy inherits tornado's 20 s and answers a slow kernel handshake
# with 599 "Timeout during request" (see definition.Settings.proxy_timeout).
c.ConfigurableHTTPProxy.command = [
    shutil.which("configurable-http-proxy", path=str(BIN)) or "configurable-http-proxy",
    *definition.proxy_flags(CLASS),
]
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")

# --- who may come in ---------------------------------------------------------------------
c.Authenticator.allowed_users = {*CLASS.learners, *CLASS.instructors}
c.Authenticator.admin_users = set(CLASS.instructors)
c.JupyterHub.load_groups = definition.groups(CLASS)
if TEST_MODE:
    c.JupyterHub.authenticator_class = "dummy"
    if os.environ.get("BOTIE_DUMMY_PASSWORD"):
        c.DummyAuthenticator.password = os.environ["BOTIE_DUMMY_PASSWORD"]
    c.JupyterHub.spawner_class = "simple"  # every server as this user, home under BOTIE_HUB_HOMES
    c.SimpleLocalProcessSpawner.home_dir_template = str(Path(os.environ["BOTIE_HUB_HOMES"]) / "{username}")

# --- each learner's server ----------------------------------------------------------------
c.Spawner.cmd = [str(BIN / "jupyterhub-singleuser")]
c.Spawner.default_url = definition.DEFAULT_URL
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
# idle kernels culled, the wait for a new kernel (definition.server_args), and the scopes' enforcer
c.Spawner.args = [f"--config={HERE / 'jupyter_server_config.py'}", *definition.server_args(CLASS)]
if os.geteuid() == 0:
    c.Spawner.args.append("--allow-root")  # only where the hub itself runs as root (tests, containers)
c.Spawner.environment = {
    **definition.server_environment(CLASS),
    "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",  # git for nbgitpuller, this Python for kernels
}
# The local spawner does not enforce these (Kubernetes does); it passes them on as MEM_LIMIT and
# CPU_LIMIT, which JupyterLab's resource indicator shows. On one machine the sizing table is the limit.
c.Spawner.mem_guarantee, c.Spawner.mem_limit = CLASS.memory_guarantee, CLASS.memory_limit
c.Spawner.cpu_guarantee, c.Spawner.cpu_limit = CLASS.cpu_guarantee, CLASS.cpu_limit

# --- permissions and services (definition.py has what each may do, and why) ------------------
c.JupyterHub.custom_scopes = definition.CUSTOM_SCOPES
c.Spawner.oauth_client_allowed_scopes = definition.SERVER_OAUTH_SCOPES
ROOM_PORT = int(os.environ.get("BOTIE_ROOM_PORT", str(definition.ROOM_PORT)))
c.JupyterHub.services = [
    {
        **definition.room_service(CLASS, f"http://127.0.0.1:{ROOM_PORT}"),
        "command": [sys.executable, "-m", "botie.lessons.room.room_service"],
        "environment": {
            "BOTIE_HUB_PUBLIC_URL": HUB_URL,
            "PYTHONPATH": str(HERE.parent),
            "BOTIE_ROOM_REFRESH": str(CLASS.room_refresh),  # seconds between page reloads
        },
        # tests pin the room's token so they can show what it cannot do; otherwise the hub makes one
        **({"api_token": os.environ["BOTIE_ROOM_TOKEN"]} if TEST_MODE and os.environ.get("BOTIE_ROOM_TOKEN") else {}),
    },
    # Idle servers: stopped after CLASS.server_idle without activity (files stay; the link starts them
    # again). While the room page is open its reads count as activity, so during class servers stay up
    # and only idle kernels are stopped.
    {
        "name": definition.CULLER,
        "command": [sys.executable, "-m", "jupyterhub_idle_culler", *definition.culler_args(CLASS)],
    },
]
c.JupyterHub.load_roles = definition.roles(CLASS)

# Tests and the class benchmark drive the hub as an operator: start servers, make learners' tokens.
if TEST_MODE and os.environ.get("BOTIE_OPERATOR_TOKEN"):
    c.JupyterHub.services.append({"name": "botie-operator", "api_token": os.environ["BOTIE_OPERATOR_TOKEN"]})
    c.JupyterHub.load_roles.append(
        {
            "name": "botie-operator",
            "scopes": ["admin:users", "admin:servers", "tokens", "list:users"],
            "services": ["botie-operator"],
        }
    )
