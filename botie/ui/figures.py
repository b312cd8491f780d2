"""Matplotlib drawings of numbers the core already computed.

Figures are built with ``matplotlib.figure.Figure`` (not pyplot), so no
global figure state piles up and nothing needs closing. Each segment has a
hatch as well as a colour, and its number written on it.
"""

from __future__ import annotations

from matplotlib.figure import Figure

__all__ = ["window_figure", "window_text"]

# (label, colour, hatch)
_SEGMENTS = (
    ("input reserve", "#8da0cb", "//"),
    ("output reserve", "#e78ac3", "\\\\"),
    ("evidence used", "#1b7a3a", ""),
    ("room left", "#f0f0f0", ".."),
)


def window_text(total: int, input_reserve: int, output_reserve: int, used: int) -> str:
    """The same split in words: what the bar shows, for readers who cannot see it."""
    reserved = input_reserve + output_reserve
    if reserved > total:
        return (f"window {total}: reserves {input_reserve} + {output_reserve} = {reserved} "
                f"overflow the total by {reserved - total}")
    left = total - reserved - used
    return (f"window {total} = input reserve {input_reserve} + output reserve {output_reserve} "
            f"+ evidence used {used} + room left {left}")


def window_figure(total: int, input_reserve: int, output_reserve: int, used: int = 0) -> Figure:
    """One horizontal bar: input reserve, output reserve, evidence used, room left.

    When the reserves add up to more than the total, the bar overflows past a
    red line at the total, which is what the BudgetError message says in words.
    """
    reserved = input_reserve + output_reserve
    overflow = reserved > total
    left = 0 if overflow else total - reserved - used
    widths = (input_reserve, output_reserve, 0 if overflow else used, left)

    fig = Figure(figsize=(7.5, 1.9), dpi=90)
    ax = fig.add_axes((0.03, 0.42, 0.94, 0.33))
    start = 0
    for (label, colour, hatch), width in zip(_SEGMENTS, widths):
        if width <= 0:
            continue
        ax.barh(0, width, left=start, color=colour, hatch=hatch, edgecolor="#333333", linewidth=0.8,
                label=f"{label} ({width})")
        dark = colour in ("#1b7a3a",)
        ax.text(start + width / 2, 0, str(width), ha="center", va="center", fontsize=10,
                color="white" if dark else "black", fontweight="bold")
        start += width
    span = max(total, reserved, 1)
    ax.set_xlim(0, span)
    ax.set_ylim(-0.6, 0.6)
    ax.set_yticks([])
    ax.set_xticks(sorted({0, total, min(span, reserved)}))
    ax.tick_params(axis="x", labelsize=8)
    if overflow:
        ax.axvline(total, color="#a3172b", linewidth=2.5)
        ax.set_title(f"reserves {reserved} > total {total}: over by {reserved - total}", fontsize=10,
                     color="#a3172b")
    else:
        ax.set_title(f"window of {total} tokens: evidence allowance {total - reserved}, used {used}",
                     fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    return fig
