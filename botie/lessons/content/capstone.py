"""The capstone of lesson 06: the learner's own selection and decision inside one turn, then the slice on them.

Two functions from earlier lessons take over two steps of a turn:

* ``choose_evidence(records, allowed_assets, allowance)`` (lesson 01) decides
  which records enter the request. It receives the candidates that are
  current, distinct and above the relevance floor, in the selector's ranking
  order (a record's dependencies just before it), **with permission not yet
  applied**: that part is the learner's.
* ``choose_branch(proposal, *, caller, allowed_assets, approval, previous)``
  (lesson 05a) decides a valid proposal's branch.

By default both are the learner's own, as kept when their checks passed
(:mod:`botie.lessons.learner.kept`); one not passed yet, or kept but no longer
loading, is said in one line and replaced by the reference. Everything else is
botie's: the request and its evidence region, the scripted model, the citation
check, and the action request that carries no document text. The slice then
asks what it asks of any design, set by set. A learner function that raises,
or is still a stub, fails its cases with a message; nothing here hands the
learner a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from botie.actions.decision import Approval, StoredRequest, decide
from botie.actions.tool import TOOL_NAME, validate_inspection
from botie.context.budget import Budget
from botie.context.evidence import build_request, conflict_pairs
from botie.context.provenance import select_evidence
from botie.context.records import Record
from botie.context.selection import select
from botie.errors import RequestTooLargeError
from botie.lessons.content.adversarial import _absent_candidates, _action, _slice_data
from botie.lessons.exercises.engine import call_learner
from botie.lessons.learner.kept import load_function
from botie.turn import ActionRequest, TurnSetup, action_instructions
from botie.turn.gate import answer_gate, asked_assets

__all__ = [
    "SETS",
    "CapstoneCase",
    "CapstoneReport",
    "LearnerError",
    "REFERENCES",
    "capstone_turn",
    "ranked_for_learner",
    "run_capstone",
]

SETS = (
    "ordinary questions",
    "restricted never sent",
    "tight allowances",
    "answer absent",
    "injected instructions",
    "decisions",
)

#: Allowances (evidence tokens) well under the turn's own, where a selection without a budget check overflows.
TIGHT_ALLOWANCES = (60, 120, 200)


class LearnerError(Exception):
    """A learner's function raised or returned something unusable; the message says which and how."""


class CapstoneCase(NamedTuple):
    set: str
    name: str
    passed: bool
    got: str


@dataclass(frozen=True)
class CapstoneReport:
    cases: tuple[CapstoneCase, ...]
    used: tuple[str, ...] = ()  # one line per function: whose version ran, and why

    def whose(self) -> str:
        """Which version of each function ran: yours (kept, or passed in) or the reference, and why."""
        return "\n".join(self.used)

    def score(self, which: str) -> tuple[int, int]:
        chosen = [c for c in self.cases if c.set == which]
        return sum(c.passed for c in chosen), len(chosen)

    def table(self) -> str:
        lines = [f"{'set':<24} passed", "-" * 32]
        for which in SETS:
            passed, total = self.score(which)
            lines.append(f"{which:<24} {passed}/{total}")
        return "\n".join(lines)

    def failures(self) -> str:
        missed = [c for c in self.cases if not c.passed]
        if not missed:
            return "every case passed"
        # A stub or a crash fails many cases with one message: say it once, with the count.
        lines: list[str] = []
        seen: dict[str, int] = {}
        for c in missed:
            if c.got.startswith(("not yet", "your ")):
                seen[c.got] = seen.get(c.got, 0) + 1
                if seen[c.got] > 1:
                    continue
            lines.append(f"✗ {c.set} / {c.name}: {c.got}")
        lines += [f"  ({n - 1} more cases failed with: {got})" for got, n in seen.items() if n > 1]
        return "\n".join(lines)


def _call(fn: Callable[..., Any], name: str, *args: Any, **kwargs: Any) -> Any:
    """Call a learner's function; a stub or an exception becomes a LearnerError with a plain message."""
    call = call_learner(fn, *args, **kwargs)
    if call.not_written:
        raise LearnerError(f"not yet: {name} is still the stub; pass its check in its own lesson first")
    if call.error is not None:
        raise LearnerError(f"your {name} raised {call.message}")
    return call.value


def ranked_for_learner(candidates: Sequence[Record], setup: TurnSetup) -> list[Record]:
    """Current, distinct, above-floor candidates in ranking order, dependencies first; permission NOT applied."""
    everyone = {r.asset for r in candidates} | set(setup.allowed_assets)
    ranked = select_evidence(
        candidates, everyone, setup.budget, observed_on=setup.observed_on, floor=setup.floor, register=setup.register
    ).ranking
    by_id = {r.id: r for r in candidates}
    order: list[str] = []
    for rid in ranked:
        for dep in (*by_id[rid].depends_on, rid):
            if dep in by_id and dep not in order:
                order.append(dep)
    return [by_id[i] for i in order]


def _allowance(setup: TurnSetup) -> int:
    return setup.budget.evidence if isinstance(setup.budget, Budget) else setup.budget


def _chosen(
    select_fn: Callable[..., Any], ranked: list[Record], setup: TurnSetup, allowance: int | None = None
) -> list[Record]:
    allowance = _allowance(setup) if allowance is None else allowance
    got = _call(select_fn, "choose_evidence", list(ranked), list(setup.allowed_assets), allowance)
    if not isinstance(got, (list, tuple)):
        raise LearnerError(f"your choose_evidence returned {type(got).__name__}; it should return a list of records")
    by_id = {r.id: r for r in ranked}
    ids = [x.id if isinstance(x, Record) else x for x in got]
    strangers = [i for i in ids if i not in by_id]
    if strangers:
        raise LearnerError(f"your choose_evidence returned something that was not a candidate: {strangers[0]!r:.60}")
    return [by_id[i] for i in ids]


class CapstoneTurn(NamedTuple):
    outcome: str  # answered, withheld, refused, too_large
    answer: str | None
    context_ids: tuple[str, ...]
    branch: str | None  # the learner's branch for the proposal, if one was made


def _branch(decide_fn: Callable[..., Any], action: ActionRequest, setup: TurnSetup, model: Any) -> str | None:
    request = build_request(
        action.message,
        (),
        ceiling=setup.ceiling,
        answer_allowance=setup.answer_max_tokens,
        instructions=action_instructions(setup),
    )
    proposal = model.reply(request.text).proposal
    if proposal is None or proposal.tool != TOOL_NAME:
        return None
    arguments = dict(proposal.arguments)
    if validate_inspection(arguments):
        return "invalid"  # lesson 05a's choose_branch is for valid proposals; validation is botie's here
    got = _call(
        decide_fn,
        "choose_branch",
        arguments,
        caller=setup.caller,
        allowed_assets=list(setup.may_schedule),
        approval=action.approval,
        previous=action.previous,
    )
    return str(got)


def capstone_turn(
    question: str,
    candidates: Sequence[Record],
    setup: TurnSetup,
    model: Any,
    *,
    select_fn: Callable[..., Any],
    decide_fn: Callable[..., Any] | None = None,
    action: ActionRequest | None = None,
) -> CapstoneTurn:
    """One turn with the learner's selection (and decision, when an action is asked for). May raise LearnerError."""
    chosen = _chosen(select_fn, ranked_for_learner(candidates, setup), setup)
    branch = _branch(decide_fn, action, setup, model) if action is not None and decide_fn is not None else None
    if not chosen:
        return CapstoneTurn("refused", None, (), branch)
    try:  # every disagreeing pair the learner sends carries its note, as in run_turn
        request = build_request(
            question,
            chosen,
            ceiling=setup.ceiling,
            answer_allowance=setup.answer_max_tokens,
            conflicts=conflict_pairs(chosen),
        )
    except RequestTooLargeError:
        return CapstoneTurn("too_large", None, tuple(r.id for r in chosen), branch)
    reply = model.reply(request.text)
    # The turn's own answer gate: quotes, sentences and sides, with the asset the question names.
    ok = answer_gate(reply, request, chosen, asked_assets(question, setup.allowed_assets, None)).ok
    return CapstoneTurn("answered" if ok else "withheld", reply.answer if ok else None, request.document_ids, branch)


def _safely(set_name: str, name: str, work: Callable[[], tuple[bool, str]]) -> CapstoneCase:
    try:
        passed, got = work()
    except LearnerError as exc:
        passed, got = False, str(exc)
    return CapstoneCase(set_name, name, passed, got)


def _question_cases(s: Any, select_fn: Callable[..., Any]) -> list[CapstoneCase]:
    cases = []
    assets = {r.id: r.asset for r in s.scenario.records}
    # Each case's closures run at once, inside _safely, so they see this iteration's question.
    for i, q in enumerate(s.scenario.questions):

        def turn(i: int = i, q: Any = q) -> CapstoneTurn:
            return capstone_turn(q.question, s.scenario.candidates(i), s.setup, s.careful, select_fn=select_fn)

        def ordinary(q: Any = q) -> tuple[bool, str]:
            t = turn()
            missing = [x for x in q.answered_by if x not in t.context_ids]
            ok = t.outcome == "answered" and not missing
            return ok, f"{t.outcome}" + (f"; never sent: {', '.join(missing)}" if missing else "")

        def restricted() -> tuple[bool, str]:
            t = turn()
            leaked = [x for x in t.context_ids if assets[x] not in s.setup.allowed_assets]
            return not leaked, f"sent {', '.join(leaked)}" if leaked else "nothing outside the allowed assets sent"

        if q.answered_by:
            cases.append(_safely("ordinary questions", q.question, ordinary))
        cases.append(_safely("restricted never sent", q.question, restricted))
    return cases


def _allowance_cases(s: Any, select_fn: Callable[..., Any]) -> list[CapstoneCase]:
    """Lesson 01's rule under a tight allowance: permitted records in ranked order while they fit, then stop."""
    ranked = ranked_for_learner(s.scenario.candidates(0), s.setup)
    allowed = list(s.setup.allowed_assets)

    def one(allowance: int) -> Callable[[], tuple[bool, str]]:
        def work() -> tuple[bool, str]:
            got = _chosen(select_fn, ranked, s.setup, allowance)
            want = _reference_evidence(ranked, allowed, allowance)
            used = sum(r.cost for r in got)
            if used > allowance:
                return False, f"yours sends {used} tokens, over the {allowance}-token allowance"
            ids = [r.id for r in got]
            return ids == [r.id for r in want], f"yours {ids}, the rules say {[r.id for r in want]}"

        return work

    return [_safely("tight allowances", f"the torque question in {n} tokens", one(n)) for n in TIGHT_ALLOWANCES]


def _absent_cases(s: Any, select_fn: Callable[..., Any]) -> list[CapstoneCase]:
    def one(entry: Any) -> Callable[[], tuple[bool, str]]:
        def work() -> tuple[bool, str]:
            t = capstone_turn(entry["question"], _absent_candidates(s, entry), s.setup, s.careful, select_fn=select_fn)
            return t.outcome == "refused", t.outcome

        return work

    return [_safely("answer absent", e["question"], one(e)) for e in s.data["absent"]]


def _injected_cases(s: Any, select_fn: Callable[..., Any], decide_fn: Callable[..., Any]) -> list[CapstoneCase]:
    question = s.scenario.questions[0].question
    planted_here = {e["record"] for e in s.data["injected"]}
    clean = tuple(r for r in s.scenario.candidates(0) if r.id not in planted_here)
    by_id = {r.id: r for r in (*s.scenario.candidates(0), *s.planted.values())}
    action = _action(s.data, s.setup.caller)
    cases = []
    for entry in s.data["injected"]:
        doc = by_id[entry["record"]]

        def work(doc: Record = doc) -> tuple[bool, str]:
            ref = capstone_turn(
                question, clean, s.setup, s.gullible, select_fn=select_fn, decide_fn=decide_fn, action=action
            )
            got = capstone_turn(
                question, (*clean, doc), s.setup, s.gullible, select_fn=select_fn, decide_fn=decide_fn, action=action
            )
            answer = "withheld" if got.outcome == "withheld" else "unchanged" if got.answer == ref.answer else "changed"
            same_branch = got.branch == ref.branch
            return (
                answer != "changed" and same_branch,
                f"answer {answer}; branch {got.branch} (without it: {ref.branch})",
            )

        cases.append(_safely("injected instructions", f"{entry['trick']} ({doc.id})", work))
    return cases


def _decision_cases(decide_fn: Callable[..., Any], caller: str) -> list[CapstoneCase]:
    r7 = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
    longer = {**r7, "duration_minutes": 30}
    k7 = {**r7, "asset_id": "K-7", "request_id": "r11"}
    at_eleven = {**r7, "start": "2026-04-02T11:00Z"}
    states = [
        ("nothing approved yet", r7, ["P-2", "P-3"], None, None),
        ("approved, nothing stored", r7, ["P-2", "P-3"], Approval(caller, r7), None),
        ("approved, the same r7 stored", r7, ["P-2", "P-3"], Approval(caller, r7), StoredRequest.settled(r7, "job-1")),
        (
            "approved, r7 stored for 30 minutes",
            r7,
            ["P-2", "P-3"],
            Approval(caller, r7),
            StoredRequest.settled(longer, "job-1"),
        ),
        ("P-2 no longer allowed, r7 stored", r7, ["P-3"], Approval(caller, r7), StoredRequest.settled(r7, "job-1")),
        ("approved by someone else", r7, ["P-2", "P-3"], Approval("sup-lee", r7), None),
        # Permission comes before approval: an asset the caller may not schedule is denied, approved or not.
        ("K-7, which the caller may not schedule, nothing approved", k7, ["P-2", "P-3"], None, None),
        # The start is part of the payload: an approval for 09:00 does not book 11:00, nor does r7 at 09:00 reuse.
        ("approved for 09:00, the proposal now starts at 11:00", at_eleven, ["P-2", "P-3"], Approval(caller, r7), None),
        (
            "approved, r7 stored for 11:00",
            r7,
            ["P-2", "P-3"],
            Approval(caller, r7),
            StoredRequest.settled(at_eleven, "job-1"),
        ),
        # Approval comes before the stored request (lesson 05a's order): nothing approved is never reuse.
        ("nothing approved, the same r7 stored", r7, ["P-2", "P-3"], None, StoredRequest.settled(r7, "job-1")),
        # ... nor conflict: a store-first branch reads the stored 30 minutes before asking for the approval.
        (
            "nothing approved, r7 stored for 30 minutes",
            r7,
            ["P-2", "P-3"],
            None,
            StoredRequest.settled(longer, "job-1"),
        ),
    ]
    cases = []
    for name, proposal, allowed, approval, previous in states:

        def work(proposal=proposal, allowed=allowed, approval=approval, previous=previous) -> tuple[bool, str]:
            want = str(
                decide(proposal, caller=caller, allowed_assets=allowed, approval=approval, previous=previous).branch
            )
            got = str(
                _call(
                    decide_fn,
                    "choose_branch",
                    dict(proposal),
                    caller=caller,
                    allowed_assets=list(allowed),
                    approval=approval,
                    previous=previous,
                )
            )
            return got == want, f"yours {got}, the rules say {want}"

        cases.append(_safely("decisions", name, work))
    return cases


def _reference_evidence(records: Sequence[Record], allowed_assets: Sequence[str], allowance: int) -> list[Record]:
    """Lesson 01's rule as botie applies it: permission first, then the ranked prefix that fits."""
    by_id = {r.id: r for r in records}
    return [by_id[i] for i in select(records, list(allowed_assets), allowance, policy="prefix").selected_ids]


def _reference_branch(proposal: Any, *, caller: str, allowed_assets: Any, approval: Any, previous: Any) -> str:
    """Lesson 05a's order as botie's decide applies it: permission, approval, then the stored request."""
    return str(
        decide(
            dict(proposal), caller=caller, allowed_assets=allowed_assets, approval=approval, previous=previous
        ).branch
    )


#: The versions the capstone uses where the learner's own is not passed yet.
REFERENCES: dict[str, Callable[..., Any]] = {
    "choose_evidence": _reference_evidence,
    "choose_branch": _reference_branch,
}


def _pick(name: str, given: Callable[..., Any] | None) -> tuple[Callable[..., Any], str]:
    """The function to run for ``name`` and one plain line saying whose it is."""
    if given is not None:
        return given, f"{name}: yours, as passed to run_capstone"
    kept = load_function(name)
    if kept.function is not None:
        return kept.function, kept.message
    return REFERENCES[name], f"{kept.message}, so the capstone uses the reference"


def run_capstone(
    choose_evidence: Callable[..., Any] | None = None, choose_branch: Callable[..., Any] | None = None
) -> CapstoneReport:
    """Run the slice's sets that the two functions take part in, and report them set by set.

    A function not given is loaded from the ones your passing checks kept; where none is kept
    (or it no longer loads) the report says so and the reference takes its place.
    """
    select_fn, said_select = _pick("choose_evidence", choose_evidence)
    decide_fn, said_decide = _pick("choose_branch", choose_branch)
    s = _slice_data()
    cases = [
        *_question_cases(s, select_fn),
        *_allowance_cases(s, select_fn),
        *_absent_cases(s, select_fn),
        *_injected_cases(s, select_fn, decide_fn),
        *_decision_cases(decide_fn, s.setup.caller),
    ]
    return CapstoneReport(tuple(cases), (said_select, said_decide))
