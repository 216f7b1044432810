"""A provider built on its first call (building may load a model or contact a server)."""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from typing import Any

from agi_core.contracts.provider import Completion, Provider
from agi_core.effects.timeouts import TimedOut, call_with_timeout
from agi_core.errors import ConfigError
from agi_core.externals import CallAbandoned
from agi_core.llm.errors import ProviderError
from agi_core.same_core import unpinned

#: llama.cpp threads for the embedded model: its workers spin, and on a small shared
#: machine one thread is several times faster than two (docs/llm-providers.md).
PACKAGED_THREADS = 1


class LazyProvider:
    """Builds the provider on the first call (building may load a model or contact a server);
    :meth:`close` closes it if it was built."""

    def __init__(self, name: str, factory: Callable[..., Provider], *, timeout_s: float | None = None) -> None:
        self.name = name
        self.factory = factory
        self.timeout_s = timeout_s  # --llm-timeout: also the openai client's own, so it gives up as well
        self.provider: Provider | None = None

    def __call__(self) -> Provider:
        if self.provider is None:
            options: dict[str, Any] = {}
            if self.name == "llama-cpp":
                threads = os.environ.get("AGI_LLAMA_CPP_THREADS")
                if threads:
                    options["n_threads"] = _positive_int(threads, "AGI_LLAMA_CPP_THREADS")
                if not os.environ.get("AGI_LLAMA_CPP_MODEL"):
                    from agi_core.llm.gguf import packaged_gguf

                    options["model_path"] = str(packaged_gguf())
                    options.setdefault("n_threads", PACKAGED_THREADS)
            if self.name == "openai" and self.timeout_s:
                options["timeout"] = self.timeout_s
            self.provider = self.factory(**options)
        return self.provider

    def close(self) -> None:
        provider, self.provider = self.provider, None
        closer = getattr(provider, "close", None)
        if closer is not None:
            closer()


class TimedRequests:
    """``provider``'s requests under a time limit, for callers that do not journal them as
    :class:`~agi_core.llm.journaled.JournaledProvider` does (the contract calls of modules and planning).

    The limit is ``timeout_s`` (``--llm-timeout``), else the provider's own ``timeout`` when it has
    ``complete_unless`` (llama-cpp: ``AGI_LLAMA_CPP_TIMEOUT``, 30 s; openai: ``AGI_OPENAI_TIMEOUT``, 30 s).
    A request past it is abandoned (its worker thread left behind) and raised as an unreachable
    :class:`ProviderError`. Loading a model is not counted. ``abandonment()``, called in the caller's
    thread, gives a test of whether the caller's call (a module's phase) was abandoned: then no request is
    made. A provider with ``complete_unless(cancelled, …)`` gives up such a request, or one past its limit:
    the in-process model skips it if it was still waiting for the model (a model the brain shares is kept
    busy by at most the one request it was generating); the openai provider closes its stream, which stops
    the server's generation (a shared llama.cpp server is free for the next request at once).
    """

    def __init__(
        self, provider: Provider, timeout_s: float | None, abandonment: Callable[[], Callable[[], bool]] | None = None
    ) -> None:
        self.provider = provider
        self.name = getattr(provider, "name", "?")
        self.abandonment = abandonment  # made in the caller's thread: a test of whether its call was abandoned
        limit = timeout_s
        if limit is None and callable(getattr(provider, "complete_unless", None)):
            # in-process: nothing else would stop it; a server's streamed answer: its client's timeout is per chunk
            limit = getattr(provider, "timeout", None)
        self.timeout_s = limit

    def complete(self, messages: list[dict[str, Any]], **options: Any) -> Completion:
        abandoned = (lambda: False) if self.abandonment is None else self.abandonment()
        if abandoned():  # a module's call that overran: its next attempt is not made
            raise CallAbandoned(f"the {self.name} request was not made: its call was abandoned (it overran)")
        timed_out = threading.Event()
        complete = self.provider.complete
        unless = getattr(self.provider, "complete_unless", None)
        if callable(unless):  # an in-process model skips a request nobody waits for any more
            complete = functools.partial(unless, lambda: timed_out.is_set() or abandoned())
        limit = self.timeout_s
        if limit is None:
            with unpinned():  # an in-process model's threads must not inherit a module turn's pin (one CPU)
                return complete(messages, **options)  # type: ignore[no-any-return]
        prepare = getattr(self.provider, "prepare", None)
        if callable(prepare):
            with unpinned():  # llama.cpp sizes its thread pool as it loads
                prepare()  # an in-process model loads here, in this thread, never in an abandoned one
        try:
            return call_with_timeout(lambda: complete(messages, **options), (), limit)  # type: ignore[no-any-return]
        except TimedOut:
            timed_out.set()
            raise ProviderError(
                f"the {self.name} request took longer than {limit:g} s and was abandoned; "
                "raise --llm-timeout (AGI_LLM_TIMEOUT)",
                endpoint=self.name,
                unreachable=True,
            ) from None


def _positive_int(raw: str, variable: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigError(f"{variable}={raw!r} is not a positive integer; set it to a thread count such as 1")
    return value
