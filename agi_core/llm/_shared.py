"""Helpers shared by the providers: one-line messages and OpenAI-format responses."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agi_core.contracts.provider import Completion
from agi_core.llm.errors import ProviderError

_MAX_DETAIL = 240


def one_line(text: object, limit: int = _MAX_DETAIL) -> str:
    """Collapse whitespace (newlines included) and cut to ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def as_openai_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """Accept OpenAI tools as they are, and bare ``{name, description, parameters}`` too."""
    if "type" in tool:
        return tool
    function = {key: tool[key] for key in ("name", "description", "parameters") if key in tool}
    function.setdefault("parameters", {"type": "object", "properties": {}})
    return {"type": "function", "function": function}


def _tool_call(raw: Mapping[str, Any], index: int, endpoint: str) -> dict[str, Any]:
    function = raw.get("function") or {}
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise ProviderError(
            f"{endpoint} returned tool call #{index} without a function name; "
            f"the server's tool-calling output is malformed, call without tools",
            endpoint=endpoint,
        )
    arguments = function.get("arguments")
    if arguments is None or arguments == "":
        parsed: Any = {}
    elif isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise ProviderError(
                f"{endpoint} returned tool call {name!r} whose arguments are not JSON "
                f"({exc.msg} at char {exc.pos}: {one_line(arguments, 80)!r}); "
                f"retry, or describe the parameters more plainly in the tool schema",
                endpoint=endpoint,
            ) from None
    else:
        parsed = arguments
    if not isinstance(parsed, dict):
        raise ProviderError(
            f"{endpoint} returned tool call {name!r} whose arguments are "
            f"{type(parsed).__name__}, not a JSON object; retry, or simplify the tool schema",
            endpoint=endpoint,
        )
    call_id = raw.get("id") or f"call_{index}"
    return {"id": str(call_id), "name": name, "arguments": parsed}


def completion_from_response(data: Mapping[str, Any], *, endpoint: str, model: str = "") -> Completion:
    """Build a :class:`Completion` from an OpenAI chat-completion response (as a dict).

    Raises :class:`ProviderError` when the response has no choice or a malformed tool call.
    """
    choices = data.get("choices") or []
    if not choices:
        raise ProviderError(
            f"{endpoint} returned a chat completion without choices; "
            f"check that the server speaks the OpenAI chat API (/v1/chat/completions)",
            endpoint=endpoint,
        )
    choice = choices[0]
    message = choice.get("message") or {}
    raw_calls = message.get("tool_calls") or []
    tool_calls = tuple(_tool_call(call, i, endpoint) for i, call in enumerate(raw_calls))
    usage = data.get("usage") or {}
    return Completion(
        text=message.get("content") or "",
        tool_calls=tool_calls,
        finish_reason=choice.get("finish_reason") or ("tool_calls" if tool_calls else "stop"),
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        model=str(data.get("model") or model),
    )
