"""When may a proposed tool call turn into an action? One pure function, one branch, one readable path.

:func:`decide` takes a ``propose_inspection`` proposal and the trusted facts
around it (who is signed in, which assets they may schedule, what they
approved, what is already stored under the request id and, when given, the
asset register and the maintenance calendar) and returns a
:class:`Decision`. It performs nothing: the service in :mod:`botie.actions.service`
acts on the decision. The checks run in a fixed order, and each one that
fails ends the walk (the first three, which read nothing stored, are also
:func:`screen`, which a service runs before it opens its store):

1. **validation**: is the proposal well formed? (:func:`botie.actions.tool.validate_inspection`)
2. **permission**: is the asset in the caller's allowed list? The list comes
   from trusted application state, never from the proposal.
3. **approval**: did someone who may approve for the caller approve
   *exactly this* payload? By default that is the caller alone; a policy
   (``approvers``) can name others per caller, such as a supervisor. A
   changed duration or asset needs a new approval.
4. **idempotency**: what is stored under the request id? Nothing: go on to
   the business rules. The same payload: reuse the earlier job. A different
   payload: conflict.
5. **register** (when an ``asset_register`` is given): is the asset in the asset
   register? If not: ``unknown_asset``.
6. **calendar** (when a calendar is given): does the visit fit a free
   maintenance window of the asset? If not: ``window_unavailable``. Else: create.

Permission comes before anything stored is looked at, so a caller who may
not schedule an asset learns nothing about earlier requests: a ``denied``
decision carries no job id, no payload and no hint whether one exists.

The register and calendar come after permission, so a caller learns whether
an asset exists only for assets they may schedule: ``P-999`` and ``K-7``
outside their scope are both plainly ``denied``. They come after the stored
request, so they judge only a booking that would be *new*: a retry of
``r7`` with the same payload reuses ``job-1`` even though ``job-1`` itself
now fills that window (or the asset has since left the register), a retry
of an attempt whose outcome is unknown (``failed``: the scheduler may have
booked it) goes to the scheduler again under the same key, since the
service held its slot from the first attempt, and a
changed payload under ``r7`` is a conflict whatever the calendar says. The
cost of that order: approval is asked before the calendar is, so an
approval screen should offer only windows the calendar shows free.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, NamedTuple

from botie._checks import allowed_set, aware_datetime, has_text, non_empty_text
from botie._enum import ShortName
from botie.actions.canonical import canonical_json
from botie.actions.rules import AssetRegister, MaintenanceCalendar, need_calendar, need_register
from botie.actions.tool import FIELDS, FieldError, parse_start, validate_inspection
from botie.errors import DecisionError

__all__ = [
    "Approval",
    "Branch",
    "Check",
    "CheckName",
    "Decision",
    "ExpiredKey",
    "KeyState",
    "Receipt",
    "Screened",
    "StoredRequest",
    "Verdict",
    "allowed_set",
    "decide",
    "screen",
]


class Branch(ShortName):
    """Which way a proposal went.

    :func:`decide` returns the first six, the two business-rule branches
    (``unknown_asset``: the asset is in no register; ``window_unavailable``:
    no free maintenance window fits the visit), and ``in_progress`` when the
    request stored under this key is still pending. The last two only arise
    once real storage is involved: ``in_progress`` (an earlier attempt under this key has
    not finished; the IETF Idempotency-Key draft answers 409 here) and
    ``unavailable`` (the store or the downstream service could not be reached or
    did not answer; the outcome is unknown: no job is confirmed, though the
    downstream may have booked one, which a retry under the same request id
    gets back), which only the service returns (each decided in :mod:`botie.actions.outcomes`).
    """

    INVALID = "invalid"
    DENIED = "denied"
    NEEDS_APPROVAL = "needs_approval"
    CREATE = "create"
    REUSE = "reuse"
    CONFLICT = "conflict"
    UNKNOWN_ASSET = "unknown_asset"
    WINDOW_UNAVAILABLE = "window_unavailable"
    IN_PROGRESS = "in_progress"
    UNAVAILABLE = "unavailable"

    @property
    def retryable(self) -> bool:
        """Whether sending the *same* request again, later, can succeed without anyone changing anything.

        Only transient states qualify. A malformed proposal, a denial, a
        missing approval or a conflict will give the same answer until a
        person or the model changes something, so retrying them is noise.
        """
        return self in (Branch.IN_PROGRESS, Branch.UNAVAILABLE)


class CheckName(ShortName):
    """The checks, in the order they run (the last two only when a register or a calendar is given)."""

    VALIDATION = "validation"
    PERMISSION = "permission"
    APPROVAL = "approval"
    IDEMPOTENCY = "idempotency"
    REGISTER = "register"
    CALENDAR = "calendar"


class Verdict(ShortName):
    """How one check came out. ``not_reached``: an earlier check already decided."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_REACHED = "not_reached"


class Check(NamedTuple):
    """One step of the path: which check, its verdict, and a reason a learner can read."""

    name: CheckName
    verdict: Verdict
    reason: str

    def __str__(self) -> str:
        return f"{self.name}: {self.verdict} ({self.reason})"


class KeyState(ShortName):
    """Where the request stored under a key stands.

    ``done``: a job exists and its receipt is stored. ``pending``: the key is
    reserved and a downstream call may be running (or crashed mid-way).
    ``failed``: the last downstream call ended with an error, so no job is
    confirmed; the next attempt with the same payload tries again under the
    same key.
    """

    PENDING = "pending"
    FAILED = "failed"
    DONE = "done"


def _need_text(value: Any, name: str) -> str:
    return non_empty_text(value, field=name, error=DecisionError)


def _need_aware(value: Any, name: str) -> _dt.datetime | None:
    """``value`` if it is None (not known) or an aware datetime."""
    return None if value is None else aware_datetime(value, field=name, error=DecisionError)


def _frozen_payload(payload: Any, name: str) -> tuple[Mapping[str, Any], str]:
    """A read-only copy of ``payload`` and its canonical JSON, or a DecisionError naming ``name``."""
    if not isinstance(payload, Mapping):
        raise DecisionError(f"{name} must be a mapping of arguments, got {payload!r}", field=name)
    copy = dict(payload)
    try:
        text = canonical_json(copy)
    except (TypeError, ValueError) as exc:
        raise DecisionError(f"{name} has no canonical JSON form: {exc}", field=name) from exc
    return MappingProxyType(copy), text


@dataclass(frozen=True, slots=True)
class Receipt:
    """Proof that one request created one job: what a successful tool result hands back.

    ``job_id`` is the same on every reuse of the key. ``external_ref`` is the
    downstream service's own id, when creating the job meant calling one.
    """

    job_id: str
    request_id: str
    asset_id: str
    duration_minutes: int
    created_at: _dt.datetime | None = None
    external_ref: str | None = None

    def __post_init__(self) -> None:
        _need_text(self.job_id, "receipt.job_id")
        _need_text(self.request_id, "receipt.request_id")
        _need_aware(self.created_at, "receipt.created_at")


@dataclass(frozen=True, slots=True)
class Approval:
    """A human approval, recorded by the application for one exact payload and one actor.

    The model cannot set this: it comes from the approval screen. ``payload``
    is the full set of arguments that was shown (asset, duration and request
    id), so one approval authorises one booking and nothing that differs from it.
    """

    actor: str
    payload: Mapping[str, Any]
    _canonical: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _need_text(self.actor, "approval.actor")
        payload, text = _frozen_payload(self.payload, "approval.payload")
        object.__setattr__(self, "payload", payload)
        object.__setattr__(self, "_canonical", text)


@dataclass(frozen=True, slots=True)
class StoredRequest:
    """What the store holds under one (caller, request id): the payload first sent, and how it ended.

    ``state`` defaults from ``receipt``: ``done`` with a receipt, ``pending``
    without. For a lesson panel the three interesting cases are ``None``
    (nothing stored), ``StoredRequest.settled(same_payload, "job-1")`` and
    ``StoredRequest.settled(other_payload, "job-1")``.
    """

    payload: Mapping[str, Any]
    receipt: Receipt | None = None
    state: KeyState | None = None
    stored_at: _dt.datetime | None = field(default=None, kw_only=True)
    _canonical: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        payload, text = _frozen_payload(self.payload, "previous.payload")
        object.__setattr__(self, "payload", payload)
        object.__setattr__(self, "_canonical", text)
        state = self.state
        if state is None:
            state = KeyState.DONE if self.receipt is not None else KeyState.PENDING
        try:
            state = KeyState(state)
        except ValueError:
            raise DecisionError(
                f"previous.state must be one of pending, failed, done; got {state!r}", field="previous.state"
            ) from None
        object.__setattr__(self, "state", state)
        if (state is KeyState.DONE) != (self.receipt is not None):
            raise DecisionError("a stored request has a receipt exactly when its state is done", field="previous")
        if self.receipt is not None and self.receipt.request_id != payload.get("request_id"):
            raise DecisionError(
                f"the receipt is for {self.receipt.request_id!r} but the payload for {payload.get('request_id')!r}",
                field="previous.receipt",
            )
        _need_aware(self.stored_at, "previous.stored_at")

    @classmethod
    def settled(
        cls,
        payload: Mapping[str, Any],
        job_id: str,
        *,
        created_at: _dt.datetime | None = None,
    ) -> StoredRequest:
        """A request that already created ``job_id``: its payload and the receipt it earned."""
        # Copied as first sent, so typed Any: Receipt itself refuses a missing or empty request id.
        get: Callable[[str], Any] = payload.get
        receipt = Receipt(job_id, get("request_id"), get("asset_id"), get("duration_minutes"), created_at)
        return cls(payload, receipt, stored_at=created_at)


@dataclass(frozen=True, slots=True)
class ExpiredKey:
    """What the store held under a key whose retention has passed: when it was last used, and the retention.

    The service has forgotten it, so the request is new; :func:`decide`, given it as ``previous``, says so.
    """

    last_used: _dt.datetime
    retention: _dt.timedelta

    def __post_init__(self) -> None:
        aware_datetime(self.last_used, field="previous.last_used", error=DecisionError)
        if not isinstance(self.retention, _dt.timedelta):
            raise DecisionError(f"retention must be a timedelta, got {self.retention!r}", field="retention")


@dataclass(frozen=True, slots=True)
class Decision:
    """The branch that fired, the ordered checks that led there, and what the caller may be told.

    ``errors`` is non-empty only for ``invalid`` (one repairable problem per
    entry). ``receipt`` is set only for ``reuse`` (the earlier job) and, once
    the service has created the job, ``create``: :func:`decide` decides and
    does not act, so its ``create`` has no job yet and ``receipt`` is None.
    """

    branch: Branch
    checks: tuple[Check, ...]
    errors: tuple[FieldError, ...] = ()
    receipt: Receipt | None = None

    @property
    def retryable(self) -> bool:
        """Whether the same request may be sent again unchanged (see :attr:`Branch.retryable`)."""
        return self.branch.retryable

    @property
    def ok(self) -> bool:
        """True when a job exists for this request: created now, or reused from before."""
        return self.receipt is not None

    @property
    def reason(self) -> str:
        """The reason of the check that decided: the first that failed, else the last one reached.

        A reuse is decided by the stored request, even when the service's path shows rules it asked before.
        """
        for check in self.checks:
            if check.verdict is Verdict.FAILED or (self.branch is Branch.REUSE and check.name is CheckName.IDEMPOTENCY):
                return check.reason
        for check in reversed(self.checks):
            if check.verdict is not Verdict.NOT_REACHED:
                return check.reason
        return ""

    def with_receipt(self, receipt: Receipt) -> Decision:
        """This ``create`` decision, completed with the receipt of the job the service just made."""
        if self.branch is not Branch.CREATE:
            raise DecisionError(f"only a create decision gains a receipt, not {self.branch}", field="receipt")
        return replace(self, receipt=receipt)

    def tool_result(self) -> dict[str, Any]:
        """The observation to hand back to the model: JSON-ready, and no more than the caller may know.

        Every result names its ``status`` (the branch) and whether a retry is
        appropriate. Success carries the job id; ``invalid`` carries the fields
        to repair; the rest carry the reason. A ``create`` without a job (from
        :func:`decide` alone, before the service acted) raises rather than
        reporting a booking that has not happened.
        """
        if self.branch is Branch.CREATE and self.receipt is None:
            raise DecisionError(
                "this create decision has no job yet: the service creates it and fills the receipt", field="receipt"
            )
        result: dict[str, Any] = {"status": self.branch.value, "retryable": self.retryable}
        if self.receipt is not None:
            result["job_id"] = self.receipt.job_id
            result["request_id"] = self.receipt.request_id
        if self.errors:
            result["errors"] = [
                {"field": e.field, "problem": e.problem.value, "message": e.message} for e in self.errors
            ]
        result["message"] = self.reason
        return result

    def explain(self) -> str:
        """The path as text, one check a line, ending with the branch."""
        lines = [f"{c.name:<12} {c.verdict:<12} {c.reason}" for c in self.checks]
        lines.append(f"-> {self.branch}")
        return "\n".join(lines)


# --- the path ------------------------------------------------------------------

_WELL_FORMED = Check(
    CheckName.VALIDATION,
    Verdict.PASSED,
    "asset_id, duration_minutes, start and request_id are present and well formed",
)
_AFTER_INVALID = (
    Check(CheckName.PERMISSION, Verdict.NOT_REACHED, "not reached: the proposal must be repaired first"),
    Check(CheckName.APPROVAL, Verdict.NOT_REACHED, "not reached: the proposal must be repaired first"),
    Check(CheckName.IDEMPOTENCY, Verdict.NOT_REACHED, "not reached: the proposal must be repaired first"),
)
_AFTER_DENIED = (
    Check(CheckName.APPROVAL, Verdict.NOT_REACHED, "not reached: permission was denied"),
    Check(
        CheckName.IDEMPOTENCY,
        Verdict.NOT_REACHED,
        "not reached: permission was denied, so nothing stored under this request id was read",
    ),
)
_AFTER_NO_APPROVAL = Check(CheckName.IDEMPOTENCY, Verdict.NOT_REACHED, "not reached: approval is needed first")
#: Why the business rules were not asked, after an idempotency answer that books nothing new.
_NOTHING_NEW = {
    Branch.REUSE: "not needed: reusing the earlier job books nothing new",
    Branch.CONFLICT: "not reached: the request id already names another payload",
    Branch.IN_PROGRESS: "not reached: an earlier attempt under this request id is still being booked",
}
#: Why a retry of an attempt whose outcome is unknown is not judged again: its slot was held from the first try.
_RETRY_NOT_NEW = "not needed: a retry of an attempt whose outcome is unknown is not a new booking (its slot is held)"


@dataclass(frozen=True, slots=True)
class _Rules:
    """The business rules this decision applies: a register, a calendar, either or neither."""

    register: AssetRegister | None
    calendar: MaintenanceCalendar | None

    def not_reached(self, why: str) -> tuple[Check, ...]:
        """The rule checks left unasked, each with ``why``; none when no register or calendar was given."""
        given = ((CheckName.REGISTER, self.register), (CheckName.CALENDAR, self.calendar))
        names = [name for name, rule in given if rule is not None]  # (an empty register is a register)
        return tuple(Check(name, Verdict.NOT_REACHED, why) for name in names)

    def check(self, path: tuple[Check, ...], payload: Mapping[str, Any]) -> Decision:
        """After idempotency chose to create: the register, then the calendar, then ``create``."""
        asset, minutes = payload["asset_id"], payload["duration_minutes"]
        if self.register is not None:
            if asset not in self.register:
                missing = Check(CheckName.REGISTER, Verdict.FAILED, f"{asset} is not in the asset register")
                after = _Rules(None, self.calendar).not_reached("not reached: the asset is not in the register")
                return Decision(Branch.UNKNOWN_ASSET, (*path, missing, *after))
            path = (*path, Check(CheckName.REGISTER, Verdict.PASSED, f"{asset} is in the asset register"))
        if self.calendar is not None:
            start = parse_start(payload["start"])
            assert start is not None  # validation passed, so start parses
            why = self.calendar.unavailable(asset, start, minutes)
            if why is not None:
                if not has_text(why):
                    raise DecisionError(f"the calendar must give a reason or None, got {why!r:.60}", field="calendar")
                return Decision(Branch.WINDOW_UNAVAILABLE, (*path, Check(CheckName.CALENDAR, Verdict.FAILED, why)))
            when = f"{minutes} minutes from {start:%Y-%m-%d %H:%M} UTC"
            free = f"a maintenance window of {asset} is open and free for {when}"
            path = (*path, Check(CheckName.CALENDAR, Verdict.PASSED, free))
        return Decision(Branch.CREATE, path)


_ABSENT = object()


def _value_text(value: Any) -> str:
    return "(absent)" if value is _ABSENT else repr(value)


def _same_json(a: Any, b: Any) -> bool:
    """Whether an approved or stored value has the same canonical JSON as the proposal's value ``b``.

    The proposal has passed validation, so ``b`` is a str or an int (or absent). For those, the same
    canonical text means the same type and an equal value: 20 vs 20.0 and 1 vs True differ.
    """
    return type(a) is type(b) and a == b


def _differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Keys whose values differ in canonical form."""
    return [
        key for key in sorted(old.keys() | new.keys()) if not _same_json(old.get(key, _ABSENT), new.get(key, _ABSENT))
    ]


def _compare_text(before: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """``"<before> duration_minutes=20 but the proposal says 30"``, naming every changed field."""
    keys = _differences(old, new)
    if not keys:
        return f"{before} a payload with a different canonical form"
    if len(keys) == 1:
        key = keys[0]
        return (
            f"{before} {key}={_value_text(old.get(key, _ABSENT))} "
            f"but the proposal says {_value_text(new.get(key, _ABSENT))}"
        )
    was = ", ".join(f"{k}={_value_text(old.get(k, _ABSENT))}" for k in keys)
    now = ", ".join(f"{k}={_value_text(new.get(k, _ABSENT))}" for k in keys)
    return f"{before} {was} but the proposal says {now}"


def _approval_check(
    approval: Approval | None, caller: str, payload: Mapping[str, Any], text: str, others: tuple[str, ...]
) -> Check:
    """The third check: an approval by someone who may approve for the caller, for exactly this payload.

    ``others`` are the people the policy lets approve for this caller besides the caller.
    """
    if approval is None:
        reason = (
            f"no approval is recorded: show {caller} {payload['asset_id']} for "
            f"{payload['duration_minutes']} minutes from {payload['start']} and record their answer"
        )
        return Check(CheckName.APPROVAL, Verdict.FAILED, reason)
    actor = approval.actor
    if actor != caller and actor not in others:
        if not others:
            reason = f"the approval was recorded by {actor}, not by the caller {caller}"
        else:
            may = ", ".join((caller, *others))
            reason = f"the approval was recorded by {actor}, who may not approve for {caller} ({may} may)"
        return Check(CheckName.APPROVAL, Verdict.FAILED, reason)
    if approval._canonical != text:
        changed = _compare_text("the approval was recorded for", approval.payload, payload)
        return Check(CheckName.APPROVAL, Verdict.FAILED, f"{changed}; a changed request needs a new approval")
    if actor == caller:
        return Check(CheckName.APPROVAL, Verdict.PASSED, f"{caller} approved exactly this payload")
    why = f"{actor} approved exactly this payload for {caller}, as the approval policy allows"
    return Check(CheckName.APPROVAL, Verdict.PASSED, why)


def _approvers_for(approvers: Mapping[str, Iterable[str]] | None, caller: str) -> tuple[str, ...]:
    """Who besides the caller may approve for them: nobody unless the policy says so."""
    if approvers is None:
        return ()
    if not isinstance(approvers, Mapping):
        raise DecisionError(
            f"approvers must map a caller to who may approve for them, got {approvers!r:.60}", field="approvers"
        )
    named = approvers.get(caller, ())
    if isinstance(named, (str, bytes)):
        raise DecisionError(
            f"approvers for {caller} must be a list of people, not the string {named!r}", field="approvers"
        )
    named = tuple(named)
    for person in named:
        non_empty_text(person, field="approvers", error=DecisionError, where=f"approvers for {caller}")
    return named


def _idempotency(
    previous: Any,
    caller: str,
    payload: Mapping[str, Any],
    rid: str,
    text: str,
) -> tuple[Branch, Check, Receipt | None]:
    """The last check: compare the proposal with what is stored under its request id."""
    if previous is None:
        reason = f"nothing is stored under {rid} for {caller}: this is a new booking"
        return Branch.CREATE, Check(CheckName.IDEMPOTENCY, Verdict.PASSED, reason), None
    if isinstance(previous, ExpiredKey):
        used = previous.last_used.astimezone(_dt.timezone.utc)
        reason = (
            f"{rid} was last used at {used:%Y-%m-%d %H:%M} UTC, beyond the "
            f"{previous.retention} retention: its key has expired, so this is a new request"
        )
        return Branch.CREATE, Check(CheckName.IDEMPOTENCY, Verdict.PASSED, reason), None
    if not isinstance(previous, StoredRequest):
        raise DecisionError(f"previous must be None or a StoredRequest, got {previous!r}", field="previous")
    if previous._canonical != text:
        stored_under = previous.payload.get("request_id")
        if stored_under != rid:  # (equal texts would imply equal request ids)
            raise DecisionError(f"previous was stored under {stored_under!r}, not {rid!r}", field="previous")
        why = _compare_text(f"{rid} was first used for", previous.payload, payload)
        reason = f"{why}; the first request stands, and a different inspection needs a new request id"
        return Branch.CONFLICT, Check(CheckName.IDEMPOTENCY, Verdict.FAILED, reason), None
    if previous.receipt is not None:  # state done: StoredRequest holds a receipt exactly then
        job = previous.receipt.job_id
        reason = f"{rid} already created {job} with this exact payload: returning {job} instead of booking again"
        return Branch.REUSE, Check(CheckName.IDEMPOTENCY, Verdict.PASSED, reason), previous.receipt
    if previous.state is KeyState.PENDING:
        reason = f"an earlier attempt of {rid} is still being booked: ask again with the same request id shortly"
        return Branch.IN_PROGRESS, Check(CheckName.IDEMPOTENCY, Verdict.FAILED, reason), None
    reason = (
        f"the earlier attempt of {rid} ended without a confirmed job (it may have booked one): "
        "try again under the same key"
    )
    return Branch.CREATE, Check(CheckName.IDEMPOTENCY, Verdict.PASSED, reason), None


def _need_caller(caller: Any) -> None:
    if not has_text(caller):  # (the shared rule, said as who the caller is)
        raise DecisionError(
            f"caller must be the signed-in user's id (a non-empty string), got {caller!r}", field="caller"
        )


@dataclass(frozen=True, slots=True)
class Screened:
    """The first three checks, which read nothing stored: a refusal, or the path a bookable proposal walked.

    ``refusal`` is the ``invalid``, ``denied`` or ``needs_approval`` decision, or None when validation,
    permission and approval passed; then ``path`` holds those three passed checks and ``payload`` the
    proposal's fields. :func:`decide` goes on from here with the stored request; a service that could
    not read the store at all asks :meth:`store_unread` for its answer.
    """

    refusal: Decision | None
    path: tuple[Check, ...] = ()
    payload: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    _rules: _Rules = field(default=_Rules(None, None), repr=False, compare=False)
    _canonical: str = field(default="", repr=False, compare=False)

    def store_unread(self, reason: str) -> Decision:
        """``unavailable``: the stored request could not be read (``reason`` says why), so nothing after it ran."""
        if self.refusal is not None:
            raise DecisionError(f"a {self.refusal.branch} proposal never reads the store", field="screened")
        failed = Check(CheckName.IDEMPOTENCY, Verdict.FAILED, reason)
        unread = self._rules.not_reached("not reached: the store could not be read")
        return Decision(Branch.UNAVAILABLE, (*self.path, failed, *unread))


def screen(
    proposal: Any,
    *,
    caller: str,
    allowed_assets: Iterable[str],
    approval: Approval | None,
    approvers: Mapping[str, Iterable[str]] | None = None,
    asset_register: AssetRegister | None = None,
    calendar: MaintenanceCalendar | None = None,
) -> Screened:
    """Validation, permission and approval: what :func:`decide` checks before it reads ``previous``.

    Trusted state is checked here as in :func:`decide` (malformed state raises
    :class:`~botie.errors.DecisionError`). A service screens before it opens the store, so a refused
    caller's request never reads anything stored.
    """
    _need_caller(caller)
    allowed = allowed_set(allowed_assets)
    others = _approvers_for(approvers, caller)
    rules = _Rules(need_register(asset_register), need_calendar(calendar))
    if approval is not None and not isinstance(approval, Approval):
        raise DecisionError(f"approval must be None or an Approval, got {approval!r}", field="approval")

    errors = validate_inspection(proposal)
    if errors:
        problems = "; ".join(e.message for e in errors)
        count = f"{len(errors)} problem{'s' if len(errors) > 1 else ''} to repair"
        failed = Check(CheckName.VALIDATION, Verdict.FAILED, f"{count}: {problems}")
        repair = rules.not_reached("not reached: the proposal must be repaired first")
        return Screened(Decision(Branch.INVALID, (failed, *_AFTER_INVALID, *repair), errors))

    asset = proposal["asset_id"]
    if asset not in allowed:
        denied = Check(CheckName.PERMISSION, Verdict.FAILED, f"{asset} is not in the assets {caller} may schedule")
        unasked = rules.not_reached("not reached: permission was denied")
        return Screened(Decision(Branch.DENIED, (_WELL_FORMED, denied, *_AFTER_DENIED, *unasked)))
    permitted = Check(CheckName.PERMISSION, Verdict.PASSED, f"{asset} is in the assets {caller} may schedule")

    payload = {name: proposal[name] for name in FIELDS}
    text = canonical_json(payload)
    approved = _approval_check(approval, caller, proposal, text, others)
    if approved.verdict is Verdict.FAILED:
        unasked = rules.not_reached("not reached: approval is needed first")
        path = (_WELL_FORMED, permitted, approved, _AFTER_NO_APPROVAL, *unasked)
        return Screened(Decision(Branch.NEEDS_APPROVAL, path))
    return Screened(None, (_WELL_FORMED, permitted, approved), MappingProxyType(payload), rules, text)


def decide(
    proposal: Any,
    *,
    caller: str,
    allowed_assets: Iterable[str],
    approval: Approval | None,
    previous: StoredRequest | ExpiredKey | None,
    approvers: Mapping[str, Iterable[str]] | None = None,
    asset_register: AssetRegister | None = None,
    calendar: MaintenanceCalendar | None = None,
) -> Decision:
    """Walk validation, permission, approval, idempotency and the business rules; return the branch and the path.

    ``proposal`` is what the model wrote (any value: a malformed one is an
    ``invalid`` decision, not an exception). ``caller``, ``allowed_assets``,
    ``approval`` and ``previous`` are trusted application state; malformed
    trusted state raises :class:`~botie.errors.DecisionError` (a bare string
    for ``allowed_assets`` is a ``TypeError``, as in :func:`botie.select`).

    ``approvers`` is the approval policy: for each caller, who besides them
    may approve their requests (default: nobody, so the caller alone).
    ``asset_register`` and ``calendar`` (see :mod:`botie.actions.rules`) are asked
    only about a booking that would be new; without one, its check is left
    out of the path, since nothing was checked. ``previous`` may also be an
    :class:`ExpiredKey`: the key's retention passed, so the request is new.

    ``previous`` is only read once validation, permission and approval have
    passed (:func:`screen`): a caller who is refused learns nothing about stored requests.
    """
    screened = screen(
        proposal,
        caller=caller,
        allowed_assets=allowed_assets,
        approval=approval,
        approvers=approvers,
        asset_register=asset_register,
        calendar=calendar,
    )
    if screened.refusal is not None:
        return screened.refusal
    payload, rules = screened.payload, screened._rules
    rid = payload["request_id"]
    branch, stored, receipt = _idempotency(previous, caller, payload, rid, screened._canonical)
    path = (*screened.path, stored)
    if branch is not Branch.CREATE:
        return Decision(branch, (*path, *rules.not_reached(_NOTHING_NEW[branch])), (), receipt)
    if isinstance(previous, StoredRequest):  # (a failed attempt with this payload): the same booking, tried again
        return Decision(branch, (*path, *rules.not_reached(_RETRY_NOT_NEW)))
    return rules.check(path, payload)
