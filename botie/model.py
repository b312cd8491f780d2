"""What one turn needs of a model: a reply to a request's text. Any model fits.

:func:`botie.turn.run_turn` takes its model through :class:`Model`, a
one-method protocol, so the library never depends on the workshop's scripted
stand-in (``botie.lessons.content.scripted``) or on a real client. A reply carries an
answer, the citations offered for it, and at most one proposed tool call;
nothing runs because a model proposed it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

from botie.actions.canonical import canonical_json

__all__ = ["Model", "Reply", "ToolProposal"]


@dataclass(frozen=True)
class ToolProposal:
    """A tool call the model suggests: a tool name and its arguments. Nothing runs because of it."""

    tool: str
    arguments: Mapping[str, Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "arguments", MappingProxyType(dict(self.arguments)))

    def key(self) -> tuple[str, str]:
        """The call in a comparable form: tool name and canonical JSON of the arguments."""
        return self.tool, canonical_json(dict(self.arguments))

    def __str__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
        return f"{self.tool}({args})"


@dataclass(frozen=True)
class Reply:
    """What the scripted model returns for one request."""

    answer: str
    citations: tuple[Mapping[str, str], ...]
    proposal: ToolProposal | None = None
    obeyed: tuple[str, ...] = ()  # names of planted instructions this reply followed
    scripted: bool = True  # False: no script matched, so the model improvised

    @property
    def citation_ids(self) -> tuple[str, ...]:
        """The ids the citations name, in order. A citation without a text id names nothing here:
        it is the model's mistake, and the citation check reports it rather than a KeyError."""
        return tuple(c["id"] for c in self.citations if isinstance(c, Mapping) and isinstance(c.get("id"), str))


class Model(Protocol):
    """Anything that answers a request's full text with a :class:`Reply`."""

    def reply(self, request: str) -> Reply: ...
