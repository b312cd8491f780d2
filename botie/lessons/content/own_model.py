"""Lesson 06's last step: the same turn through your own model when a key is set, and how to set one when not.

Offline stays the default: nothing here reaches the network unless
``ANTHROPIC_API_KEY`` or ``OPENAI_API_KEY`` is set, and then only to run the
turn you asked for. Whatever happens (no key, no SDK installed, a refused key,
no connection) comes back as text to print, never as a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

__all__ = ["DEFAULT_MODELS", "HOW_TO", "your_model", "your_turn"]

#: The model each key selects unless ``BOTIE_MODEL`` names another.
DEFAULT_MODELS = {"ANTHROPIC_API_KEY": "claude-sonnet-4-5", "OPENAI_API_KEY": "gpt-4o"}

HOW_TO = (
    "No ANTHROPIC_API_KEY or OPENAI_API_KEY is set, so this step stays offline (nothing was sent anywhere).\n"
    "To run the same turn through your own model: set one of them in the terminal that starts JupyterLab,\n"
    "for example `export ANTHROPIC_API_KEY=...` (Windows: `set ANTHROPIC_API_KEY=...`), optionally\n"
    "BOTIE_MODEL to choose the model, install the SDKs into the Python that runs JupyterLab, from the\n"
    "workshop folder: `python -m pip install -r requirements/models.txt` (after `make lab` that Python is\n"
    "`.venv/bin/python`), start JupyterLab again and re-run this cell.\n"
    "A key in a notebook cell ends up in the saved notebook: keep it out."
)


def your_model(env: Mapping[str, str] | None = None) -> tuple[Any, str]:
    """The adapter your key selects, and a line saying which; or None and :data:`HOW_TO`."""
    env = os.environ if env is None else env
    for key, default in DEFAULT_MODELS.items():
        if not env.get(key):
            continue
        name = env.get("BOTIE_MODEL") or default
        try:
            if key == "ANTHROPIC_API_KEY":
                import anthropic

                from botie.adapters import AnthropicModel

                return AnthropicModel(name, client=anthropic.Anthropic(api_key=env[key])), (
                    f"{key} is set: the turn runs through AnthropicModel({name!r})."
                )
            import openai

            from botie.adapters import OpenAIModel

            return OpenAIModel(name, client=openai.OpenAI(api_key=env[key])), (
                f"{key} is set: the turn runs through OpenAIModel({name!r})."
            )
        except ImportError:
            return (
                None,
                f"{key} is set, but the SDK is not installed: run "
                "`pip install -r requirements/models.txt` in the workshop folder.",
            )
    return None, HOW_TO


def your_turn(run: Any, env: Mapping[str, str] | None = None) -> str:
    """Call ``run(model)`` with your model and return what to print: its trace, or why it did not run."""
    model, said = your_model(env)
    if model is None:
        return said
    try:
        result = run(model)
    except Exception as exc:  # a refused key, no connection, a rate limit: said, not raised
        return f"{said}\nThe call did not complete: {type(exc).__name__}: {exc}"
    usage = result.reply.usage if result.reply is not None else None
    lines = [said, result.trace(), f"answer: {result.answer or result.notice}"]
    if usage is not None:
        lines.append(
            f"the provider counted {usage.input_tokens:,} input tokens; botie counted {result.request.tokens:,}"
        )
    return "\n".join(lines)
