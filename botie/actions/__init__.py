"""When a model's proposed tool call may become an action.

Read in this order: :mod:`~botie.actions.tool` (the tool definition and
argument validation), :mod:`~botie.actions.decision` (validation, permission,
approval bound to the payload, idempotency: one frozen decision),
:mod:`~botie.actions.stores` (where retries find what was done before) and
:mod:`~botie.actions.service` (the decision carried out against a store).
"""
