"""One turn through a real model: thin adapters from botie's request and reply to the Anthropic and OpenAI SDKs.

Install the ``models`` extra (``pip install -r requirements/models.txt`` in the workshop folder). Each adapter is
a :class:`botie.model.Model`: it sends the parts of a
:class:`~botie.context.evidence.ModelRequest` where that API wants them and
reads the reply back into a :class:`~botie.model.Reply`, nothing more. It
never fixes what the model wrote: a call with odd arguments goes to
:func:`botie.actions.decision.decide` as it came, and a refusal or a cut-off
reply keeps its stop reason, so the turn can name what happened.

Pass ``client=`` to reuse a client you configured (a proxy, a mock transport
in tests); otherwise one is made from the usual environment variable
(``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``). The SDKs are imported only when
an adapter makes its own client.

Token counts: botie counts its own text with its counter (cl100k_base by
default). Claude's tokenizer is not public, so for Claude that count is an
uncalibrated proxy; each reply's ``usage`` carries the provider's own count.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from botie.context.evidence import ModelRequest, RequestKind
from botie.model import Reply, StopReason, ToolProposal, Usage, arguments_from_json

__all__ = ["ANSWER_FORMAT", "AnthropicModel", "OpenAIModel", "openai_tool"]

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


def _history(request: ModelRequest) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.text} for m in request.history]


class AnthropicModel:
    """Claude through the Messages API: instructions as the system prompt, each document as a document
    block with citations on (so every quote is the model's exact span of a document), tools as given."""

    def __init__(self, model: str, *, client: Any = None) -> None:
        if client is None:
            import anthropic

            client = anthropic.Anthropic()
        self.model, self.client = model, client

    def reply(self, request: ModelRequest) -> Reply:
        documents = [
            {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": d.text},
             "title": d.id, "citations": {"enabled": True}}
            for d in request.documents
        ]  # fmt: skip
        question = [*documents, {"type": "text", "text": request.question}]
        message = self.client.messages.create(
            model=self.model,
            max_tokens=max(request.answer_allowance, 1),
            system=request.instructions,
            messages=[*_history(request), {"role": "user", "content": question}],
            **({"tools": [dict(t) for t in request.tools]} if request.tools else {}),
        )
        blocks = message.content
        text = "".join(b.text for b in blocks if b.type == "text")
        cited = [c for b in blocks if b.type == "text" for c in (b.citations or ())]
        # The title we sent is the document id; a citation of any other kind names no document, and fails its check.
        citations = tuple({"id": getattr(c, "document_title", None), "quote": c.cited_text} for c in cited)
        calls = tuple(ToolProposal(b.name, b.input, b.id) for b in blocks if b.type == "tool_use")
        usage = Usage(message.usage.input_tokens, message.usage.output_tokens)
        return Reply(text, citations, tool_calls=calls, stop_reason=message.stop_reason or "", usage=usage)


def openai_tool(tool: Mapping[str, Any], *, responses: bool = False) -> dict[str, Any]:
    """A tool in the request's shape (Anthropic's: name, description, input_schema) in OpenAI's function shape."""
    function = {"name": tool["name"], "description": tool["description"], "parameters": dict(tool["input_schema"])}
    return {"type": "function", **function} if responses else {"type": "function", "function": function}


_CHAT_STOP = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use", "content_filter": "refusal"}


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


class OpenAIModel:
    """GPT through Chat Completions (``api="chat"``) or the Responses API (``api="responses"``): instructions
    as the system message, the evidence region as botie renders and counts it, tools as functions.
    For a question it asks for JSON (``ANSWER_FORMAT``), the answer and ``{"id", "quote"}`` citations."""

    def __init__(self, model: str, *, api: str = "chat", client: Any = None) -> None:
        if api not in ("chat", "responses"):
            raise ValueError(f"api must be 'chat' or 'responses', got {api!r}")
        if client is None:
            import openai

            client = openai.OpenAI()
        self.model, self.api, self.client = model, api, client

    def _messages(self, request: ModelRequest) -> list[dict[str, str]]:
        question = f"{request.evidence}\n\n{request.question}" if request.documents else request.question
        return [*_history(request), {"role": "user", "content": question}]

    def reply(self, request: ModelRequest) -> Reply:
        return self._chat(request) if self.api == "chat" else self._responses(request)

    def _chat(self, request: ModelRequest) -> Reply:
        schema = {"type": "json_schema", "json_schema": {"name": "answer", "schema": ANSWER_FORMAT, "strict": True}}
        done = self.client.chat.completions.create(
            model=self.model,
            max_completion_tokens=max(request.answer_allowance, 1),
            messages=[{"role": "system", "content": request.instructions}, *self._messages(request)],
            **({"tools": [openai_tool(t) for t in request.tools]} if request.tools else {"response_format": schema}),
        )
        choice = done.choices[0]
        message = choice.message
        answer, citations = _answer(message.content, request)
        calls = tuple(
            ToolProposal(c.function.name, arguments_from_json(c.function.arguments), c.id)
            for c in message.tool_calls or ()
        )
        stop = StopReason.REFUSAL if message.refusal else _CHAT_STOP.get(choice.finish_reason, choice.finish_reason)
        usage = Usage(done.usage.prompt_tokens, done.usage.completion_tokens) if done.usage else None
        return Reply(answer, citations, tool_calls=calls, stop_reason=stop, usage=usage, refusal=message.refusal)

    def _responses(self, request: ModelRequest) -> Reply:
        text_format = {"format": {"type": "json_schema", "name": "answer", "schema": ANSWER_FORMAT, "strict": True}}
        tools = [openai_tool(t, responses=True) for t in request.tools]
        done = self.client.responses.create(
            model=self.model,
            instructions=request.instructions,
            input=self._messages(request),
            max_output_tokens=max(request.answer_allowance, 16),
            **({"tools": tools} if tools else {"text": text_format}),
        )
        parts = [p for item in done.output if item.type == "message" for p in item.content]
        refusal = next((p.refusal for p in parts if p.type == "refusal"), None)
        answer, citations = _answer("".join(p.text for p in parts if p.type == "output_text"), request)
        calls = tuple(
            ToolProposal(i.name, arguments_from_json(i.arguments), i.call_id)
            for i in done.output
            if i.type == "function_call"
        )
        cut = done.status == "incomplete" and getattr(done.incomplete_details, "reason", None) == "max_output_tokens"
        stop = "refusal" if refusal else "max_tokens" if cut else "tool_use" if calls else "end_turn"
        usage = Usage(done.usage.input_tokens, done.usage.output_tokens) if done.usage else None
        return Reply(answer, citations, tool_calls=calls, stop_reason=stop, usage=usage, refusal=refusal)
