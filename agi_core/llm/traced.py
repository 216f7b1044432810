"""The ``chat`` span of one model request, with the GenAI semantic-convention attributes (docs/tracing.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from agi_core import tracing
from agi_core.contracts.provider import Completion


def chat_span(provider: str, model: str, request: Mapping[str, Any], server: str | None = None) -> tracing.NoSpan:
    """A ``chat MODEL`` span for ``request`` (the OpenAI-format arguments) to ``provider``'s ``model``."""
    if not tracing.enabled():
        return tracing.NO_SPAN
    attributes: dict[str, tracing.Value] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider,
        "gen_ai.system": provider,  # the name before semantic conventions 1.37, still read by many backends
        "gen_ai.request.model": model,
    }
    for key in ("max_tokens", "temperature", "seed"):
        if isinstance(request.get(key), int | float):
            attributes[f"gen_ai.request.{key}"] = request[key]
    if server:
        parts = urlsplit(server)
        if parts.hostname:
            attributes["server.address"] = parts.hostname
        if parts.port:
            attributes["server.port"] = parts.port
    return tracing.span(f"chat {model}", attributes)


def record(span: tracing.NoSpan, completion: Completion) -> None:
    """The response's attributes on ``span``: model, token counts, finish reason."""
    span.set("gen_ai.response.model", completion.model or None)
    span.set("gen_ai.usage.input_tokens", completion.prompt_tokens)
    span.set("gen_ai.usage.output_tokens", completion.completion_tokens)
    span.set("gen_ai.response.finish_reasons", [completion.finish_reason])
