"""A provider wrapper that records every completion as a tick external.

Live, it asks the real provider (built lazily: constructing one may contact a server)
and records the completion — or the failure — under ``llm_completion``; replaying, it
serves the recorded one and never builds or calls the provider. With ``timeout_s`` (else the
in-process provider's own ``timeout``: llama-cpp's 30 s) a request that runs longer is abandoned
(its worker thread is left behind, as for a tool) and recorded as a failure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agi_core.contracts.provider import Completion, Provider, completion_from_dict, completion_to_dict
from agi_core.effects.timeouts import TimedOut, call_with_timeout
from agi_core.errors import AgiError
from agi_core.externals import Externals
from agi_core.llm.errors import ProviderError


class JournaledProvider:
    """Implements :class:`~agi_core.contracts.provider.Provider` over ``Externals``.

    ``tools`` (OpenAI format) are offered on every request; the last completion is kept in
    :attr:`last` so a brain can read the tool calls the model made.
    """

    def __init__(
        self,
        build: Callable[[], Provider],
        externals: Externals,
        *,
        name: str,
        tools: list[dict[str, Any]] | None = None,
        timeout_s: float | None = None,
    ) -> None:
        self._build = build
        self.externals = externals
        self.name = name
        self.tools = tools
        self.timeout_s = timeout_s
        self.last: Completion | None = None

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
        def request(provider: Provider) -> Completion:
            return provider.complete(
                messages,
                schema=schema,
                tools=tools or self.tools,
                max_tokens=max_tokens,
                temperature=temperature,
                seed=seed,
            )

        def ask() -> dict[str, Any]:
            limit = self.timeout_s
            try:
                provider = self._build()  # loading a model is not part of the request's time
                if limit is None and getattr(provider, "name", None) == "llama-cpp":
                    limit = getattr(provider, "timeout", None)  # in-process: nothing else would stop it
                prepare = getattr(provider, "prepare", None)
                if limit is not None and callable(prepare):
                    prepare()  # an in-process model loads here, in this thread, never in an abandoned one
                if limit is None:
                    completion = request(provider)
                else:
                    completion = call_with_timeout(request, (provider,), limit)
            except TimedOut:
                return {
                    "error": f"TimedOut: the {self.name} request took longer than {limit:g} s "
                    "and was abandoned; raise --llm-timeout (AGI_LLM_TIMEOUT)"
                }
            except AgiError as exc:
                return {"error": f"{type(exc).__name__}: {exc}"}
            return {"completion": completion_to_dict(completion)}

        served = self.externals.fetch("llm_completion", ask)
        if "error" in served:
            raise ProviderError(served["error"], endpoint=self.name)
        self.last = completion_from_dict(served["completion"])
        return self.last
