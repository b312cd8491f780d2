"""Each learner's Jupyter Server: honour the hub's custom scopes, action by action.

Without this, any token that passes the hub's ``access:servers`` check could do
everything on a server (run code, write files). With it, the server asks the
hub which ``custom:jupyter_server:<action>:<resource>`` scopes the caller holds:
the learner holds ``execute:*`` on their own server (everything), the
instructor's room service holds only ``read:contents`` (it can read the
progress file and cannot run code or change anything).

It also makes the server shut its kernels down when the hub stops it (below).
"""

import os
import signal

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


c = get_config()  # noqa: F821
c.ServerApp.authorizer_class = ScopedAuthorizer


def stop_with_kernels(signum, frame):
    """The hub stops a learner's server with SIGINT. Without a terminal, Jupyter Server takes SIGINT as
    Ctrl-C and exits at once, leaving each kernel to notice its parent is gone; a kernel that cannot (one
    whose start failed halfway) outlives the hub. Stop as on SIGTERM instead: kernels first, then the server."""
    from jupyter_server.serverapp import ServerApp

    ServerApp.instance()._signal_stop(signum, frame)


signal.signal(signal.SIGINT, stop_with_kernels)
