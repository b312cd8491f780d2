"""What one turn needs of a model: a reply to a structured request. Any model fits.

:func:`botie.turn.run_turn` takes its model through :class:`Model`, a
one-method protocol, so the library never depends on the workshop's scripted
stand-in (``botie.lessons.content.scripted``) or on a real client. The model
receives a :class:`~botie.context.evidence.ModelRequest`: instructions,
evidence documents, earlier turns with roles, the question, the tools on
offer, the output allowance and the kind of request, plus the same request
written out as text. It returns a :class:`Reply`: text, citations, tool
calls with ids, a stop reason and token usage. Nothing runs because a model
proposed it.

A reply is whatever the model produced, so nothing here refuses one: a
``None`` answer, citations that are not a list, arguments that are a string.
:func:`reply_fault` names what is wrong with it, and the turn turns that into
an outcome of its own (or an ``invalid`` decision naming the field), never an
exception.

A provider that sends no reply at all (rate-limited, overloaded, a server
error, a timeout, a refused key, an unknown model, a request over its context
window) is a reply too: :meth:`Reply.failed` carries a :class:`Failure` saying
which, with the HTTP status and how many times the SDK already retried. An
adapter maps its SDK's exceptions onto these, so the library never imports an
SDK and the turn reports a failure as the outcome of the stage it hit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol

from botie._checks import has_text
from botie._enum import ShortName
from botie.actions.canonical import canonical_json
from botie.context.evidence import Message, ModelRequest, RequestKind

__all__ = [
    "Fault",
    "Message",
    "Model",
    "ModelRequest",
    "Reply",
    "ReplyFault",
    "RequestKind",
    "StopReason",
    "Failure",
    "ToolProposal",
    "Usage",
    "reply_fault",
]


class StopReason(ShortName):
    """Why the model stopped, in Anthropic's words (an adapter maps its own API's onto these)."""

    END_TURN = "end_turn"  # it finished
    TOOL_USE = "tool_use"  # it finished by proposing a tool call
    MAX_TOKENS = "max_tokens"  # it was cut off at the output allowance
    REFUSAL = "refusal"  # it declined to answer


@dataclass(frozen=True)
class ToolProposal:
    """A tool call the model suggests: a tool name, its arguments and the call's id. Nothing runs because of it.

    ``arguments`` is kept as the model wrote it. A mapping becomes a read-only
    copy; anything else (``None``, a string, a list) is kept as it came, so
    :func:`botie.actions.decision.decide` can call it ``invalid`` and name the field.
    """

    tool: Any
    arguments: Any
    id: str | None = field(
        default=None, compare=False
    )  # the API tool-use id, to send a result back; not the call itself

    def __post_init__(self) -> None:
        if isinstance(self.arguments, Mapping):
            object.__setattr__(self, "arguments", MappingProxyType(dict(self.arguments)))

    def key(self) -> tuple[str, str]:
        """The call in a comparable form: tool name and canonical JSON of the arguments (the id is not part)."""
        arguments = dict(self.arguments) if isinstance(self.arguments, Mapping) else self.arguments
        try:
            return str(self.tool), canonical_json(arguments)
        except (TypeError, ValueError):
            return str(self.tool), repr(arguments)

    def __str__(self) -> str:
        if not isinstance(self.arguments, Mapping):
            return f"{self.tool}({self.arguments!r:.60})"
        args = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
        return f"{self.tool}({args})"


class ReplyFault(ShortName):
    """Why a reply cannot be shown as an answer, before any citation is checked."""

    MALFORMED = "malformed"  # a field has the wrong type: the fault names it
    REFUSED = "model_refused"  # the model declined
    TRUNCATED = "truncated"  # cut off at the output allowance
    EMPTY = "empty"  # no text at all
    NO_ANSWER = "no_answer"  # the model says the documents do not answer the question
    # The provider sent no reply at all (an adapter's Failure says which):
    RATE_LIMITED = "rate_limited"  # 429: too many requests or tokens for the key's limits
    OVERLOADED = "overloaded"  # 529 (or 503): the provider is over capacity
    SERVER_ERROR = "server_error"  # another 5xx: the provider failed
    TIMEOUT = "timeout"  # no response in time
    UNREACHABLE = "unreachable"  # no connection to the provider
    NOT_AUTHORISED = "not_authorised"  # 401 or 403: the key is refused
    UNKNOWN_MODEL = "unknown_model"  # 404: no such model (or no access to it)
    CONTEXT_TOO_LONG = "context_too_long"  # 400 or 413: the request is over the model's context window
    REJECTED = "rejected"  # another 4xx: the provider refused the request as sent


#: The faults that mean the provider sent nothing back (the others are about a reply it did send).
PROVIDER_FAULTS = frozenset(
    {
        ReplyFault.RATE_LIMITED,
        ReplyFault.OVERLOADED,
        ReplyFault.SERVER_ERROR,
        ReplyFault.TIMEOUT,
        ReplyFault.UNREACHABLE,
        ReplyFault.NOT_AUTHORISED,
        ReplyFault.UNKNOWN_MODEL,
        ReplyFault.CONTEXT_TOO_LONG,
        ReplyFault.REJECTED,
    }
)


class Failure(NamedTuple):
    """Why a provider sent no usable reply: the kind, the HTTP status (None without a response), how many
    times the SDK already retried before giving up, and what the provider said."""

    kind: ReplyFault
    status: int | None
    retries: int
    message: str

    def __str__(self) -> str:
        status = f"HTTP {self.status}, " if self.status is not None else ""
        tries = "no retry" if self.retries == 0 else f"after {self.retries} retr{'y' if self.retries == 1 else 'ies'}"
        said = f": {self.message}" if self.message else ""
        return f"the provider sent no reply ({self.kind}; {status}{tries} by the SDK){said}"


class Usage(NamedTuple):
    """Tokens the provider says it read and wrote for one reply (its own tokenizer, not botie's count)."""

    input_tokens: int
    output_tokens: int


def _as_proposal(value: Any) -> Any:
    """A tool call given as a plain mapping (``{"tool": ..., "arguments": ...}``) read as a ToolProposal."""
    if isinstance(value, Mapping) and ("tool" in value or "name" in value):
        arguments = value.get("arguments", value.get("input"))
        return ToolProposal(value.get("tool", value.get("name")), arguments, value.get("id"))
    return value


@dataclass(frozen=True)
class Reply:
    """What a model returned for one request, as it returned it.

    ``answer`` is the text (also :attr:`text`); ``citations`` the
    ``{"id", "quote"}`` objects it offered; ``tool_calls`` every call it
    proposed, with ids (``proposal`` is the first, or None); ``stop_reason``
    why it stopped; ``refusal`` the provider's refusal message, if any;
    ``usage`` the provider's token counts. ``obeyed`` and ``scripted`` are
    the scripted model's: the planted instructions it followed, and whether
    a script matched.
    """

    answer: Any
    citations: Any = ()
    proposal: Any = None
    obeyed: tuple[str, ...] = ()  # names of planted instructions this reply followed
    scripted: bool = True  # False: no script matched, so the model improvised
    tool_calls: tuple[Any, ...] = ()
    stop_reason: str = StopReason.END_TURN
    usage: Usage | None = None
    refusal: str | None = None
    failure: Failure | None = None  # the provider sent no reply: why (the other fields are empty)

    def __post_init__(self) -> None:
        calls = tuple(_as_proposal(c) for c in self.tool_calls) if isinstance(self.tool_calls, Sequence) else ()
        proposal = _as_proposal(self.proposal)
        if not calls and proposal is not None:
            calls = (proposal,)
        object.__setattr__(self, "tool_calls", calls)
        object.__setattr__(self, "proposal", calls[0] if calls else None)
        if isinstance(self.citations, list):
            object.__setattr__(self, "citations", tuple(self.citations))

    @classmethod
    def failed(cls, failure: Failure) -> Reply:
        """No reply from the provider, only why: an outcome for the turn, never an exception."""
        return cls(None, (), scripted=False, stop_reason="", failure=failure)

    @property
    def text(self) -> Any:
        """The reply's text: the same as :attr:`answer`."""
        return self.answer

    @property
    def citation_ids(self) -> tuple[str, ...]:
        """The ids the citations name, in order. A citation without a text id names nothing here:
        it is the model's mistake, and the citation check reports it rather than a KeyError."""
        if not _is_list(self.citations):
            return ()
        return tuple(c["id"] for c in self.citations if isinstance(c, Mapping) and isinstance(c.get("id"), str))


class Model(Protocol):
    """Anything that answers a :class:`ModelRequest` with a :class:`Reply`.

    A model may also have ``render(request) -> Mapping``: the body its provider is sent for ``request``.
    The turn then counts that body's text (:func:`sent_text`) wherever it counts the request, so what was
    counted is what is sent (see :mod:`botie.turn.pricing`).
    """

    def reply(self, request: ModelRequest) -> Reply: ...


def sent_text(body: Mapping[str, Any]) -> str:
    """A provider's request body as the text botie counts: its JSON, keys sorted, as sent on the wire
    (markup, schema and escapes included; a provider's own tokenizer and chat template may differ)."""
    return json.dumps(body, ensure_ascii=False, sort_keys=True)


# --- what is wrong with a reply ------------------------------------------------------------


class Fault(NamedTuple):
    """A reply's fault: which kind, the field at fault, and what to tell the technician."""

    kind: ReplyFault
    field: str
    notice: str


_SAYS_NOT_ANSWERED = re.compile(
    r"\b(documents?|sources?|evidence|records?)\b[^.]*\b(do|does|did)\s*(not|n't)\s+"
    r"(answer|say|cover|contain|mention|address)",
    re.IGNORECASE,
)


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def reply_fault(reply: Any, allowance: int | None = None) -> Fault | None:
    """What keeps ``reply`` from being an answer to check, or None when it is one.

    In order: not a Reply; the provider failed (no reply at all); refused; text or citations of the wrong type; cut
    off at the output allowance; empty; an honest "the documents do not
    answer this" (with no citations: an answer that cites something is
    checked as one). ``allowance`` is the output limit the request set, for the notice.
    """
    if not isinstance(reply, Reply):
        return Fault(ReplyFault.MALFORMED, "reply", f"the model returned {type(reply).__name__}, not a Reply")
    if isinstance(reply.failure, Failure):
        return Fault(reply.failure.kind, "provider", str(reply.failure))
    if reply.stop_reason == StopReason.REFUSAL or reply.refusal:
        said = f": {reply.refusal}" if isinstance(reply.refusal, str) and reply.refusal else ""
        return Fault(ReplyFault.REFUSED, "stop_reason", f"the model declined to answer{said}")
    if not isinstance(reply.answer, str):
        return Fault(ReplyFault.MALFORMED, "answer", f"the reply's answer is {type(reply.answer).__name__}, not text")
    if not _is_list(reply.citations):
        kind = type(reply.citations).__name__
        return Fault(ReplyFault.MALFORMED, "citations", f"the reply's citations are {kind}, not a list")
    if reply.stop_reason == StopReason.MAX_TOKENS:
        limit = f" of {allowance:,} tokens" if allowance is not None else ""
        why = f"the answer was cut off at the output allowance{limit}; a cut answer can lose its exception"
        return Fault(ReplyFault.TRUNCATED, "stop_reason", why)
    if not has_text(reply.answer):
        return Fault(ReplyFault.EMPTY, "answer", "the model returned an empty answer")
    if not reply.citations and _SAYS_NOT_ANSWERED.search(reply.answer):
        return Fault(ReplyFault.NO_ANSWER, "answer", f"the model says the documents do not answer this: {reply.answer}")
    return None


def arguments_from_json(text: Any) -> Any:
    """Tool-call arguments that arrived as JSON text (OpenAI's shape), parsed; never an exception.

    ``"null"`` becomes ``None`` and text that is not JSON (a call cut off
    half-way, say) stays the text it was: both reach :func:`decide` as they
    are and come back ``invalid`` on ``arguments``.
    """
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def with_id(proposal: ToolProposal, call_id: str) -> ToolProposal:
    """The same call under another id (the scripted model numbers its calls)."""
    return replace(proposal, id=call_id)


__all__ += ["PROVIDER_FAULTS", "arguments_from_json", "sent_text", "with_id"]
