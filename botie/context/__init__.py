"""Which records may enter a model request.

Read in this order: :mod:`~botie.context.records` (a candidate and its
metadata), :mod:`~botie.context.budget` and :mod:`~botie.context.selection`
(permission, then packing into an allowance), :mod:`~botie.context.tokens`
and :mod:`~botie.context.routing` (count first, then choose a strategy),
:mod:`~botie.context.provenance` (freshness, trust, relevance, completeness),
:mod:`~botie.context.evidence` (rendering the request),
:mod:`~botie.context.citations` and :mod:`~botie.context.conversation`.
"""
