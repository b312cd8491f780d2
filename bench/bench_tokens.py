"""Token counting on ~5 MB of manual text: count_tokens and TokenCache against raw tiktoken."""

from __future__ import annotations

import random

from botie.context.tokens import TokenCache, count_tokens, get_encoding

from ._harness import Row, interleaved

SIZE = 5_000_000
ROUNDS = 7


def _manual_text(size: int = SIZE) -> str:
    """Invented maintenance prose with part-number lines mixed in, about ``size`` characters."""
    rng = random.Random(2026)
    words = (
        "the pump seal gland nut torque bearing grease impeller coupling alignment manual revision "
        "inspection leak flush pressure suction shaft sleeve spring face lapped check cross pattern"
    ).split()
    parts: list[str] = []
    n = 0
    while n < size:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(8, 16))).capitalize() + ". "
        if rng.random() < 0.25:
            series, letter = rng.randint(10_000, 99_999), rng.choice("ABCDEFGH")
            line += f"PN {series}-{letter}{rng.randint(100, 999)}/R{rng.randint(1, 9)}. "
        parts.append(line)
        n += len(line)
    return "".join(parts)[:size]


def run() -> list[Row]:
    text = _manual_text()
    encoding = get_encoding("cl100k_base")
    assert count_tokens(text) == len(encoding.encode_ordinary(text))

    # A hit: the same document arrives again as a new, equal string (re-read from storage).
    # Nothing is cached on the string itself, so every hit hashes all 5 MB again.
    warm = TokenCache()
    warm.count(text)
    reread = "".join([text[: SIZE // 2], text[SIZE // 2 :]])
    assert reread is not text

    t = interleaved(
        {
            "raw": lambda: len(encoding.encode_ordinary(text)),
            "count_tokens": lambda: count_tokens(text),
            "miss": lambda: TokenCache().count(text),  # a fresh cache: hash, then tokenize
            "hit": lambda: warm.count(reread),
        },
        rounds=ROUNDS,
    )
    assert warm.hits >= ROUNDS
    raw = t["raw"]
    return [
        Row("count_tokens, 5 MB manual text", t["count_tokens"], "tiktoken encode_ordinary", raw, "≤ 1.05×"),
        Row("TokenCache miss (hash + count), 5 MB", t["miss"], "tiktoken encode_ordinary", raw, "≤ 1.05×"),
        Row(
            f"TokenCache hit, unchanged 5 MB ({raw / t['hit']:.0f}× faster)",
            t["hit"],
            "tiktoken encode_ordinary",
            raw,
            "≤ 0.01× (≥ 100× faster)",
        ),
    ]
