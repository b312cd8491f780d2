"""Drawings of the context window, from numbers the core already computed.

:func:`window_bars` is the HTML bar the selection panel redraws on every
change (fast, themed, and read by screen readers through its legend);
:func:`window_figure` is the same split as a matplotlib figure, for a static
picture. Both use Okabe–Ito colours with a pattern (hatch) on every segment
and the number written beside it, so neither depends on colour.

Figures are built with ``matplotlib.figure.Figure`` (not pyplot), so no
global figure state piles up and nothing needs closing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ._bars import COLOURS, Marker, Segment, bars_html

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["window_bars", "window_figure", "window_text"]


# (label, colour, matplotlib hatch, HTML pattern)
class _SegmentStyle(NamedTuple):
    """How one part of the window is drawn: as an HTML bar (``pattern``) and by matplotlib (``hatch``)."""

    label: str
    colour: str
    hatch: str
    pattern: str


_SEGMENTS = (
    _SegmentStyle("input reserve", colour=COLOURS["input reserve"], hatch="//", pattern="stripes"),
    _SegmentStyle("output reserve", colour=COLOURS["output reserve"], hatch="\\\\", pattern="backstripes"),
    _SegmentStyle("evidence used", colour=COLOURS["evidence used"], hatch="", pattern="solid"),
    _SegmentStyle("room left", colour=COLOURS["room left"], hatch="..", pattern="dots"),
)


def window_text(total: int, input_reserve: int, output_reserve: int, used: int) -> str:
    """The same split in words: what the bar shows, for readers who cannot see it."""
    reserved = input_reserve + output_reserve
    if reserved > total:
        return (
            f"window {total}: reserves {input_reserve} + {output_reserve} = {reserved} "
            f"overflow the total by {reserved - total}"
        )
    left = total - reserved - used
    return (
        f"window {total} = input reserve {input_reserve} + output reserve {output_reserve} "
        f"+ evidence used {used} + room left {left}"
    )


def _widths(total: int, input_reserve: int, output_reserve: int, used: int) -> tuple[int, int, int, int]:
    """Input reserve, output reserve, evidence used, room left; nothing is used or left past an overflow."""
    reserved = input_reserve + output_reserve
    if reserved > total:
        return input_reserve, output_reserve, 0, 0
    return input_reserve, output_reserve, used, total - reserved - used


def _title(total: int, input_reserve: int, output_reserve: int, used: int) -> str:
    reserved = input_reserve + output_reserve
    if reserved > total:
        return f"reserves {reserved} > total {total}: over by {reserved - total}"
    return f"window of {total} tokens: evidence allowance {total - reserved}, used {used}"


def window_bars(total: int, input_reserve: int, output_reserve: int, used: int = 0) -> str:
    """The window as an HTML bar: input reserve, output reserve, evidence used, room left.

    Reserves above the total overflow past a solid line at the total, which is
    what the BudgetError message says in words.
    """
    widths = _widths(total, input_reserve, output_reserve, used)
    segments = [Segment(style.label, width, style.colour, style.pattern) for style, width in zip(_SEGMENTS, widths)]
    reserved = input_reserve + output_reserve
    markers = [Marker("total", total, COLOURS["over"])] if reserved > total else []
    return bars_html(
        [segments], max(total, reserved), title=_title(total, input_reserve, output_reserve, used), markers=markers
    )


def window_figure(total: int, input_reserve: int, output_reserve: int, used: int = 0) -> Figure:
    """The same bar as :func:`window_bars`, drawn by matplotlib (a red line marks an overflowed total)."""
    from matplotlib.figure import Figure

    reserved = input_reserve + output_reserve
    overflow = reserved > total
    widths = _widths(total, input_reserve, output_reserve, used)

    fig = Figure(figsize=(7.5, 1.9), dpi=90)
    ax = fig.add_axes((0.03, 0.42, 0.94, 0.33))
    start = 0
    for style, width in zip(_SEGMENTS, widths):
        if width <= 0:
            continue
        ax.barh(
            0,
            width,
            left=start,
            color=style.colour,
            hatch=style.hatch,
            edgecolor="#333333",
            linewidth=0.8,
            label=f"{style.label} ({width})",
        )
        ax.text(
            start + width / 2,
            0,
            str(width),
            ha="center",
            va="center",
            fontsize=10,
            color="black",
            fontweight="bold",
            backgroundcolor="#ffffffcc",
        )
        start += width
    span = max(total, reserved, 1)
    ax.set_xlim(0, span)
    ax.set_ylim(-0.6, 0.6)
    ax.set_yticks([])
    ax.set_xticks(sorted({0, total, min(span, reserved)}))
    ax.tick_params(axis="x", labelsize=8)
    if overflow:
        ax.axvline(total, color=COLOURS["over"], linewidth=2.5)
    ax.set_title(_title(total, input_reserve, output_reserve, used), fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    return fig
