"""Horizontal bars drawn in HTML, for panels that redraw on every slider step.

A matplotlib PNG costs about 100 ms a redraw; a few ``<div>`` elements cost
microseconds, scale with the page, follow the theme and need no alt text:
the bar itself is hidden from screen readers (``aria-hidden``) and the line
of text under it, which every reader sees, carries every number.

Each segment has a pattern as well as a colour, and its legend entry names it
with its number, so the bar reads in greyscale and for colour-blind readers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._common import FIGURE_CLASS, OKABE_ITO, esc

# pattern name -> CSS background drawn over the segment's colour
_PATTERNS = {
    "solid": "none",
    "stripes": "repeating-linear-gradient(45deg, transparent 0 5px, rgba(255,255,255,.75) 5px 7px)",
    "backstripes": "repeating-linear-gradient(-45deg, transparent 0 5px, rgba(0,0,0,.45) 5px 7px)",
    "dots": "radial-gradient(rgba(0,0,0,.5) 1px, transparent 1.5px) 0 0 / 6px 6px",
    "grid": (
        "repeating-linear-gradient(0deg, transparent 0 5px, rgba(0,0,0,.35) 5px 6px), "
        "repeating-linear-gradient(90deg, transparent 0 5px, rgba(0,0,0,.35) 5px 6px)"
    ),
}
_EDGE = "var(--jp-border-color1, #757575)"


@dataclass(frozen=True)
class Segment:
    """One stretch of a bar: its words, its size, its colour and its pattern."""

    label: str
    value: int
    colour: str
    pattern: str = "solid"


@dataclass(frozen=True)
class Marker:
    """A vertical line across the bars (a limit), told apart by its line style as well as its colour."""

    label: str
    value: int
    colour: str
    style: str = "solid"  # CSS border style: solid, dashed, dotted


def _fill(segment: Segment) -> str:
    return f"background:{_PATTERNS[segment.pattern]},{segment.colour}"


def _row(segments: Sequence[Segment], span: int) -> str:
    parts = "".join(
        f'<div style="flex:0 0 {100 * s.value / span:.3f}%;{_fill(s)};border-right:1px solid {_EDGE}"></div>'
        for s in segments
        if s.value > 0
    )
    return f'<div style="display:flex;height:18px;margin:3px 0;border:1px solid {_EDGE}">{parts}</div>'


def _marker(marker: Marker, span: int) -> str:
    left = min(100.0, 100 * marker.value / span)
    return (
        f'<div style="position:absolute;left:{left:.3f}%;top:0;bottom:0;'
        f'border-left:3px {marker.style} {marker.colour}"></div>'
    )


def _swatch(segment: Segment) -> str:
    return (
        f'<span style="display:inline-block;width:14px;height:11px;margin-right:3px;vertical-align:-1px;'
        f'{_fill(segment)};border:1px solid {_EDGE}" aria-hidden="true"></span>'
    )


def _line_swatch(marker: Marker) -> str:
    return (
        f'<span style="display:inline-block;width:0;height:12px;margin:0 4px;vertical-align:-1px;'
        f'border-left:3px {marker.style} {marker.colour}" aria-hidden="true"></span>'
    )


def bars_html(rows: Sequence[Sequence[Segment]], span: int, *, title: str, markers: Sequence[Marker] = ()) -> str:
    """Bars of ``span`` units (one per row) and limit lines, under a title and over a legend.

    The title and the legend are the text equivalent: between them they state
    every number the bars draw, and a screen reader reads them in that order.
    """
    span = max(span, 1)
    drawn = "".join(_row(row, span) for row in rows) + "".join(_marker(m, span) for m in markers)
    legend = [f"{_swatch(s)}{esc(s.label)} {s.value:,}" for row in rows for s in row]
    legend += [f"{_line_swatch(m)}{esc(m.label)} {m.value:,} ({m.style} line)" for m in markers]
    return (
        f'<div class="{FIGURE_CLASS}" style="max-width:680px;margin:4px 0">'
        f'<p class="botie-figure-title" style="margin:2px 0"><b>{esc(title)}</b></p>'
        f'<div aria-hidden="true" style="position:relative">{drawn}</div>'
        f'<p class="botie-figure-text" style="margin:2px 0;font-size:90%">{"; ".join(legend)}</p></div>'
    )


#: The colours the window and routing bars use, all from the Okabe–Ito palette.
COLOURS = {
    "input reserve": OKABE_ITO["sky_blue"],
    "output reserve": OKABE_ITO["reddish_purple"],
    "evidence used": OKABE_ITO["bluish_green"],
    "room left": "#F0F0F0",
    "over": OKABE_ITO["vermillion"],
    "largest": OKABE_ITO["orange"],
    "all": OKABE_ITO["blue"],
    "soft budget": OKABE_ITO["bluish_green"],
    "select limit": OKABE_ITO["grey"],
    "ceiling": OKABE_ITO["vermillion"],
}
