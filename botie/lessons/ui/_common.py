"""What both panels share: DOM classes, guarded callbacks, status colours, HTML helpers.

Panels render what the core computed. Nothing here decides anything; a
colour is always paired with the status word, so the panel reads without it.
"""

from __future__ import annotations

import html
import io
import re
import traceback
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets

PANEL_CLASS = "botie-panel"
RESULT_CLASS = "botie-result"
FIGURE_CLASS = "botie-figure"
YOURS_CLASS = "botie-yours"
CONTROL_PREFIX = "botie-control-"

# Okabe–Ito, the palette that stays distinct for the common kinds of colour blindness.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "grey": "#5F6368",
}
_GOOD, _BAD, _WARN, _NONE = OKABE_ITO["bluish_green"], OKABE_ITO["vermillion"], OKABE_ITO["orange"], OKABE_ITO["grey"]
_OTHER, _ODD = OKABE_ITO["blue"], OKABE_ITO["reddish_purple"]

# word -> (background, symbol). The symbol and the word carry the meaning; the colour only repeats it.
STYLES: dict[str, tuple[str, str]] = {
    # selection statuses
    "selected": (_GOOD, "✓"),
    "not_permitted": (_BAD, "✗"),
    "over_budget": (_WARN, "!"),
    "not_considered": (_NONE, "–"),
    # check verdicts
    "passed": (_GOOD, "✓"),
    "failed": (_BAD, "✗"),
    "not_reached": (_NONE, "–"),
    # branches
    "create": (_GOOD, "✓"),
    "reuse": (_OTHER, "↺"),
    "needs_approval": (_WARN, "?"),
    "denied": (_BAD, "✗"),
    "conflict": (_ODD, "≠"),
    "invalid": (_BAD, "✗"),
    "unknown_asset": (_BAD, "∄"),
    "window_unavailable": (_WARN, "⌛"),
    # evidence statuses and verdicts (lessons 02, 03, 06)
    "not_yet_effective": (OKABE_ITO["yellow"], "⏳"),
    "superseded": (_ODD, "↧"),
    "duplicate": (_NONE, "="),
    "below_floor": (OKABE_ITO["sky_blue"], "↓"),
    "incomplete": (_WARN, "½"),
    "answer": (_GOOD, "✓"),
    "refuse": (_BAD, "✗"),
    # citation verdicts and the evidence region (lesson 04)
    "release": (_GOOD, "✓"),
    "withhold": (_BAD, "✗"),
    "held": (_GOOD, "▣"),
    "closed_early": (_BAD, "⚠"),
    # routing strategies
    "stuff_all": (_GOOD, "▮"),
    "select_documents": (_OTHER, "▤"),
    "retrieve_within_document": (_WARN, "⌕"),
    "retrieve_chunks": (_ODD, "⋯"),
    "problem": (_BAD, "✗"),
    # your function beside the reference (lessons 01, 02, 05)
    "same": (_GOOD, "="),
    "differs": (_BAD, "≠"),
    "not written yet": (_NONE, "…"),
    "raised": (_BAD, "✗"),
    "not asked": (_NONE, "–"),
    # the concept check (lessons 00 and 06)
    "right": (_GOOD, "✓"),
    "missed": (_BAD, "✗"),
    "not answered": (_NONE, "–"),
}
_UNKNOWN = ("#333333", "•")


def luminance(colour: str) -> float:
    """WCAG relative luminance of a ``#rrggbb`` colour."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    """WCAG contrast ratio between two colours, from 1 (none) to 21 (black on white)."""
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def text_colour(background: str) -> str:
    """Black or white, whichever reads better on ``background`` (a badge never depends on the theme)."""
    return max(("#000000", "#ffffff"), key=lambda ink: contrast(ink, background))


def control(widget: widgets.Widget, name: str, label: str | None = None) -> widgets.Widget:
    """Tag a control with ``botie-control-<name>`` and give its description room to be read.

    ``label`` is what a screen reader says for it (default: the description);
    the panel's :class:`~botie.lessons.ui._access.Access` widget puts it on the page.
    """
    widget.add_class(f"{CONTROL_PREFIX}{name}")
    widget.botie_label = label or getattr(widget, "description", "") or name.replace("-", " ")
    if hasattr(widget, "style") and hasattr(widget.style, "description_width"):
        widget.style.description_width = "initial"
    return widget


def asset_boxes(records: Iterable[Any], allowed_assets: Iterable[str]) -> dict[str, widgets.Checkbox]:
    """One tickbox per asset the records mention or the caller may read, ticked where the caller may."""
    allowed = set(allowed_assets)
    return {
        asset: control(
            widgets.Checkbox(
                value=asset in allowed, description=asset, indent=False, layout=widgets.Layout(width="auto")
            ),
            f"asset-{asset}",
        )
        for asset in sorted({r.asset for r in records} | allowed)
    }


def question_control(questions: Sequence[Any]) -> widgets.Dropdown:
    """A drop-down of a scenario's questions; its value is the question's index."""
    return control(
        widgets.Dropdown(
            options=[(q.question, i) for i, q in enumerate(questions)],
            value=0,
            description="question",
            layout=widgets.Layout(width="95%"),
        ),
        "question",
    )


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def badge(word: str) -> str:
    """A coloured label that still says its word (and a symbol) without colour."""
    colour, symbol = STYLES.get(word, _UNKNOWN)
    return (
        f'<span class="botie-badge botie-badge-{esc(word)}" style="background:{colour};color:{text_colour(colour)};'
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


def function_name(fn: Any) -> str:
    """What a learner called their function (a lambda or a callable object has no useful name)."""
    name = getattr(fn, "__name__", "")
    return name if name.isidentifier() else "your function"


#: Cell styles for :func:`table_html`: numbers line up on the right, a text preview reads smaller.
RIGHT = "text-align:right"
SMALL = "font-size:90%"


def table_html(
    css_class: str, columns: Sequence[str], rows: Iterable[Sequence[str]], *, styles: Mapping[str, str] | None = None
) -> str:
    """A table with a named column over each cell: every panel's tables are built here, the same way.

    Each row gives one cell per column, already HTML (escape text with :func:`esc`);
    ``styles`` maps a column to the inline style of its cells (:data:`RIGHT`, :data:`SMALL`).
    """
    styles = styles or {}
    head = "".join(f"<th style='text-align:left'>{esc(name)}</th>" for name in columns)
    body = "".join(
        "<tr>" + "".join(_cell(cell, styles.get(name)) for name, cell in zip(columns, row, strict=True)) + "</tr>"
        for row in rows
    )
    return f"<table class='{esc(css_class)}'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _cell(content: str, style: str | None) -> str:
    return f"<td style='{style}'>{content}</td>" if style else f"<td>{content}</td>"


def yours_html(comparison: Any, asked: str) -> str:
    """The learner's answer beside the reference, then the one-line verdict (a word and a symbol, not colour alone)."""
    yours = comparison.yours or "(no answer)"
    answers = [(esc(comparison.reference), esc(yours))]
    return (
        f"<p><b>Your function</b> ({esc(asked)})</p>"
        f"{table_html('botie-yours-table', ('reference', 'your function'), answers)}"
        f"<p>{badge(str(comparison.agreement))} {esc(comparison.line())}</p>"
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


def control_names(root: widgets.Widget) -> dict[str, str]:
    """``botie-control-<name>`` suffix -> accessible name, for every control under ``root``."""
    names: dict[str, str] = {}
    stack = [root]
    while stack:
        widget = stack.pop()
        for cls in getattr(widget, "_dom_classes", ()):
            if cls.startswith(CONTROL_PREFIX):
                names[cls[len(CONTROL_PREFIX) :]] = getattr(widget, "botie_label", "")
        stack.extend(getattr(widget, "children", ()))
    return names


class Panel:
    """Base of every panel: the root widget, the result widget, and a guarded refresh."""

    kind = "panel"
    assets: dict[str, widgets.Checkbox]  # on the panels that let the learner choose the allowed assets

    def __init__(self) -> None:
        from ._access import Access

        self.result = widgets.HTML()
        self.result.add_class(RESULT_CLASS)
        self.access = Access()  # names the controls on the page and announces each new result
        self.error: str | None = None  # the last problem shown instead of a result, if any
        self.yours: Any = None  # the learner's exercise function, when the lesson plugs it in
        self.comparison: Any = None  # the last comparison of it with the reference (botie.lessons.exercises.yours)
        self.yours_box = widgets.HTML()
        self.yours_box.add_class(YOURS_CLASS)

    def _root(self, children: list[widgets.Widget]) -> widgets.VBox:
        root = widgets.VBox([*children, self.access], layout=widgets.Layout(width="100%"))
        root.add_class(PANEL_CLASS)
        root.add_class(f"botie-{self.kind}-panel")
        self.access.names = control_names(root)
        return root

    @property
    def allowed(self) -> list[str]:
        """The allowed assets the learner ticked, in the tickboxes' order (see :func:`asset_boxes`)."""
        return [asset for asset, box in self.assets.items() if box.value]

    def _start(self, children: list[widgets.Widget], *controls: widgets.Widget) -> None:
        """Lay the panel out, redraw whenever one of ``controls`` changes, and draw it once now."""
        self.widget = self._root(children)
        self._watch(*controls)
        self.refresh()

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
        self.access.message = self.announcement()

    def announcement(self) -> str:
        """The sentence a screen reader speaks after each change: the outcome, without the table."""
        if self.error is not None:
            return f"Problem: {self.error}"
        if self.comparison is not None:
            return f"{self._summary()} {self.comparison.line()}".strip()
        return self._summary()

    def _yours_widgets(self, yours: Any) -> list[widgets.Widget]:
        """Remember the learner's function; the box that shows it joins the panel only when there is one."""
        self.yours = yours
        return [] if yours is None else [self.yours_box]

    def _show_yours(self, compare: Any, asked: str) -> None:
        """Draw ``compare()`` (a :class:`botie.lessons.exercises.yours.Comparison`) when a learner's
        function is plugged in."""
        if self.yours is None:
            return
        self.comparison = compare()
        self.yours_box.value = yours_html(self.comparison, asked)

    def _no_comparison(self, why: str) -> None:
        self.comparison = None
        if self.yours is not None:
            self.yours_box.value = f"<p><b>Your function</b>: not called, because {esc(why)}.</p>"

    def _summary(self) -> str:
        # Panels say something shorter; the first line of the result is the fallback.
        return next(iter(self.result_text().splitlines()), "")

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

    def yours_text(self) -> str:
        """The learner's function beside the reference, as plain text ("" when none is plugged in)."""
        return html_to_text(self.yours_box.value) if self.yours is not None else ""

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    widget: widgets.Widget
