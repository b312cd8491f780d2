"""Each learner's Jupyter Server: honour the hub's custom scopes, action by action.

Without this, any token that passes the hub's ``access:servers`` check could do
everything on a server (run code, write files). With it, the server asks the
hub which ``custom:jupyter_server:<action>:<resource>`` scopes the caller holds:
the learner holds ``execute:*`` on their own server (everything), the
instructor's room service holds only ``read:contents`` (it can read the
progress file and cannot run code or change anything).
"""

import os

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
