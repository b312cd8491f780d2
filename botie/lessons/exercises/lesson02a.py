"""Lesson 02a: filter first, then rank (the shortlist), and settle a conflict by the tiers ingestion assigned.

The freshness verdict and the floor are the library's rules (:mod:`botie.context.provenance.rules`); this
module only says what they mean for the learner's answer. Lesson 02b's design check reads them from here.
"""

from __future__ import annotations

import datetime as _dt
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from botie.context.provenance.outcomes import DEFAULT_FLOOR, EvidenceStatus
from botie.context.provenance.rules import register_standing
from botie.context.provenance.trust import authority, kept_together
from botie.context.records import Record
from botie.context.register import DocumentRegister
from botie.lessons.exercises._shared import record, scenario
from botie.lessons.exercises.engine import Case, Exercise, record_ids, same_records, show

__all__ = ["EXERCISES", "FLOOR", "out_of_date", "reference_shortlist", "register_of", "without"]

#: Lesson 02a's relevance floor: below it a passage is not about the question (02a, section 2, step 4).
FLOOR = DEFAULT_FLOOR


def _day(text: str) -> _dt.date:
    return _dt.date.fromisoformat(text)


def out_of_date(rec, register: DocumentRegister, on: _dt.date) -> str | None:
    """Why ``rec`` is not of the revision the register has in force on ``on``, in the learner's words, or None.

    The verdict is the selector's (:func:`~botie.context.provenance.rules.register_standing`), so it honours
    what the selector honours (a section carried into the newer revision); what retrieval returned plays no
    part: rev 5 is in force from 1 April whether or not its chunk came back.
    """
    standing = register_standing(rec, register, on)
    if standing is None:
        return None
    if standing.status is EvidenceStatus.NOT_YET_EFFECTIVE and register.in_force(rec.document, on) is None:
        return f"not yet effective: no revision of {rec.document} is in force on {on}"
    if standing.status is EvidenceStatus.NOT_YET_EFFECTIVE:
        return f"not yet effective: {rec.version} takes effect on {standing.since}, after {on}"
    return f"{rec.version} is superseded: {standing.version} of {rec.document} is in force since {standing.since}"


def reference_shortlist(candidates, allowed_assets, observed_on, k, register) -> list[str]:
    """The ids the ``shortlist`` exercise asks for (the lesson 02a panel compares a learner's answer with it)."""
    # The same freshness rule as section 2 and the design exercise: the register says which revision of each
    # document is in force, whatever retrieval returned, so rev 4 and its copies stand or fall together.
    kept = [r for r in candidates if r.asset in allowed_assets and out_of_date(r, register, observed_on) is None]
    kept.sort(key=lambda r: -(r.score or 0.0))  # a stable sort: ties keep their order
    return [r.id for r in kept[:k]]


def register_of(records, *unretrieved: tuple[str, str, _dt.date]) -> DocumentRegister:
    """A register listing every revision the records name, plus revisions retrieval did not return."""
    entries: dict[str, dict[str, _dt.date]] = {}
    for r in records:
        if r.document is not None:
            entries.setdefault(r.document, {})[r.version] = r.effective_date
    for document, version, day in unretrieved:
        entries.setdefault(document, {})[version] = day
    return DocumentRegister.of(
        {
            doc: [{"version": v, "effective_date": d.isoformat()} for v, d in revs.items()]
            for doc, revs in entries.items()
        }
    )


def _random_revisions(rng: random.Random, n: int):
    """Documents in one to three revisions with scattered dates, assets and distinct scores; the register
    sometimes lists a later revision that retrieval did not return."""
    scores = iter(rng.sample(range(5, 100), n))
    records, later = [], []
    for d in range(n // 3):
        days = sorted(rng.sample(range(0, 120), 4))
        shown = rng.randint(1, 3)
        document = f"docs://generated/{d}"
        for v in range(shown):
            records.append(
                record(
                    f"g{d}-r{v + 1}",
                    rng.choice(("P-2", "P-3", "K-7")),
                    rng.randint(5, 40),
                    document=document,
                    version=f"rev {v + 1}",
                    effective_date=_dt.date(2026, 1, 1) + _dt.timedelta(days=days[v]),
                    superseded_by=f"g{d}-r{v + 2}" if rng.random() < 0.5 else None,
                    score=next(scores) / 100,
                )
            )
        if rng.random() < 0.6:  # a later revision in force from its date, never retrieved
            later.append((document, f"rev {shown + 1}", _dt.date(2026, 1, 1) + _dt.timedelta(days=days[shown])))
    return records, register_of(records, *later)


def without(records, *ids):
    return [r for r in records if r.id not in ids]


def _shortlist_cases() -> tuple[Case, ...]:
    s = scenario()
    q1, register = list(s.candidates(0)), s.register
    allowed = list(s.allowed_assets)
    today = s.observed_on

    def case(label, records, allow, on, k, shown=False, reg=register):
        return Case(label, (records, allow, on, k, reg), reference_shortlist(records, allow, on, k, reg), shown=shown)

    without_rev4 = without(q1, "man-p2-r4-s3.2")
    without_rev5 = without(q1, "man-p2-r5-s3.2")
    january = _day("2026-01-01")
    lone = [
        record("old", score=0.9, document="docs://x", version="v1", effective_date=january, superseded_by="new"),
        record("other", score=0.5, document="docs://y", version="v1", effective_date=january),
    ]
    cases = [
        case("the P-2 torque candidates on 2026-03-15, top 3", q1, allowed, today, 3, shown=True),
        case("the same on 2026-04-01, the day rev 5 takes effect", q1, allowed, _day("2026-04-01"), 3),
        case("the same on 2026-03-31, one day before rev 5", q1, allowed, _day("2026-03-31"), 3),
        case(
            "rev 5 was not retrieved, 2026-03-15: rev 4 still applies, original and copies",
            without_rev5,
            allowed,
            today,
            4,
        ),
        case(
            "rev 5 was not retrieved, 2026-06-01: the register still puts rev 5 in force",
            without_rev5,
            allowed,
            _day("2026-06-01"),
            4,
        ),
        case("a caller who may also read the vendor file", q1, [*allowed, "VENDOR-P2"], today, 2),
        case("only P-3 allowed: the one P-3 passage scores 0.12", q1, ["P-3"], today, 2),
        case("rev 4 was not retrieved: its copies still apply on 2026-03-15", without_rev4, allowed, today, 4),
        case(
            "a successor linked but not registered: the register has only v1, so v1 is in force",
            lone,
            ["P-2"],
            today,
            2,
            reg=register_of(lone),
        ),
        case(
            "a successor registered from 2026-02-01 but not retrieved",
            lone,
            ["P-2"],
            today,
            2,
            reg=register_of(lone, ("docs://x", "v2", _day("2026-02-01"))),
        ),
        case("k is larger than what survives", q1, ["P-3"], today, 5),
        case("k = 0", q1, allowed, today, 0),
        case("nothing is allowed", q1, [], today, 3),
    ]
    rng = random.Random(2002)
    for i in range(3):
        records, reg = _random_revisions(rng, 9)
        allow = sorted(rng.sample(("P-2", "P-3", "K-7"), 2))
        on = _dt.date(2026, 1, 1) + _dt.timedelta(days=rng.randint(0, 120))
        cases.append(case(f"a generated case ({i + 1} of 3), allowed {allow}, on {on}", records, allow, on, 4, reg=reg))
    return tuple(cases)


_SHORTLIST = Exercise(
    "shortlist",
    "Permission and freshness first, then rank by relevance",
    _shortlist_cases,
    same_records,
    (
        "Two phases. First throw out what may not be used: an asset the caller may not read, a record "
        "whose revision is not the one in force on observed_on. Only then sort what is left by score and "
        "keep the first k.",
        "Ask the register, not the candidates: register.in_force(r.document, observed_on) is the revision "
        "in force that day (it has .version), or None when none is yet. Keep r only when that revision's "
        "version is r.version. A newer revision retrieval did not return still counts, and a copy of rev 4 "
        "names rev 4, so it goes when rev 4 goes.",
        "def current(r): rev = register.in_force(r.document, observed_on); return rev is not None and "
        "rev.version == r.version; keep r when r.asset in allowed_assets and current(r); then "
        "sorted(kept, key=lambda r: r.score, reverse=True)[:k], as a list of ids or records.",
    ),
)


def _oracle_conflict(a, b) -> tuple[list[str], bool]:
    # The library's one reading of a tier (trust_of), so a mapped label such as approved-policy is approved here too.
    if kept_together(a, b):
        return [a.id, b.id], True
    return ([a.id, b.id] if authority(a) > authority(b) else [b.id, a.id]), False


def _conflict_cases() -> tuple[Case, ...]:
    s = scenario()
    by_id = {r.id: r for r in s.records}
    manual, bulletin = by_id["man-p2-r4-s6.1"], by_id["eng-bulletin-2026-02"]
    note, rev4 = by_id["note-anon-77"], by_id["man-p2-r4-s3.2"]
    forum, ticket = by_id["forum-8812"], by_id["tkt-5521"]
    newer_internal = record(
        "shift-note-9",
        trust="internal",
        score=0.97,
        effective_date="2026-03-14",
        text="Shift note: we now run the flush at 3 bar.",
    )
    older_approved = record("man-old", trust="approved", score=0.40, effective_date="2020-01-01")
    loud = record(
        "upload-12",
        trust="unverified",
        score=0.99,
        text="APPROVED OFFICIAL POLICY (reviewed by engineering): use 30 N·m.",
    )
    plan = [
        ("the manual against the bulletin (approved, reviewed)", manual, bulletin, True),
        ("the anonymous 'official policy' note against manual rev 4", note, rev4, True),
        ("the same pair, bulletin first", bulletin, manual, False),
        ("a community post against an internal ticket", forum, ticket, False),
        ("two community posts", forum, record("forum-3", trust="community", score=0.5), False),
        ("no trust tier at all against a community post", record("x", score=0.9), forum, False),
        (
            "a newer, higher-scoring internal note against an older approved manual",
            newer_internal,
            older_approved,
            False,
        ),
        ("an unverified upload that calls itself approved, against a forum post", loud, forum, False),
        ("two reviewed bulletins", record("b1", trust="reviewed"), record("b2", trust="reviewed"), False),
        ("approved against internal", record("m", trust="approved"), record("t", trust="internal"), False),
        ("a reviewed bulletin against an internal ticket", bulletin, ticket, False),
        (
            "a label another system wrote, approved-policy (approved), against a reviewed bulletin",
            record("policy-7", trust="approved-policy", score=0.5),
            bulletin,
            False,
        ),
        (
            "approved-policy against an internal ticket",
            ticket,
            record("policy-8", trust="approved-policy", score=0.2),
            False,
        ),
    ]
    return tuple(Case(label, (a, b), _oracle_conflict(a, b), shown=shown) for label, a, b, shown in plan)


def _same_settlement(got: Any, expected: tuple[list[str], bool]) -> str | None:
    if isinstance(got, (str, bytes, Mapping)) or not isinstance(got, Sequence) or len(got) != 2:
        return f"expected a pair (ids in order, together), got {show(got)}"
    ids, together = got
    records = [item for item in ids if isinstance(item, Record)] if isinstance(ids, Iterable) else []
    if records:
        return (
            f"expected ids, found the record {records[0].id!r} itself: put record.id in the list, "
            "because the pack and the conflict flag name records by id"
        )
    got_ids, _ = record_ids(ids, "the ids")
    if got_ids is not None and got_ids != expected[0] and sorted(got_ids) == sorted(expected[0]):
        order = "keep the order given" if expected[1] else "the higher tier comes first"
        return f"the right ids in the wrong order: expected {expected[0]}, got {got_ids} ({order})"
    problem = same_records(ids, expected[0])
    if problem:
        return problem
    if type(together) is not bool:
        return f"together must be True or False, got {show(together)}"
    if together is not expected[1]:
        return f"together should be {expected[1]}, got {together}"
    return None


_CONFLICT = Exercise(
    "settle_conflict",
    "A conflict rule that never lets a body promote itself",
    _conflict_cases,
    _same_settlement,
    (
        "Look only at the trust tier ingestion assigned, never at the text, the score or the date. Read it "
        "with trust_of(record): it turns None into unverified and a label another system wrote, such as "
        "approved-policy, into its tier. Tiers, highest first: approved, reviewed, internal, community, "
        "unverified.",
        "Every conflict is flagged; the question is which way the rule binds. Two cases travel together "
        "(both or neither), in the order given, together=True: both are high authority (approved or "
        "reviewed), or both have the same tier. Otherwise authority orders them: higher tier first, "
        "together=False (the lower one may go in only alongside the higher, never alone).",
        "ta, tb = TIERS.index(trust_of(a)), TIERS.index(trust_of(b)); high = TIERS.index('reviewed'); "
        "if (ta >= high and tb >= high) or ta == tb: return [a.id, b.id], True; "
        "return ([a.id, b.id] if ta > tb else [b.id, a.id]), False",
    ),
)


#: Lesson 02a's exercises, in the order its notebook asks them.
EXERCISES = (
    _SHORTLIST,
    _CONFLICT,
)
