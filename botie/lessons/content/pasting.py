"""Lesson 04's wrong-on-purpose renderer, and which workshop documents carry a planted instruction.

:func:`paste_without_escaping` writes documents between tags without escaping
their bodies, the mistake :func:`botie.context.evidence.render_evidence`
exists to prevent: a body that contains ``</evidence>`` ends the region, and
everything after it reads as if we had written it. :func:`pasted_request`
puts that region into a request laid out like
:func:`botie.context.evidence.build_request`'s, so a scripted model can read
both and the only difference is the escaping.

:func:`planted_instructions` reads the fixture's own record of which document
carries which planted instruction (``injected`` in ``scripted_turns.json``),
so a panel can name the instruction behind each document without looking
for it in the text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from botie.context.evidence import DEFAULT_INSTRUCTIONS, request_text
from botie.context.records import Record

__all__ = ["paste_without_escaping", "pasted_request", "planted_instructions"]


def paste_without_escaping(records: Iterable[Record], tag: str = "evidence") -> str:
    """Wrong on purpose: each body goes between tags as it is, so a document can close the region."""
    body = "".join(f'<document id="{r.id}">\n{r.text}\n</document>\n' for r in records)
    return f"<{tag}>\n{body}</{tag}>"


def pasted_request(question: str, records: Iterable[Record], *, instructions: str = DEFAULT_INSTRUCTIONS) -> str:
    """The request text with the pasted region where ``build_request`` puts the escaped one (no history, no tools)."""
    return request_text(instructions, paste_without_escaping(records), (), question)


def planted_instructions(name: str = "scripted_turns.json") -> Mapping[str, str]:
    """Record id -> the name of the planted instruction it carries, as the fixture's ``injected`` list says."""
    import json

    from botie.lessons.content.fixtures import fixture_path

    data = json.loads(fixture_path(name).read_text(encoding="utf-8"))
    return MappingProxyType({str(e["record"]): str(e["trick"]) for e in data.get("injected", ())})
