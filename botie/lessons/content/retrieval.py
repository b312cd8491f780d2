"""Three ways retrieval can rank candidates, each small enough to read, and how each one goes wrong.

The library's work starts after ranking: a selector receives records with a
score already attached. This module shows where such scores come from, so a
learner can see that every method has its own blind spot:

* **keyword** (lexical) search counts which of the question's words occur in
  a passage. It misses a passage that says the same thing in other words, and
  it rewards a passage stuffed with common query words.
* **embedding** search compares meaning. Real systems use a trained model;
  here a hand-written table maps words to a few concepts ("torque",
  "fastener", "seal", "pump", ...), and a passage's vector counts its
  concepts. That is enough to show the blind spot: similar meaning is not the
  same asset, the newest version, or the truth. "P-1" and "P-2" are both just
  "pump" to it.
* a **reranker** re-scores the first stage's shortlist with another method.
  It can reorder what it was given; it can never bring back a passage the
  first stage left out.

None of the three knows who is asking: a restricted file can rank first under
all of them. Permission and freshness are checked afterwards, by the
selector, which is why the lessons filter before they rank.

Everything is deterministic and offline: no model download, no network.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from botie.context.records import Record

__all__ = [
    "CONCEPTS",
    "Ranked",
    "concept_vector",
    "embedding_score",
    "keyword_score",
    "rank",
    "rerank",
    "words",
]

_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")

# Words that carry no meaning for matching. Kept short on purpose: a long list hides what is being matched.
_STOP = frozenset(
    "a an and are at be by do does for from how i in is it me my of on or should the to what when which with".split()
)

#: The toy embedding's vocabulary: word -> concept. Words not listed carry no meaning for it.
CONCEPTS: Mapping[str, str] = {
    **dict.fromkeys(("torque", "torqued", "tighten", "tight", "tightened", "force", "hard", "n", "m"), "torque"),
    **dict.fromkeys(("nut", "nuts", "bolt", "bolts", "fastener", "fasteners"), "fastener"),
    **dict.fromkeys(("gland", "packing", "seal", "seals", "mechanical"), "seal"),
    # Every pump is "a pump" to meaning: the asset number is lost, which is the point.
    **dict.fromkeys(("pump", "pumps", "p-1", "p-2", "p-3", "two", "one", "three"), "pump"),
    **dict.fromkeys(("replaced", "replacement", "replace", "changed", "fitted", "fitting"), "replace"),
    **dict.fromkeys(("flush", "pressure", "bar"), "flush"),
    **dict.fromkeys(("leak", "leaks", "leaking", "leaked"), "leak"),
}


def words(text: str) -> tuple[str, ...]:
    """Lower-case words of ``text`` with the stop words removed, in order (repeats kept)."""
    return tuple(w for w in _WORD.findall(text.lower()) if w not in _STOP)


def keyword_score(question: str, text: str) -> float:
    """The share of the question's distinct words that occur in ``text`` (0 to 1)."""
    wanted = set(words(question))
    if not wanted:
        return 0.0
    return len(wanted & set(words(text))) / len(wanted)


def concept_vector(text: str) -> Counter[str]:
    """How often each concept of :data:`CONCEPTS` occurs in ``text``."""
    return Counter(CONCEPTS[w] for w in words(text) if w in CONCEPTS)


def embedding_score(question: str, text: str) -> float:
    """Cosine similarity of the two concept vectors (0 when either has no known concept)."""
    a, b = concept_vector(question), concept_vector(text)
    dot = sum(a[c] * b[c] for c in a)
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


class Ranked(NamedTuple):
    """One candidate's place in a ranking: its id, asset and score under the method used."""

    record_id: str
    asset: str
    score: float


Scorer = Callable[[str, str], float]


def rank(question: str, records: Iterable[Record], scorer: Scorer, *, k: int | None = None) -> tuple[Ranked, ...]:
    """Score every record, highest first (ties by id, so the order is stable), and keep the top ``k``.

    A record scoring 0 is not returned: the method found nothing in it.
    """
    scored = [Ranked(r.id, r.asset, round(scorer(question, r.text), 3)) for r in records]
    kept = sorted((s for s in scored if s.score > 0), key=lambda s: (-s.score, s.record_id))
    return tuple(kept if k is None else kept[:k])


def rerank(
    question: str,
    shortlist: Sequence[Ranked],
    records: Iterable[Record],
    scorer: Scorer,
) -> tuple[Ranked, ...]:
    """Re-score only the shortlist with ``scorer``. Nothing outside the shortlist can enter."""
    by_id = {r.id: r for r in records}
    return rank(question, (by_id[s.record_id] for s in shortlist), scorer)
