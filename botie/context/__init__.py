"""Which records may enter a model request.

Read in this order: :mod:`~botie.context.records` (a candidate and its
metadata), :mod:`~botie.context.budget` and :mod:`~botie.context.selection`
(permission, then packing into an allowance), :mod:`~botie.context.tokens`
and :mod:`~botie.context.routing` (count first, then choose a strategy),
:mod:`~botie.context.chunks` (parts split at sentence ends, and summaries,
each leading back to its document),
:mod:`~botie.context.provenance` (freshness, trust, relevance, completeness),
:mod:`~botie.context.register` (each document's revisions and when each takes effect),
:mod:`~botie.context.subquestions` (one selection per need of a question
that asks for several), :mod:`~botie.context.evidence` (rendering the
request), :mod:`~botie.context.citations`, :mod:`~botie.context.conversation`
and :mod:`~botie.context.memory` (what a conversation carries into its next
turn).
"""
