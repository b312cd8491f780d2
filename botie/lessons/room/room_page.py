"""The room as a page an instructor reads from the back of the room.

First where the room is stuck (one bar per exercise, the numbers written beside it), then what
the room predicted (per question, how many chose each option at their first try, no names), then
what the room learned (the concept check before and after, per idea, with the normalised gain; the
ideas that did not move first; a CSV of the same figures), then each learner in a table that folds
away. Colour is never the only signal: every bar's numbers are text, every cell says ``ok``, ``3x!``
or ``stub`` in words, and an idea that did not move says so.

The page updates itself: a small script fetches the page again every ``refresh`` seconds and
swaps in the parts that change, so an open table, the scroll position and a revealed answer stay
put; a button pauses it (a page that reloads under a screen reader must be stoppable). Without
scripts the page is still whole; reload it to update.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone
from html import escape
from urllib.parse import urlencode

from botie.lessons.learner.progress import PLACES
from botie.lessons.room.room import (
    DONE,
    FRESH,
    LOW_GAIN,
    QUIET_MINUTES,
    READ,
    STUCK,
    STUCK_FAILURES,
    TRYING,
    ConceptGain,
    ExerciseSummary,
    Poll,
    Row,
    activity,
    cell_text,
    concept_gains,
    exercise_names,
    exercise_state,
    ordered,
    polls,
    summarize,
)

__all__ = ["CSV_LINK", "OPEN_UP_TO", "room_html"]

#: Where the service serves the concept figures as CSV, relative to the page.
CSV_LINK = "api/concepts.csv"

#: The per-learner table starts open for a class up to this size; above it, it starts folded.
OPEN_UP_TO = 30

_CLASS = {DONE: "passed", TRYING: "trying", STUCK: "stuck", FRESH: "fresh"}


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _percent(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


def _bar(parts: Iterable[tuple[str, int]], whole: int) -> str:
    """Segments sized by share. Hidden from screen readers: the same numbers are text beside it."""
    segments = "".join(
        f"<span class='seg {kind}' style='width:{_percent(n, whole):.2f}%'>{n}</span>" for kind, n in parts if n
    )
    return f"<div class='bar' aria-hidden='true'>{segments}</div>"


def _definitions() -> str:
    return (
        "<p class='words'><strong>passed</strong>: a check passed. "
        f"<strong>stuck</strong>: not passed, and {STUCK_FAILURES} or more checks of their own code failed "
        "or they asked for the last hint. <strong>not started</strong>: no check yet, or only the unchanged stub. "
        "<strong>trying</strong>: any other. A learner is <strong>working</strong> when their last check, hint or "
        f"prediction is under {QUIET_MINUTES} minutes old, <strong>stopped</strong> when it is older.</p>"
    )


def _status(rows: list[Row], now: datetime, refresh: int) -> str:
    read = sum(1 for r in rows if r.state in READ)
    others = len(rows) - read
    apart = f" {others} not counted (server stopped, not answering, or file unreadable)." if others else ""
    return (
        f"<p id='status' data-live>Updated {now.astimezone(timezone.utc):%H:%M:%S} UTC, every {refresh} s. "
        f"Counts cover the {read} of {len(rows)} learners whose progress could be read.{apart}</p>"
    )


def _headline(summary: tuple[ExerciseSummary, ...]) -> str:
    hardest = sorted((s for s in summary if s.stuck), key=lambda s: (-s.stuck, s.lesson, s.number))
    if not hardest:
        return "<p class='headline'>Nobody is stuck.</p>"
    names = "; ".join(f"{s.lesson}.{s.number} {_e(s.name)} ({s.stuck})" for s in hardest[:3])
    return f"<p class='headline'>Most stuck: {names}.</p>"


def _summary_row(s: ExerciseSummary) -> str:
    counts = s.counts
    bar = _bar(((_CLASS[k], counts[k]) for k in (STUCK, TRYING, DONE, FRESH)), s.total)
    numbers = "".join(f"<td class='n'>{counts[k]}</td>" for k in (STUCK, TRYING, DONE, FRESH))
    who = ", ".join(_e(name) for name in s.stuck_learners) or "nobody"
    return (
        f"<tr><th scope='row'>{s.lesson}.{s.number} {_e(s.name)}</th>{numbers}"
        f"<td class='barcell'>{bar}</td><td class='who'>{who}</td></tr>"
    )


def _summary(rows: list[Row], lesson: str | None) -> str:
    summary = summarize(rows, lesson)
    head = "".join(f"<th scope='col'>{k}</th>" for k in (STUCK, TRYING, DONE, FRESH))
    body = "\n".join(_summary_row(s) for s in summary)
    return (
        f"<div id='summary' data-live>{_headline(summary)}"
        "<table class='summary'><caption>Per exercise, learners in each state</caption>"
        f"<thead><tr><th scope='col'>lesson.exercise</th>{head}<th scope='col'>share of the room</th>"
        f"<th scope='col'>stuck learners</th></tr></thead><tbody>\n{body}\n</tbody></table></div>"
    )


def _query(reveal: frozenset[str], lesson: str | None, projector: bool = False) -> str:
    pairs = [("lesson", lesson)] if lesson else []
    pairs += [("show", "polls")] if projector else []
    pairs += [("reveal", q) for q in sorted(reveal)]
    return f"?{urlencode(pairs)}" if pairs else "?"


def _reveal_link(qid: str, reveal: frozenset[str], lesson: str | None, projector: bool) -> str:
    if qid in reveal:
        return f"<a class='button' href='{_e(_query(reveal - {qid}, lesson, projector))}'>Hide the answer</a>"
    return f"<a class='button' href='{_e(_query(reveal | {qid}, lesson, projector))}'>Reveal the answer</a>"


def _poll(p: Poll, reveal: frozenset[str], lesson: str | None, projector: bool) -> str:
    q, shown = p.question, p.question.id in reveal
    lines = []
    for i, option in enumerate(q.options):
        right = shown and i == q.answer
        mark = " <strong class='right'>(right answer)</strong>" if right else ""
        share = _percent(p.counts[i], p.answered)
        lines.append(
            f"<tr{' class=right' if right else ''}><th scope='row'>{_e(option)}{mark}</th>"
            f"<td class='n'>{p.counts[i]}</td><td class='n'>{share:.0f}%</td>"
            f"<td class='barcell'>{_bar([('option', p.counts[i])], p.answered)}</td></tr>"
        )
    older = f" {p.unrecorded} answered before choices were kept (not in the rows)." if p.unrecorded else ""
    return (
        f"<section class='poll' aria-labelledby='poll-{_e(q.id)}'><h3 id='poll-{_e(q.id)}'>Lesson {q.lesson}: "
        f"{_e(q.prompt)}</h3><table><caption>First tries of {p.answered} learners.{older}</caption>"
        "<thead><tr><th scope='col'>option</th><th scope='col'>learners</th><th scope='col'>share</th>"
        f"<th scope='col'>bar</th></tr></thead><tbody>{''.join(lines)}</tbody></table>"
        f"{_reveal_link(q.id, reveal, lesson, projector)}</section>"
    )


def _polls(rows: list[Row], reveal: frozenset[str], lesson: str | None, projector: bool = False) -> str:
    found = polls(rows, lesson)
    inner = "\n".join(_poll(p, reveal, lesson, projector) for p in found) or "<p>No predictions answered yet.</p>"
    return f"<div id='polls' data-live>{inner}</div>"


def _count(part: int, whole: int) -> str:
    return f"{part} of {whole} ({_percent(part, whole):.0f}%)" if whole else "nobody yet"


def _gain_text(g: ConceptGain) -> str:
    if g.gain is not None:
        return f"{float(g.gain):+.2f}" + ("" if g.moved else " (did not move)")
    return "everyone was right before" if g.both else "needs both checks"


def _pairs(g: ConceptGain) -> str:
    """What the gain is computed from: of those who answered both times, right before and right after."""
    return f"<br><span class='where'>right: {g.both_before} then {g.both_after}</span>" if g.both else ""


def _concept_row(g: ConceptGain) -> str:
    c = g.concept
    before = _bar([("before", g.before_right)], g.before_answered)
    after = _bar([("after", g.after_right)], g.after_answered)
    stays = "" if g.moved else " class='stayed'"
    return (
        f"<tr{stays}><th scope='row'>{_e(c.idea)}<br><span class='where'>lesson {c.lesson}, section {c.section}"
        f"</span></th><td class='n'>{_count(g.before_right, g.before_answered)}</td><td class='barcell'>{before}</td>"
        f"<td class='n'>{_count(g.after_right, g.after_answered)}</td><td class='barcell'>{after}</td>"
        f"<td class='n gain'>{_gain_text(g)}</td><td class='n'>{g.both}{_pairs(g)}</td></tr>"
    )


def _concepts(rows: list[Row]) -> str:
    """The concept check across the room, no names: right before and after per idea, and the gain."""
    gains = concept_gains(rows)
    stayed = [g.concept.idea for g in gains if g.gain is not None and not g.moved]
    headline = f"Did not move: {_e('; '.join(stayed))}." if stayed else "Every idea answered twice moved."
    low = f"{float(LOW_GAIN):.1f}"
    if not any(g.both for g in gains):
        headline = "The second check (end of lesson 06) has not been taken yet: the first check alone."
    body = "\n".join(_concept_row(g) for g in gains)
    return (
        f"<div id='concepts' data-live><p class='headline'>{headline}</p>"
        "<table class='concepts'><caption>Per idea, learners right in each check; the ideas that did not move "
        "first. Gain = (after - before) / (1 - before), over the learners who answered it both times: the "
        f"share of what there was to learn that was learned. <strong>Did not move</strong>: a gain under {low}."
        "</caption>"
        "<thead><tr><th scope='col'>idea</th><th scope='col'>right before</th><th scope='col'>before</th>"
        "<th scope='col'>right after</th><th scope='col'>after</th><th scope='col'>gain</th>"
        f"<th scope='col'>answered both</th></tr></thead><tbody>\n{body}\n</tbody></table></div>"
        f"<p><a href='{_e(CSV_LINK)}' download='concept-check.csv'>Download these figures as CSV</a></p>"
    )


def _learner_row(row: Row, columns: list[str], now: datetime) -> str:
    cells = []
    for c in columns:
        e = row.entries.get(c)
        tip = "" if e is None else f" title='{e.attempts} checks, {e.stubs} on the stub, hint {e.hints}'"
        cells.append(f"<td class='{_CLASS[exercise_state(e)]}'{tip}>{_e(cell_text(e))}</td>")
    state = _e(row.state + (f" ({row.detail})" if row.detail else ""))
    act = activity(row, now)
    return (
        f"<tr><th scope='row'>{_e(row.learner)}</th><td class='state'>{state}</td>"
        f"<td class='{act.kind}'>{_e(act.text)}</td>{''.join(cells)}</tr>"
    )


def _learners(rows: list[Row], now: datetime, lesson: str | None) -> str:
    columns = exercise_names(lesson)
    head = "".join(f"<th scope='col'><abbr title='{_e(c)}'>{PLACES[c][0]}.{PLACES[c][1]}</abbr></th>" for c in columns)
    body = "\n".join(_learner_row(r, columns, now) for r in ordered(rows))
    return (
        "<div id='learners' data-live><table class='learners'>"
        f"<caption>{len(rows)} learners, the most stuck first. ok = passed; 3x = three checks of their own "
        "code, not passed yet; ! = stuck; stub = only the unchanged stub checked; - = not checked.</caption>"
        f"<thead><tr><th scope='col'>learner</th><th scope='col'>server and file</th>"
        f"<th scope='col'>activity</th>{head}</tr></thead><tbody>\n{body}\n</tbody></table></div>"
    )


def _nav(lesson: str | None) -> str:
    lessons = sorted({place[0] for place in PLACES.values()})
    links = [("all lessons", "?", lesson is None)]
    links += [(f"lesson {n}", f"?{urlencode({'lesson': n})}", lesson == n) for n in lessons]
    items = "".join(
        f"<li><a href='{_e(href)}'{' aria-current=page' if here else ''}>{_e(text)}</a></li>"
        for text, href, here in links
    )
    return f"<nav aria-label='Lessons'><ul>{items}</ul></nav>"


def _projector(rows: list[Row], shown: frozenset[str], lesson: str | None, what: str = "polls") -> str:
    """Only the polls, or only the concept check, for the room's screen: counts and shares, no learner's name."""
    if what == "concepts":
        return (
            "<main><h1>What the room learned: the concept check</h1>"
            "<button type='button' id='pause' aria-pressed='false' hidden>Pause updates</button> "
            f"<a href='{_e(_query(shown, lesson))}'>The whole room</a>"
            f"<section aria-label='Concept check'>{_concepts(rows)}</section></main>"
        )
    return (
        f"<main><h1>What the room predicted{f' in lesson {_e(lesson)}' if lesson else ''}</h1>"
        "<button type='button' id='pause' aria-pressed='false' hidden>Pause updates</button> "
        f"<a href='{_e(_query(shown, lesson))}'>The whole room</a>"
        f"<section aria-label='Polls'>{_polls(rows, shown, lesson, projector=True)}</section></main>"
    )


def room_html(
    rows: list[Row],
    *,
    refresh: int = 5,
    now: datetime | None = None,
    reveal: Iterable[str] = (),
    lesson: str | None = None,
    projector: bool = False,
    show: str = "polls",
) -> str:
    """The whole page. ``reveal``: question ids whose right answer is marked; ``lesson``: show one lesson;
    ``projector``: only ``show`` (``"polls"`` or ``"concepts"``), with no names, for the screen the room sees."""
    now = now or datetime.now(timezone.utc)
    shown = frozenset(reveal)
    if projector:
        view = _projector(rows, shown, lesson, show)
        return _PAGE.replace("{refresh}", str(int(refresh))).replace("{main}", view)
    is_open = " open" if len(rows) <= OPEN_UP_TO else ""
    main = (
        f"<header><h1>The room: {len(rows)} learners</h1>{_status(rows, now, refresh)}"
        "<button type='button' id='pause' aria-pressed='false' hidden>Pause updates</button>"
        "<noscript><p>Reload the page to update it.</p></noscript></header>"
        f"{_nav(lesson)}<main>{_definitions()}"
        f"<section aria-labelledby='h-stuck'><h2 id='h-stuck'>Where the room is stuck</h2>{_summary(rows, lesson)}"
        "</section><section aria-labelledby='h-polls'><h2 id='h-polls'>What the room predicted</h2>"
        f"<p><a href='{_e(_query(shown, lesson, projector=True))}'>Polls only, without names, for the projector</a></p>"
        f"{_polls(rows, shown, lesson)}</section>"
        "<section aria-labelledby='h-concepts'><h2 id='h-concepts'>What the room learned: the concept check</h2>"
        "<p><a href='?show=concepts'>The concept check only, for the projector</a></p>"
        f"{_concepts(rows)}</section>"
        f"<section aria-labelledby='h-learners'><h2 id='h-learners'>Each learner</h2><details{is_open}>"
        f"<summary>Show the table of {len(rows)} learners</summary>{_learners(rows, now, lesson)}</details>"
        "</section></main>"
    )
    return _PAGE.replace("{refresh}", str(int(refresh))).replace("{main}", main)


_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Botie: the room</title>
<style>
body{font-family:system-ui,sans-serif;font-size:18px;color:#1a1a1a;background:#fff;margin:1rem 2rem}
h1{font-size:2rem;margin:.2rem 0} h2{font-size:1.6rem;margin-top:1.6rem} h3{font-size:1.2rem}
nav ul{list-style:none;padding:0;display:flex;gap:1rem;flex-wrap:wrap} nav a[aria-current]{font-weight:bold}
a{color:#0645ad} .words{max-width:70rem}
table{border-collapse:collapse;margin:.5rem 0} caption{text-align:left;font-style:italic;padding:.3rem 0}
td,th{padding:.25rem .6rem;text-align:left;border-bottom:1px solid #ccc} td.n{text-align:right}
table.summary{font-size:1.4rem} table.summary th[scope=row]{white-space:nowrap}
.headline{font-size:1.5rem;font-weight:bold}
.barcell{width:18rem} .bar{display:flex;width:18rem;height:1.6rem;border:1px solid #1a1a1a;background:#fff}
.seg{display:block;overflow:hidden;color:#fff;font-size:1rem;line-height:1.6rem;text-align:center}
.seg.passed{background:#1a6b35} .seg.trying{background:#7a5200} .seg.fresh{background:#595959}
.seg.stuck{background:repeating-linear-gradient(45deg,#b00020 0 6px,#8a0019 6px 12px)}
.seg.option{background:#1f4e99} .seg.before{background:#595959} .seg.after{background:#1f4e99}
table.concepts{font-size:1.2rem} table.concepts .barcell,table.concepts .bar{width:12rem}
.where{font-size:.9rem;font-weight:normal} tr.stayed th{font-weight:bold} td.gain{font-weight:bold}
#polls{display:grid;grid-template-columns:repeat(auto-fill,minmax(34rem,1fr));gap:0 2.5rem}
.poll{border-top:2px solid #1a1a1a;margin-top:1rem} .poll table{width:100%}
.poll .barcell,.poll .bar{width:10rem} tr.right th{font-weight:bold} .right{color:#1a1a1a}
a.button,button{display:inline-block;font-size:1rem;padding:.3rem .8rem;border:2px solid #1a1a1a;
 border-radius:4px;background:#f0f0f0;color:#1a1a1a;text-decoration:none;cursor:pointer}
a:focus,button:focus,summary:focus{outline:3px solid #0645ad;outline-offset:2px}
summary{font-size:1.2rem;cursor:pointer}
table.learners td,table.learners th{text-align:center} table.learners th[scope=row]{text-align:left}
td.passed{background:#d8f0d8} td.trying{background:#fff4cc} td.stuck{background:#f7c6c6;font-weight:bold}
td.stopped{font-weight:bold} td.state{max-width:18rem;font-size:.9rem}
</style></head><body data-refresh="{refresh}">
{main}
<script>
(function () {
  var every = Number(document.body.dataset.refresh) * 1000, paused = false;
  var button = document.getElementById("pause");
  button.hidden = false;
  button.addEventListener("click", function () {
    paused = !paused;
    button.setAttribute("aria-pressed", String(paused));
    button.textContent = paused ? "Resume updates" : "Pause updates";
  });
  function update() {
    if (paused) return;
    fetch(location.href, {cache: "no-store", credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) {
        if (!text) return;
        var fresh = new DOMParser().parseFromString(text, "text/html");
        document.querySelectorAll("[data-live]").forEach(function (el) {
          var next = fresh.getElementById(el.id);
          if (next) el.innerHTML = next.innerHTML;
        });
      })
      .catch(function () {});
  }
  if (every > 0) setInterval(update, every);
})();
</script></body></html>
"""
