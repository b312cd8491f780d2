"""Lesson 06's "your own model": offline without a key, an adapter with one, and never a traceback."""

from __future__ import annotations

import re

from botie.adapters import AnthropicModel, OpenAIModel
from botie.lessons.content.own_model import HOW_TO, your_model, your_turn


def test_without_a_key_nothing_is_chosen_and_the_cell_says_how_to_set_one():
    model, said = your_model({"PATH": "/usr/bin"})
    assert model is None and said == HOW_TO
    assert "ANTHROPIC_API_KEY" in said and "OPENAI_API_KEY" in said and "nothing was sent" in said
    assert your_turn(lambda m: 1 / 0, {}) == HOW_TO  # the turn is not even attempted


def test_a_key_chooses_its_adapter_and_botie_model_names_the_model():
    model, said = your_model({"ANTHROPIC_API_KEY": "sk-test"})
    assert isinstance(model, AnthropicModel) and model.model == "claude-sonnet-4-5"
    assert said == "ANTHROPIC_API_KEY is set: the turn runs through AnthropicModel('claude-sonnet-4-5')."
    model, said = your_model({"OPENAI_API_KEY": "sk-test", "BOTIE_MODEL": "gpt-4.1-mini"})
    assert isinstance(model, OpenAIModel) and model.model == "gpt-4.1-mini" and model.api == "chat"


def test_a_call_that_fails_is_said_not_raised():
    def run(model):
        raise ConnectionError("no route to host")

    text = your_turn(run, {"OPENAI_API_KEY": "sk-test"})
    assert text.splitlines()[-1] == "The call did not complete: ConnectionError: no route to host"


def test_the_install_line_names_a_requirements_file_that_exists_and_holds_both_sdks():
    # A learner copies this line into a terminal: `pip install botie[models]` failed, botie is not on PyPI.
    from pathlib import Path

    from botie.lessons.content.own_model import HOW_TO

    named = re.search(r"pip install -r (requirements/\S+\.txt)", HOW_TO)
    assert named, HOW_TO
    text = (Path(__file__).resolve().parents[3] / named.group(1)).read_text(encoding="utf-8")
    assert re.search(r"^anthropic==", text, re.M) and re.search(r"^openai==", text, re.M)


def test_with_both_keys_set_botie_model_gpt_4o_picks_openai():
    """Before: the Anthropic key, looked at first, built AnthropicModel('gpt-4o')."""
    both = {"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-oai"}
    model, said = your_model({**both, "BOTIE_MODEL": "gpt-4o"})
    assert isinstance(model, OpenAIModel) and model.model == "gpt-4o" and "OPENAI_API_KEY is set" in said
    model, _ = your_model({**both, "BOTIE_MODEL": "claude-haiku-4-5"})
    assert isinstance(model, AnthropicModel) and model.model == "claude-haiku-4-5"
    model, _ = your_model({**both, "BOTIE_MODEL": "openai:my-fine-tune"})
    assert isinstance(model, OpenAIModel) and model.model == "my-fine-tune"


def test_a_model_paired_with_the_wrong_providers_key_is_said_before_anything_is_sent():
    model, said = your_model({"ANTHROPIC_API_KEY": "sk-ant", "BOTIE_MODEL": "gpt-4o"})
    assert model is None
    wrong = "BOTIE_MODEL=gpt-4o is an openai model, but OPENAI_API_KEY is not set (only ANTHROPIC_API_KEY)"
    assert said == wrong + ": nothing was sent."
    model, said = your_model({"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o", "BOTIE_MODEL": "mystery-7b"})
    assert model is None and "anthropic:mystery-7b or openai:mystery-7b" in said
    model, _ = your_model({"OPENAI_API_KEY": "o", "BOTIE_MODEL": "mystery-7b"})  # one key: its provider
    assert isinstance(model, OpenAIModel) and model.model == "mystery-7b"


def test_provider_of_reads_a_prefix_or_the_start_of_the_name():
    from botie.lessons.content.own_model import provider_of

    assert provider_of("anthropic:claude-x") == ("anthropic", "claude-x")
    assert provider_of("OpenAI:o3-mini") == ("openai", "o3-mini")
    assert [provider_of(n)[0] for n in ("claude-3-5", "gpt-4.1-mini", "o4-mini", "o1", "llama-3")] == [
        "anthropic",
        "openai",
        "openai",
        "openai",
        None,
    ]


def test_your_turn_shows_both_requests_usage_beside_botie_s_count():
    from types import SimpleNamespace

    from botie.model import Reply, Usage

    def sent(tokens, usage):
        return SimpleNamespace(tokens=tokens), Reply("x", (), usage=Usage(*usage))

    asked, answered = sent(824, (901, 75))
    acted, proposed = sent(410, (455, 30))
    result = SimpleNamespace(
        request=asked, reply=answered, action_request=acted, action_reply=proposed, answer="x", notice=None,
        trace=lambda: "trace",
    )  # fmt: skip
    text = your_turn(lambda model: result, {"OPENAI_API_KEY": "sk-test"})
    assert text.splitlines()[-2:] == [
        "answer request: the provider counted 901 tokens in and 75 out; botie counted 824 in",
        "action request: the provider counted 455 tokens in and 30 out; botie counted 410 in",
    ]
