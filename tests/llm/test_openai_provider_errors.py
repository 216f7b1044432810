"""The openai provider's configuration, negotiation logic and error messages.

These run against scripted local servers, so they need neither a model nor llama.cpp.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from agi_core.errors import AgiError, ConfigError
from agi_core.llm import OpenAIProvider, ProviderError
from agi_core.llm.testing import FakeOpenAIServer, chat_reply, free_port, json_reply

HELLO = [{"role": "user", "content": "hello"}]


def _provider(server: FakeOpenAIServer, **options: Any) -> OpenAIProvider:
    options.setdefault("max_retries", 0)
    return OpenAIProvider(base_url=server.url, model="fake-model", **options)


SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


def test_connection_refused_is_one_line_naming_the_url() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    provider = OpenAIProvider(base_url=url, model="m", max_retries=0)
    with pytest.raises(ProviderError) as info:
        provider.complete(HELLO)
    message = str(info.value)
    assert "\n" not in message
    assert message == (
        f"cannot reach the OpenAI-compatible server at {url} ([Errno 111] Connection "
        f"refused); start the server (scripts/llama_server.sh runs a local one) or set "
        f"AGI_OPENAI_BASE_URL to its URL"
    )
    assert isinstance(info.value, AgiError)
    assert info.value.endpoint == url and info.value.status is None


def test_timeout_is_one_line_and_bounded(silent_server: str) -> None:
    provider = OpenAIProvider(base_url=silent_server, model="m", timeout=0.5, max_retries=0)
    started = time.monotonic()
    with pytest.raises(ProviderError) as info:
        provider.complete(HELLO)
    elapsed = time.monotonic() - started
    assert 0.4 < elapsed < 5
    assert str(info.value) == (
        f"chat completion at {silent_server} timed out after 0.5 s; raise "
        f"timeout= (AGI_OPENAI_TIMEOUT), lower max_tokens, or check the "
        f"server's load"
    )


def test_http_401_names_the_key_variable(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.respond = lambda path, body: json_reply(
        {"error": {"message": "Invalid API key\nprovided", "type": "auth"}}, status=401
    )
    with pytest.raises(ProviderError) as info:
        _provider(fake_openai).complete(HELLO)
    assert str(info.value) == (
        f"{fake_openai.url} refused the API key (HTTP 401: Invalid API key "
        f"provided); set OPENAI_API_KEY (or AGI_OPENAI_API_KEY) to a valid key"
    )
    assert info.value.status == 401


def test_http_500_is_one_line(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.respond = lambda path, body: json_reply({"error": {"message": "boom"}}, status=500)
    with pytest.raises(ProviderError) as info:
        _provider(fake_openai).complete(HELLO)
    assert str(info.value) == (
        f"{fake_openai.url} answered HTTP 500 to the chat completion (boom); retry later or check the server's log"
    )


def test_html_instead_of_json_is_reported(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.respond = lambda path, body: (200, "text/html", b"<html><body>It works!</body></html>")
    with pytest.raises(ProviderError) as info:
        _provider(fake_openai).complete(HELLO)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{fake_openai.url} answered the chat completion with ")
    assert message.endswith("check that the base URL points at an OpenAI-compatible API (it usually ends in /v1)")


def test_tool_call_with_bad_json_arguments(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.respond = lambda path, body: chat_reply(
        None,
        [{"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{city: Paris"}}],
        finish_reason="tool_calls",
    )
    with pytest.raises(ProviderError, match=r"returned tool call 'lookup' whose arguments are not JSON"):
        _provider(fake_openai).complete(HELLO, tools=[{"name": "lookup"}])


def test_tool_calls_are_normalized(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.respond = lambda path, body: chat_reply(
        None,
        [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"city": "Paris"}'}},
            {"id": "c2", "type": "function", "function": {"name": "now", "arguments": ""}},
        ],
        finish_reason="tool_calls",
    )
    tool = {"name": "lookup", "description": "find", "parameters": {"type": "object"}, "effect": "read"}
    completion = _provider(fake_openai, tool_choice="required").complete(HELLO, tools=[tool])
    assert completion.tool_calls == (
        {"id": "c1", "name": "lookup", "arguments": {"city": "Paris"}},
        {"id": "c2", "name": "now", "arguments": {}},
    )
    assert completion.finish_reason == "tool_calls"
    assert completion.text == ""
    sent = fake_openai.requests[-1][1]
    assert sent["tools"] == [
        {"type": "function", "function": {"name": "lookup", "description": "find", "parameters": {"type": "object"}}}
    ]
    assert sent["tool_choice"] == "required"


def test_completion_fields_and_request(fake_openai: FakeOpenAIServer) -> None:
    completion = _provider(fake_openai).complete(HELLO, max_tokens=9, temperature=0.0, seed=4)
    assert (
        completion.text,
        completion.finish_reason,
        completion.prompt_tokens,
        completion.completion_tokens,
        completion.model,
    ) == ("ok", "stop", 7, 3, "fake-model")
    path, body = fake_openai.requests[-1]
    assert path == "/v1/chat/completions"
    assert body == {"model": "fake-model", "messages": HELLO, "max_tokens": 9, "temperature": 0.0, "seed": 4}


def test_json_schema_rejected_falls_back_and_is_remembered(fake_openai: FakeOpenAIServer) -> None:
    def respond(path: str, body: dict) -> tuple[int, str, bytes]:
        if body["response_format"]["type"] == "json_schema":
            return json_reply({"detail": "response_format.type must be json_object"}, status=422)
        return chat_reply('{"a": 1}')

    fake_openai.respond = respond
    provider = _provider(fake_openai)
    assert provider.response_format_kind is None
    assert provider.complete(HELLO, schema=SCHEMA).text == '{"a": 1}'
    assert [body["response_format"]["type"] for _, body in fake_openai.requests] == ["json_schema", "json_object"]
    assert fake_openai.requests[1][1]["response_format"] == {"type": "json_object", "schema": SCHEMA}
    # remembered for the base URL, by every provider instance
    other = _provider(fake_openai)
    assert other.response_format_kind == "json_object"
    other.complete(HELLO, schema=SCHEMA)
    assert [body["response_format"]["type"] for _, body in fake_openai.requests[2:]] == ["json_object"]


def test_a_500_blaming_response_format_is_a_rejection_too(fake_openai: FakeOpenAIServer) -> None:
    """llama-cpp-python's server answers a refused response_format with HTTP 500."""

    def respond(path: str, body: dict) -> tuple[int, str, bytes]:
        if body["response_format"]["type"] == "json_schema":
            return json_reply(
                {
                    "error": {
                        "message": "1 validation error: {'type': 'literal_error', 'loc': "
                        "('body', 'response_format', 'type')}"
                    }
                },
                status=500,
            )
        return chat_reply('{"a": 1}')

    fake_openai.respond = respond
    provider = _provider(fake_openai, max_retries=2)
    assert provider.complete(HELLO, schema=SCHEMA).text == '{"a": 1}'
    # the probe is not retried, whatever max_retries says
    assert [body["response_format"]["type"] for _, body in fake_openai.requests] == ["json_schema", "json_object"]
    assert provider.response_format_kind == "json_object"


def test_a_500_for_another_reason_is_not_a_rejection(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.respond = lambda path, body: json_reply({"error": {"message": "out of memory"}}, status=500)
    provider = _provider(fake_openai)
    with pytest.raises(ProviderError, match=r"answered HTTP 500 to the chat completion \(out of memory\); retry later"):
        provider.complete(HELLO, schema=SCHEMA)
    assert len(fake_openai.requests) == 1
    assert provider.response_format_kind is None


def test_json_schema_accepted_is_remembered(fake_openai: FakeOpenAIServer) -> None:
    provider = _provider(fake_openai)
    provider.complete(HELLO, schema={**SCHEMA, "title": "My answer!"})
    provider.complete(HELLO, schema=SCHEMA)
    formats = [body["response_format"] for _, body in fake_openai.requests]
    assert formats[0] == {
        "type": "json_schema",
        "json_schema": {"name": "My_answer_", "schema": {**SCHEMA, "title": "My answer!"}, "strict": False},
    }
    assert [f["type"] for f in formats] == ["json_schema", "json_schema"]
    assert provider.response_format_kind == "json_schema"


def test_request_rejected_in_both_formats_raises_first_error(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.respond = lambda path, body: json_reply({"error": {"message": "bad messages"}}, status=400)
    provider = _provider(fake_openai)
    with pytest.raises(ProviderError, match=r"answered HTTP 400 to the chat completion \(bad messages\)"):
        provider.complete(HELLO, schema=SCHEMA)
    assert len(fake_openai.requests) == 2
    assert provider.response_format_kind is None


def test_explicit_structured_output_mode_skips_negotiation(fake_openai: FakeOpenAIServer) -> None:
    _provider(fake_openai, structured_output="json_object").complete(HELLO, schema=SCHEMA)
    assert [body["response_format"]["type"] for _, body in fake_openai.requests] == ["json_object"]


def test_model_is_discovered_from_models_list(fake_openai: FakeOpenAIServer) -> None:
    def respond(path: str, body: dict) -> tuple[int, str, bytes]:
        if path == "/v1/models":
            return json_reply(
                {"object": "list", "data": [{"id": "served-model", "object": "model", "created": 0, "owned_by": "me"}]}
            )
        return chat_reply()

    fake_openai.respond = respond
    provider = OpenAIProvider(base_url=fake_openai.url, max_retries=0)
    provider.complete(HELLO)
    assert provider.model == "served-model"
    assert fake_openai.requests[-1][1]["model"] == "served-model"


def test_configuration_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "AGI_OPENAI_BASE_URL",
        "OPENAI_BASE_URL",
        "AGI_OPENAI_API_KEY",
        "OPENAI_API_KEY",
        "AGI_OPENAI_MODEL",
        "AGI_OPENAI_TIMEOUT",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://other:1/v1/")
    assert OpenAIProvider().base_url == "http://other:1/v1"
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", "http://mine:8080/v1")
    monkeypatch.setenv("AGI_OPENAI_TIMEOUT", "7.5")
    monkeypatch.setenv("AGI_OPENAI_MODEL", "smol")
    provider = OpenAIProvider()
    assert (provider.base_url, provider.timeout, provider.model) == ("http://mine:8080/v1", 7.5, "smol")


def test_openai_without_key_or_model_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AGI_OPENAI_BASE_URL", "OPENAI_BASE_URL", "AGI_OPENAI_API_KEY", "OPENAI_API_KEY", "AGI_OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match=r"^no API key for https://api.openai.com/v1; set OPENAI_API_KEY"):
        OpenAIProvider(model="gpt-4o-mini")
    with pytest.raises(ConfigError, match=r"^no model for api.openai.com; pass model="):
        OpenAIProvider(api_key="sk-test")
    with pytest.raises(ConfigError, match=r"structured_output='xml' is not one of auto, json_schema"):
        OpenAIProvider(base_url="http://x/v1", structured_output="xml")
    with pytest.raises(ConfigError, match=r"timeout=0 must be a positive number"):
        OpenAIProvider(base_url="http://x/v1", timeout=0)
