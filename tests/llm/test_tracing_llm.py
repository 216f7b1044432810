"""The ``chat`` span of a real model request, with the GenAI semantic-convention attributes (docs/tracing.md).

Against the suite's llama.cpp server (SmolLM2) through the LLM brain, inside the tick's trace
(the request runs on a worker thread under ``--llm-timeout``), and the in-process ``llama-cpp``
provider on the same GGUF.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from agi_core import tracing
from agi_core.llm.llama_cpp_provider import LlamaCppProvider
from agi_core.testing import open_kernel

pytestmark = pytest.mark.llm


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    tracing.start(exporter, batch=False)
    yield exporter
    tracing.stop()


def test_a_tick_of_the_llm_brain_has_a_chat_span_with_the_genai_attributes(
    tmp_path: Path, spans: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch, llama_server: str
) -> None:
    monkeypatch.setenv("AGI_LLM_PROVIDER", "openai")
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", llama_server)
    with open_kernel(tmp_path / "a.db", seed="llm", brain="llm", llm_timeout_s=120.0) as kernel:
        record = kernel.tick("Say hello.")
    assert record is not None
    finished = spans.get_finished_spans()
    requests = [span for span in finished if span.name.startswith("chat ")]
    chats = [span for span in requests if span.status.status_code != StatusCode.ERROR]
    completions = [served["completion"] for served in record.externals["llm_completion"]]
    assert len(chats) == len(completions) >= 1
    for refused in set(requests) - set(chats):  # a structured-output probe the server refused: its own span
        assert refused.attributes["error.type"] == "ProviderError"
    by_id = {span.context.span_id: span for span in finished}
    for chat, completion in zip(chats, completions, strict=True):
        attributes = chat.attributes
        assert attributes["gen_ai.operation.name"] == "chat"
        assert attributes["gen_ai.provider.name"] == attributes["gen_ai.system"] == "openai"
        assert chat.name == f"chat {attributes['gen_ai.request.model']}"
        assert attributes["gen_ai.response.model"] == completion["model"]
        assert attributes["gen_ai.usage.input_tokens"] == completion["prompt_tokens"] > 0
        assert attributes["gen_ai.usage.output_tokens"] == completion["completion_tokens"] > 0
        assert attributes["gen_ai.response.finish_reasons"] == (completion["finish_reason"],)
        assert attributes["server.address"] == "127.0.0.1"
        ancestors = []
        parent = chat.parent
        while parent is not None:  # up from the worker thread to the tick's root
            ancestors.append(by_id[parent.span_id])
            parent = ancestors[-1].parent
        assert [span.name for span in ancestors][-2:] == ["reason", "invoke_agent a"]
        assert ancestors[-1].attributes["agi.journal.id"] == record.id


def test_the_in_process_llama_cpp_provider_traces_each_request(spans: InMemorySpanExporter, smollm2_gguf: Path) -> None:
    provider = LlamaCppProvider(model_path=smollm2_gguf, n_ctx=1024, n_threads=1)
    try:
        with tracing.span("caller"):
            completion = provider.complete([{"role": "user", "content": "Say hello."}], max_tokens=8, seed=0)
    finally:
        provider.close()
    (chat,) = [span for span in spans.get_finished_spans() if span.name.startswith("chat ")]
    assert chat.name == f"chat {smollm2_gguf.stem}"
    assert chat.attributes["gen_ai.provider.name"] == "llama-cpp"
    assert chat.attributes["gen_ai.request.max_tokens"] == 8
    assert chat.attributes["gen_ai.usage.output_tokens"] == completion.completion_tokens > 0
    assert chat.attributes["gen_ai.response.finish_reasons"] == (completion.finish_reason,)
