"""The openai provider against a real ``llama_cpp.server`` running SmolLM2-135M-Instruct."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import openai
import pytest
from openai.resources.chat.completions import Completions

from agi_core.llm import OpenAIProvider, ProviderError

pytestmark = pytest.mark.llm

PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 20},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}
ASK_PERSON = [
    {"role": "system", "content": "You answer in JSON."},
    {"role": "user", "content": "Give a person with a name and an age."},
]
WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


class Spy:
    """Records every chat-completion request any openai client sends, then sends it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.requests: list[dict[str, Any]] = []
        original = Completions.create

        def create(completions: Completions, **request: Any) -> Any:
            self.requests.append(request)
            return original(completions, **request)

        monkeypatch.setattr(Completions, "create", create)


def test_plain_completion_is_deterministic(llama_server: str) -> None:
    provider = OpenAIProvider(base_url=llama_server)
    messages = [{"role": "user", "content": "Say hello."}]
    first = provider.complete(messages, max_tokens=12, seed=0)
    second = provider.complete(messages, max_tokens=12, seed=0)
    assert first.text.strip() != ""
    assert first == second  # greedy decoding: same prompt, same answer
    assert first.finish_reason in {"stop", "length"}
    assert 0 < first.completion_tokens <= 12
    assert first.prompt_tokens > 3
    assert first.tool_calls == ()
    assert first.model.endswith(".gguf")  # llama_cpp.server names the model by its path
    assert provider.model == first.model  # discovered from /v1/models


def test_server_rejects_json_schema_and_provider_falls_back(llama_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = OpenAIProvider(base_url=llama_server)
    # The server itself refuses response_format.type=json_schema, with a 500 naming the field ...
    with pytest.raises(openai.APIStatusError) as rejected:
        provider._client().with_options(max_retries=0).chat.completions.create(
            model=provider._model(),
            messages=ASK_PERSON,
            max_tokens=4,
            response_format={"type": "json_schema", "json_schema": {"name": "p", "schema": PERSON}},
        )
    assert rejected.value.status_code == 500
    assert "response_format" in str(rejected.value) and "literal_error" in str(rejected.value)
    # ... so the provider's first structured call tries it, then json_object + schema.
    spy = Spy(monkeypatch)
    assert provider.response_format_kind is None
    completion = provider.complete(ASK_PERSON, schema=PERSON, max_tokens=48, seed=0)
    assert [r["response_format"]["type"] for r in spy.requests] == ["json_schema", "json_object"]
    assert provider.response_format_kind == "json_object"
    assert json.loads(completion.text)  # a JSON object came back
    # Remembered per base URL: a new provider goes straight to json_object.
    other = OpenAIProvider(base_url=llama_server)
    assert other.response_format_kind == "json_object"
    other_spy = Spy(monkeypatch)
    other.complete(ASK_PERSON, schema=PERSON, max_tokens=48, seed=0)
    assert [r["response_format"] for r in other_spy.requests] == [{"type": "json_object", "schema": PERSON}]


def test_structured_output_parses_and_validates(llama_server: str) -> None:
    provider = OpenAIProvider(base_url=llama_server, structured_output="json_object")
    completion = provider.complete(ASK_PERSON, schema=PERSON, max_tokens=48, seed=0)
    assert completion.finish_reason == "stop"
    value = json.loads(completion.text)
    assert set(value) == {"name", "age"}
    # Shape and types are enforced by the grammar; the bounds are checked here, as a contract would.
    jsonschema.validate(value, {**PERSON, "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}})


def test_grammar_ignores_integer_bounds_so_post_validation_is_mandatory(llama_server: str) -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 1000, "maximum": 1000}},
        "required": ["n"],
        "additionalProperties": False,
    }
    provider = OpenAIProvider(base_url=llama_server, structured_output="json_object")
    completion = provider.complete(
        [{"role": "user", "content": "Reply with JSON where n is 5."}], schema=schema, max_tokens=16, seed=0
    )
    value = json.loads(completion.text)
    assert isinstance(value["n"], int)
    assert value["n"] != 1000, "llama.cpp now honors integer bounds: update docs/llm-providers.md"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(value, schema)


def test_tool_request_goes_through_and_result_is_well_formed(
    llama_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = OpenAIProvider(base_url=llama_server)
    spy = Spy(monkeypatch)
    completion = provider.complete(
        [{"role": "user", "content": "What is the weather in Paris? Use the get_weather tool."}],
        tools=[WEATHER_TOOL],
        max_tokens=16,
        seed=0,
    )
    assert spy.requests[0]["tools"] == [{"type": "function", "function": WEATHER_TOOL}]
    assert spy.requests[0]["tool_choice"] == "auto"
    assert completion.completion_tokens > 0
    assert completion.finish_reason in {"stop", "length", "tool_calls"}
    # SmolLM2-135M may or may not call the tool; whatever it did must be well formed.
    for call in completion.tool_calls:
        assert set(call) == {"id", "name", "arguments"}
        assert call["name"] == "get_weather"
        assert isinstance(call["id"], str) and call["id"]
        assert isinstance(call["arguments"], dict)
    if not completion.tool_calls:
        assert completion.text.strip() != ""


def test_http_error_from_real_server_is_one_line(llama_server: str) -> None:
    provider = OpenAIProvider(base_url=llama_server, max_retries=0)  # openai retries 5xx by default
    with pytest.raises(ProviderError) as info:
        provider.complete([{"role": "wizard", "content": "hi"}], max_tokens=4)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{llama_server} answered HTTP ")
    assert message.endswith("; fix the request (response_format, tools or messages)")
    assert info.value.status == 500  # llama-cpp-python reports request validation errors as 500
    assert "validation error" in info.value.detail


def test_timeout_against_real_server(llama_server: str) -> None:
    provider = OpenAIProvider(base_url=llama_server, timeout=0.001, max_retries=0)
    provider.model = "smollm2"  # skip discovery so the timeout hits the completion
    with pytest.raises(ProviderError, match=r"^chat completion at .* timed out after 0.001 s; "):
        provider.complete([{"role": "user", "content": "Count to ten."}], max_tokens=4)


def test_a_request_given_up_stops_the_servers_generation_so_the_next_is_not_delayed(llama_server: str) -> None:
    """A contract call past its limit, and a provider closed at shutdown, close their stream: the shared
    server stops generating (a 1,000-token story, about 15 s at 67 tokens/s) and answers the next request
    at once. Before, the answer was one non-streamed request the server generated to its end, and the next
    request waited for it."""
    import threading
    import time

    from agi_core.llm.lazy import TimedRequests

    story = [{"role": "user", "content": "Write a very long story about a dragon."}]
    hello = [{"role": "user", "content": "Say hello."}]
    provider = OpenAIProvider(base_url=llama_server)

    def seconds_to_say_hello() -> float:
        began = time.perf_counter()
        assert provider.complete(hello, max_tokens=8, seed=0).text
        return time.perf_counter() - began

    seconds_to_say_hello()  # the model's name asked, the prompt cached
    idle_s = seconds_to_say_hello()
    with pytest.raises(ProviderError, match="took longer than 1 s and was abandoned"):
        TimedRequests(provider, 1.0).complete(story, max_tokens=1000, seed=0)
    after_timeout_s = seconds_to_say_hello()
    assert after_timeout_s < idle_s + 4.0, (idle_s, after_timeout_s)

    closing = OpenAIProvider(base_url=llama_server)  # a kernel's provider, closed while it generates
    given_up: list[BaseException] = []

    def generate() -> None:
        try:
            closing.complete_unless(lambda: False, story, max_tokens=1000, seed=0)
        except ProviderError as exc:
            given_up.append(exc)

    worker = threading.Thread(target=generate, daemon=True)
    worker.start()
    time.sleep(1.0)
    closing.close()
    worker.join(timeout=5.0)
    assert not worker.is_alive() and given_up
    after_close_s = seconds_to_say_hello()
    assert after_close_s < idle_s + 4.0, (idle_s, after_close_s)
