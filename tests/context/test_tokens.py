"""count_tokens: cl100k_base from the offline copy, exact, lazy, cached by content hash."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from botie.context.evidence import build_request
from botie.context.records import Record
from botie.context.tokens import (
    OFFLINE_ENCODINGS,
    TokenCache,
    compare_density,
    content_hash,
    count_tokens,
    density,
    get_encoding,
)
from botie.errors import BotieError, TokenizerError

ROOT = Path(__file__).resolve().parents[2]


def _raw_encoding():
    """tiktoken itself, reading the same bundled file: the reference we check against."""
    import tiktoken

    return tiktoken.get_encoding("cl100k_base_offline")


# Known cl100k_base vectors (token ids from tiktoken's own documentation and tests).
KNOWN = [
    ("hello world", [15339, 1917]),
    ("", []),
    ("tiktoken is great!", [83, 1609, 5963, 374, 2294, 0]),
]


@pytest.mark.parametrize(("text", "ids"), KNOWN)
def test_known_cl100k_vectors(text, ids):
    assert count_tokens(text) == len(ids)
    assert _raw_encoding().encode_ordinary(text) == ids


def test_hello_world_is_two_tokens():
    assert count_tokens("hello world") == 2


# Counts pinned once from tiktoken's cl100k_base (ids shown for the first two), so that a change in how
# botie counts (special tokens allowed, another encoding, a stripped text) shows up as a wrong number.
PINNED = [
    ("P-2 mechanical seal: tighten the gland nuts to 18 N·m.", 17),  # 47, 12, 17, 22936, 26418, 25, ...
    ("PN 40417-B226/R3, 40417-B227/R3, 40418-C001/R1", 24),  # 18378, 220, 7507, 1114, 7826, ...
    ("ünïcödé and 日本語 and emoji 🛠️", 17),
    ("<|endoftext|> is just text inside a document", 13),
    ("   leading and trailing whitespace \n\n\t ", 7),
]


@pytest.mark.parametrize(("text", "count"), PINNED)
def test_pinned_counts(text, count):
    assert count_tokens(text) == count


def test_special_token_text_is_counted_as_ordinary_text_not_rejected():
    """A document that contains '<|endoftext|>' is counted, never refused and never one control token."""
    assert count_tokens("<|endoftext|>") == 7


@given(st.text(max_size=200))
def test_any_text_has_between_one_token_and_one_token_per_byte(text):
    """A bound, not a restatement: every token covers at least one byte; only the empty text has none."""
    n = count_tokens(text)
    assert (n == 0) == (text == "")
    assert n <= len(text.encode("utf-8"))


def test_cl100k_base_maps_to_the_offline_copy():
    assert OFFLINE_ENCODINGS["cl100k_base"] == "cl100k_base_offline"
    assert get_encoding("cl100k_base").name == "cl100k_base_offline"
    assert get_encoding("cl100k_base") is get_encoding("cl100k_base")


@pytest.mark.parametrize("encoding", ["o200k_base", "gpt2", "", "CL100K_BASE", None, 3])
def test_an_encoding_without_an_offline_copy_is_a_clear_error(encoding):
    with pytest.raises(TokenizerError) as err:
        count_tokens("hello", encoding)
    assert err.value.field == "encoding"
    assert "cl100k_base" in str(err.value)
    assert isinstance(err.value, BotieError) and isinstance(err.value, ValueError)


@pytest.mark.parametrize("text", [None, b"hello world", 42, ["hello"]])
def test_non_str_text_is_a_clear_error(text):
    with pytest.raises(TokenizerError) as err:
        count_tokens(text)
    assert err.value.field == "text"
    assert type(text).__name__ in str(err.value)


_OFFLINE_PROBE = textwrap.dedent(
    """
    import os, socket, sys
    def refuse(*args, **kwargs):
        raise AssertionError("network use attempted: " + repr(args))
    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    class NoSocket(socket.socket):
        def __init__(self, *args, **kwargs):
            refuse(*args)
    socket.socket = NoSocket
    import botie
    assert "tiktoken" not in sys.modules, "import botie must not import tiktoken"
    from botie.context.tokens import count_tokens
    assert "tiktoken" not in sys.modules, "importing botie.context.tokens must not import tiktoken"
    print(count_tokens("hello world"), count_tokens("P-2 gland nuts: 18 N·m"))
    assert os.listdir(os.environ["TIKTOKEN_CACHE_DIR"]) is not None
    """
)


@pytest.mark.slow
def test_counting_never_opens_a_network_connection(tmp_path):
    """A fresh process with sockets disabled and an empty tiktoken cache still counts."""
    cache = tmp_path / "empty-tiktoken-cache"
    cache.mkdir()
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    env.pop("DATA_GYM_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", _OFFLINE_PROBE], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", str(count_tokens("P-2 gland nuts: 18 N·m"))]


# --- the content-hash cache ----------------------------------------------------


def test_cache_counts_an_unchanged_document_once():
    cache = TokenCache()
    text = "P-2 mechanical seal, fitting: 18 N·m. " * 50
    first = cache.count(text)
    again = cache.count("".join(["P-2 mechanical seal, fitting: 18 N·m. "] * 50))  # equal text, new object
    assert first == again == count_tokens(text)
    assert (cache.misses, cache.hits) == (1, 1)


def test_cache_recounts_a_changed_document():
    cache = TokenCache()
    cache.count("torque 18 N·m")
    assert cache.count("torque 19 N·m") == count_tokens("torque 19 N·m")
    assert cache.misses == 2 and cache.hits == 0


def test_cache_is_keyed_by_content_hash_not_by_text():
    cache = TokenCache()
    cache.count("a document")
    assert list(cache._counts) == [bytes.fromhex(content_hash("a document"))]


def test_cache_drops_the_oldest_entry_beyond_its_size():
    cache = TokenCache(max_entries=2)
    for text in ("one", "two", "three"):
        cache.count(text)
    assert len(cache) == 2
    cache.count("one")
    assert cache.misses == 4  # "one" had been dropped, so it was counted again


def test_cache_hit_refreshes_an_entry():
    cache = TokenCache(max_entries=2)
    cache.count("one")
    cache.count("two")
    cache.count("one")  # now the most recent
    cache.count("three")  # drops "two"
    cache.count("one")
    assert (cache.hits, cache.misses) == (2, 3)


def test_cache_clear_forgets_everything():
    cache = TokenCache()
    cache.count("x")
    cache.clear()
    assert len(cache) == 0 and cache.hits == cache.misses == 0


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_cache_size_must_be_a_positive_int(bad):
    with pytest.raises(TokenizerError):
        TokenCache(max_entries=bad)


def test_cache_rejects_non_str_text_and_unknown_encodings():
    with pytest.raises(TokenizerError):
        TokenCache().count(b"bytes")
    with pytest.raises(TokenizerError):
        TokenCache("o200k_base")


def test_content_hash_is_stable_and_handles_lone_surrogates():
    assert content_hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert content_hash("\ud800") != content_hash("\udc00")


@given(st.text(max_size=50), st.text(max_size=50))
def test_cache_agrees_with_count_tokens(a, b):
    cache = TokenCache()
    for text in (a, b, a):
        assert cache.count(text) == count_tokens(text)


# --- characters per token: why a character limit is the wrong unit -------------

PROSE = (
    "The technician replaced the mechanical seal on the pump after a small leak at the gland, "
    "then tightened the nuts evenly and ran the pump for a day before checking them again."
)
PART_NUMBERS = "PN 40417-B226/R3; 40417-B227/R3; 40418-C001/R1; 7731-0042-XQ; 7731-0043-XQ; 99A-113-0007"


def test_dense_part_numbers_pack_fewer_characters_into_each_token_than_prose():
    prose, parts = density("prose", PROSE), density("part numbers", PART_NUMBERS)
    assert prose.chars_per_token > 4
    assert parts.chars_per_token < 3
    assert prose.chars_per_token > 1.5 * parts.chars_per_token


def test_the_same_character_limit_admits_very_different_token_counts():
    """2,000 characters of part numbers cost far more tokens than 2,000 characters of prose, and a request
    carrying each is counted the same way: two requests of about one length differ by the tokens, not alike."""
    prose = (PROSE * 20)[:2000]
    parts = (PART_NUMBERS * 40)[:2000]
    assert count_tokens(parts) > 1.5 * count_tokens(prose)
    sent = [
        build_request("Which parts?", [Record(f"r{i}", "P-2", text, count_tokens(text))], ceiling=10_000)
        for i, text in enumerate((prose, parts))
    ]
    assert abs(len(sent[1].text) - len(sent[0].text)) < 50  # the same character limit, near enough
    assert all(r.tokens == count_tokens(r.text) for r in sent)
    assert sent[1].tokens > sent[0].tokens + count_tokens(prose) // 2


def test_compare_density_lists_the_densest_sample_first():
    rows = compare_density({"prose": PROSE, "part numbers": PART_NUMBERS})
    assert [r.label for r in rows] == ["part numbers", "prose"]
    assert rows[0].explain().startswith("part numbers: ")
    assert "characters per token" in rows[0].explain()


def test_density_of_empty_text_is_zero_not_a_division_error():
    assert density("empty", "").chars_per_token == 0.0


def test_the_default_encoding_is_the_offline_cl100k_copy():
    assert get_encoding().name == "cl100k_base_offline"


def test_an_encoding_is_loaded_through_the_offline_name_and_kept(monkeypatch):
    """With botie's own cache emptied, a known name loads the bundled copy once and hands back that same object."""
    from botie.context import tokens

    monkeypatch.setattr(tokens, "_loaded", {})
    loaded = get_encoding("cl100k_base")
    assert loaded.name == "cl100k_base_offline"
    assert tokens._loaded == {"cl100k_base": loaded}
    assert get_encoding("cl100k_base") is loaded


def test_the_unknown_encoding_message_lists_the_names_that_work():
    with pytest.raises(TokenizerError) as err:
        get_encoding("o200k_base")
    assert str(err.value) == (
        "encoding 'o200k_base' is not available offline; use one of: cl100k_base, cl100k_base_offline"
    )


def test_density_counts_with_the_encoding_it_is_given():
    """An encoding with no offline copy is refused, never silently swapped for cl100k_base."""
    with pytest.raises(TokenizerError):
        density("prose", PROSE, "o200k_base")
    with pytest.raises(TokenizerError):
        compare_density({"prose": PROSE}, "o200k_base")


def test_cache_settings_are_kept_and_one_entry_is_the_smallest_size():
    cache = TokenCache("cl100k_base_offline", max_entries=1)
    assert (cache.encoding, cache.max_entries) == ("cl100k_base_offline", 1)
    cache.count("one")
    cache.count("two")
    assert len(cache) == 1
    assert TokenCache().max_entries == 4096  # the default in the signature


def test_a_bad_cache_size_names_the_field_and_the_value():
    with pytest.raises(TokenizerError) as err:
        TokenCache(max_entries=0)
    assert err.value.field == "max_entries"
    assert str(err.value) == "max_entries must be a whole number (an int >= 1), got 0"


# --- a counter of your own ------------------------------------------------------------------------

from botie.context.tokens import token_counter  # noqa: E402


def test_a_callable_counts_in_place_of_an_encoding_and_its_answer_is_checked():
    words = token_counter(lambda text: len(text.split()))
    assert words("tighten the gland nuts") == 4
    assert count_tokens("one two", lambda text: 7) == 7
    for bad in (None, -1, 2.0, True):
        with pytest.raises(TokenizerError, match="must return an int >= 0") as caught:
            count_tokens("x", lambda text, bad=bad: bad)  # type: ignore[misc]  # the point: not a count
        assert caught.value.field == "counter"


def test_a_counter_by_name_is_the_offline_encoding_and_an_unknown_name_fails_when_chosen():
    assert token_counter("cl100k_base")("hello world") == 2  # cl100k: "hello", " world"
    with pytest.raises(TokenizerError, match="not available offline"):
        token_counter("p50k_base")
