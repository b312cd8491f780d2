"""Lesson 02's design exercise: the check holds invariants, not one expected output.

Two different valid designs pass; for each invariant a design that breaks only that one is rejected, and
every message it gets names that invariant and no other.
"""

from __future__ import annotations

import pytest

from botie.context.provenance import select_evidence
from botie.lessons.exercises.catalogue import EXERCISES, run

TIERS = ("unverified", "community", "internal", "reviewed", "approved")
INVARIANTS = ("permission", "freshness", "conflict", "together", "budget", "trace")


def in_force(record, on):
    return record.effective_date is None or record.effective_date <= on


def current(record, candidates, on):
    """In force, and not replaced by a successor link or by a newer revision of its document in force."""
    if not in_force(record, on):
        return False
    by_id = {r.id: r for r in candidates}
    if record.superseded_by is not None:
        successor = by_id.get(record.superseded_by)
        if successor is None or in_force(successor, on):
            return False
    return not any(
        other.document == record.document
        and other.effective_date is not None
        and record.effective_date is not None
        and other.effective_date > record.effective_date
        and in_force(other, on)
        for other in candidates
    )


def flags_among(sent, candidates):
    by_id = {r.id: r for r in candidates}
    return [(rid, other) for rid in sent for other in by_id[rid].conflicts_with if other in sent]


def high_rivals(record, ranked):
    """The record and every high-authority record linked to it by disagreements, however long the chain."""
    group, todo = [record], [record]
    while todo:
        r = todo.pop()
        for o in ranked:
            linked = o.id in r.conflicts_with or r.id in o.conflicts_with
            if linked and o not in group and {r.trust, o.trust} <= {"approved", "reviewed"}:
                group.append(o)
                todo.append(o)
    return group


def pack(ranked, budget, *, stop=False):
    """Whole records while they fit; two high-authority records that disagree go in together or not at all."""
    decided: set[str]
    sent, used, decided = [], 0, set()
    for r in ranked:
        if r.id in decided:
            continue
        unit = high_rivals(r, ranked)
        decided.update(u.id for u in unit)
        cost = sum(u.cost for u in unit)
        if used + cost <= budget:
            sent += [u.id for u in unit]
            used += cost
        elif stop:
            break
    return sent


def usable(candidates, allowed, on, *, permission=True, freshness=True):
    return [
        r
        for r in candidates
        if (not permission or r.asset in allowed) and (not freshness or current(r, candidates, on))
    ]


def tier(record):
    return TIERS.index(record.trust or "unverified")


# --- two different valid designs ----------------------------------------------------------------------------


def authority_first(candidates, allowed, on, budget):
    """Design A (the instructor edition's): authority, then score; skip what does not fit; flag every pair."""
    ranked = sorted(usable(candidates, allowed, on), key=lambda r: (tier(r), r.score), reverse=True)
    sent = pack(ranked, budget)
    return sent, flags_among(sent, candidates)


def rivals_stay_out(candidates, allowed, on, budget):
    """Design B: leave out a lower-tier rival (two high tiers stay), rank by score alone, stop at the first misfit."""
    ok = usable(candidates, allowed, on)
    ids = {r.id: r for r in ok}
    high = TIERS.index("reviewed")

    def outranked(r):
        rivals = [ids[o] for o in r.conflicts_with if o in ids]
        rivals += [o for o in ok if r.id in o.conflicts_with]
        return any(tier(o) > tier(r) and tier(r) < high for o in rivals)

    ranked = sorted((r for r in ok if not outranked(r)), key=lambda r: r.score, reverse=True)
    sent = pack(ranked, budget, stop=True)
    return [candidates[[c.id for c in candidates].index(i)] for i in sent], [
        tuple(p) for p in flags_among(sent, candidates)
    ]


def the_library(candidates, allowed, on, budget):
    """A third: botie's own selector, floor 0, with its conflicts as the flags."""
    selection = select_evidence(candidates, allowed, budget, observed_on=on, floor=0.0)
    return list(selection.selected_ids), [c.ids for c in selection.conflicts]


VALID = {"authority first": authority_first, "rivals stay out": rivals_stay_out}


@pytest.mark.parametrize("name", sorted(VALID))
def test_a_valid_design_passes_every_case(name):
    report = run("design_pack", VALID[name])
    assert not isinstance(report, str)
    assert report.passed, report.text()


def test_the_two_valid_designs_send_different_packs():
    differ = 0
    for case in EXERCISES["design_pack"].cases():
        a, _ = authority_first(*case.args)
        b, _ = rivals_stay_out(*case.args)
        differ += [r if isinstance(r, str) else r.id for r in b] != a
    assert differ >= 3


def test_followed_literally_the_last_hint_is_design_a_and_passes():
    last = EXERCISES["design_pack"].hints[-1]
    for step in (
        "usable.sort(key=lambda r: (TIERS.index(r.trust or 'unverified'), r.score), reverse=True)",
        "if used + cost <= budget",
        "for o in r.conflicts_with if o in send",
    ):
        assert step in last
    report = run("design_pack", authority_first)
    assert not isinstance(report, str)
    assert report.passed


def test_botie_own_selector_holds_the_invariants_too():
    report = run("design_pack", the_library)
    assert not isinstance(report, str)
    assert report.passed


# --- one wrong design per invariant ----------------------------------------------------------------------------


def reads_restricted_files(candidates, allowed, on, budget):
    """Breaks permission only: packs as design A, then fills leftover room with what the caller may not read."""
    sent, _ = authority_first(candidates, allowed, on, budget)
    used = sum(r.cost for r in candidates if r.id in sent)
    extra = [r for r in usable(candidates, allowed, on, permission=False) if r.asset not in allowed]
    for r in extra:
        if used + r.cost <= budget and not r.conflicts_with and not any(r.id in o.conflicts_with for o in candidates):
            sent.append(r.id)
            used += r.cost
    return sent, flags_among(sent, candidates)


def sends_old_revisions(candidates, allowed, on, budget):
    """Breaks freshness only: fills leftover room with revisions that are out of date."""
    sent, _ = authority_first(candidates, allowed, on, budget)
    used = sum(r.cost for r in candidates if r.id in sent)
    for r in candidates:
        if r.asset in allowed and r.id not in sent and not current(r, candidates, on) and used + r.cost <= budget:
            sent.append(r.id)
            used += r.cost
    return sent, flags_among(sent, candidates)


def flags_nothing(candidates, allowed, on, budget):
    """Breaks the conflict rule only: design A's pack, no flags."""
    sent, _ = authority_first(candidates, allowed, on, budget)
    return sent, []


def sends_everything_usable(candidates, allowed, on, budget):
    """Breaks the budget only: every usable record, flagged, with no packing."""
    sent = [r.id for r in usable(candidates, allowed, on)]
    return sent, flags_among(sent, candidates)


def newest_first(candidates, allowed, on, budget):
    """Breaks the trace only: ranks by date, so at a tight budget recent tickets take the manual's room."""
    ranked = sorted(usable(candidates, allowed, on), key=lambda r: (r.effective_date, r.score), reverse=True)
    sent = pack(ranked, budget, stop=True)
    return sent, flags_among(sent, candidates)


def strands_a_rival(candidates, allowed, on, budget):
    """Breaks the together rule only: design A, but a reviewed record that disagrees with an approved one is
    left out (seed 002: the model would silently get one side)."""
    sent, flags = authority_first(candidates, allowed, on, budget)
    by_id = {r.id: r for r in candidates}
    dropped = {
        rid
        for rid in sent
        if by_id[rid].trust == "reviewed"
        and any(
            by_id[o].trust == "approved"
            for o in sent
            if rid in by_id[o].conflicts_with or o in by_id[rid].conflicts_with
        )
    }
    kept = [rid for rid in sent if rid not in dropped]
    return kept, [f for f in flags if not set(f) & dropped]


WRONG = {
    "permission": reads_restricted_files,
    "freshness": sends_old_revisions,
    "conflict": flags_nothing,
    "together": strands_a_rival,
    "budget": sends_everything_usable,
    "trace": newest_first,
}


@pytest.mark.parametrize("invariant", INVARIANTS)
def test_a_design_that_breaks_one_invariant_is_rejected_for_exactly_that_one(invariant):
    report = run("design_pack", WRONG[invariant])
    assert not isinstance(report, str)
    assert not report.passed
    named = {line.split(":", 1)[0] for r in report.results if not r.passed for line in r.message.splitlines()}
    assert named == {invariant}, report.text()


def test_the_shown_case_is_the_four_items_and_never_the_only_case():
    cases = EXERCISES["design_pack"].cases()
    shown = [c for c in cases if c.shown]
    assert len(shown) == 1 and len(cases) >= 10
    assert {r.id for r in shown[0].args[0]} == {
        "man-p2-r4-s6.1",
        "man-p2-r3-s3.2",
        "vendor-p2-seal-design",
        "eng-bulletin-2026-02",
    }


def test_the_cases_vary_the_candidates_the_day_the_caller_and_the_budget():
    cases = EXERCISES["design_pack"].cases()
    for position in range(4):
        assert len({repr(c.args[position]) for c in cases}) >= 3


@pytest.mark.parametrize(
    ("returned", "says"),
    [
        (["man-p2-r4-s6.1"], "expected a pair (ids to send, flagged pairs)"),
        ((["made-up-7"], []), "not one of the candidates"),
        ((["man-p2-r4-s6.1", "man-p2-r4-s6.1"], []), "twice"),
        ((["man-p2-r4-s6.1"], ["man-p2-r4-s6.1"]), "each flagged pair"),
        ((["man-p2-r4-s6.1"], None), "flagged pairs as a list"),
    ],
)
def test_an_odd_return_value_gets_a_plain_message(returned, says):
    report = run("design_pack", lambda *args: returned)
    assert not isinstance(report, str)
    assert not report.passed and says in report.text()


def test_a_stub_is_not_yet():
    def stub(*args):
        raise NotImplementedError

    report = run("design_pack", stub)
    assert not isinstance(report, str)
    assert report.verdict.value == "not yet"
