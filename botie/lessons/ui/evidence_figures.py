"""Figures for lessons 02, 03, 04 and 06, drawn from numbers the core computed.

Like :mod:`botie.lessons.ui.figures`: ``matplotlib.figure.Figure`` without pyplot,
a hatch as well as a colour on every bar, and the number written on it, so
each figure reads in greyscale and the same data always draws the same
picture. :func:`as_image` wraps a figure for display in a notebook as a PNG
whose bytes carry no timestamp.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from ._bars import COLOURS, Marker, Segment, bars_html
from ._common import OKABE_ITO, figure_png

__all__ = [
    "alert_figure",
    "as_image",
    "density_figure",
    "loading_figure",
    "routing_bars",
    "routing_figure",
    "slice_figure",
]

# Okabe–Ito: distinct for the common kinds of colour blindness; every bar also has its own hatch.
_BLUE, _ORANGE, _GREEN, _GREY, _RED = (
    OKABE_ITO["blue"],
    OKABE_ITO["orange"],
    OKABE_ITO["bluish_green"],
    "#999999",
    OKABE_ITO["vermillion"],
)


def as_image(fig: Figure) -> Any:
    """The figure as an ``IPython.display.Image`` (a PNG), for ``display(...)`` in a notebook."""
    from IPython.display import Image

    return Image(data=figure_png(fig), format="png")


def _label_bars(ax: Any, bars: Any, texts: Sequence[str], *, inside: bool = False) -> None:
    for bar, text in zip(bars, texts):
        x = bar.get_x() + bar.get_width() / 2
        y = bar.get_height() / 2 if inside else bar.get_height()
        ax.text(x, y, text, ha="center", va="center" if inside else "bottom", fontsize=8)


def density_figure(densities: Sequence[Any]) -> Figure:
    """Characters per token for each sample (:func:`botie.context.tokens.compare_density` output)."""
    fig = Figure(figsize=(7.0, 2.8), dpi=90)
    ax = fig.add_axes((0.08, 0.2, 0.9, 0.68))
    labels = [d.label for d in densities]
    values = [d.chars_per_token for d in densities]
    hatches = ["//", "..", "\\\\", "xx", "--"]
    bars = ax.bar(
        labels, values, color=[_ORANGE, _BLUE, _GREEN, _GREY, _RED][: len(values)], hatch=None, edgecolor="#333333"
    )
    for bar, hatch in zip(bars, hatches):
        bar.set_hatch(hatch)
    _label_bars(
        ax, bars, [f"{v:.2f}\n({d.characters:,} chars / {d.tokens:,} tokens)" for v, d in zip(values, densities)]
    )
    ax.set_ylabel("characters per token", fontsize=9)
    ax.set_ylim(0, max([*values, 1]) * 1.35)
    ax.set_title("The same number of characters is not the same number of tokens", fontsize=10)
    ax.tick_params(labelsize=8)
    return fig


def routing_bars(plan: Any) -> str:
    """The routing panel's drawing in HTML: the largest document and the total against the three limits."""
    largest = max((d.cost for d in plan.docs), default=0)
    rows = [
        [Segment("largest document", largest, COLOURS["largest"], "backstripes")],
        [Segment("all attachments", plan.total, COLOURS["all"], "stripes")],
    ]
    markers = [
        Marker("soft budget", plan.soft_budget, COLOURS["soft budget"], "solid"),
        Marker("select limit", plan.select_limit, COLOURS["select limit"], "dashed"),
        Marker("ceiling", plan.ceiling, COLOURS["ceiling"], "dotted"),
    ]
    span = max(plan.total, plan.select_limit, plan.ceiling, largest, 1)
    return bars_html(rows, span, title=f"strategy: {plan.strategy}", markers=markers)


def routing_figure(plan: Any) -> Figure:
    """The attachments' total and largest document against the soft budget, the select limit and the ceiling."""
    fig = Figure(figsize=(7.5, 2.4), dpi=90)
    ax = fig.add_axes((0.2, 0.28, 0.76, 0.55))
    largest = max((d.cost for d in plan.docs), default=0)
    rows = [("largest document", largest, _ORANGE, "//"), ("all attachments", plan.total, _BLUE, "..")]
    for y, (_label, value, colour, hatch) in enumerate(rows):
        ax.barh(y, value, color=colour, hatch=hatch, edgecolor="#333333")
        ax.text(value, y, f" {value:,}", va="center", fontsize=8)
    marks = [
        ("soft budget", plan.soft_budget, _GREEN, "-"),
        ("select limit", plan.select_limit, _GREY, "--"),
        ("ceiling", plan.ceiling, _RED, ":"),
    ]
    for label, value, colour, style in marks:
        ax.axvline(value, color=colour, linestyle=style, linewidth=2, label=f"{label} {value:,}")
    ax.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=8)
    ax.set_xlim(0, max(plan.total, plan.select_limit, plan.ceiling, largest, 1) * 1.18)
    ax.tick_params(axis="x", labelsize=7)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:,.0f}"))
    ax.set_title(f"strategy: {plan.strategy}", fontsize=10)
    fig.legend(loc="lower center", ncol=3, fontsize=8, frameon=False)
    return fig


def loading_figure(comparison: Any) -> Figure:
    """Preloading against just-in-time: tokens sent and simulated latency per question, and the failure rates."""
    fig = Figure(figsize=(9.0, 3.0), dpi=90)
    pre, late = comparison.of("preload"), comparison.of("just_in_time")
    labels = [f"Q{i + 1}" for i in range(len(pre))]
    xs = range(len(labels))
    width = 0.38
    panels = (
        ("tokens sent", "tokens_sent", (0.06, 0.18, 0.27, 0.66)),
        ("simulated latency (ms)", "latency_ms", (0.39, 0.18, 0.27, 0.66)),
    )
    for title, attr, box in panels:
        ax = fig.add_axes(box)
        for offset, runs, colour, hatch, name in (
            (-width / 2, pre, _BLUE, "..", "preload"),
            (width / 2, late, _ORANGE, "//", "just in time"),
        ):
            values = [getattr(r, attr) for r in runs]
            bars = ax.bar(
                [x + offset for x in xs], values, width, color=colour, hatch=hatch, edgecolor="#333333", label=name
            )
            _label_bars(ax, bars, [f"{v:,}" for v in values])
        ax.set_xticks(list(xs), labels, fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        ax.set_title(title, fontsize=9)
        ax.set_ylim(0, max([*(getattr(r, attr) for r in (*pre, *late)), 1]) * 1.2)
    ax = fig.add_axes((0.74, 0.18, 0.23, 0.66))
    rates = []
    for name in ("preload", "just_in_time"):
        failed, turns = comparison.failures[name]
        rates.append(100 * failed / turns if turns else 0.0)
    bars = ax.bar(["preload", "just in time"], rates, color=[_BLUE, _ORANGE], edgecolor="#333333")
    bars[0].set_hatch("..")
    bars[1].set_hatch("//")
    _label_bars(ax, bars, [f"{r:.1f}%" for r in rates])
    ax.set_ylim(0, max([*rates, 1]) * 1.3)
    ax.set_title(f"turns failed ({comparison.failure_rate:.0%} of calls fail)", fontsize=9)
    ax.tick_params(labelsize=8)
    handles, names = fig.axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=2, fontsize=8, frameon=False)
    return fig


def slice_figure(reports: Mapping[str, Any]) -> Figure:
    """Share of cases passed per set, one bar per design: ordinary questions beside the adversarial slice."""
    fig = Figure(figsize=(8.5, 3.0), dpi=90)
    ax = fig.add_axes((0.07, 0.3, 0.9, 0.58))
    designs = list(reports)
    sets = list(next(iter(reports.values())).scores())
    width = 0.8 / max(len(designs), 1)
    styles = [(_GREEN, ""), (_GREY, "//"), (_BLUE, ".."), (_ORANGE, "xx")]
    for k, design in enumerate(designs):
        scores = reports[design].scores()
        shares = [100 * scores[s][0] / scores[s][1] if scores[s][1] else 0 for s in sets]
        colour, hatch = styles[k % len(styles)]
        xs = [i - 0.4 + width * (k + 0.5) for i in range(len(sets))]
        bars = ax.bar(xs, shares, width, color=colour, hatch=hatch, edgecolor="#333333", label=design)
        _label_bars(ax, bars, [f"{scores[s][0]}/{scores[s][1]}" for s in sets])
    ax.set_xticks(range(len(sets)), [str(s).replace(" ", "\n", 1) for s in sets], fontsize=8)
    ax.axvline(0.5, color="#333333", linewidth=1)
    ax.set_ylim(0, 118)
    ax.set_ylabel("% of cases right", fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    ax.set_title("ordinary questions (left of the line) and the adversarial slice, scored apart", fontsize=10)
    fig.legend(loc="lower center", ncol=len(designs), fontsize=8, frameon=False)
    return fig


def alert_figure(requests: Sequence[Any]) -> Figure:
    """Each turn's share of the ceiling (the request, then the answer allowance on top) against the alert line.

    ``requests`` are one conversation's :class:`~botie.context.evidence.ModelRequest` values, turn by turn; the
    alert line and each bar's word (``ok`` / ``ALERT``) are the requests' own ``alert_fraction`` and ``alert``.
    """
    fig = Figure(figsize=(7.5, 3.2), dpi=90)
    ax = fig.add_axes((0.09, 0.2, 0.88, 0.64))
    turns = list(range(1, len(requests) + 1))
    sent = [100 * r.tokens / r.ceiling for r in requests]
    room = [100 * r.answer_allowance / r.ceiling for r in requests]
    ax.bar(
        turns, sent, color=_BLUE, hatch="..", edgecolor="#333333", label="request (instructions, documents, history)"
    )
    tops = ax.bar(turns, room, bottom=sent, color=_GREY, hatch="//", edgecolor="#333333", label="kept for the answer")
    for bar, r in zip(tops, requests):
        word = "ALERT" if r.alert else "ok"
        top = bar.get_y() + bar.get_height()
        ax.text(
            bar.get_x() + bar.get_width() / 2,
            top + 1.5,
            f"{r.ratio:.1%}\n{word}",
            ha="center",
            va="bottom",
            fontsize=8,
            fontweight="bold" if r.alert else "normal",
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1},  # the label stays legible across the line
            zorder=3,
        )
    line = 100 * requests[0].alert_fraction if requests else 70.0
    ax.axhline(line, color=_RED, linestyle="--", linewidth=2, label=f"alert at {line:.0f}% of the ceiling")
    first = next((t for t, r in zip(turns, requests) if r.alert), None)
    ceiling = f"{requests[0].ceiling:,}-token ceiling" if requests else "ceiling"
    crossing = f"turn {first} is the first to reach the alert" if first else "no turn reaches the alert"
    ax.set_title(f"Share of the {ceiling}, turn by turn: {crossing}", fontsize=10)
    ax.set_xticks(turns, [f"turn {t}" for t in turns], fontsize=8)
    ax.set_ylabel("% of the ceiling", fontsize=9)
    ax.set_ylim(0, 100)
    ax.tick_params(axis="y", labelsize=8)
    fig.legend(loc="lower center", ncol=3, fontsize=8, frameon=False)
    return fig
