"""Built-in LLM providers: ``openai`` (any OpenAI-compatible server) and ``llama-cpp``
(a GGUF model in-process). Importing this module imports neither ``openai`` nor
``llama_cpp``; the providers do that on their first call.
"""

from __future__ import annotations

from agi_core.hookspecs import Register, hookimpl


@hookimpl
def agi_register_llm_providers(register: Register) -> None:
    from agi_core.llm.llama_cpp_provider import LlamaCppProvider
    from agi_core.llm.openai_provider import OpenAIProvider

    register(OpenAIProvider, name="openai")
    register(LlamaCppProvider, name="llama-cpp")
