"""The turn's values: its stages and outcomes, the trusted setup, the action request and the result.

Every value here is frozen; the steps of a turn (:mod:`botie.turn.answer`, :mod:`botie.turn.action`,
:mod:`botie.turn.losses`) return them and :func:`botie.turn.run_turn` puts them together.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from botie._checks import allowed_set, as_date, ceiling_tokens, non_empty_text, unit_interval, whole_number
from botie._enum import ShortName
from botie.actions.decision import Approval, Decision, StoredRequest
from botie.actions.rules import AssetRegister, MaintenanceCalendar, need_calendar, need_register
from botie.actions.tool import TOOL_NAME
from botie.context.budget import Budget
from botie.context.citations import CitationCheck
from botie.context.evidence import ModelRequest
from botie.context.provenance import DEFAULT_FLOOR, EvidenceSelection
from botie.context.register import DocumentRegister
from botie.context.routing import DocumentCoverage
from botie.context.tokens import Counter, token_counter
from botie.errors import BudgetError, SettingError
from botie.model import Reply, ToolProposal
from botie.turn.gate import Gate

__all__ = [
    "DOCUMENT_STAGES",
    "LOSS_KIND",
    "STAGE_OF_CHECK",
    "ActionRequest",
    "Loss",
    "Stage",
    "StageResult",
    "StageStatus",
    "TurnOutcome",
    "TurnResult",
    "TurnSetup",
    "plural",
    "skipped",
]


class Stage(ShortName):
    """The stages of a turn, in the order they run."""

    CANDIDATES = "candidates"
    PERMITTED = "permitted"
    FRESH = "fresh"
    RELEVANT = "relevant"
    FIT = "fit"
    REQUEST = "request"
    ANSWER = "answer"
    CITATIONS = "citations"
    PROPOSAL = "proposal"
    DECISION = "decision"


class StageStatus(ShortName):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"  # not run: an earlier stage ended the answer, or no action was asked for


class TurnOutcome(ShortName):
    """What the technician gets back for their question."""

    ANSWERED = "answered"  # an answer whose every quote checked out
    REFUSED = "refused"  # nothing relevant survived: "the documents do not appear to answer this"
    WITHHELD = "withheld"  # the model answered, but a citation failed, so the answer is not shown
    STOPPED = "stopped"  # a document changed since this conversation first read it
    TOO_LARGE = "too_large"  # the request would not fit under the ceiling; nothing was cut
    # The model's reply could not be checked as an answer; each says why, so none hides behind "cites nothing":
    MALFORMED = "malformed"  # a field of the reply has the wrong type (the notice names it)
    MODEL_REFUSED = "model_refused"  # the model declined to answer
    TRUNCATED = "truncated"  # the reply was cut off at the output allowance
    EMPTY = "empty"  # the reply has no text
    NO_ANSWER = "no_answer"  # the model says the documents do not answer this
    # The provider sent no reply to the answer request (botie.model.Failure says which, and what the SDK retried):
    RATE_LIMITED = "rate_limited"
    OVERLOADED = "overloaded"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    UNREACHABLE = "unreachable"
    NOT_AUTHORISED = "not_authorised"
    UNKNOWN_MODEL = "unknown_model"
    CONTEXT_TOO_LONG = "context_too_long"
    REJECTED = "rejected"


#: What it means for a needed document to go missing at each stage.
LOSS_KIND: Mapping[Stage, str] = {
    Stage.CANDIDATES: "missing candidate",
    Stage.PERMITTED: "not authorised",
    Stage.FRESH: "not current",
    Stage.RELEVANT: "below the relevance floor",
    Stage.FIT: "did not fit",
    Stage.REQUEST: "never sent",
    Stage.CITATIONS: "fact not in the text",
}

STAGE_OF_CHECK = {
    "permission": Stage.PERMITTED,
    "freshness": Stage.FRESH,
    "duplicates": Stage.FRESH,
    # Its own stage: "did not fit" would send someone to the budget when the score was the reason.
    "relevance_floor": Stage.RELEVANT,
}


class StageResult(NamedTuple):
    """One stage of the trace: how it went, the document ids still in play after it, and why."""

    stage: Stage
    status: StageStatus
    ids: tuple[str, ...]
    detail: str

    @property
    def documents_in_play(self) -> int | None:
        """How many documents were still in play after this stage, or None where that means nothing:
        a skipped stage, or one whose ids are not the documents going forward (the answer's ids are
        the ones it cited; the citation check's are the ones it checked against)."""
        if self.stage in DOCUMENT_STAGES and self.status is not StageStatus.SKIPPED:
            return len(self.ids)
        return None


class Loss(NamedTuple):
    """A document the answer needed, and the stage where it went missing."""

    record_id: str
    stage: Stage
    kind: str
    detail: str


#: The answer allowance of a turn whose budget is a bare number (a Budget's output reserve is used otherwise).
DEFAULT_ANSWER_ALLOWANCE = 150


@dataclass(frozen=True)
class TurnSetup:
    """Trusted state for a turn: who asks, when, what they may read and schedule, and the limits.

    None of this comes from a document or from the model. Two scopes:
    ``allowed_assets`` is what the caller may *read* (the evidence steps use
    it; :attr:`read_assets` names it so). ``schedule_assets`` is what they may
    *schedule* (the action step's decision uses it). Reading a manual does not
    grant booking its asset, so the read scope is never used for it: left None,
    the caller may schedule nothing, and :func:`~botie.turn.run_turn` refuses an
    action (a :class:`~botie.errors.SettingError` naming ``schedule_assets``).
    ``asset_register`` and ``calendar`` are the business rules checked before a
    new booking (:mod:`botie.actions.rules`); None leaves that check out. A turn given a booking service
    applies the service's own, and these must then be None or equal to them. ``budget`` sizes the
    evidence (a :class:`~botie.context.budget.Budget` or an int allowance);
    ``ceiling`` is for the assembled request; ``answer_allowance`` is the
    ``max_tokens`` both requests send (:attr:`answer_max_tokens`): by default the
    budget's output reserve (150 with an int budget), and never above it, so the
    room the budget keeps for the answer is the room the model is given.
    ``tools`` are the tools this turn offers when an action is asked for.
    ``register`` is document control's :class:`~botie.context.register.DocumentRegister`:
    with one, the revision in force on ``observed_on`` is the register's whatever
    retrieval returned, every candidate must be placed in it, and a conversation is
    told when a document it pinned has a new revision in force.
    ``counter`` counts tokens: an offline encoding's name or a callable (see
    :func:`botie.context.tokens.count_tokens`); a count under a tokenizer that is
    not the model's own is an estimate.

    Every field is checked when the setup is built, and a bad one raises a
    :class:`~botie.errors.BotieError` naming it (``budget=-5``, ``ceiling=0``,
    ``floor=1.5``, a blank caller, ``tools="inspection"``), not deep inside a turn.
    """

    caller: str
    allowed_assets: tuple[str, ...]
    observed_on: _dt.date | str
    budget: Budget | int
    floor: float = DEFAULT_FLOOR
    ceiling: int = 1200
    answer_allowance: int | None = None
    tools: tuple[str, ...] = (TOOL_NAME,)
    counter: Counter = "cl100k_base"
    register: DocumentRegister | None = None
    schedule_assets: tuple[str, ...] | None = None
    asset_register: AssetRegister | None = None
    calendar: MaintenanceCalendar | None = None

    def __post_init__(self) -> None:
        self._check_scalars()
        allowed_set(self.allowed_assets)  # the shared rule: a bare string is refused
        token_counter(self.counter)  # an unknown encoding fails here, not at the first count
        if self.answer_allowance is not None:
            self.check_allowance(self.answer_allowance)
        # Kept as a tuple, in the order given: the action request lists them for the model.
        object.__setattr__(self, "allowed_assets", tuple(self.allowed_assets))
        if self.schedule_assets is not None:
            allowed_set(self.schedule_assets)
            object.__setattr__(self, "schedule_assets", tuple(self.schedule_assets))
        need_register(self.asset_register)
        need_calendar(self.calendar)
        object.__setattr__(self, "tools", tuple(self.tools))

    def _check_scalars(self) -> None:
        """Each setting refused here, naming its field, rather than deep in a turn (``budget=-5``, ``ceiling=0``)."""
        non_empty_text(self.caller, field="caller", error=SettingError)
        as_date(self.observed_on, field="observed_on")
        if not isinstance(self.budget, Budget):
            whole_number(self.budget, field="budget", what="a Budget or a whole number of tokens", error=BudgetError)
        unit_interval(self.floor, field="floor")
        ceiling_tokens(self.ceiling)
        if isinstance(self.tools, str):  # tuple("name") would offer one tool per letter
            raise SettingError(f"tools must be a list of tool names, got the string {self.tools!r}", field="tools")
        for name in self.tools:
            non_empty_text(name, field="tools", error=SettingError)
        if self.register is not None and not isinstance(self.register, DocumentRegister):
            raise SettingError(
                f"register must be a DocumentRegister or None, got {self.register!r:.60}", field="register"
            )

    def check_allowance(self, allowance: int, whose: str = "the answer allowance") -> None:
        """An allowance above the budget's output reserve is an error naming both: the request would claim
        room for the answer that the budget never kept (a conversation's own allowance is checked here too)."""
        whole_number(allowance, field="answer_allowance", what="a whole number of tokens", error=BudgetError)
        if isinstance(self.budget, Budget) and allowance > self.budget.output_reserve:
            raise BudgetError(
                f"{whose} ({allowance:,} tokens, sent as max_tokens) is above the budget's output reserve "
                f"({self.budget.output_reserve:,}): raise the reserve or lower the allowance",
                field="answer_allowance",
            )

    @property
    def answer_max_tokens(self) -> int:
        """The ``max_tokens`` every request of this turn sends: the allowance given, else the budget's output
        reserve (150 with an int budget, which keeps no reserve)."""
        if self.answer_allowance is not None:
            return self.answer_allowance
        return self.budget.output_reserve if isinstance(self.budget, Budget) else DEFAULT_ANSWER_ALLOWANCE

    @property
    def read_assets(self) -> tuple[str, ...]:
        """What the caller may read: the evidence steps' scope."""
        return self.allowed_assets

    @property
    def may_schedule(self) -> tuple[str, ...]:
        """What the caller may schedule: ``schedule_assets``, and nothing when that is None (never the read scope)."""
        return () if self.schedule_assets is None else self.schedule_assets

    @classmethod
    def from_scenario(cls, scenario: Any, **overrides: Any) -> TurnSetup:
        """The trusted state of a scenario, with overrides.

        ``scenario`` is anything with ``caller``, ``allowed_assets``,
        ``observed_on``, ``budget`` and ``floor`` (and a ``register``, if it has one), such as a lesson's
        ``botie.lessons.content.scenarios.load_evidence_scenario()``.
        """
        fields: dict[str, Any] = {
            "caller": scenario.caller,
            "allowed_assets": scenario.allowed_assets,
            "observed_on": scenario.observed_on,
            "budget": scenario.budget,
            "floor": scenario.floor,
            "register": getattr(scenario, "register", None),
        }
        fields.update(overrides)
        return cls(**fields)

    def with_(self, **changes: Any) -> TurnSetup:
        return replace(self, **changes)


@dataclass(frozen=True)
class ActionRequest:
    """The technician's own request for an action, with what the application recorded about it.

    ``message`` is what they typed; ``approval`` is what the approval screen
    recorded (or None); ``previous`` is what is stored under the request id, for a turn given no booking
    service (a service reads its own store, and a turn given both is refused).
    """

    message: str
    approval: Approval | None = None
    previous: StoredRequest | None = None


@dataclass(frozen=True)
class TurnResult:
    """Everything one turn did, stage by stage."""

    question: str
    outcome: TurnOutcome
    stages: tuple[StageResult, ...]
    selection: EvidenceSelection
    request: ModelRequest | None
    reply: Reply | None
    citations: CitationCheck | None
    dropped: ToolProposal | None  # a tool call suggested while reading documents: never carried out
    action_request: ModelRequest | None
    proposal: ToolProposal | None
    decision: Decision | None
    losses: tuple[Loss, ...]
    notice: str | None  # what the technician is told instead of an answer, if anything
    documents_in_action_request: tuple[str, ...]  # ids whose text appears in the action request: always ()
    gate: Gate | None = None  # the answer gate's verdict (quotes, sentences, sides), when an answer was checked
    #: Where every candidate's document went: read (a passage of it was sent) or not read, with the tokens the
    #: passages took. It travels with the answer, so the reader can check it against what they attached.
    coverage: DocumentCoverage | None = None
    action_reply: Reply | None = None  # the reply to the action request (its usage, or why the provider failed)
    #: What the technician is told when no job exists for the action they asked for (no call proposed, the
    #: provider failed, a decision other than create or reuse, or a create with no booking service to book
    #: it); None when none was asked for, or when the decision's receipt names the job (created or reused).
    action_notice: str | None = None

    def stage(self, stage: Stage | str) -> StageResult:
        for s in self.stages:
            if s.stage == stage:
                return s
        raise KeyError(stage)

    @property
    def answer(self) -> str | None:
        """The answer the technician sees: only when every citation checked out."""
        return self.reply.answer if self.outcome is TurnOutcome.ANSWERED and self.reply else None

    @property
    def context_ids(self) -> tuple[str, ...]:
        """The documents that entered the request, in reading order."""
        return self.request.document_ids if self.request is not None else ()

    @property
    def tool_call(self) -> tuple[str, str] | None:
        """The call handed to the decision (tool and canonical arguments), or None."""
        if self.decision is None or self.proposal is None:
            return None
        return self.proposal.key()

    def trace(self) -> str:
        """The stages as a table: stage, status, how many documents were still in play, and why."""
        lines = []
        for s in self.stages:
            kept = "  " if s.documents_in_play is None else f"{s.documents_in_play:>2}"
            lines.append(f"{s.stage!s:<11} {s.status!s:<8} {kept}  {s.detail}")
        lines.append(f"-> {self.outcome}")
        return "\n".join(lines)

    def explain_losses(self) -> str:
        if not self.losses:
            return "nothing the answer needed went missing"
        return "\n".join(f"{x.record_id}: lost at {x.stage} ({x.kind}): {x.detail}" for x in self.losses)


DOCUMENT_STAGES = (Stage.CANDIDATES, Stage.PERMITTED, Stage.FRESH, Stage.RELEVANT, Stage.FIT, Stage.REQUEST)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def skipped(stage: Stage, why: str) -> StageResult:
    """A stage that did not run, and why."""
    return StageResult(stage, StageStatus.SKIPPED, (), why)
