"""One turn through a real model: thin adapters from botie's request and reply to the Anthropic and OpenAI SDKs.

Install the ``models`` extra (``pip install -r requirements/models.txt`` in the workshop folder). Each adapter is
a :class:`botie.model.Model`: :meth:`render` writes the body its API is sent for a
:class:`~botie.context.evidence.ModelRequest` (the same on every API: the instructions as the system prompt, the
evidence region they describe and the question as the user message, the answer schema for a question, strict tools
and one call at most for an action, the request's answer allowance as the output limit), and it reads the reply
back into a :class:`~botie.model.Reply`, nothing more. The turn counts that body, so what is sent is what was
counted. Claude's native document blocks are not used: they carry neither the asset and trust attributes nor the
conflict notes the instructions speak of, and their citations cannot be combined with the answer schema. It
never fixes what the model wrote: a call with odd arguments goes to
:func:`botie.actions.decision.decide` as it came, and a refusal or a cut-off
reply keeps its stop reason, so the turn can name what happened.

Pass ``client=`` to reuse a client you configured (a proxy, a mock transport
in tests); otherwise one is made from the usual environment variable
(``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``). The SDKs are imported only when
an adapter makes its own client.

A provider that sends no reply (a rate limit, an overload, a server error, a timeout, a refused key, an unknown
model, a request over the context window) ends as a :meth:`~botie.model.Reply.failed` reply naming which, with the
HTTP status and how many times the SDK retried first (its own ``max_retries``); the turn makes it the outcome of
the stage it hit. Anything else the SDK raises is a bug, and is raised.

Token counts: botie counts each body with its counter (cl100k_base by default). Claude's tokenizer is not
public, so for Claude that count is an estimate (the trace says so); each reply's ``usage`` carries the
provider's own count, and :meth:`provider_count` asks the provider's token-count endpoint where there is one.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from typing import Any

from botie.actions.tool import strict_schema
from botie.context.evidence import ModelRequest, RequestKind
from botie.errors import BudgetError, SettingError
from botie.model import Failure, Reply, ReplyFault, StopReason, ToolProposal, Usage, arguments_from_json

__all__ = ["ANSWER_FORMAT", "AnthropicModel", "OpenAIModel", "openai_tool", "provider_failure"]

#: What an OpenAI model is asked to return for a question: the answer and its citations, as JSON.
ANSWER_FORMAT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "citations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "quote": {"type": "string"}},
                "required": ["id", "quote"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["answer", "citations"],
    "additionalProperties": False,
}


_BY_STATUS = {
    401: ReplyFault.NOT_AUTHORISED,
    403: ReplyFault.NOT_AUTHORISED,
    404: ReplyFault.UNKNOWN_MODEL,
    413: ReplyFault.CONTEXT_TOO_LONG,
    429: ReplyFault.RATE_LIMITED,
    503: ReplyFault.OVERLOADED,
    529: ReplyFault.OVERLOADED,
}
# How each API says a request is over the model's context window, inside a 400.
_TOO_LONG = ("context_length_exceeded", "prompt is too long", "context window", "maximum context length")


def _provider_said(body: Any) -> str:
    """The provider's own error message from an error body (Anthropic nests it under ``error``; OpenAI's SDK
    hands over the inner object), cut short for a trace."""
    inner = body.get("error", body) if isinstance(body, Mapping) else None
    message = inner.get("message") if isinstance(inner, Mapping) else None
    return str(message)[:160] if message else ""


def _status_fault(status: int, body: Any, said: str) -> ReplyFault:
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    if status >= 500:
        return ReplyFault.SERVER_ERROR
    code = body.get("code") if isinstance(body, Mapping) else None
    if status == 400 and any(m in f"{code} {said}".lower() for m in _TOO_LONG):
        return ReplyFault.CONTEXT_TOO_LONG
    return ReplyFault.REJECTED


def provider_failure(exc: BaseException, sdk: Any) -> Failure | None:
    """What an exception from ``sdk`` (the ``anthropic`` or ``openai`` module: both SDKs share these class
    names) means for the turn, or None when it is not the provider's failure (then it is raised, as a bug).

    The retry count is the one the SDK sent with its last attempt (``x-stainless-retry-count``): how many
    times it had already retried before it gave up."""
    if not isinstance(exc, sdk.APIError):
        return None
    request = getattr(exc, "request", None)
    retries = int(request.headers.get("x-stainless-retry-count", 0)) if request is not None else 0
    said = _provider_said(exc.body)
    if isinstance(exc, sdk.APITimeoutError):
        return Failure(ReplyFault.TIMEOUT, None, retries, "no response in time")
    if isinstance(exc, sdk.APIConnectionError):
        return Failure(ReplyFault.UNREACHABLE, None, retries, "no connection to the provider")
    if isinstance(exc, sdk.APIStatusError):
        return Failure(_status_fault(exc.status_code, exc.body, said), exc.status_code, retries, said)
    return Failure(ReplyFault.MALFORMED, getattr(exc, "status_code", None), retries, str(exc)[:160])


def _history(request: ModelRequest) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.text} for m in request.history]


def _user_text(request: ModelRequest) -> str:
    """The last user message: the evidence region exactly as botie rendered it (documents with their id,
    asset, version and trust, the conflict notes), then the question, as the instructions describe them."""
    return f"{request.evidence}\n\nQuestion: {request.question}" if request.documents else request.question


def _allowance(request: ModelRequest, least: int, field: str) -> int:
    """The request's answer allowance, sent as it is: one the API would refuse is an error before anything is sent."""
    if request.answer_allowance < least:
        raise BudgetError(
            f"{field} must be at least {least} for this API; the request's answer allowance is "
            f"{request.answer_allowance} (the budget's output reserve): raise the reserve",
            field="answer_allowance",
        )
    return request.answer_allowance


def _strict_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A tool definition (Anthropic's shape) marked strict, its schema without the keywords strict mode refuses
    (the decision checks those bounds anyway)."""
    return {**dict(tool), "input_schema": strict_schema(dict(tool["input_schema"])), "strict": True}


def _answer(text: str | None, request: ModelRequest) -> tuple[Any, Any]:
    """The answer and citations from the JSON an answer request asks for; on an action request, or text
    that is not that JSON, the text itself and no citations (so nothing is released unchecked)."""
    if request.kind is RequestKind.ANSWER and text:
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict) and "answer" in data:
            return data.get("answer"), data.get("citations")
    return text or "", ()


#: The fields that limit the reply: a token-count endpoint counts the input and takes none of them.
_OUTPUT_LIMITS = ("max_tokens", "max_completion_tokens", "max_output_tokens")


class _Adapter:
    """What both adapters share: send the body :meth:`render` gives, and turn a provider's failure into a reply."""

    #: The SDK module whose exceptions this adapter reads (``anthropic`` or ``openai``).
    sdk_name = ""
    #: Said in the trace beside botie's count of the body: how far that count is the provider's own.
    count_note = ""

    def render(self, request: ModelRequest) -> dict[str, Any]:
        raise NotImplementedError

    def _read(self, done: Any, request: ModelRequest) -> Reply:
        raise NotImplementedError

    def _send(self, body: dict[str, Any]) -> Any:
        raise NotImplementedError

    def _count_endpoint(self) -> Any:
        """The SDK call that counts a body's input tokens, or None where the API has none."""
        return None

    def provider_count(self, request: ModelRequest) -> int | Failure | None:
        """The provider's own count of what ``request`` sends, from its token-count endpoint (a call to the
        provider, so only with a key): None where the API has no such endpoint, a Failure when the call fails.
        botie's budget still counts with its own counter; this says how far that count is from the provider's."""
        counting = self._count_endpoint()
        if counting is None:
            return None
        body = {k: v for k, v in self.render(request).items() if k not in _OUTPUT_LIMITS}
        try:
            return int(counting(**body).input_tokens)
        except Exception as exc:
            failure = provider_failure(exc, importlib.import_module(self.sdk_name))
            if failure is None:
                raise
            return failure

    def reply(self, request: ModelRequest) -> Reply:
        """Send :meth:`render`'s body; a provider's failure comes back as a failed Reply, never raised."""
        body = self.render(request)
        try:
            done = self._send(body)
        except Exception as exc:
            failure = provider_failure(exc, importlib.import_module(self.sdk_name))
            if failure is None:
                raise
            return Reply.failed(failure)
        return self._read(done, request)


class AnthropicModel(_Adapter):
    """Claude through the Messages API: instructions as the system prompt; the evidence region botie rendered
    and counted, then the question, as the user message; for a question, structured output in
    ``ANSWER_FORMAT`` (the ``{"id", "quote"}`` citations the instructions ask for); for an action, the tools
    marked strict and one call at most."""

    sdk_name = "anthropic"
    count_note = "counted with cl100k_base: an estimate for Claude, whose tokenizer is not public"

    def __init__(self, model: str, *, client: Any = None) -> None:
        if client is None:
            import anthropic

            client = anthropic.Anthropic()
        self.model, self.client = model, client

    def render(self, request: ModelRequest) -> dict[str, Any]:
        """The body the Messages API is sent for ``request``: what the turn counts, and what goes."""
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": _allowance(request, 1, "max_tokens"),
            "system": request.instructions,
            "messages": [*_history(request), {"role": "user", "content": _user_text(request)}],
        }
        if request.tools:
            body["tools"] = [_strict_tool(t) for t in request.tools]
            body["tool_choice"] = {"type": "auto", "disable_parallel_tool_use": True}
        elif request.kind is RequestKind.ANSWER:
            body["output_config"] = {"format": {"type": "json_schema", "schema": ANSWER_FORMAT}}
        return body

    def _send(self, body: dict[str, Any]) -> Any:
        try:
            return self.client.messages.create(**body)
        except ValueError as exc:
            if "Streaming is required" not in str(exc):
                raise
        # A large allowance: the SDK refuses to wait that long on one response (nothing was sent), so stream it.
        with self.client.messages.stream(**body) as stream:
            return stream.get_final_message()

    def _count_endpoint(self) -> Any:
        return self.client.messages.count_tokens

    def _read(self, message: Any, request: ModelRequest) -> Reply:
        if message.stop_reason == "model_context_window_exceeded":
            said = "the reply was cut off where the model's context window ran out"
            return Reply.failed(Failure(ReplyFault.CONTEXT_TOO_LONG, 200, 0, said))
        blocks = message.content
        answer, citations = _answer("".join(b.text for b in blocks if b.type == "text"), request)
        calls = tuple(ToolProposal(b.name, b.input, b.id) for b in blocks if b.type == "tool_use")
        usage = Usage(message.usage.input_tokens, message.usage.output_tokens)
        return Reply(answer, citations, tool_calls=calls, stop_reason=message.stop_reason or "", usage=usage)


def openai_tool(tool: Mapping[str, Any], *, responses: bool = False, strict: bool = False) -> dict[str, Any]:
    """A tool in the request's shape (Anthropic's: name, description, input_schema) in OpenAI's function shape
    (``strict``: marked strict, its schema without the keywords strict mode refuses)."""
    schema = strict_schema(dict(tool["input_schema"])) if strict else dict(tool["input_schema"])
    function: dict[str, Any] = {"name": tool["name"], "description": tool["description"], "parameters": schema}
    if strict:
        function["strict"] = True
    return {"type": "function", **function} if responses else {"type": "function", "function": function}


_CHAT_STOP = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use", "content_filter": "refusal"}
_FILTERED = "the provider's content filter stopped the reply"


class OpenAIModel(_Adapter):
    """GPT through Chat Completions (``api="chat"``) or the Responses API (``api="responses"``): instructions
    as the system message; the evidence region botie rendered and counted, then the question; for a question,
    structured output in ``ANSWER_FORMAT``; for an action, the tools marked strict and one call at most."""

    sdk_name = "openai"
    count_note = "counted with cl100k_base (GPT-4o and later use o200k_base: an estimate)"

    def __init__(self, model: str, *, api: str = "chat", client: Any = None) -> None:
        if api not in ("chat", "responses"):
            raise SettingError(f"api must be 'chat' or 'responses', got {api!r}", field="api")
        if client is None:
            import openai

            client = openai.OpenAI()
        self.model, self.api, self.client = model, api, client

    def _messages(self, request: ModelRequest) -> list[dict[str, str]]:
        return [*_history(request), {"role": "user", "content": _user_text(request)}]

    def render(self, request: ModelRequest) -> dict[str, Any]:
        """The body Chat Completions or Responses is sent for ``request``: what the turn counts, and what goes."""
        responses = self.api == "responses"
        if responses:
            body: dict[str, Any] = {
                "model": self.model,
                "instructions": request.instructions,
                "input": self._messages(request),
                "max_output_tokens": _allowance(request, 16, "max_output_tokens"),
            }
        else:
            body = {
                "model": self.model,
                "max_completion_tokens": _allowance(request, 1, "max_completion_tokens"),
                "messages": [{"role": "system", "content": request.instructions}, *self._messages(request)],
            }
        if request.tools:
            body["tools"] = [openai_tool(t, responses=responses, strict=True) for t in request.tools]
            body["parallel_tool_calls"] = False
        elif request.kind is RequestKind.ANSWER:
            schema = {"name": "answer", "schema": ANSWER_FORMAT, "strict": True}
            if responses:
                body["text"] = {"format": {"type": "json_schema", **schema}}
            else:
                body["response_format"] = {"type": "json_schema", "json_schema": schema}
        return body

    def _send(self, body: dict[str, Any]) -> Any:
        if self.api == "responses":
            return self.client.responses.create(**body)
        return self.client.chat.completions.create(**body)

    def _count_endpoint(self) -> Any:
        # Chat Completions has no token-count endpoint; the Responses API has one.
        return self.client.responses.input_tokens.count if self.api == "responses" else None

    def _read(self, done: Any, request: ModelRequest) -> Reply:
        return self._chat(done, request) if self.api == "chat" else self._responses(done, request)

    def _chat(self, done: Any, request: ModelRequest) -> Reply:
        if not done.choices:
            return Reply.failed(Failure(ReplyFault.EMPTY, 200, 0, "the reply has no choices"))
        choice = done.choices[0]
        message = choice.message
        answer, citations = _answer(message.content, request)
        calls = tuple(
            ToolProposal(c.function.name, arguments_from_json(c.function.arguments), c.id)
            for c in message.tool_calls or ()
        )
        refusal = message.refusal or (_FILTERED if choice.finish_reason == "content_filter" else None)
        stop = StopReason.REFUSAL if refusal else _CHAT_STOP.get(choice.finish_reason, choice.finish_reason)
        usage = Usage(done.usage.prompt_tokens, done.usage.completion_tokens) if done.usage else None
        return Reply(answer, citations, tool_calls=calls, stop_reason=stop, usage=usage, refusal=refusal)

    def _responses(self, done: Any, request: ModelRequest) -> Reply:
        parts = [p for item in done.output if item.type == "message" for p in item.content]
        why = getattr(done.incomplete_details, "reason", None) if done.status == "incomplete" else None
        refusal = next((p.refusal for p in parts if p.type == "refusal"), None)
        refusal = refusal or (_FILTERED if why == "content_filter" else None)
        answer, citations = _answer("".join(p.text for p in parts if p.type == "output_text"), request)
        calls = tuple(
            ToolProposal(i.name, arguments_from_json(i.arguments), i.call_id)
            for i in done.output
            if i.type == "function_call"
        )
        cut = why == "max_output_tokens"
        stop = "refusal" if refusal else "max_tokens" if cut else "tool_use" if calls else "end_turn"
        usage = Usage(done.usage.input_tokens, done.usage.output_tokens) if done.usage else None
        return Reply(answer, citations, tool_calls=calls, stop_reason=stop, usage=usage, refusal=refusal)
