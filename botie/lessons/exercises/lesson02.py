"""Lessons 02a and 02b: filter first, then rank; settle a conflict; untraceable citations; design a pack."""

from __future__ import annotations

import datetime as _dt
import random
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from botie.context.provenance.outcomes import DEFAULT_FLOOR
from botie.context.provenance.trust import HIGH_AUTHORITY, Trust, authority, kept_together, trust_of
from botie.context.records import Record
from botie.context.register import DocumentRegister
from botie.lessons.exercises._shared import record, scenario
from botie.lessons.exercises.engine import Case, Exercise, call_learner, record_ids, same_records, show

__all__ = [
    "EXERCISES",
    "EXERCISES_02A",
    "EXERCISES_02B",
    "FLOOR",
    "INVARIANTS",
    "design_holds",
    "reference_shortlist",
    "register_of",
]

#: The tiers' names, highest first (the generated libraries draw from them in this order).
_TIER_NAMES = tuple(t.value for t in Trust)


def _day(text: str) -> _dt.date:
    return _dt.date.fromisoformat(text)


def _in_force(record, on: _dt.date) -> bool:
    return record.effective_date is None or record.effective_date <= on


def reference_shortlist(candidates, allowed_assets, observed_on, k, register) -> list[str]:
    """The ids the ``shortlist`` exercise asks for (the lesson 02a panel compares a learner's answer with it)."""
    # The same freshness rule as section 2 and the design exercise: the register says which revision of each
    # document is in force, whatever retrieval returned, so rev 4 and its copies stand or fall together.
    kept = [r for r in candidates if r.asset in allowed_assets and _out_of_date(r, register, observed_on) is None]
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


def _without(records, *ids):
    return [r for r in records if r.id not in ids]


def _shortlist_cases() -> tuple[Case, ...]:
    s = scenario()
    q1, register = list(s.candidates(0)), s.register
    allowed = list(s.allowed_assets)
    today = s.observed_on

    def case(label, records, allow, on, k, shown=False, reg=register):
        return Case(label, (records, allow, on, k, reg), reference_shortlist(records, allow, on, k, reg), shown=shown)

    without_rev4 = _without(q1, "man-p2-r4-s3.2")
    without_rev5 = _without(q1, "man-p2-r5-s3.2")
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


def _oracle_untraceable(citations, pack_ids) -> list[str | None]:
    pack = set(pack_ids)
    out: list[str | None] = []
    for c in citations:
        cid = c.get("id") if isinstance(c, Mapping) else None
        if not isinstance(cid, str) or not cid:
            out.append(None)
        elif cid not in pack and cid not in out:
            out.append(cid)
    return out


def _untraceable_cases() -> tuple[Case, ...]:
    s = scenario()
    pack = list(s.select(0).selected_ids)

    def cite(*ids):
        return [{"id": i, "quote": "..."} for i in ids]

    plan = [
        (
            "the canned torque answer's three citations",
            cite("man-p2-r4-s3.2", "man-p2-r4-t3.4-m12", "man-p2-r4-s3.2.1"),
            pack,
            False,
        ),
        ("rev 4, then the restricted vendor file", cite("man-p2-r4-s3.2", "vendor-p2-seal-design"), pack, True),
        ("a source URI that looks real", cite("docs://site-a/manuals/p2/rev4"), pack, False),
        ("rev 3: retrieved, but superseded, so never packed", cite("man-p2-r3-s3.2"), pack, False),
        ("the right id in capitals", cite("MAN-P2-R4-S3.2"), pack, False),
        ("a prefix of a packed id", cite("man-p2-r4-s3"), pack, False),
        ("a packed id with a space after it", cite("man-p2-r4-s3.2 "), pack, False),
        ("the same bad id twice, then a good one", cite("forum-999", "forum-999", "forum-8812"), pack, False),
        (
            "two different untraceable ids and one with no id: in the order first cited",
            [
                {"id": "zeta-1", "quote": "x"},
                {"quote": "y"},
                {"id": "alpha-2", "quote": "z"},
                {"id": "zeta-1", "quote": "x"},
            ],
            pack,
            False,
        ),
        ("two untraceable ids, the later one first in the alphabet", cite("zeta-1", "alpha-2", "zeta-1"), pack, False),
        ("a citation with no id", [{"quote": "18 N·m"}], pack, False),
        (
            "two citations with no id and one with an empty id: one None for each",
            [
                {"quote": "18 N·m"},
                {"id": "man-p2-r4-s3.2", "quote": "x"},
                {"quote": "16 N·m"},
                {"id": "", "quote": "y"},
            ],
            pack,
            False,
        ),
        ("an id that is a number", [{"id": 7, "quote": "x"}], pack, False),
        ("no citations at all", [], pack, False),
        ("a refusal: nothing entered the pack", cite("man-p2-r4-s3.2"), [], False),
    ]
    return tuple(Case(label, (c, p), _oracle_untraceable(c, p), shown=shown) for label, c, p, shown in plan)


def _same_list(got: Any, expected: list) -> str | None:
    if isinstance(got, (str, bytes, Mapping, set, frozenset)) or not isinstance(got, Iterable):
        return f"expected a list, got {show(got)}"
    got = list(got)
    return None if got == expected else f"expected {expected!r}, got {show(got)}"


_UNTRACEABLE = Exercise(
    "untraceable",
    "Can every cited id be traced to a chunk that entered the pack?",
    _untraceable_cases,
    _same_list,
    (
        "Go through the citations in order. A citation is traceable only when its 'id' is exactly one of "
        "pack_ids. Collect the ones that are not; an empty list means every citation traces back.",
        "Compare ids exactly: no lower-casing, no prefixes, no looking at the URI. Report each untraceable "
        "id once, in the order it was first cited. A citation whose 'id' is missing, empty or not a str "
        "cannot be traced either: put None in the list for it.",
        "out = []; for c in citations: cid = c.get('id'); if not isinstance(cid, str) or not cid: "
        "out.append(None) elif cid not in pack_ids and cid not in out: out.append(cid); return out",
    ),
)


# --- the design exercise: the learner's own filter, ranking and conflict rule, held to invariants ----------


def _out_of_date(rec, register: DocumentRegister, on: _dt.date) -> str | None:
    """Why ``rec`` is not of the revision the register has in force on ``on`` (the lesson's freshness rule), or None.

    What retrieval returned plays no part: rev 5 is in force from 1 April whether or not its chunk came back.
    """
    current = register.in_force(rec.document, on) if rec.document is not None else None
    if current is None:
        return f"not yet effective: no revision of {rec.document} is in force on {on}"
    if current.version == rec.version:
        return None
    if current.effective_date < (rec.effective_date or on):
        return f"not yet effective: {rec.version} takes effect on {rec.effective_date}, after {on}"
    return (
        f"{rec.version} is superseded: {current.version} of {rec.document} is in force since {current.effective_date}"
    )


def _ids_of(value: Any, what: str) -> tuple[list[str] | None, str | None]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        return None, f"expected {what} as a list, got {show(value)}"
    ids = []
    for item in value:
        rid = item.id if isinstance(item, Record) else item
        if not isinstance(rid, str):
            return None, f"expected {what} to hold ids or records, found {show(item)}"
        ids.append(rid)
    return ids, None


def _read_design(got: Any, by_id: Mapping[str, Any]) -> tuple[list[str], set[frozenset[str]]] | str:
    """(ids sent, flagged pairs) from a learner's return value, or a plain message saying what is wrong with it."""
    if isinstance(got, (str, bytes, Mapping)) or not isinstance(got, Sequence) or len(got) != 2:
        return f"expected a pair (ids to send, flagged pairs), got {show(got)}"
    send, problem = _ids_of(got[0], "the ids to send")
    if send is None:
        return problem or ""
    for rid in send:
        if rid not in by_id:
            return f"sends {rid!r}, which is not one of the candidates"
        if send.count(rid) > 1:
            return f"sends {rid} twice"
    if isinstance(got[1], (str, bytes, Mapping)) or not isinstance(got[1], Iterable):
        return f"expected the flagged pairs as a list of pairs, got {show(got[1])}"
    flags = set()
    for pair in got[1]:
        ids, problem = _ids_of(pair, "each flagged pair")
        if ids is None or len(ids) != 2:
            return problem or f"expected each flagged pair to name two records, got {show(pair)}"
        flags.add(frozenset(ids))
    return send, flags


#: Lesson 02a's relevance floor: below it a passage is not about the question (02a, section 2, step 4).
FLOOR = DEFAULT_FLOOR

#: What the design check holds, in the order of the lesson's selector steps; each message starts with one.
INVARIANTS = (
    "permission",
    "freshness",
    "duplicates",
    "floor",
    "completeness",
    "conflict",
    "together",
    "budget",
    "trace",
)


def _broken_invariants(send: list[str], flags: set[frozenset[str]], case: Mapping[str, Any]) -> list[str]:
    """One line per invariant the design breaks in this case, each starting with the invariant's name."""
    by_id = {r.id: r for r in case["candidates"]}
    sent = [by_id[rid] for rid in send]
    problems = [
        f"permission: sends {r.id}, whose asset {r.asset} this caller may not read (allowed: {list(case['allowed'])})"
        for r in sent
        if r.asset not in case["allowed"]
    ]
    for r in sent:
        why = _out_of_date(r, case["register"], case["on"])
        if why:
            problems.append(f"freshness: sends {r.id}, {why}")
    problems += _copies_sent(sent, case) + _below_floor(sent) + _incomplete(sent, set(send))
    for pair in sorted(_marked_pairs(sent, case["candidates"]) - flags, key=sorted):
        a, b = sorted(pair)
        problems.append(
            f"conflict: sends {a} and {b}, which ingestion marked as disagreeing, without flagging the pair"
        )
    # One line a stranded pair: the pair's own rule (two high tiers) speaks first when both apply.
    problems += list({**_lower_tiers_alone(sent, case), **_stranded_rivals(sent, case)}.values())
    used = sum(r.cost for r in sent)
    if used > case["budget"]:
        problems.append(f"budget: sends {used} tokens, over the {case['budget']}-token budget")
    return problems + _untraced(set(send), case, by_id)


def _root(by_id: Mapping[str, Any], rid: str) -> str:
    """The original a copy stands for (a copy carries its original's disagreements); any other id itself."""
    return by_id[rid].duplicate_of or rid if rid in by_id else rid


def _marked_pairs(sent: list[Any], candidates: list[Any]) -> set[frozenset[str]]:
    """Sent pairs that ingestion marked as disagreeing; a copy carries its original's disagreements."""
    by_id = {r.id: r for r in candidates}
    root = partial(_root, by_id)

    marked = {frozenset((root(r.id), root(o))) for r in candidates for o in r.conflicts_with}
    return {frozenset((a.id, b.id)) for a in sent for b in sent if frozenset((root(a.id), root(b.id))) in marked}


def _copies_sent(sent: list[Any], case: Mapping[str, Any]) -> list[str]:
    """Step 3: a marked copy gives way to its original; of copies whose original is missing, one goes.

    "Missing" means the original could not go in the copy's place: not retrieved, not permitted, not in force,
    or too large for the room the copy leaves. Otherwise sending the copy instead is a duplicate too.
    """
    by_id = {r.id: r for r in case["candidates"]}
    sent_ids = {r.id for r in sent}
    used = sum(r.cost for r in sent)
    first: dict[str, str] = {}
    problems = []
    for r in sent:
        section = r.duplicate_of or r.id
        if section in first:
            problems.append(f"duplicates: sends {r.id} and {first[section]}, two copies of {section}: send one")
            continue
        first[section] = r.id
        original = by_id.get(r.duplicate_of) if r.duplicate_of else None
        if (
            original is not None
            and original.id not in sent_ids
            and original.asset in case["allowed"]
            and _out_of_date(original, case["register"], case["on"]) is None
            and used - r.cost + original.cost <= case["budget"]
        ):
            problems.append(
                f"duplicates: sends {r.id}, a copy, while its original {original.id} was retrieved, may be read, "
                "is in force and fits in its place: the copy gives way to its original"
            )
    return problems


def _below_floor(sent: list[Any]) -> list[str]:
    """Step 4: below the floor a passage is not about the question, unless a sent record needs it (step 6)."""
    needed = {d for r in sent for d in r.depends_on}
    return [
        f"floor: sends {r.id}, whose score {r.score or 0.0:.2f} is below the {FLOOR} floor: "
        "it is not about this question"
        for r in sent
        if (r.score or 0.0) < FLOOR and r.id not in needed
    ]


def _incomplete(sent: list[Any], send: set[str]) -> list[str]:
    """Step 6: a record that depends on another (a table row on its heading) is misread without it."""
    return [
        f"completeness: sends {r.id} without {d}, which it depends on: it would be misread alone"
        for r in sent
        for d in r.depends_on
        if d not in send
    ]


def _untraced(send: set[str], case: Mapping[str, Any], by_id: Mapping[str, Any]) -> list[str]:
    """The answer traces to the version in force: each needed part (the rule, its exception) is sent."""
    problems = []
    for alternatives in case["needed"]:
        if not set(alternatives) & send:
            what = " or ".join(
                f"{by_id[n].id} ({by_id[n].version}, in force since {by_id[n].effective_date})" for n in alternatives
            )
            problems.append(f"trace: the answer cannot be traced to the version in force: {what} is not sent")
    return problems


def _stranded_rivals(sent: list[Any], case: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """Seed 002: two high-authority sources that disagree go in together, flagged, or not at all.

    So when one of them cannot be sent because this caller may not read it, the other stays out too: alone it
    would settle the disagreement in silence (the selector marks it ``contradicted``). A rival below the floor is
    not about this question, so its partner may go in alone (the lesson's exception). Keyed by (sent, rival).
    """
    candidates = case["candidates"]
    current = {
        r.id: r
        for r in candidates
        if _out_of_date(r, case["register"], case["on"]) is None and (r.score or 0.0) >= FLOOR
    }
    sent_ids = {r.id for r in sent}
    problems = {}
    for r in sent:
        rivals = set(r.conflicts_with) | {o.id for o in candidates if r.id in o.conflicts_with}
        for other in sorted(rivals & set(current) - sent_ids):
            o = current[other]
            if trust_of(r) in HIGH_AUTHORITY and trust_of(o) in HIGH_AUTHORITY:
                why = "" if o.asset in case["allowed"] else f"; this caller may not read {other}, so {r.id} stays out"
                problems[(r.id, other)] = (
                    f"together: sends {r.id} without {other}; both are high authority ({r.trust}, {o.trust}) and "
                    f"disagree, so both go in, flagged, or neither{why}"
                )
    return problems


def _lower_tiers_alone(sent: list[Any], case: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """Section 4: a lower tier goes in only alongside the higher source it contradicts, else it stays out.

    A copy carries its original's disagreements. Two exceptions, as in the selector: a rival below the floor
    is not about this question, and a rival revision not in force is answered by its document's revision in
    force when that one is sent and the lower record disagrees with it too. Keyed by (sent, rival).
    """
    candidates, on, register = case["candidates"], case["on"], case["register"]
    by_id = {r.id: r for r in candidates}
    root = partial(_root, by_id)

    marks = {frozenset((root(r.id), root(o))) for r in candidates for o in r.conflicts_with}
    sent_roots = {root(r.id) for r in sent}
    problems = {}
    for r in sent:
        rivals = {o for pair in marks if root(r.id) in pair for o in pair if o != root(r.id)}
        for o in sorted(rivals - sent_roots):
            family = [x for x in candidates if root(x.id) == o]
            higher = [x for x in family if authority(x) > authority(r)]
            if not higher or all((x.score or 0.0) < FLOOR for x in family):
                continue
            if all(_out_of_date(x, register, on) for x in family) and any(
                x.document == higher[0].document and root(x.id) in rivals for x in sent
            ):
                continue  # answered by the revision in force, sent beside it
            if trust_of(r) in HIGH_AUTHORITY:  # both high: the pair's own rule, not the lower tier's
                rule = "two high-authority records that disagree go in both or neither"
            else:
                rule = "a lower tier goes in only alongside the higher source it contradicts, else it stays out"
            problems[(r.id, o)] = (
                f"together: sends {r.id} ({r.trust}) without {o} ({higher[0].trust}), which it disagrees with: {rule}"
            )
    return problems


def _design_holds(got: Any, case: Mapping[str, Any]) -> str | None:
    read = _read_design(got, {r.id: r for r in case["candidates"]})
    if isinstance(read, str):
        return read
    problems = _broken_invariants(*read, case)
    return "\n".join(problems) or None


def _random_library(rng: random.Random, on: _dt.date):
    """Documents in one to three revisions, linked or not, some restricted, some disagreeing, some below the floor;
    a marked copy of one record and a table row that needs its heading, so every selector step can be broken."""
    records = []
    for d in range(4):
        days = sorted(rng.sample(range(0, 200), rng.randint(1, 3)))
        ids = [f"doc{d}-r{v}" for v in range(len(days))]
        asset = rng.choice(("P-2", "P-2", "P-3", "VENDOR-P2"))
        for v, day in enumerate(days):
            records.append(
                record(
                    ids[v],
                    asset,
                    rng.randint(10, 45),
                    version=f"rev {v + 1}",
                    document=f"docs://generated/{d}",
                    effective_date=_dt.date(2025, 12, 1) + _dt.timedelta(days=day),
                    superseded_by=ids[v + 1] if v + 1 < len(ids) and rng.random() < 0.5 else None,
                    trust=rng.choice(_TIER_NAMES),
                    score=rng.randint(10, 99) / 100,
                )
            )
    for a, b in (rng.sample(range(len(records)), 2), rng.sample(range(len(records)), 2)):
        records[a] = _with(records[a], conflicts_with=(*records[a].conflicts_with, records[b].id))
    original = rng.choice(records)
    copy = _with(original, id=f"copy-{original.id}", duplicate_of=original.id, superseded_by=None, conflicts_with=())
    records.append(_with(copy, score=max(0.1, round((original.score or 0.5) - rng.randint(0, 5) / 100, 2))))
    shared = {"version": "rev 1", "document": "docs://generated/table", "trust": rng.choice(_TIER_NAMES)}
    table_day = _dt.date(2025, 12, 1) + _dt.timedelta(days=rng.randint(0, 200))
    head = record(
        "table-head", "P-2", rng.randint(10, 40), score=rng.randint(5, 40) / 100, effective_date=table_day, **shared
    )
    row = record(
        "table-row",
        "P-2",
        rng.randint(5, 20),
        score=rng.randint(30, 99) / 100,
        effective_date=table_day,
        depends_on=("table-head",),
        **shared,
    )
    library = [*records, head, row]
    # Sometimes the register lists a newer revision of one document that retrieval did not return (drawn from
    # its own generator, so the libraries stay those the check has always shown).
    own = random.Random(on.toordinal() + len(library))
    later = own.choice(range(4))
    newest = max(r.effective_date for r in library if r.document == f"docs://generated/{later}")
    unretrieved = (f"docs://generated/{later}", "rev 9", newest + _dt.timedelta(days=own.randint(1, 60)))
    return library, register_of(library, *([unretrieved] if own.random() < 0.5 else []))


def _with(rec, **changes):
    from dataclasses import replace

    return replace(rec, **changes)


def _design_cases() -> tuple[Case, ...]:
    s = scenario()
    torque, flush = list(s.candidates(0)), list(s.candidates(1))
    allowed, today, april = list(s.allowed_assets), s.observed_on, _day("2026-04-01")
    four = [  # the worked example
        r
        for r in flush
        if r.id in {"man-p2-r4-s6.1", "man-p2-r3-s3.2", "vendor-p2-seal-design", "eng-bulletin-2026-02"}
    ]
    without_rev4, without_rev5 = _without(torque, "man-p2-r4-s3.2"), _without(torque, "man-p2-r5-s3.2")
    june, rule, exception = _day("2026-06-01"), ("man-p2-r4-s3.2",), ("man-p2-r4-s3.2.1",)
    rev5 = ("man-p2-r5-s3.2",)
    plan = [
        (
            "the four items: current section 6.1, rev 3, the vendor file, the bulletin",
            four,
            allowed,
            today,
            250,
            (("man-p2-r4-s6.1",),),
            True,
        ),
        (
            "the four items at 40 tokens: room for the manual or the bulletin, not both",
            four,
            allowed,
            today,
            40,
            (),
            False,
        ),
        (
            "the sixteen torque candidates on 2026-03-15, 250 tokens",
            torque,
            allowed,
            today,
            250,
            (rule, exception),
            False,
        ),
        (
            "the same at 150 tokens: copies and rivals must not crowd out the exception",
            torque,
            allowed,
            today,
            150,
            (rule, exception),
            False,
        ),
        (
            "the same on 2026-03-31, one day before rev 5",
            torque,
            allowed,
            _day("2026-03-31"),
            250,
            (rule, exception),
            False,
        ),
        ("the same on 2026-04-01, the day rev 5 takes effect", torque, allowed, april, 250, (rev5,), False),
        ("the torque candidates at 60 tokens", torque, allowed, today, 60, (rule,), False),
        (
            "the torque candidates at 40 tokens: the open ticket may not go in without rev 4, which it contradicts",
            torque,
            allowed,
            today,
            40,
            (),
            False,
        ),
        (
            "a caller who may also read the vendor file",
            torque,
            [*allowed, "VENDOR-P2"],
            today,
            250,
            (rule, exception),
            False,
        ),
        ("a caller who may read only P-3: its one passage scores 0.12", torque, ["P-3"], today, 250, (), False),
        ("the flush question's candidates at 250 tokens", flush, allowed, today, 250, (("man-p2-r4-s6.1",),), False),
        ("the flush question's candidates at 50 tokens", flush, allowed, today, 50, (), False),
        (
            "rev 4 was not retrieved, only its two copies",
            without_rev4,
            allowed,
            today,
            250,
            (("portal-p2-r4-s3.2", "binder-p2-r4-s3.2"), exception),
            False,
        ),
        (
            "neither rev 4 nor rev 5 was retrieved: a copy stands in and carries rev 4's disagreements",
            _without(torque, "man-p2-r4-s3.2", "man-p2-r5-s3.2"),
            allowed,
            today,
            250,
            (("portal-p2-r4-s3.2", "binder-p2-r4-s3.2"), exception),
            False,
        ),
        (
            "rev 5 was not retrieved, 2026-03-15: rev 4's own section still answers",
            without_rev5,
            allowed,
            today,
            250,
            (rule, exception),
            False,
        ),
        (
            "rev 5 was not retrieved, 2026-06-01: no revision of §3.2 in force is here",
            without_rev5,
            allowed,
            june,
            250,
            (),
            False,
        ),
    ]
    reg = s.register
    cases = [
        Case(
            label,
            (c, a, on, b, reg),
            {"candidates": c, "allowed": a, "on": on, "budget": b, "needed": n, "register": reg},
            shown=shown,
        )
        for label, c, a, on, b, n, shown in plan
    ]
    for label, c, b in _pair_cases():
        own = register_of(c)
        expected = {"candidates": c, "allowed": allowed, "on": today, "budget": b, "needed": (), "register": own}
        cases.append(Case(label, (c, allowed, today, b, own), expected))
    rng = random.Random(2026)
    for i in range(4):
        cases.append(_generated_case(rng, f"a generated library ({i + 1} of 4)"))
    return tuple(cases)


def _pair_cases() -> list[tuple[str, list[Any], int]]:
    """Small libraries for the together rule where a side cannot be sent, or wears a label another system wrote."""

    def rec(rid: str, asset: str, trust: str, score: float, cost: int = 20, against: tuple[str, ...] = ()) -> Record:
        return record(
            rid,
            asset,
            cost,
            trust=trust,
            score=score,
            document=f"docs://pairs/{rid}",
            version="rev 1",
            effective_date=_day("2026-01-05"),
            conflicts_with=against,
        )

    lone = rec("tkt-lone", "P-2", "internal", 0.5, 10)
    return [
        (
            "a reviewed bulletin whose approved rival this caller may not read: neither goes in",
            [
                rec("bulletin-9", "P-2", "reviewed", 0.9, against=("vendor-9",)),
                rec("vendor-9", "VENDOR-P2", "approved", 0.8),
                lone,
            ],
            100,
        ),
        (
            "an approved manual whose reviewed rival this caller may not read: neither goes in",
            [
                rec("manual-9", "P-2", "approved", 0.9),
                rec("vendor-note-9", "VENDOR-P2", "reviewed", 0.8, against=("manual-9",)),
                lone,
            ],
            100,
        ),
        (
            "approved-policy (another system's label for approved) against a reviewed bulletin, at 45 tokens",
            [
                rec("policy-9", "P-2", "approved-policy", 0.6, against=("bulletin-8",)),
                rec("bulletin-8", "P-2", "reviewed", 0.9),
                lone,
            ],
            45,
        ),
        (
            "approved-policy against an internal ticket, room for the ticket alone",
            [rec("policy-8", "P-2", "approved-policy", 0.4, 30, ("tkt-8",)), rec("tkt-8", "P-2", "internal", 0.9, 10)],
            25,
        ),
    ]


def _generated_case(rng: random.Random, label: str) -> Case:
    """A random library, day, caller and budget; only the invariants judge it (nothing is known to be needed)."""
    on = _dt.date(2026, 1, 1) + _dt.timedelta(days=rng.randint(0, 150))
    allow = sorted(rng.sample(("P-2", "P-3", "VENDOR-P2"), 2))
    (library, register), budget = _random_library(rng, on), rng.randint(40, 120)
    expected = {"candidates": library, "allowed": allow, "on": on, "budget": budget, "needed": (), "register": register}
    return Case(f"{label}, allowed {allow}, on {on}, {budget} tokens", (library, allow, on, budget, register), expected)


def design_holds(design: Any, seed: int) -> str | None:
    """Run ``design`` on one generated case from ``seed``: None when it keeps every invariant, else what it broke.

    The tests use it for cases the check never shows (held out), so a design is judged beyond the listed ones.
    """
    case = _generated_case(random.Random(seed), "held out")
    call = call_learner(design, *case.args)
    if call.error is not None:
        return call.message
    return _design_holds(call.value, case.expected)


_DESIGN = Exercise(
    "design_pack",
    "Design exercise: your own filter, ranking and conflict rule",
    _design_cases,
    _design_holds,
    (
        "Any design passes that keeps the selector's rules (lesson 02a, section 2) on every case: it sends only assets "
        "the caller may read; nothing but the revision the register has in force that day; one copy of a "
        "section (a marked copy gives way to its original, and goes only where the original could not); "
        "nothing below the 0.35 floor unless a sent "
        "record depends on it; every record with what it depends on; every sent pair that ingestion marked "
        "as disagreeing flagged; two "
        "high-authority records (approved or reviewed) that disagree together or not at all (one the caller may "
        "not read cannot go in, so neither does the other); a lower tier "
        "only alongside the higher source it contradicts (a copy carries its original's disagreements), else "
        "left out; costs within the budget; and the section that answers, with its exception, in the version "
        "in force. How you rank, and whether a lower-tier rival goes in beside its source or stays out, is yours.",
        "Filter first: asset in allowed_assets; of the revision in force (rev = register.in_force(r.document, "
        "observed_on); keep r only when rev is not None and rev.version == r.version: the register knows "
        "revisions retrieval did not return). Rank only what scores at least FLOOR "
        "and is not a copy of a usable original (duplicate_of). Then pack whole units while used + cost <= "
        "budget: a record, its high-authority rivals (all fit, or none goes in), for a lower tier the higher "
        "rival it contradicts (none to be had: leave it out), and everything in their depends_on; skip a unit "
        "whose dependency cannot be sent, or that repeats a section already sent. "
        "Flag every sent pair in conflicts_with.",
        "An outline of one design (authority first), not all of it: it leaves out three rules you must add. "
        "usable = {r.id: r for r in candidates if allowed and of the revision in force}; "
        "ranked = [r for r in usable.values() if r.duplicate_of not in usable and r.score >= FLOOR]; "
        "ranked.sort(key=lambda r: (TIERS.index(trust_of(r)), r.score), reverse=True); "
        "send, used, sections = [], 0, set(); for r in ranked: unit = [r] + [o for o in ranked if high(r) and "
        "high(o) and rivals(r, o)]; add usable[d] for every d in each member's depends_on (skip r if one is not "
        "in usable); skip r if a member is in send or its section (duplicate_of or id) is in sections; cost = "
        "sum(u.cost for u in unit); if used + cost <= budget: send += [u.id for u in unit]; used += cost; "
        "sections.update(...); flags = [(r.id, o) for r in usable.values() if r.id in send for o in "
        "r.conflicts_with if o in send]; return send, flags (high(r): trust_of(r) in ('approved', 'reviewed'); "
        "rivals(r, o): o.id in r.conflicts_with or r.id in o.conflicts_with). Left out: (1) a lower tier's "
        "higher rival: bring it into the unit, or skip r when it cannot be sent; (2) a rival r may not go in "
        "without (a higher tier, or the other side of a high pair) that is not in ranked but scores at least "
        "FLOOR (restricted, say): skip r; (3) a copy carries its original's disagreements: compare "
        "(x.duplicate_of or x.id) in rivals() and in the flags.",
    ),
)


#: Lesson 02a's exercises, then lesson 02b's, each in the order its notebook asks them. The lesson was split in
#: two to fit the hour; its exercises stay in one module because 02b's design exercise checks 02a's rules.
EXERCISES_02A = (
    _SHORTLIST,
    _CONFLICT,
)
EXERCISES_02B = (
    _UNTRACEABLE,
    _DESIGN,
)
EXERCISES = EXERCISES_02A + EXERCISES_02B
