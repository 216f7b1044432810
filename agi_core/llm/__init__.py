"""LLM providers: an OpenAI-compatible HTTP client and an in-process llama.cpp runner.

Both implement :class:`agi_core.contracts.provider.Provider` and are registered by the
built-in plugin ``agi_core.default_plugins.llm_providers`` as ``openai`` and ``llama-cpp``.
Their heavy dependencies (``openai``, ``llama_cpp``) are imported on first use.
"""

from __future__ import annotations

from agi_core.llm.errors import ProviderError
from agi_core.llm.gguf import SMOLLM2_PACKAGE, packaged_gguf
from agi_core.llm.llama_cpp_provider import LlamaCppProvider
from agi_core.llm.openai_provider import OpenAIProvider

__all__ = ["SMOLLM2_PACKAGE", "LlamaCppProvider", "OpenAIProvider", "ProviderError", "packaged_gguf"]
