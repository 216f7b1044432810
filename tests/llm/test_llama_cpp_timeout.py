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


@pytest.mark.llm
def test_the_model_loads_outside_the_limit_so_an_abandoned_request_never_swaps_stdout(smollm2_gguf: Path):
    """llama.cpp swaps ``sys.stdout``/``sys.stderr`` (and fds 1, 2) while it loads a model and restores what it
    saw. A load inside an abandoned request restored them later, from its own thread: an agent's replies then
    went to a stale stream (seen as a reply missing from ``agi run``'s output in the serial test run)."""
    import sys

    provider = LlamaCppProvider(model_path=smollm2_gguf, n_ctx=512, n_threads=1, timeout=0.001)
    journaled = JournaledProvider(lambda: provider, Externals(), name="llama-cpp")
    before = sys.stdout
    with pytest.raises(ProviderError, match="was abandoned"):
        journaled.complete([{"role": "user", "content": "Write a long story about a cat."}], max_tokens=64)
    assert provider._llama is not None  # loaded in this thread, before the request's time started
    assert provider._lock.acquire(timeout=60)  # the abandoned request generates on, holding it: let it finish
    provider._lock.release()
    assert sys.stdout is before


@pytest.mark.llm
def test_a_contract_call_to_the_in_process_model_is_abandoned_past_the_llm_timeout(tmp_path, monkeypatch):
    """``--contract-provider llama-cpp --llm-timeout 0.05`` with the social module: the packaged SmolLM2 cannot
    answer a contract in 50 ms (loading is not counted), so the first call is abandoned and recorded as failed,
    the tick's later calls get their heuristics without asking, and the tick completes with the rulebook reply.
    Before, the limit was never applied to contract calls: each ran to its 256 tokens (40 s for one tick)."""
    import agi_plugin_social.plugin as social

    from agi_core.contracts.caller import EXTERNAL
    from agi_core.replay import replay
    from agi_core.testing import builtin_plugins, open_kernel

    monkeypatch.delenv("AGI_LLAMA_CPP_MODEL", raising=False)
    db = tmp_path / "agent.db"
    with open_kernel(db, social, contract_provider="llama-cpp", llm_timeout_s=0.05) as kernel:
        record = kernel.tick("my sister Maya lives in Lyon")
    assert record.final_output == "Thanks for telling me. Got it: your sister Maya's home is Lyon."
    first, *later = record.externals[EXTERNAL]
    abandoned = (
        "ProviderError: the llama-cpp request took longer than 0.05 s and was abandoned; "
        "raise --llm-timeout (AGI_LLM_TIMEOUT)"
    )
    assert first["attempts"][0]["outcome"] == "provider" and first["source"] == "fallback"
    assert first["errors"] == [f"$: provider failed: {abandoned}"]
    assert later and all(call["errors"] == [f"model not asked: {abandoned}"] for call in later)
    assert replay(db, plugins=builtin_plugins(social)).ok
