"""Maintainer tools that are not part of the botie package: the lock writer and the JupyterHub driver."""
