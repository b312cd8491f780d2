"""The instructor's view of the room: where the class is stuck and what it predicted, the page that shows it,
and the JupyterHub service that serves that page (its configuration is in the top-level classroom/ folder)."""
