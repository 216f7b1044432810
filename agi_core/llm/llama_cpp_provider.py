"""The ``llama-cpp`` provider: a GGUF model run in-process by ``llama_cpp.Llama``.

``llama_cpp`` (the optional extra ``agi-core[llama-cpp]``, built from source; see
``scripts/install_llama_cpp.sh``) is imported and the model loaded on the first call.
Structured output uses ``response_format={"type": "json_object", "schema": ...}``, which
llama.cpp turns into a grammar; the grammar ignores some keywords (integer ``minimum`` /
``maximum``), so callers must still validate the JSON.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agi_core.contracts.provider import Completion
from agi_core.errors import ConfigError
from agi_core.llm import traced
from agi_core.llm._shared import as_openai_tool, completion_from_response, one_line
from agi_core.llm.errors import ProviderError
from agi_core.same_core import unpinned

INSTALL_HINT = "run scripts/install_llama_cpp.sh (or pip install 'agi-core[llama-cpp]')"


class LlamaCppProvider:
    """Chat completions from a local GGUF file, without a server.

    :param model_path: the ``.gguf`` file; default ``$AGI_LLAMA_CPP_MODEL``.
    :param n_ctx: context window in tokens (default 2048).
    :param n_threads: CPU threads for generation and prompt processing (default: llama.cpp's
        choice). On a small shared machine 1 is often fastest: llama.cpp's threads spin while
        they wait, and measured 0.85 s against 4-7 s for 2 threads on a busy 2-core box.
    :param seed: the sampler's seed when a call passes none (default 0).
    :param chat_format: a llama-cpp-python chat format name; default: the GGUF's own template,
        which for most small models ignores ``tools``. ``chatml-function-calling`` makes
        ChatML models (SmolLM2, Qwen) emit real, grammar-constrained tool calls.
    :param tool_choice: sent with every call that passes ``tools``: ``"auto"`` or
        ``{"type": "function", "function": {"name": ...}}`` (llama-cpp-python 0.3.36 does
        not implement ``"required"``). Default ``"auto"``: with ``None`` llama-cpp-python
        leaves the tools out of the prompt.
    :param verbose: let llama.cpp print its load log to stderr.
    :param timeout: seconds a request may run before it is abandoned (default ``$AGI_LLAMA_CPP_TIMEOUT``
        or 30, as the OpenAI provider's; B.L.A.S.T.: "default 30s per call"). ``--llm-timeout`` overrides it.
    """

    name = "llama-cpp"

    def __init__(
        self,
        *,
        model_path: str | os.PathLike[str] | None = None,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        seed: int = 0,
        chat_format: str | None = None,
        tool_choice: str | dict[str, Any] | None = "auto",
        verbose: bool = False,
        timeout: float | None = None,
    ) -> None:
        if timeout is None:
            limit = os.environ.get("AGI_LLAMA_CPP_TIMEOUT", "30")
            try:
                timeout = float(limit)
            except ValueError:
                raise ConfigError(
                    f"AGI_LLAMA_CPP_TIMEOUT={limit!r} is not a number of seconds; set it to e.g. 30"
                ) from None
        if not timeout > 0:
            raise ConfigError(f"timeout={timeout!r} must be a positive number of seconds")
        self.timeout = float(timeout)
        raw = model_path or os.environ.get("AGI_LLAMA_CPP_MODEL")
        if not raw:
            raise ConfigError("the llama-cpp provider needs model_path='/path/model.gguf' (or AGI_LLAMA_CPP_MODEL)")
        self.model_path = Path(raw).expanduser()
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.seed = seed
        self.chat_format = chat_format
        self.tool_choice = tool_choice
        self.verbose = verbose
        self._llama: Any = None
        self._lock = threading.Lock()  # a Llama object is not safe to share across threads

    def __repr__(self) -> str:
        return f"LlamaCppProvider(model_path={str(self.model_path)!r})"

    def prepare(self) -> None:
        """Load the model now, outside any request's time limit: llama.cpp swaps the process's stdout and
        stderr while it loads, so a load abandoned by a timeout would later restore them from another thread."""
        if self._llama is None:  # loaded: no need to wait for a request another caller is running
            with self._lock:
                self._load()

    def _load(self) -> Any:
        if self._llama is not None:
            return self._llama
        endpoint = str(self.model_path)
        if not self.model_path.is_file():
            raise ProviderError(
                f"GGUF model file {endpoint} does not exist; pass model_path= "
                f"(or set AGI_LLAMA_CPP_MODEL) to an existing .gguf file",
                endpoint=endpoint,
                unreachable=True,
            )
        try:
            with unpinned():  # its thread pool is sized by the CPUs this thread may run on as it loads
                import llama_cpp
        except ImportError as exc:
            raise ProviderError(
                f"the llama-cpp provider needs llama-cpp-python ({exc}); {INSTALL_HINT}",
                endpoint=endpoint,
                unreachable=True,
            ) from None
        try:
            with unpinned():
                self._llama = llama_cpp.Llama(
                    model_path=endpoint,
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    n_threads_batch=self.n_threads,
                    seed=self.seed,
                    chat_format=self.chat_format,
                    verbose=self.verbose,
                )
        except Exception as exc:  # noqa: BLE001 - llama.cpp raises ValueError/RuntimeError
            raise ProviderError(
                f"llama.cpp could not load {endpoint} ({one_line(exc, 160)}); "
                f"check that it is a GGUF model this llama-cpp-python supports",
                endpoint=endpoint,
                unreachable=True,
            ) from None
        return self._llama

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
        """One chat completion; see :class:`agi_core.contracts.provider.Provider`."""
        return self.complete_unless(
            lambda: False,
            messages,
            schema=schema,
            tools=tools,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
        )

    def complete_unless(
        self,
        cancelled: Callable[[], bool],
        messages: list[dict[str, Any]],
        *,
        schema: dict[str, Any] | None = None,
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion:
        """:meth:`complete`, unless ``cancelled()`` is true once the model is free (a request waits for the one
        before it): then :class:`ProviderError`, the model not asked (its caller has gone: past its time limit,
        or a module's call abandoned). llama.cpp cannot stop a request that is generating."""
        endpoint = str(self.model_path)
        request: dict[str, Any] = {
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "seed": self.seed if seed is None else seed,
        }
        if schema is not None:
            request["response_format"] = {"type": "json_object", "schema": schema}
        if tools:
            request["tools"] = [as_openai_tool(tool) for tool in tools]
            if self.tool_choice is not None:
                request["tool_choice"] = self.tool_choice
        with self._lock:
            llama = self._load()  # loading the model is not part of the request's span
            if cancelled():  # waited for another request: its caller has gone
                raise ProviderError(
                    f"llama.cpp was not asked with {endpoint}: nobody waits for the answer any more",
                    endpoint=endpoint,
                )
            with traced.chat_span(self.name, self.model_path.stem, request) as span:
                try:
                    data = llama.create_chat_completion(**request)
                except Exception as exc:  # noqa: BLE001
                    raise ProviderError(
                        f"llama.cpp failed to complete with {endpoint} "
                        f"({type(exc).__name__}: {one_line(exc, 160)}); shorten the "
                        f"prompt or raise n_ctx (now {self.n_ctx})",
                        endpoint=endpoint,
                    ) from None
                completion = completion_from_response(data, endpoint=endpoint, model=self.model_path.stem)
                traced.record(span, completion)
        return completion

    def close(self) -> None:
        """Free the model's memory now rather than at garbage collection."""
        with self._lock:
            llama, self._llama = self._llama, None
        if llama is not None and hasattr(llama, "close"):
            llama.close()
