"""The provider protocol every LLM backend implements, and a replaying provider.

Real providers (OpenAI-compatible servers, llama.cpp) live in their own modules and plugins;
the contract pipeline only knows this protocol. :class:`RecordedProvider` serves completions
from the journal, so a replay never calls a model again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import attrs

from agi_core.contracts.errors import ReplayExhausted
from agi_core.errors import AgiError, ReplayMismatch


@attrs.frozen
class Completion:
    """One response of a provider."""

    text: str
    tool_calls: tuple = ()
    finish_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""


class Provider(Protocol):
    """An LLM backend: turns chat messages into one :class:`Completion`."""

    name: str

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        schema: dict[str, Any] | None = None,
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion: ...


class RecordedProviderError(AgiError):
    """Replays a provider failure that was recorded in the journal."""


def messages_digest(messages: list[dict[str, Any]]) -> str:
    """SHA-256 of the canonical JSON of a request's messages (recorded with each attempt)."""
    canonical = json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def completion_to_dict(completion: Completion) -> dict[str, Any]:
    """A completion as plain JSON (what the journal stores)."""
    return {
        "text": completion.text,
        "tool_calls": list(completion.tool_calls),
        "finish_reason": completion.finish_reason,
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "model": completion.model,
    }


def completion_from_dict(data: Mapping[str, Any]) -> Completion:
    """The inverse of :func:`completion_to_dict`."""
    return Completion(
        text=data["text"],
        tool_calls=tuple(data.get("tool_calls", ())),
        finish_reason=data.get("finish_reason", "stop"),
        prompt_tokens=data.get("prompt_tokens", 0),
        completion_tokens=data.get("completion_tokens", 0),
        model=data.get("model", ""),
    )


@attrs.frozen
class _Recorded:
    completion: Completion | None
    error: str | None = None
    digest: str | None = None


class RecordedProvider:
    """Serves recorded completions in order; asking for one more is a :class:`ReplayExhausted`.

    ``records`` are the attempt records the pipeline sent to its journal (other records are
    skipped), :class:`Completion` objects, or plain completion dicts. With ``strict`` (the
    default), a request whose messages differ from the recorded ones raises
    :class:`~agi_core.errors.ReplayMismatch`: the replay diverged before this call.
    """

    def __init__(
        self, records: Iterable[Completion | Mapping[str, Any]], *, name: str = "recorded", strict: bool = True
    ) -> None:
        self.name = name
        self.strict = strict
        self.served = 0
        self._items = [item for item in map(_recorded, records) if item is not None]

    def __len__(self) -> int:
        return len(self._items)

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
        if self.served >= len(self._items):
            raise ReplayExhausted(
                f"replay asked for completion #{self.served + 1} but only {len(self._items)} were "
                f"recorded; the run diverged from the journal (check the seed and the inputs)"
            )
        item = self._items[self.served]
        self.served += 1
        if self.strict and item.digest is not None and item.digest != messages_digest(messages):
            raise ReplayMismatch(
                f"replayed request #{self.served} differs from the recorded one "
                f"(messages digest {item.digest[:12]}); the run diverged"
            )
        if item.error is not None:
            raise RecordedProviderError(item.error)
        assert item.completion is not None
        return item.completion


def _recorded(record: Completion | Mapping[str, Any]) -> _Recorded | None:
    if isinstance(record, Completion):
        return _Recorded(record)
    if not isinstance(record, Mapping):
        raise TypeError(f"cannot replay {type(record).__name__}; pass journal records or Completions")
    if "kind" not in record:
        return _Recorded(completion_from_dict(record))
    if record["kind"] != "contract_attempt":
        return None
    completion = record.get("completion")
    return _Recorded(
        completion_from_dict(completion) if completion else None,
        record.get("error"),
        record.get("request", {}).get("messages_sha256"),
    )


__all__ = [
    "Completion",
    "Provider",
    "RecordedProvider",
    "RecordedProviderError",
    "completion_from_dict",
    "completion_to_dict",
    "messages_digest",
]
