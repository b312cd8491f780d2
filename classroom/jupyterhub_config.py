"""JupyterHub for one workshop on one machine (the shape The Littlest JupyterHub gives you).

Start it from the repository root, in the environment where botie and the
``classroom`` extra are installed (``pip install -e ".[notebooks,classroom]"``):

    BOTIE_LEARNERS=ana,bo,cy BOTIE_INSTRUCTORS=lee jupyterhub -f classroom/jupyterhub_config.py

Every setting the class may want to change is an environment variable, read
once below, so the tests, the benchmark and a real class share this one file:

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
BIN = Path(sys.executable).parent
TEST_MODE = os.environ.get("BOTIE_CLASSROOM_TEST") == "1"
STATE = Path(os.environ.get("BOTIE_HUB_STATE", "hub-state")).resolve()
STATE.mkdir(parents=True, exist_ok=True)
HUB_URL = os.environ.get("BOTIE_HUB_URL", "http://127.0.0.1:8000")


def _names(variable):
    return {name.strip() for name in os.environ.get(variable, "").split(",") if name.strip()}


LEARNERS, INSTRUCTORS = _names("BOTIE_LEARNERS"), _names("BOTIE_INSTRUCTORS")

# --- where things listen: everything internal stays on the loopback --------------------
c.JupyterHub.bind_url = HUB_URL
c.JupyterHub.hub_bind_url = os.environ.get("BOTIE_HUB_API_URL", "http://127.0.0.1:8081")
c.ConfigurableHTTPProxy.api_url = os.environ.get("BOTIE_PROXY_API_URL", "http://127.0.0.1:8001")
# The Python configurable-http-proxy package (no Node.js needed), from this environment.
# How long the proxy waits for a learner's server to answer a request or a kernel websocket handshake.
# Unset, the Python proxy inherits tornado's 20 s request timeout and answers 599 "Timeout during request"
# when a kernel is slow to start under load (a room pressing Run All at once on a small server); the
# server itself waits up to KERNEL_INFO_WAIT for a new kernel, so the proxy must wait longer than that,
# or the learner gets the proxy's timeout instead of the server's answer.
KERNEL_INFO_WAIT = int(os.environ.get("BOTIE_KERNEL_INFO_WAIT", "60"))
PROXY_TIMEOUT = int(os.environ.get("BOTIE_PROXY_TIMEOUT", "120"))
c.ConfigurableHTTPProxy.command = [
    shutil.which("configurable-http-proxy", path=str(BIN)) or "configurable-http-proxy",
    f"--proxy-timeout={PROXY_TIMEOUT * 1000}",  # milliseconds
]
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")

# --- who may come in ---------------------------------------------------------------------
c.Authenticator.allowed_users = LEARNERS | INSTRUCTORS
c.Authenticator.admin_users = INSTRUCTORS
c.JupyterHub.load_groups = {"learners": {"users": sorted(LEARNERS)}}
if TEST_MODE:
    c.JupyterHub.authenticator_class = "dummy"
    if os.environ.get("BOTIE_DUMMY_PASSWORD"):
        c.DummyAuthenticator.password = os.environ["BOTIE_DUMMY_PASSWORD"]
    c.JupyterHub.spawner_class = "simple"  # every server as this user, home under BOTIE_HUB_HOMES
    c.SimpleLocalProcessSpawner.home_dir_template = str(Path(os.environ["BOTIE_HUB_HOMES"]) / "{username}")

# --- each learner's server ----------------------------------------------------------------
c.Spawner.cmd = [str(BIN / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.Spawner.args = [f"--config={HERE / 'jupyter_server_config.py'}"]
if os.geteuid() == 0:
    c.Spawner.args.append("--allow-root")  # only where the hub itself runs as root (tests, containers)
# Idle kernels: each learner's server stops a kernel nobody has used for KERNEL_IDLE seconds, even with
# its tab open (a learner who opened all six lessons would otherwise hold six kernels all day). Longer
# than the longest break (lunch, 45 minutes), so the lesson a learner left at lunch is still there after
# it; a busy kernel is never stopped. A stopped kernel's notebook is untouched: Kernel > Restart Kernel
# and Run All Cells brings it back.
KERNEL_IDLE = int(os.environ.get("BOTIE_KERNEL_IDLE", "3600"))
c.Spawner.args += [
    f"--MappingKernelManager.cull_idle_timeout={KERNEL_IDLE}",
    "--MappingKernelManager.cull_interval=300",
    "--MappingKernelManager.cull_connected=True",
    "--MappingKernelManager.cull_busy=False",
    f"--MappingKernelManager.kernel_info_timeout={KERNEL_INFO_WAIT}",
]
c.Spawner.environment = {
    "JUPYTERHUB_SINGLEUSER_EXTENSION": "1",  # the Jupyter Server 2 extension, which honours custom scopes
    "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",  # git for nbgitpuller, this Python for kernels
}

# --- permissions: what each kind of token may do on a learner's server ---------------------
# Jupyter Server asks "may this user <read|write|execute> <resource>?"; these custom scopes answer it
# (jupyter_server_config.py enforces them). Learners get everything on their own server only.
c.JupyterHub.custom_scopes = {
    "custom:jupyter_server:read:*": {"description": "read anything on a server"},
    "custom:jupyter_server:read:contents": {"description": "read files on a server, nothing else"},
    "custom:jupyter_server:write:*": {"description": "change files", "subscopes": ["custom:jupyter_server:read:*"]},
    "custom:jupyter_server:execute:*": {
        "description": "run code",
        "subscopes": ["custom:jupyter_server:write:*", "custom:jupyter_server:read:*"],
    },
}
c.Spawner.oauth_client_allowed_scopes = ["access:servers!server", "custom:jupyter_server:execute:*!server"]

sys.path.insert(0, str(HERE.parent))  # so the hub finds botie.lessons.classroom.room for the scopes below
from botie.lessons.classroom.room import ROOM_SCOPES  # noqa: E402

ROOM_PORT = int(os.environ.get("BOTIE_ROOM_PORT", "10101"))
c.JupyterHub.services = [
    {
        "name": "botie-room",
        "url": f"http://127.0.0.1:{ROOM_PORT}",
        "command": [sys.executable, "-m", "botie.lessons.classroom.room_service"],
        "environment": {
            "BOTIE_HUB_PUBLIC_URL": HUB_URL,
            "PYTHONPATH": str(HERE.parent),
            "BOTIE_ROOM_REFRESH": os.environ.get("BOTIE_ROOM_REFRESH", "5"),  # seconds between page reloads
        },
        "oauth_no_confirm": True,
        # tests pin the room's token so they can show what it cannot do; otherwise the hub makes one
        **({"api_token": os.environ["BOTIE_ROOM_TOKEN"]} if TEST_MODE and os.environ.get("BOTIE_ROOM_TOKEN") else {}),
        "display": True,
    }
]
# Idle servers: the hub's culler stops a learner's server after SERVER_IDLE seconds without activity
# (files stay in the learner's home; the nbgitpuller link starts it again). While the room page is open,
# its reads count as activity, so during class servers stay up and only idle kernels are stopped.
SERVER_IDLE = int(os.environ.get("BOTIE_SERVER_IDLE", "7200"))
c.JupyterHub.services.append(
    {
        "name": "idle-culler",
        "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={SERVER_IDLE}", "--cull-every=300"],
    }
)
c.JupyterHub.load_roles = [
    {
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    },
    {"name": "user", "scopes": ["self", "custom:jupyter_server:execute:*!user"]},
    {"name": "botie-room", "scopes": list(ROOM_SCOPES), "services": ["botie-room"]},
    {"name": "instructor", "scopes": ["access:services!service=botie-room"], "users": sorted(INSTRUCTORS)},
]

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
