"""Test doubles for code that calls contracts (not a real model: see the provider plugins)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agi_core.contracts.errors import ReplayExhausted
from agi_core.contracts.provider import Completion


class ScriptedProvider:
    """A provider that answers with the given texts, in order, and remembers every request.

    Each script item is a text, a :class:`Completion` (to script ``finish_reason`` or token
    counts) or an exception instance, which is raised instead of answering.
    """

    def __init__(self, script: Iterable[str | Completion | BaseException], *, name: str = "scripted") -> None:
        self.name = name
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        schema: dict[str, Any] | None = None,
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion:
        if len(self.requests) >= len(self.script):
            raise ReplayExhausted(
                f"ScriptedProvider {self.name!r} ran out of its {len(self.script)} scripted answers; script one more"
            )
        self.requests.append(
            {
                "messages": [dict(m) for m in messages],
                "schema": schema,
                "tools": tools,
                "max_tokens": max_tokens,
                "temperature": temperature,
                "seed": seed,
            }
        )
        item = self.script[len(self.requests) - 1]
        if isinstance(item, BaseException):
            raise item
        return item if isinstance(item, Completion) else Completion(text=item)


__all__ = ["ScriptedProvider"]
