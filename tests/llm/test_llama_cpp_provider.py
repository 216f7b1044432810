"""The embedded ``llama-cpp`` provider, loading the same SmolLM2 GGUF in-process."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from agi_core.errors import ConfigError
from agi_core.llm import LlamaCppProvider, ProviderError

SCHEMA = {
    "type": "object",
    "properties": {"color": {"type": "string", "enum": ["red", "green", "blue"]}},
    "required": ["color"],
    "additionalProperties": False,
}
WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


@pytest.fixture(scope="module")
def embedded(smollm2_gguf: Path) -> Iterator[LlamaCppProvider]:
    provider = LlamaCppProvider(
        model_path=smollm2_gguf, n_ctx=1024, n_threads=int(os.environ.get("AGI_LLM_TEST_THREADS", "1"))
    )
    yield provider
    provider.close()


@pytest.mark.llm
def test_plain_completion_is_deterministic(embedded: LlamaCppProvider) -> None:
    messages = [{"role": "user", "content": "Say hello."}]
    first = embedded.complete(messages, max_tokens=12)
    assert first.text.strip() != ""
    assert first == embedded.complete(messages, max_tokens=12)
    assert first.finish_reason in {"stop", "length"}
    assert 0 < first.completion_tokens <= 12 and first.prompt_tokens > 3
    assert first.model == embedded.model_path.stem or first.model.endswith(".gguf")


@pytest.mark.llm
def test_json_schema_output(embedded: LlamaCppProvider) -> None:
    completion = embedded.complete(
        [{"role": "user", "content": "Pick a color. Answer in JSON."}], schema=SCHEMA, max_tokens=24
    )
    value = json.loads(completion.text)
    jsonschema.validate(value, SCHEMA)


@pytest.mark.llm
def test_same_answer_as_the_server(embedded: LlamaCppProvider, llama_server: str) -> None:
    from agi_core.llm import OpenAIProvider

    messages = [{"role": "user", "content": "Name a fruit."}]
    local = embedded.complete(messages, max_tokens=8)
    remote = OpenAIProvider(base_url=llama_server).complete(messages, max_tokens=8)
    assert local.text == remote.text


@pytest.mark.llm
def test_real_tool_call_with_the_function_calling_chat_format(smollm2_gguf: Path) -> None:
    provider = LlamaCppProvider(
        model_path=smollm2_gguf,
        n_ctx=1024,
        chat_format="chatml-function-calling",
        n_threads=int(os.environ.get("AGI_LLM_TEST_THREADS", "1")),
    )
    try:
        completion = provider.complete(
            [{"role": "user", "content": "What is the weather in Paris? Use the get_weather tool."}],
            tools=[WEATHER_TOOL],
            max_tokens=32,
        )
    finally:
        provider.close()
    assert completion.finish_reason == "tool_calls"
    assert [(call["name"], call["arguments"]) for call in completion.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert completion.tool_calls[0]["id"].startswith("call_")


def test_missing_model_file_is_reported(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ProviderError) as info:
        LlamaCppProvider(model_path=missing).complete([{"role": "user", "content": "hi"}])
    assert str(info.value) == (
        f"GGUF model file {missing} does not exist; pass model_path= "
        f"(or set AGI_LLAMA_CPP_MODEL) to an existing .gguf file"
    )


def test_missing_llama_cpp_names_the_install_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # import llama_cpp -> ImportError
    with pytest.raises(
        ProviderError,
        match=r"needs llama-cpp-python \(.*\); run scripts/install_llama_cpp.sh "
        r"\(or pip install 'agi-core\[llama-cpp\]'\)$",
    ):
        LlamaCppProvider(model_path=model).complete([{"role": "user", "content": "hi"}])


def test_model_path_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGI_LLAMA_CPP_MODEL", raising=False)
    with pytest.raises(ConfigError, match=r"needs model_path='/path/model.gguf' \(or AGI_LLAMA_CPP_MODEL\)"):
        LlamaCppProvider()
    monkeypatch.setenv("AGI_LLAMA_CPP_MODEL", "/models/x.gguf")
    assert LlamaCppProvider().model_path == Path("/models/x.gguf")
