"""Lesson 03's design exercise, ``choose_documents``: two different valid designs and one wrong design per invariant.

Each wrong design breaks exactly one of the invariants the check holds (see
``botie.lessons.exercises.lesson03.INVARIANTS``); tests/lessons/exercises/test_design_03.py proves it.
Shared with tests/lessons/exercises/test_exercises_evidence.py, which runs the generic checks on every exercise.
"""

from __future__ import annotations


def _by_relevance(docs):
    return sorted(docs, key=lambda doc: (-doc.score, doc.id))


def stop_at_misfit(docs, soft_budget):
    """Section 3's rule: by score, read whole documents until the next does not fit, then stop."""
    chosen, used = [], 0
    for doc in _by_relevance(docs):
        if used + doc.cost > soft_budget:
            break
        chosen.append(doc.id)
        used += doc.cost
    return chosen


def skip_past_misfit(docs, soft_budget):
    """The instructor edition's design: by score, step over a document that does not fit and keep going."""
    chosen, used = [], 0
    for doc in _by_relevance(docs):
        if used + doc.cost <= soft_budget:
            chosen.append(doc.id)
            used += doc.cost
    return chosen


def _overflow_by_one(docs, soft_budget):
    chosen, used = [], 0
    for doc in _by_relevance(docs):
        chosen.append(doc.id)
        used += doc.cost
        if used > soft_budget:  # checks after adding, so the last one read goes over
            break
    return chosen


def _first_named_twice(docs, soft_budget):
    chosen = stop_at_misfit(docs, soft_budget)
    return chosen + chosen[:1]


def _ties_by_position(docs, soft_budget):
    chosen, used = [], 0
    for doc in sorted(docs, key=lambda doc: -doc.score):  # a stable sort: equal scores stay in upload order
        if used + doc.cost > soft_budget:
            break
        chosen.append(doc.id)
        used += doc.cost
    return chosen


def _smallest_first(docs, soft_budget):
    chosen, used = [], 0
    for doc in sorted(docs, key=lambda doc: (doc.cost, doc.id)):
        if used + doc.cost > soft_budget:
            break
        chosen.append(doc.id)
        used += doc.cost
    return chosen


def _best_one_only(docs, soft_budget):
    return stop_at_misfit(docs, soft_budget)[:1]


#: Two designs that differ (they read different sets on several cases) and both keep every invariant.
VALID = {"stop at the first that does not fit": stop_at_misfit, "keep looking past it": skip_past_misfit}

#: invariant name -> (label, a design that breaks that invariant and no other)
BREAKS = {
    "fits": ("checks the budget after adding, so the last one goes over", _overflow_by_one),
    "adds up": ("names the first one twice", _first_named_twice),
    "any order": ("sorts by score alone, so upload order settles ties", _ties_by_position),
    "relevance": ("reads the smallest first", _smallest_first),
    "no early stop": ("reads only the best one", _best_one_only),
}


def _strictly_under(docs, soft_budget):
    chosen, used = [], 0
    for doc in _by_relevance(docs):
        if used + doc.cost >= soft_budget:  # '<' where a document that fills the room exactly still fits
            break
        chosen.append(doc.id)
        used += doc.cost
    return chosen


def _upload_order(docs, soft_budget):
    chosen, used = [], 0
    for doc in docs:  # no ranking at all: the order the files were attached decides
        if used + doc.cost > soft_budget:
            break
        chosen.append(doc.id)
        used += doc.cost
    return chosen


def _stops_near_the_budget(docs, soft_budget):
    chosen, used = [], 0
    for doc in _by_relevance(docs):
        if soft_budget - used < 0.05 * soft_budget:  # "nearly full" is not full: a small one may still fit
            break
        if used + doc.cost <= soft_budget:
            chosen.append(doc.id)
            used += doc.cost
    return chosen


#: The generic mutation tests' view: label -> wrong design (a hard-coded answer among them).
WRONG = {label: fn for label, fn in BREAKS.values()}
WRONG["a document that fills the room exactly is refused"] = _strictly_under
WRONG["no ranking: reads in upload order"] = _upload_order
WRONG["stops once 95% of the soft budget is used"] = _stops_near_the_budget
WRONG["hard-coded for the 41 agreements"] = lambda docs, soft_budget: [
    "msa-2024-northwind", "msa-2022-borealis", "sla-2025-northwind", "dpa-2024-northwind", "msa-2021-kestrel",
    "sow-31", "amend-2025-borealis-2", "supply-2023-halden", "sow-27", "lease-2022-site-b", "nda-2025-orbit",
    "warranty-2024-halden",
]  # fmt: skip
