"""When a model's proposed tool call may become an action.

Read in this order: :mod:`~botie.actions.tool` (the tool definition and
argument validation), :mod:`~botie.actions.decision` (validation, permission,
approval bound to the payload, idempotency: one frozen decision),
:mod:`~botie.actions.stores` (where retries find what was done before),
:mod:`~botie.actions.service` (the decision carried out against a store) and
:mod:`~botie.actions.retry` (sending again only what may succeed unchanged,
within a limit). :mod:`~botie.actions.canonical` says when two payloads are
the same intended action.
"""
