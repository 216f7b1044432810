"""Issue 22 item 7: the llama-cpp provider has a 30 s default time limit, as the OpenAI one does."""

from __future__ import annotations

from pathlib import Path

import pytest

from agi_core.errors import ConfigError
from agi_core.externals import Externals
from agi_core.llm import LlamaCppProvider, ProviderError
from agi_core.llm.journaled import JournaledProvider


def test_the_default_limit_is_30_seconds_and_the_environment_sets_it(monkeypatch):
    monkeypatch.delenv("AGI_LLAMA_CPP_TIMEOUT", raising=False)
    assert LlamaCppProvider(model_path="/x.gguf").timeout == 30.0
    monkeypatch.setenv("AGI_LLAMA_CPP_TIMEOUT", "12.5")
    assert LlamaCppProvider(model_path="/x.gguf").timeout == 12.5
    monkeypatch.setenv("AGI_LLAMA_CPP_TIMEOUT", "soon")
    with pytest.raises(ConfigError, match="AGI_LLAMA_CPP_TIMEOUT='soon' is not a number of seconds"):
        LlamaCppProvider(model_path="/x.gguf")
    with pytest.raises(ConfigError, match="must be a positive number of seconds"):
        LlamaCppProvider(model_path="/x.gguf", timeout=0)


@pytest.mark.llm
def test_a_request_past_the_providers_own_limit_is_abandoned_and_recorded(smollm2_gguf: Path):
    provider = LlamaCppProvider(model_path=smollm2_gguf, n_ctx=512, n_threads=1, timeout=0.01)
    externals = Externals()
    journaled = JournaledProvider(lambda: provider, externals, name="llama-cpp")  # no --llm-timeout given
    with pytest.raises(ProviderError, match=r"took longer than 0\.01 s and was abandoned"):
        journaled.complete([{"role": "user", "content": "Write a long story about a cat."}], max_tokens=256)
    assert "took longer than 0.01 s" in externals.log["llm_completion"][0]["error"]
