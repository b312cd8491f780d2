"""Lessons 02, 03 and 06: right answers pass, at least three wrong ones (a hard-coded one among them) fail,
stubs get "not yet". The same mutation tests as tests/lessons/exercises/test_checks.py, for this module's exercises."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from botie import trust_of
from botie.lessons.exercises.catalogue import BY_LESSON, EXERCISES, check, hint
from tests.lessons.exercises import (
    designs_03,
    test_design_02b as _design,
    test_design_04 as _design_04,
    test_design_06 as _design_06,
)

TIERS = {"approved": 4, "reviewed": 3, "internal": 2, "community": 1, "unverified": 0}


#: The exercises of the lessons this file covers, as the catalogue lists them.
NAMES = tuple(e.name for lesson in ("02a", "02b", "03", "04", "06") for e in BY_LESSON[lesson])


# --- reference solutions (what the instructor editions hold) ------------------------------------


def in_force(record, on):
    return record.effective_date is None or record.effective_date <= on


def shortlist(
    candidates,
    allowed_assets,
    observed_on,
    k,
    register,
    *,
    rank_first=False,
    strict=False,
    permission=True,
):
    """The register's rule: keep a record only when its revision is the one in force that day."""

    def alive(r):
        if permission and r.asset not in allowed_assets:
            return False
        if strict and not r.effective_date < observed_on:
            return False
        current = register.in_force(r.document, observed_on)
        return current is not None and current.version == r.version

    if rank_first:
        top = sorted(candidates, key=lambda r: -r.score)[:k]
        return [r.id for r in top if alive(r)]
    return [r.id for r in sorted((r for r in candidates if alive(r)), key=lambda r: -r.score)[:k]]


def old_shortlist(candidates, allowed_assets, observed_on, k, register=None, *, missing_successor_replaces=True,
                  newer_revisions=True, always_superseded=False):  # fmt: skip
    """The rule the lesson used to teach, from the candidates alone (register ignored): wrong on purpose."""
    by_id = {r.id: r for r in candidates}

    def alive(r):
        if r.asset not in allowed_assets or not in_force(r, observed_on):
            return False
        if r.superseded_by is not None:
            if always_superseded:
                return False
            successor = by_id.get(r.superseded_by)
            if successor is None:
                if missing_successor_replaces:
                    return False
            elif in_force(successor, observed_on):
                return False
        return not newer_revisions or not any(
            o.document == r.document and o.effective_date > r.effective_date and in_force(o, observed_on)
            for o in candidates
        )

    return [r.id for r in sorted((r for r in candidates if alive(r)), key=lambda r: -r.score)[:k]]


def shortlist_by_versions_on(candidates, allowed_assets, observed_on, k, register):
    """Right, unlike the reference: one mapping of the versions in force, records returned, not ids."""
    current = register.versions_on(observed_on)
    kept = [r for r in candidates if r.asset in allowed_assets and current.get(r.document) == r.version]
    return sorted(kept, key=lambda r: r.score, reverse=True)[:k]


def shortlist_by_dates(candidates, allowed_assets, observed_on, k, register):
    """Right, unlike the reference: reads the revisions' dates itself, newest not after the day."""
    out = []
    for r in sorted(candidates, key=lambda r: -r.score):
        started = [rev for rev in register.documents[r.document] if rev.effective_date <= observed_on]
        if (
            r.asset in allowed_assets
            and started
            and max(started, key=lambda rev: rev.effective_date).version == r.version
        ):
            out.append(r.id)
    return out[:k]


def settle_conflict(a, b):
    ta, tb = TIERS[trust_of(a)], TIERS[trust_of(b)]  # trust_of: None is unverified, approved-policy is approved
    if (ta >= 3 and tb >= 3) or ta == tb:
        return [a.id, b.id], True
    return ([a.id, b.id] if ta > tb else [b.id, a.id]), False


def _settle_by_name(a, b):
    """The check's old oracle: the tier read from the label's name, so approved-policy counted as unverified."""
    ta, tb = TIERS.get(a.trust or "unverified", 0), TIERS.get(b.trust or "unverified", 0)
    if (ta >= 3 and tb >= 3) or ta == tb:
        return [a.id, b.id], True
    return ([a.id, b.id] if ta > tb else [b.id, a.id]), False


def untraceable(citations, pack_ids):
    out: list[str | None] = []
    for c in citations:
        cid = c.get("id")
        if not isinstance(cid, str) or not cid:
            out.append(None)
        elif cid not in pack_ids and cid not in out:
            out.append(cid)
    return out


def route(sizes, soft_budget):
    if any(size > soft_budget for size in sizes):
        return "retrieve_within_document"
    total = sum(sizes)
    if total <= soft_budget:
        return "stuff_all"
    if total <= 4 * soft_budget:
        return "select_documents"
    return "retrieve_chunks"


def coverage_record(strategy, attached, read_ids):
    ids = [d.id for d in attached]
    if any(i not in ids for i in read_ids):
        raise ValueError("read but never attached")
    excluded = [i for i in ids if i not in read_ids]
    return {
        "strategy": strategy,
        "documents_attached": len(ids),
        "documents_in_context": len(ids) - len(excluded),
        "documents_not_read": len(excluded),
        "excluded_ids": excluded,
        "token_budget_used": sum(d.cost for d in attached if d.id in read_ids),
    }


def span_check(citations, context):
    if not citations:
        return False
    for c in citations:
        cid, quote = c.get("id"), c.get("quote")
        if cid not in context or not isinstance(quote, str) or not quote.strip() or quote not in context[cid]:
            return False
    return True


def first_lost_stage(needed_id, stages):
    for name, ids in stages:
        if needed_id not in ids:
            return name
    return None


REFERENCE = {
    "shortlist": shortlist,
    "settle_conflict": settle_conflict,
    "untraceable": untraceable,
    "route": route,
    "coverage_record": coverage_record,
    "choose_documents": designs_03.skip_past_misfit,
    "span_check": span_check,
    "first_lost_stage": first_lost_stage,
    **_design_04.REFERENCE,
    "design_pack": _design.authority_first,
    **_design_06.REFERENCE,
}


# --- wrong solutions, several per exercise --------------------------------------------------------


def _by_score(a, b):
    first, second = (a, b) if (a.score or 0) >= (b.score or 0) else (b, a)
    return [first.id, second.id], False


def _reads_the_text(record):
    return "approved" if "OFFICIAL" in record.text.upper() or "APPROVED" in record.text.upper() else record.trust


def _route_guard_last(sizes, soft):
    total = sum(sizes)
    if total <= soft:
        return "stuff_all"
    if total <= 4 * soft:
        return "select_documents"
    if any(size > soft for size in sizes):
        return "retrieve_within_document"
    return "retrieve_chunks"


def _route(sizes, soft, *, guard=lambda size, soft: size > soft, fits=lambda total, limit: total <= limit):
    if any(guard(size, soft) for size in sizes):
        return "retrieve_within_document"
    total = sum(sizes)
    if fits(total, soft):
        return "stuff_all"
    if fits(total, 4 * soft):
        return "select_documents"
    return "retrieve_chunks"


def _coverage(
    strategy, attached, read_ids, *, check_unknown=True, order=lambda ids: ids, count_read=False, all_tokens=False
):
    ids = [d.id for d in attached]
    if check_unknown and any(i not in ids for i in read_ids):
        raise ValueError("read but never attached")
    excluded = order([i for i in ids if i not in read_ids])
    in_context = len(read_ids) if count_read else len(ids) - len(excluded)
    return {
        "strategy": strategy,
        "documents_attached": len(ids),
        "documents_in_context": in_context,
        "documents_not_read": len(excluded),
        "excluded_ids": excluded,
        "token_budget_used": sum(d.cost for d in attached if all_tokens or d.id in read_ids),
    }


def _span(citations, context, *, same=lambda quote, text: quote in text, empty_ok=False, any_doc=False):
    if not citations:
        return empty_ok
    for c in citations:
        cid, quote = c.get("id"), c.get("quote", "")
        texts = list(context.values()) if any_doc else [context.get(cid)]
        if cid not in context or not isinstance(quote, str) or not any(t and same(quote, t) for t in texts):
            return False
    return True


WRONG: dict[str, dict[str, Callable[..., Any]]] = {
    "design_pack": {
        **{f"breaks {name}": design for name, design in _design.WRONG.items()},
        "hard-coded for the four items": lambda c, a, o, b, g: (
            ["man-p2-r4-s6.1", "eng-bulletin-2026-02"],
            [("man-p2-r4-s6.1", "eng-bulletin-2026-02")],
        ),
    },
    "shortlist": {
        "ranks first, filters the top k afterwards": lambda c, a, o, k, g: shortlist(c, a, o, k, g, rank_first=True),
        "effective_date < observed_on drops the day a revision starts": lambda c, a, o, k, g: shortlist(
            c, a, o, k, g, strict=True
        ),
        "the old rule: a successor in force or not among the candidates": old_shortlist,
        "the links and candidates only: a successor not retrieved keeps the record": lambda c, a, o, k, g: (
            old_shortlist(c, a, o, k, missing_successor_replaces=False)
        ),
        "treats every superseded_by as replaced": lambda c, a, o, k, g: old_shortlist(
            c, a, o, k, always_superseded=True
        ),
        "no permission check": lambda c, a, o, k, g: shortlist(c, a, o, k, g, permission=False),
        "hard-coded answer for the example": lambda c, a, o, k, g: [
            "man-p2-r4-s3.2",
            "portal-p2-r4-s3.2",
            "binder-p2-r4-s3.2",
        ],
    },
    "settle_conflict": {
        "the higher relevance score wins": _by_score,
        "the newer of two approved sources wins on its own": lambda a, b: (
            ([max((a, b), key=lambda r: r.effective_date or __import__("datetime").date.min).id], False)
            if TIERS[a.trust or "unverified"] >= 3 and TIERS[b.trust or "unverified"] >= 3
            else settle_conflict(a, b)
        ),
        "believes a body that says it is official": lambda a, b: settle_conflict(
            __import__("dataclasses").replace(a, trust=_reads_the_text(a)),
            __import__("dataclasses").replace(b, trust=_reads_the_text(b)),
        ),
        "compares tier names alphabetically": lambda a, b: (
            ([a.id, b.id], True)
            if (a.trust or "unverified") == (b.trust or "unverified")
            else ([a.id, b.id] if (a.trust or "unverified") < (b.trust or "unverified") else [b.id, a.id], False)
        ),
        "never flags two equal low tiers": lambda a, b: (
            settle_conflict(a, b)
            if TIERS[a.trust or "unverified"] >= 3 or a.trust != b.trust
            else ([a.id, b.id], False)
        ),
        "hard-coded for the manual and the bulletin": lambda a, b: (["man-p2-r4-s6.1", "eng-bulletin-2026-02"], True),
        "a tier one below high travels with it (reviewed with internal)": lambda a, b: (
            ([a.id, b.id], True)
            if max(TIERS[trust_of(a)], TIERS[trust_of(b)]) >= 3 and abs(TIERS[trust_of(a)] - TIERS[trust_of(b)]) <= 1
            else settle_conflict(a, b)
        ),
        "reads record.trust by name, an unknown label as the lowest tier": lambda a, b: _settle_by_name(a, b),
    },
    "untraceable": {
        "strips spaces from ids before comparing": lambda cs, ids: untraceable(
            [{**c, "id": c["id"].strip()} if isinstance(c.get("id"), str) else c for c in cs], ids
        ),
        "ignores capitals": lambda cs, pack: [
            c.get("id") for c in cs if isinstance(c.get("id"), str) and c["id"].lower() not in {p.lower() for p in pack}
        ],
        "reports duplicates": lambda cs, pack: [c.get("id") for c in cs if c.get("id") not in pack],
        "skips citations with no usable id": lambda cs, pack: [i for i in untraceable(cs, pack) if i is not None],
        "reports None once, like an id": lambda cs, pack: list(dict.fromkeys(untraceable(cs, pack))),
        "sorted, the Nones first": lambda cs, pack: sorted(
            untraceable(cs, pack), key=lambda i: (i is not None, i or "")
        ),
        "the Nones at the end": lambda cs, pack: (
            [i for i in untraceable(cs, pack) if i] + [None] * untraceable(cs, pack).count(None)
        ),
        "substring test against the joined pack": lambda cs, pack: [
            c.get("id") for c in cs if not isinstance(c.get("id"), str) or c["id"] not in " ".join(pack)
        ],
        "returns the traceable ones": lambda cs, pack: [c.get("id") for c in cs if c.get("id") in pack],
        "hard-coded empty list": lambda cs, pack: [],
        "reversed when no citation lacks an id": lambda cs, pack: (
            untraceable(cs, pack)[::-1] if None not in untraceable(cs, pack) else untraceable(cs, pack)
        ),
    },
    "route": {
        "checks the oversized document last": _route_guard_last,
        ">= in the oversized check": lambda s, b: _route(s, b, guard=lambda size, soft: size >= soft),
        "< in the total checks": lambda s, b: _route(s, b, fits=lambda total, limit: total < limit),
        "guard looks at the total, not the largest": lambda s, b: (
            _route([sum(s)] if s else [], b) if sum(s) > b and sum(s) <= 4 * b else _route(s, b)
        ),
        "hard-coded select_documents": lambda s, b: "select_documents",
    },
    "coverage_record": {
        "excluded ids sorted by name": lambda st, a, r: _coverage(st, a, r, order=sorted),
        "counts read ids, duplicates included": lambda st, a, r: _coverage(st, a, r, count_read=True),
        "adds up the tokens of every attachment": lambda st, a, r: _coverage(st, a, r, all_tokens=True),
        "accepts a read id that was never attached": lambda st, a, r: _coverage(st, a, r, check_unknown=False),
        "hard-coded 12 + 29 = 41": lambda st, a, r: {
            "documents_in_context": 12,
            "documents_not_read": 29,
            "documents_attached": 41,
            "token_budget_used": 512_400,
            "excluded_ids": [],
            "strategy": "select_documents",
        },
    },
    "choose_documents": designs_03.WRONG,
    "span_check": {
        "ignores capitals": lambda cs, ctx: _span(cs, ctx, same=lambda q, t: q.lower() in t.lower()),
        "squeezes spaces": lambda cs, ctx: _span(cs, ctx, same=lambda q, t: " ".join(q.split()) in " ".join(t.split())),
        "looks in every document, not the cited one": lambda cs, ctx: _span(cs, ctx, any_doc=True),
        "no citations counts as a pass": lambda cs, ctx: _span(cs, ctx, empty_ok=True),
        "an empty quote passes": lambda cs, ctx: (
            bool(cs) and all(c.get("id") in ctx and c.get("quote", "") in ctx[c["id"]] for c in cs)
        ),
        "checks ids only": lambda cs, ctx: bool(cs) and all(c.get("id") in ctx for c in cs),
        "strips the quote before matching": lambda cs, ctx: _span(
            cs, ctx, same=lambda q, t: bool(q.strip()) and q.strip() in t
        ),
        "a quote of only spaces passes": lambda cs, ctx: (
            bool(cs) and all(c.get("id") in ctx and c.get("quote") and c["quote"] in ctx[c["id"]] for c in cs)
        ),
        "re.search(quote, text): the quote read as a pattern": lambda cs, ctx: _span(
            cs, ctx, same=lambda q, t: bool(q.strip()) and re.search(q, t) is not None
        ),
        "re.match('.*' + quote, text)": lambda cs, ctx: _span(
            cs, ctx, same=lambda q, t: bool(q.strip()) and re.match(".*" + q, t) is not None
        ),
        "re.search with the case ignored": lambda cs, ctx: _span(
            cs, ctx, same=lambda q, t: bool(q.strip()) and re.search(q, t, flags=re.I) is not None
        ),
        "hard-coded True": lambda cs, ctx: True,
    },
    "first_lost_stage": {
        "matches an id inside a longer one": lambda rid, stages: next(
            (name for name, ids in stages if not any(rid in i for i in ids)), None
        ),
        "the last stage without it": lambda rid, stages: next(
            (n for n, ids in reversed(stages) if rid not in ids), None
        ),
        "the last stage that still had it": lambda rid, stages: next(
            (n for n, ids in reversed(stages) if rid in ids), None
        ),
        "False instead of None when it survived": lambda rid, stages: first_lost_stage(rid, stages) or False,
        "always the first stage when it is missing anywhere": lambda rid, stages: (
            stages[0][0] if any(rid not in ids for _, ids in stages) else None
        ),
        "hard-coded 'fit'": lambda rid, stages: "fit",
    },
    **_design_04.WRONG,
    **_design_06.WRONG,
}


def _stub(*args, **kwargs):
    raise NotImplementedError("your code here")


# The generic checks (reference passes, every wrong solution fails, hidden cases, stubs) run over
# these exercises from tests/lessons/exercises/test_checks.py, which imports REFERENCE and WRONG from here.


def test_every_exercise_has_a_reference_and_at_least_three_wrong_solutions():
    assert set(REFERENCE) == set(NAMES) == set(WRONG)
    assert set(NAMES) <= set(EXERCISES)
    assert all(len(wrong) >= 3 for wrong in WRONG.values())
    assert all(any("hard-coded" in label for label in wrong) for wrong in WRONG.values())


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_hints_go_from_a_nudge_to_the_answer(name, capsys):
    hint(name, 1)
    first = capsys.readouterr().out
    hint(name, 3)
    last = capsys.readouterr().out
    assert "Hint 1 of 3" in first and "Hint 3 of 3 (that is the last one)" in last


def test_a_solution_that_crashes_is_a_failed_case_not_a_traceback(capsys):
    def crashes(citations, context):
        return context[citations[0]["id"]].missing  # AttributeError on the learner's side

    check("span_check", crashes)
    out = capsys.readouterr().out
    assert "span_check:" in out and "raised" in out and "Traceback" not in out


def test_coverage_cases_include_the_lesson_numbers():
    shown = next(c for c in EXERCISES["coverage_record"].cases() if c.shown)
    expected = shown.expected
    assert isinstance(expected, Mapping)
    assert (
        expected["documents_in_context"],
        expected["documents_not_read"],
        expected["documents_attached"],
        expected["token_budget_used"],
    ) == (12, 29, 41, 512_400)


@pytest.mark.parametrize("right", [shortlist_by_versions_on, shortlist_by_dates])
def test_two_register_readings_unlike_the_reference_pass_the_shortlist_check(right):
    from botie.lessons.exercises.catalogue import run
    from botie.lessons.exercises.engine import Verdict

    report = run("shortlist", right)
    assert not isinstance(report, str)
    assert report.verdict is Verdict.PASSED, report.text()


def test_the_old_candidates_only_rule_fails_where_rev_5_was_not_retrieved():
    """The rule the lesson used to teach drops rev 4's own section on 15 March when rev 5 is missing, but
    keeps its copies: the register says rev 4 still applies, so the check must fail it there."""
    from botie.lessons.exercises.catalogue import run

    report = run("shortlist", old_shortlist)
    assert not isinstance(report, str)
    failed = [r.case.label for r in report.results if not r.passed]
    assert any("rev 5 was not retrieved, 2026-03-15" in label for label in failed), failed


@pytest.mark.parametrize(
    ("lesson", "name"),
    [("02a", "shortlist"), ("02a", "settle_conflict"), ("02b", "untraceable"), ("02b", "design_pack")],
)
def test_the_instructor_edition_solution_passes_its_check(lesson, name):
    """What the lesson ships passes, a mapped trust label (approved-policy) included: it reads tiers through
    trust_of, the library's one table, where TIERS.index(record.trust) crashed on that label."""
    from botie.lessons.exercises.catalogue import run
    from tests.lessons.exercises.instructor import instructor_solution

    report = run(name, instructor_solution(lesson, name))
    assert not isinstance(report, str), report
    assert report.passed, report.text()
