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

__all__ = [
    "DEFAULT_MODELS",
    "HOW_TO",
    "PROVIDERS",
    "overloaded_model",
    "provider_of",
    "usage_lines",
    "your_model",
    "your_turn",
]

#: The model each key selects unless ``BOTIE_MODEL`` names another.
DEFAULT_MODELS = {"ANTHROPIC_API_KEY": "claude-sonnet-4-5", "OPENAI_API_KEY": "gpt-4o"}
#: Each provider's key, and the start of its models' names (a name with neither is given as provider:model).
PROVIDERS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
_NAMED = {"claude": "anthropic", "gpt": "openai", "chatgpt": "openai", "o1": "openai", "o3": "openai", "o4": "openai"}

HOW_TO = (
    "No ANTHROPIC_API_KEY or OPENAI_API_KEY is set, so this step stays offline (nothing was sent anywhere).\n"
    "To run the same turn through your own model: set one of them in the terminal that starts JupyterLab,\n"
    "for example `export ANTHROPIC_API_KEY=...` (Windows: `set ANTHROPIC_API_KEY=...`), optionally\n"
    "BOTIE_MODEL to choose the model, install the SDKs into the Python that runs JupyterLab, from the\n"
    "workshop folder: `python -m pip install -r requirements/models.txt` (after `make lab` that Python is\n"
    "`.venv/bin/python`), start JupyterLab again and re-run this cell.\n"
    "A key in a notebook cell ends up in the saved notebook: keep it out."
)


def provider_of(name: str) -> tuple[str | None, str]:
    """The provider and model a ``BOTIE_MODEL`` value names: ``anthropic:<model>`` or ``openai:<model>``
    say it outright; otherwise a name starting ``claude`` is Anthropic's and ``gpt``/``o1``/``o3``/``o4``
    OpenAI's; any other name has no provider (None)."""
    prefix, _, rest = name.partition(":")
    if rest and prefix.lower() in PROVIDERS:
        return prefix.lower(), rest
    head = name.lower().split("-")[0]
    return _NAMED.get(head) or _NAMED.get(head.rstrip("0123456789.")), name


def _choose(env: Mapping[str, str]) -> tuple[str | None, str, str]:
    """(provider, model, why not) from the keys set and ``BOTIE_MODEL``; a provider of None says why not."""
    keys = [p for p, key in PROVIDERS.items() if env.get(key)]
    named = env.get("BOTIE_MODEL")
    if not named:
        first = keys[0]
        return first, DEFAULT_MODELS[PROVIDERS[first]], ""
    provider, model = provider_of(named)
    if provider is None:
        if len(keys) == 1:
            return keys[0], model, ""
        return None, "", f"BOTIE_MODEL={named} names no provider: write anthropic:{named} or openai:{named}."
    if provider not in keys:
        return (
            None,
            "",
            (
                f"BOTIE_MODEL={named} is an {provider} model, but {PROVIDERS[provider]} is not set "
                f"(only {', '.join(PROVIDERS[k] for k in keys)}): nothing was sent."
            ),
        )
    return provider, model, ""


def your_model(env: Mapping[str, str] | None = None) -> tuple[Any, str]:
    """The adapter your key (and ``BOTIE_MODEL``) selects, and a line saying which; or None and why not
    (no key: :data:`HOW_TO`; a model whose provider's key is not set: that, before anything is sent)."""
    env = os.environ if env is None else env
    if not any(env.get(key) for key in PROVIDERS.values()):
        return None, HOW_TO
    provider, name, why_not = _choose(env)
    if provider is None:
        return None, why_not
    key = PROVIDERS[provider]
    try:
        if provider == "anthropic":
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


def your_turn(run: Any, env: Mapping[str, str] | None = None) -> str:
    """Call ``run(model)`` with your model and return what to print: its trace, or why it did not run."""
    model, said = your_model(env)
    if model is None:
        return said
    try:
        result = run(model)
    except Exception as exc:  # a refused key, no connection, a rate limit: said, not raised
        return f"{said}\nThe call did not complete: {type(exc).__name__}: {exc}"
    lines = [said, result.trace(), f"answer: {result.answer or result.notice}"]
    lines += usage_lines(result)
    return "\n".join(lines)


def usage_lines(result: Any) -> list[str]:
    """For each request the turn sent: the provider's own count of what it read and wrote, beside botie's."""
    lines = []
    for name, request, reply in (
        ("answer", result.request, result.reply),
        ("action", getattr(result, "action_request", None), getattr(result, "action_reply", None)),
    ):
        usage = reply.usage if reply is not None else None
        if request is not None and usage is not None:
            lines.append(
                f"{name} request: the provider counted {usage.input_tokens:,} tokens in and "
                f"{usage.output_tokens:,} out; botie counted {request.tokens:,} in"
            )
    return lines


def overloaded_model() -> Any:
    """Claude through the real Anthropic SDK, offline: a fake server (httpx2's mock transport) that answers
    every request 529 Overloaded, as the API does when it is over capacity. The SDK retries twice, as it
    would; nothing leaves this machine."""
    import anthropic
    import httpx2

    from botie.adapters import AnthropicModel

    def overloaded(request: Any) -> Any:
        error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        return httpx2.Response(529, json=error, headers={"retry-after-ms": "1"})

    http = httpx2.Client(transport=httpx2.MockTransport(overloaded))
    client = anthropic.Anthropic(api_key="offline", http_client=http, max_retries=2)
    return AnthropicModel("claude-sonnet-4-5", client=client)
