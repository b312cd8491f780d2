"""What a request costs as it is sent: botie's own text, or the body a model renders for its provider.

A model may say what its provider is sent: ``render(request)`` returning the body (the adapters in
:mod:`botie.adapters` do). Then every count of the turn is taken on that body's text
(:func:`botie.model.sent_text`) instead of botie's written-out request: the room left for documents, each
document's and each conflict note's cost, and the request's ``tokens`` that the ceiling and the budget's
total are checked against. An answer schema, tool definitions or a provider's escaping are paid for, so
what was counted is what is sent. A model without ``render`` is priced on botie's text, as the lessons
show it.

A document's cost in a body is measured, not derived: the body with that document alone, less the body
with none, plus :data:`JOIN_SLACK` for where it meets its neighbours. Whatever the join costs in the end,
the request as built is counted whole and checked against the total before anything is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from botie.context.conversation import Conversation
from botie.context.evidence import (
    DEFAULT_INSTRUCTIONS,
    ModelRequest,
    as_messages,
    build_request,
    conflict_note,
    document_tokens,
    render_evidence,
    request_text,
)
from botie.context.records import Record
from botie.context.tokens import count_tokens
from botie.model import Model, sent_text
from botie.turn.types import TurnSetup

__all__ = ["JOIN_SLACK", "UNCHECKED_CEILING", "Pricing", "measured"]

#: Tokens added to each document measured alone in a body, for the joins between documents (a token can
#: span an escaped line break and the next tag); the whole request is counted again before it is sent.
JOIN_SLACK = 2
#: The ceiling given to build_request where a request is priced or built to be counted as its provider is
#: sent it: the ceiling is checked afterwards, on that count.
UNCHECKED_CEILING = 10**9


class Pricing:
    """The costs of one turn's answer request: the request without documents, each document, each note."""

    def __init__(self, question: str, setup: TurnSetup, conversation: Conversation | None, model: Model | None) -> None:
        self.question, self.setup = question, setup
        self.instructions = conversation.instructions if conversation is not None else DEFAULT_INSTRUCTIONS
        self.history = as_messages(conversation.history) if conversation is not None else ()
        render = getattr(model, "render", None)
        self.render: Callable[[ModelRequest], Mapping[str, Any]] | None = render if callable(render) else None
        self.allowance = conversation.allowance(setup.answer_max_tokens) if conversation else setup.answer_max_tokens
        self._frame: int | None = None

    def _count(self, text: str) -> int:
        return count_tokens(text, self.setup.counter)

    def _body(self, records: Sequence[Record], conflicts: Sequence[tuple[str, str]] = ()) -> int:
        """Tokens of the body the model renders for the answer request with these documents."""
        assert self.render is not None
        request = build_request(
            self.question,
            records,
            ceiling=UNCHECKED_CEILING,
            answer_allowance=self.allowance,
            instructions=self.instructions,
            history=self.history,
            encoding=self.setup.counter,
            conflicts=conflicts,
        )
        return self._count(sent_text(self.render(request)))

    def frame(self) -> int:
        """The request without any document: instructions, earlier turns, question (and schema, in a body)."""
        if self._frame is None:
            if self.render is None:
                self._frame = self._count(
                    request_text(self.instructions, render_evidence(()), self.history, self.question)
                )
            else:
                self._frame = self._body(())
        return self._frame

    def document(self, record: Record) -> int:
        """One document as it is sent: its element, tags included (escaped, in a body)."""
        if self.render is None:
            return document_tokens(record, self.setup.counter)
        return max(0, self._body((record,)) - self.frame()) + JOIN_SLACK

    def note(self, first: Record, second: Record) -> int:
        """The note that says these two disagree, as it is sent."""
        if self.render is None:
            return self._count(conflict_note(first.id, second.id))
        pair = (first, second)
        return max(0, self._body(pair, ((first.id, second.id),)) - self._body(pair)) + JOIN_SLACK

    def measure(self, request: ModelRequest, model: Model) -> ModelRequest:
        """``request`` with ``tokens`` the count of the body its provider is sent (as it was, without one)."""
        return measured(request, model, self.setup)


def measured(request: ModelRequest, model: Model, setup: TurnSetup) -> ModelRequest:
    """``request`` with ``tokens`` the count of the body ``model`` renders for its provider (unchanged when the
    model renders none), with the setup's counter."""
    render = getattr(model, "render", None)
    if not callable(render):
        return request
    return replace(request, tokens=count_tokens(sent_text(render(request)), setup.counter))
