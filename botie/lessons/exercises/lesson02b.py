"""Lesson 02b: untraceable citations, and the design exercise that holds a learner's own pack to the selector's rules.

The design check judges with the library's predicates (:mod:`botie.context.provenance.rules`: the original a
copy stands for, the floor, the revision in force, rivals) and lesson 02a's freshness verdict; it keeps only
what it tells the learner, so it cannot teach a rule the selector does not apply.
"""

from __future__ import annotations

import datetime as _dt
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from botie.context.provenance.rules import clears_floor, disagreements, original_of
from botie.context.provenance.trust import Trust, authority, both_high
from botie.context.records import Record
from botie.lessons.exercises._shared import record, scenario
from botie.lessons.exercises.engine import Case, Exercise, call_learner, show
from botie.lessons.exercises.lesson02a import FLOOR, out_of_date, register_of, without

__all__ = ["EXERCISES", "INVARIANTS", "design_holds"]

#: The tiers' names, highest first (the generated libraries draw from them in this order).
_TIER_NAMES = tuple(t.value for t in Trust)


def _day(text: str) -> _dt.date:
    return _dt.date.fromisoformat(text)


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
        why = out_of_date(r, case["register"], case["on"])
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


def _marked_originals(candidates: list[Any]) -> set[frozenset[str]]:
    """The marked disagreements between originals: a copy, however many links from it, carries its original's."""
    by_id = {r.id: r for r in candidates}
    return {frozenset((original_of(a, by_id), original_of(b, by_id))) for a, b in disagreements(candidates)}


def _marked_pairs(sent: list[Any], candidates: list[Any]) -> set[frozenset[str]]:
    """Sent pairs that ingestion marked as disagreeing; a copy carries its original's disagreements."""
    by_id = {r.id: r for r in candidates}
    marked = _marked_originals(candidates)
    return {
        frozenset((a.id, b.id))
        for a in sent
        for b in sent
        if frozenset((original_of(a.id, by_id), original_of(b.id, by_id))) in marked
    }


def _copies_sent(sent: list[Any], case: Mapping[str, Any]) -> list[str]:
    """Step 3: a marked copy gives way to its original; of copies whose original is missing, one goes.

    "Missing" means the original could not go in the copy's place: not retrieved, not permitted, not in force,
    below the floor where the copy clears it, or too large for the room the copy leaves. Otherwise sending the
    copy instead is a duplicate too. The original is the one at the end of the chain of copies, as the selector
    reads it.
    """
    by_id = {r.id: r for r in case["candidates"]}
    sent_ids = {r.id for r in sent}
    used = sum(r.cost for r in sent)
    first: dict[str, str] = {}
    problems = []
    for r in sent:
        section = original_of(r.id, by_id)
        if section in first:
            problems.append(f"duplicates: sends {r.id} and {first[section]}, two copies of {section}: send one")
            continue
        first[section] = r.id
        original = by_id.get(section) if section != r.id else None
        if (
            original is not None
            and original.id not in sent_ids
            and original.asset in case["allowed"]
            and out_of_date(original, case["register"], case["on"]) is None
            and (clears_floor(original, FLOOR) or not clears_floor(r, FLOOR))  # the selector's stand-in rule
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
        if not clears_floor(r, FLOOR) and r.id not in needed
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
        r.id: r for r in candidates if out_of_date(r, case["register"], case["on"]) is None and clears_floor(r, FLOOR)
    }
    sent_ids = {r.id for r in sent}
    problems = {}
    for r in sent:
        rivals = {other for rid, other in disagreements(candidates) if rid == r.id}
        for other in sorted(rivals & set(current) - sent_ids):
            o = current[other]
            if both_high(r, o):
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

    def root(rid: str) -> str:
        return original_of(rid, by_id)

    marks = _marked_originals(candidates)
    sent_roots = {root(r.id) for r in sent}
    problems = {}
    for r in sent:
        rivals = {o for pair in marks if root(r.id) in pair for o in pair if o != root(r.id)}
        for o in sorted(rivals - sent_roots):
            family = [x for x in candidates if root(x.id) == o]
            higher = [x for x in family if authority(x) > authority(r)]
            if not higher or not any(clears_floor(x, FLOOR) for x in family):
                continue
            if all(out_of_date(x, register, on) for x in family) and any(
                x.document == higher[0].document and root(x.id) in rivals for x in sent
            ):
                continue  # answered by the revision in force, sent beside it
            if both_high(r, higher[0]):  # the pair's own rule, not the lower tier's
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
    without_rev4, without_rev5 = without(torque, "man-p2-r4-s3.2"), without(torque, "man-p2-r5-s3.2")
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
            without(torque, "man-p2-r4-s3.2", "man-p2-r5-s3.2"),
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


#: Lesson 02b's exercises, in the order its notebook asks them.
EXERCISES = (
    _UNTRACEABLE,
    _DESIGN,
)
