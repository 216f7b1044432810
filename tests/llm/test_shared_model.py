"""``--brain llm`` with ``--contract-provider llama-cpp``: one model in memory, asked by the brain and the modules."""

from __future__ import annotations

import pytest

from agi_core.contracts.caller import EXTERNAL
from agi_core.hookspecs import hookimpl
from agi_core.modules import CognitiveModule
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel


class Drives(CognitiveModule):
    """Asks the model one contract a tick (the packaged ``homeostasis``)."""

    name = "drives"

    def deliberate(self, ctx):
        ctx.contracts.call("homeostasis", {"state": "curious, rested; the user said hello"})


class Plugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Drives())


@pytest.mark.llm
def test_the_brain_and_the_contract_calls_share_one_loaded_model(tmp_path, monkeypatch):
    import llama_cpp

    loads = []

    class Counted(llama_cpp.Llama):  # the real model, its loads counted
        def __init__(self, *args, **kwargs):
            loads.append(kwargs["model_path"])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(llama_cpp, "Llama", Counted)
    monkeypatch.delenv("AGI_LLAMA_CPP_MODEL", raising=False)
    monkeypatch.delenv("AGI_LLM_PROVIDER", raising=False)
    db = tmp_path / "agent.db"
    options = {"module_timeout_s": 120.0, "llm_timeout_s": 120.0}  # a loaded 2-core machine: a call took 30 s
    with open_kernel(db, Plugin(), brain="llm", contract_provider="llama-cpp", **options) as kernel:
        record = kernel.tick("hello there")
        assert kernel.llm_provider("llama-cpp") is kernel.llm_provider("llama-cpp")
    (call,) = record.externals[EXTERNAL]
    assert call["attempts"][0]["outcome"] != "provider", call  # the model answered the module
    assert "error" not in record.externals["llm_completion"][0]  # and the brain
    assert len(loads) == 1  # before: 2, one model for each
    assert replay(db, plugins=builtin_plugins(Plugin())).ok  # the recorded answers: no model asked


@pytest.mark.llm
def test_a_request_whose_caller_has_gone_is_not_generated(smollm2_gguf):
    """The model a module's abandoned call would keep busy (the brain's too, now) is not asked for it."""
    from agi_core.externals import CallAbandoned
    from agi_core.llm import LlamaCppProvider, ProviderError
    from agi_core.llm.lazy import TimedRequests

    hello = [{"role": "user", "content": "Say hello."}]
    provider = LlamaCppProvider(model_path=smollm2_gguf, n_ctx=512, n_threads=1)
    try:
        with pytest.raises(ProviderError, match="nobody waits for the answer any more"):
            provider.complete_unless(lambda: True, hello, max_tokens=8)  # its time ran out while it waited
        with pytest.raises(CallAbandoned, match="its call was abandoned"):
            TimedRequests(provider, 60.0, lambda: lambda: True).complete(hello, max_tokens=8)
        assert provider.complete_unless(lambda: False, hello, max_tokens=8).text
    finally:
        provider.close()
