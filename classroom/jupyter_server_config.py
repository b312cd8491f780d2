"""Each learner's Jupyter Server: honour the hub's custom scopes, action by action.

Without this, any token that passes the hub's ``access:servers`` check could do
everything on a server (run code, write files). With it, the server asks the
hub which ``custom:jupyter_server:<action>:<resource>`` scopes the caller holds:
the learner holds ``execute:*`` on their own server (everything), the
instructor's room service holds only ``read:contents`` (it can read the
progress file and cannot run code or change anything).

It also puts the kernels' sockets in a short folder of the learner's own, and makes the server shut
its kernels down when the hub stops it (below).
"""

import hashlib
import os
import re
import signal
import stat

import zmq
from jupyterhub.singleuser.extension import JupyterHubAuthorizer


class ScopedAuthorizer(JupyterHubAuthorizer):
    def is_authorized(self, handler, user, action, resource):
        owner = os.environ["JUPYTERHUB_USER"]
        server = f"{owner}/{os.environ.get('JUPYTERHUB_SERVER_NAME', '')}"
        wanted = set()
        for where in (f"!user={owner}", f"!server={server}"):
            wanted.add(f"custom:jupyter_server:{action}:{resource}{where}")
            wanted.add(f"custom:jupyter_server:{action}:*{where}")
        return bool(self.hub_auth.check_scopes(wanted, user.hub_user))


#: The longest path a Unix socket may have (107 bytes on Linux, 103 on macOS). A kernel's sockets are
#: <folder>/kernel-<36-character id>-ipc-<n>.
SOCKET_PATH_MAX = zmq.IPC_PATH_MAX_LEN
SOCKET_NAME = len("/kernel-") + 36 + len("-ipc-") + 2  # n is 1 to 5 for a new kernel; two digits to spare


def kernel_socket_folder(base, user):
    """``<base>-<user>``; a digest of the name instead when the name would make a socket's path too long or
    holds characters a file name should not."""
    folder = f"{base}-{user}"
    if not re.fullmatch(r"[A-Za-z0-9._-]+", user) or len(folder.encode()) + SOCKET_NAME > SOCKET_PATH_MAX:
        folder = f"{base}-{hashlib.sha256(user.encode()).hexdigest()[:12]}"
    if len(folder.encode()) + SOCKET_NAME > SOCKET_PATH_MAX:
        raise SystemExit(
            f"BOTIE_KERNEL_SOCKETS={base!r} is too long: a kernel's socket path in {folder} would pass "
            f"{SOCKET_PATH_MAX} bytes. Choose a shorter folder (the class's default is /tmp/botie-k)."
        )
    return folder


def private_folder(path):
    """Make ``path`` for this user alone, or refuse to start: whoever owns the folder could reach the
    kernels' sockets (on a shared machine another learner could make it first)."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise SystemExit(
            f"{path} is not a folder that only this user ({os.getuid()}) can open, so kernels' sockets cannot "
            "go there. Remove it (as root, if another user made it) and start the server again."
        )
    return path


c = get_config()  # noqa: F821
c.ServerApp.authorizer_class = ScopedAuthorizer
# Kernels run over IPC (definition.server_args); their connection files and sockets go to the server's
# runtime folder, which by default is under the learner's home and may be too deep for a socket's path.
# Set before the server reads it, which it does after loading this file.
if os.environ.get("BOTIE_KERNEL_SOCKETS"):
    os.environ["JUPYTER_RUNTIME_DIR"] = private_folder(
        kernel_socket_folder(os.environ["BOTIE_KERNEL_SOCKETS"], os.environ["JUPYTERHUB_USER"])
    )


def stop_with_kernels(signum, frame):
    """The hub stops a learner's server with SIGINT. Without a terminal, Jupyter Server takes SIGINT as
    Ctrl-C and exits at once, leaving each kernel to notice its parent is gone; a kernel that cannot (one
    whose start failed halfway) outlives the hub. Stop as on SIGTERM instead: kernels first, then the server."""
    from jupyter_server.serverapp import ServerApp

    ServerApp.instance()._signal_stop(signum, frame)


signal.signal(signal.SIGINT, stop_with_kernels)
