"""What both panels share: DOM classes, guarded callbacks, status colours, HTML helpers.

Panels render what the core computed. Nothing here decides anything; a
colour is always paired with the status word, so the panel reads without it.
"""

from __future__ import annotations

import html
import io
import re
import traceback
from typing import Any

import ipywidgets as widgets

PANEL_CLASS = "botie-panel"
RESULT_CLASS = "botie-result"
FIGURE_CLASS = "botie-figure"

# word -> (background, symbol). Dark enough for white text; the symbol and word carry the meaning.
STYLES: dict[str, tuple[str, str]] = {
    # selection statuses
    "selected": ("#1b7a3a", "✓"),
    "not_permitted": ("#a3172b", "✗"),
    "over_budget": ("#a35200", "!"),
    "not_considered": ("#5f6368", "–"),
    # check verdicts
    "passed": ("#1b7a3a", "✓"),
    "failed": ("#a3172b", "✗"),
    "not_reached": ("#5f6368", "–"),
    # branches
    "create": ("#1b7a3a", "✓"),
    "reuse": ("#1b5fa3", "↺"),
    "needs_approval": ("#a35200", "?"),
    "denied": ("#a3172b", "✗"),
    "conflict": ("#7a1ba3", "≠"),
    "invalid": ("#a3172b", "✗"),
    # evidence statuses and verdicts (lessons 02, 03, 05)
    "stale": ("#7a4a00", "⌛"),
    "not_yet_effective": ("#7a4a00", "⏳"),
    "superseded": ("#6b3d8f", "↧"),
    "duplicate": ("#5f6368", "="),
    "below_floor": ("#8a3b12", "↓"),
    "incomplete": ("#a35200", "½"),
    "answer": ("#1b7a3a", "✓"),
    "refuse": ("#a3172b", "✗"),
    # routing strategies
    "stuff_all": ("#1b7a3a", "▮"),
    "select_documents": ("#1b5fa3", "▤"),
    "retrieve_within_document": ("#a35200", "⌕"),
    "retrieve_chunks": ("#7a1ba3", "⋯"),
    "problem": ("#a3172b", "✗"),
}


def control(widget: widgets.Widget, name: str) -> widgets.Widget:
    """Tag a control with ``botie-control-<name>`` and give its description room to be read."""
    widget.add_class(f"botie-control-{name}")
    if hasattr(widget, "style") and hasattr(widget.style, "description_width"):
        widget.style.description_width = "initial"
    return widget


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def badge(word: str) -> str:
    """A coloured label that still says its word (and a symbol) without colour."""
    colour, symbol = STYLES.get(word, ("#333333", "•"))
    return (
        f'<span class="botie-badge botie-badge-{esc(word)}" style="background:{colour};color:#fff;'
        f'padding:1px 6px;border-radius:3px;font-family:monospace;white-space:nowrap">'
        f"{symbol} {esc(word)}</span>"
    )


def preview(text: str, limit: int = 72) -> str:
    """The start of a record's text for a table cell; an ellipsis says it was shortened for display."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def problem_html(title: str, message: str) -> str:
    return (
        f'<div class="botie-problem" style="border-left:4px solid {STYLES["problem"][0]};padding:4px 8px">'
        f"<b>{esc(title)}</b><br>{esc(message)}</div>"
    )


_BLOCK_END = re.compile(r"</(p|div|tr|li|h\d|table|pre)>|<br\s*/?>", re.I)
_CELL_END = re.compile(r"</t[dh]>", re.I)
_TAG = re.compile(r"<[^>]+>")


def html_to_text(value: str) -> str:
    """The words a reader sees in an HTML widget: one line per row or paragraph."""
    text = _BLOCK_END.sub("\n", value)
    text = _CELL_END.sub("  ", text)
    text = html.unescape(_TAG.sub("", text))
    lines = (re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def figure_png(fig: Any) -> bytes:
    """Render a matplotlib figure to PNG bytes (no timestamp or version metadata, so bytes are stable)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


class Panel:
    """Base of every panel: the root widget, the result widget, and a guarded refresh."""

    kind = "panel"

    def __init__(self) -> None:
        self.result = widgets.HTML()
        self.result.add_class(RESULT_CLASS)
        self.error: str | None = None  # the last problem shown instead of a result, if any

    def _root(self, children: list[widgets.Widget]) -> widgets.VBox:
        root = widgets.VBox(children, layout=widgets.Layout(width="100%"))
        root.add_class(PANEL_CLASS)
        root.add_class(f"botie-{self.kind}-panel")
        return root

    def _watch(self, *controls: widgets.Widget) -> None:
        for widget in controls:
            widget.observe(self._on_change, names="value")

    def _on_change(self, change: Any = None) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Recompute and redraw; any exception becomes a message in the panel, never a traceback."""
        try:
            self.error = None
            self._render()
        except Exception as exc:  # a panel must never hand a learner a traceback
            self.show_problem(
                "Something went wrong while drawing this panel (not your fault).",
                f"{type(exc).__name__}: {exc}",
            )
            self._log_unexpected(exc)

    def _log_unexpected(self, exc: Exception) -> None:
        # Keep the full story for whoever debugs the panel; learners only see the message.
        self.last_traceback = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))

    def show_problem(self, title: str, message: str) -> None:
        self.error = message
        self.result.value = problem_html(title, message)

    def _render(self) -> None:  # pragma: no cover - every panel overrides it
        raise NotImplementedError

    def result_text(self) -> str:
        """The result as plain text, the way a reader (or a test) sees it."""
        return html_to_text(self.result.value)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    widget: widgets.Widget

