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
