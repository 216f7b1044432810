"""The ``openai`` provider: any OpenAI-compatible chat-completions server.

Works against api.openai.com and against local servers (llama.cpp's ``llama_cpp.server``,
llama-server, vLLM, Ollama's ``/v1``). The ``openai`` package is imported on first use, so
registering this provider costs nothing.

Structured output is negotiated per base URL: the first call with a ``schema`` tries
``response_format={"type": "json_schema", ...}``; if the server refuses it (a 400/415/422,
or, as llama-cpp-python's server does, a 500 whose message blames ``response_format``) and
accepts ``{"type": "json_object", "schema": ...}`` instead, that choice is remembered for
the base URL (for every provider instance in the process) and used from then on. Either
way the caller must still validate the JSON: servers' grammars are not complete
JSON Schema implementations.

:meth:`OpenAIProvider.complete_unless` streams the answer and closes the stream's HTTP connection once
its caller has gone (past its time limit, its call abandoned) or the provider is closed: llama.cpp's
servers (``llama-server``, and ``llama_cpp.server`` for streamed requests) take the closed connection
as a cancel and stop generating, so the model is free for the next request.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from agi_core.contracts.provider import Completion
from agi_core.errors import ConfigError
from agi_core.llm import traced
from agi_core.llm._shared import as_openai_tool, completion_from_response, one_line
from agi_core.llm.errors import ProviderError

if TYPE_CHECKING:
    import openai

OPENAI_BASE_URL = "https://api.openai.com/v1"
LOCAL_API_KEY = "sk-no-key-required"  # llama.cpp, vLLM and Ollama accept any key
STRUCTURED_MODES = ("auto", "json_schema", "json_object")
# 4xx answers that say "I don't understand this request" rather than "not allowed/not found".
_REJECTED = frozenset({400, 415, 422})


def _format_rejected(error: ProviderError) -> bool:
    """Did the server refuse the request's ``response_format`` (rather than fail)?

    llama-cpp-python's server reports request-validation errors as HTTP 500, naming the
    field; other servers answer 400 or 422.
    """
    if error.status in _REJECTED:
        return True
    return error.status is not None and error.status >= 500 and "response_format" in error.detail


def _request_was_bad(status: int, detail: str) -> bool:
    return 400 <= status < 500 or "validation error" in detail


def _root_cause(exc: BaseException) -> str:
    seen: set[int] = set()
    current: BaseException = exc
    while id(current) not in seen:
        seen.add(id(current))
        nxt = current.__cause__ or current.__context__
        if nxt is None:
            break
        current = nxt
    return one_line(current, 120) or type(current).__name__


def _status_detail(exc: Any) -> str:
    """The server's error message, on one line (not shortened)."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            detail = error.get("message") or error.get("detail") or error
        else:
            detail = error
        return one_line(detail, 10_000)
    return one_line(getattr(exc, "message", "") or exc, 10_000)


class OpenAIProvider:
    """Chat completions from an OpenAI-compatible HTTP server.

    :param model: model name; default ``$AGI_OPENAI_MODEL``, else (for a non-OpenAI
        ``base_url``) the first model the server lists at ``/v1/models``.
    :param base_url: default ``$AGI_OPENAI_BASE_URL``, ``$OPENAI_BASE_URL``, then
        ``https://api.openai.com/v1``.
    :param api_key: default ``$AGI_OPENAI_API_KEY``, ``$OPENAI_API_KEY``; a dummy key for
        servers other than api.openai.com, which need none.
    :param timeout: seconds per HTTP request (default ``$AGI_OPENAI_TIMEOUT`` or 30).
    :param max_retries: retries of connection errors, 408/409/429 and 5xx (openai's default 2).
    :param structured_output: ``auto`` (negotiate, see module doc), ``json_schema`` or
        ``json_object`` (send ``{"type": "json_object", "schema": ...}``).
    :param strict: ask for ``json_schema`` with ``strict: true`` (OpenAI's strict subset).
    :param tool_choice: sent with every call that passes ``tools``: ``"auto"``, ``"required"``,
        ``"none"``, ``{"type": "function", "function": {"name": ...}}`` (default ``"auto"``,
        OpenAI's own default, sent explicitly because some servers treat a missing one as
        ``"none"``); ``None`` sends nothing.
    """

    name = "openai"
    # base URL -> "json_schema" | "json_object": what the server was seen to accept.
    _negotiated: ClassVar[dict[str, str]] = {}
    _negotiated_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(
        self,
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float | None = None,
        max_retries: int = 2,
        structured_output: str = "auto",
        strict: bool = False,
        tool_choice: str | dict[str, Any] | None = "auto",
    ) -> None:
        self.base_url = (
            base_url or os.environ.get("AGI_OPENAI_BASE_URL") or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
        ).rstrip("/")
        self._is_openai = self.base_url == OPENAI_BASE_URL
        key = api_key or os.environ.get("AGI_OPENAI_API_KEY") or os.environ.get("OPENAI_API_KEY")
        if not key:
            if self._is_openai:
                raise ConfigError(
                    f"no API key for {self.base_url}; set OPENAI_API_KEY, or set "
                    f"AGI_OPENAI_BASE_URL to a local OpenAI-compatible server"
                )
            key = LOCAL_API_KEY
        self._api_key = key
        if timeout is None:
            raw = os.environ.get("AGI_OPENAI_TIMEOUT", "30")
            try:
                timeout = float(raw)
            except ValueError:
                raise ConfigError(f"AGI_OPENAI_TIMEOUT={raw!r} is not a number of seconds; set it to e.g. 30") from None
        if timeout <= 0:
            raise ConfigError(f"timeout={timeout!r} must be a positive number of seconds")
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        if structured_output not in STRUCTURED_MODES:
            raise ConfigError(f"structured_output={structured_output!r} is not one of {', '.join(STRUCTURED_MODES)}")
        self.structured_output = structured_output
        self.strict = strict
        self.tool_choice = tool_choice
        self.model = model or os.environ.get("AGI_OPENAI_MODEL") or None
        if self.model is None and self._is_openai:
            raise ConfigError(
                "no model for api.openai.com; pass model='gpt-4o-mini' (or another) or set AGI_OPENAI_MODEL"
            )
        self._client_obj: openai.OpenAI | None = None
        self._lock = threading.Lock()
        self._closings = 0  # close() calls: a streamed answer begun before one stops at its next chunk

    def __repr__(self) -> str:
        return f"OpenAIProvider(base_url={self.base_url!r}, model={self.model!r})"

    # -- negotiation ---------------------------------------------------------------------
    @property
    def response_format_kind(self) -> str | None:
        """``json_schema`` or ``json_object`` once known for this base URL, else ``None``."""
        if self.structured_output != "auto":
            return self.structured_output
        return self._negotiated.get(self.base_url)

    @classmethod
    def forget_negotiated(cls) -> None:
        """Forget what every base URL accepted (tests; a server that was upgraded)."""
        with cls._negotiated_lock:
            cls._negotiated.clear()

    def _remember(self, kind: str) -> None:
        with self._negotiated_lock:
            self._negotiated[self.base_url] = kind

    def _response_format(self, kind: str, schema: dict[str, Any]) -> dict[str, Any]:
        if kind == "json_object":
            return {"type": "json_object", "schema": schema}
        title = "".join(c if c.isalnum() or c in "_-" else "_" for c in str(schema.get("title", "")))
        return {
            "type": "json_schema",
            "json_schema": {"name": title[:64] or "output", "schema": schema, "strict": self.strict},
        }

    # -- calling -------------------------------------------------------------------------
    def _client(self) -> openai.OpenAI:
        with self._lock:
            if self._client_obj is None:
                try:
                    import openai
                except ImportError as exc:
                    raise ProviderError(
                        f"the openai provider needs the 'openai' package ({exc}); pip install 'openai>=1.40'",
                        endpoint=self.base_url,
                    ) from None
                self._client_obj = openai.OpenAI(
                    base_url=self.base_url, api_key=self._api_key, timeout=self.timeout, max_retries=self.max_retries
                )
            return self._client_obj

    def close(self) -> None:
        """Close the HTTP connections now rather than at garbage collection; a streamed answer
        (:meth:`complete_unless`) still generating is cancelled at its next chunk."""
        with self._lock:
            self._closings += 1
            client, self._client_obj = self._client_obj, None
        if client is not None:
            client.close()

    def _model(self) -> str:
        if self.model is None:
            client = self._client()
            try:
                listed = [m.id for m in client.models.list()]
            except Exception as exc:  # noqa: BLE001 - translated below
                raise self._translate(exc, "listing models") from None
            if not listed:
                raise ProviderError(
                    f"{self.base_url}/models lists no model; pass model=... or set AGI_OPENAI_MODEL",
                    endpoint=self.base_url,
                )
            self.model = listed[0]
        return self.model

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        schema: dict[str, Any] | None = None,
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion:
        """One chat completion; see :class:`agi_core.contracts.provider.Provider`.

        Raises :class:`ProviderError` (one line, naming the base URL and the fix) when the
        server cannot be reached, times out, answers an HTTP error or malformed JSON.
        """
        return self._complete(None, messages, schema, tools, max_tokens, temperature, seed)

    def complete_unless(
        self,
        cancelled: Callable[[], bool],
        messages: list[dict[str, Any]],
        *,
        schema: dict[str, Any] | None = None,
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion:
        """:meth:`complete`, streamed, and given up once ``cancelled()`` is true or :meth:`close` is called
        (tested before the request and at each chunk): the stream's connection is closed, which stops the
        server's generation, and :class:`ProviderError` is raised. A request with ``tools`` is not streamed
        (tool calls come whole): it is given up only before it is sent. The token counts are the server's
        when it sends them in a stream (``stream_options.include_usage``; ``llama_cpp.server`` does not: 0)."""
        return self._complete(cancelled, messages, schema, tools, max_tokens, temperature, seed)

    def _complete(
        self,
        cancelled: Callable[[], bool] | None,
        messages: list[dict[str, Any]],
        schema: dict[str, Any] | None,
        tools: list[dict[str, Any]] | None,
        max_tokens: int,
        temperature: float,
        seed: int | None,
    ) -> Completion:
        request: dict[str, Any] = {
            "model": self._model(),
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if seed is not None:
            request["seed"] = seed
        if tools:
            request["tools"] = [as_openai_tool(tool) for tool in tools]
            if self.tool_choice is not None:
                request["tool_choice"] = self.tool_choice
        if schema is None:
            return self._send(request, cancelled)
        kind = self.response_format_kind
        if kind is not None:
            return self._send({**request, "response_format": self._response_format(kind, schema)}, cancelled)
        try:
            # A probe: no retries, since some servers answer a refused format with a 5xx.
            probe = {**request, "response_format": self._response_format("json_schema", schema)}
            result = self._send(probe, cancelled, max_retries=0)
        except ProviderError as first:
            if not _format_rejected(first):
                raise
            try:
                fallback = {**request, "response_format": self._response_format("json_object", schema)}
                result = self._send(fallback, cancelled)
            except ProviderError as second:
                if _format_rejected(second):
                    raise first from None  # the request itself is bad, not the format
                raise
            self._remember("json_object")
            return result
        self._remember("json_schema")
        return result

    def _send(
        self, request: dict[str, Any], cancelled: Callable[[], bool] | None, max_retries: int | None = None
    ) -> Completion:
        """One HTTP request, in a ``chat`` span (docs/tracing.md); streamed when it may be cancelled."""
        with traced.chat_span(self.name, request["model"], request, self.base_url) as span:
            if cancelled is None or "tools" in request:
                if cancelled is not None and cancelled():
                    raise self._gone()
                completion = self._request(request, max_retries)
            else:
                closings = self._closings
                completion = self._streamed(request, lambda: cancelled() or self._closings != closings, max_retries)
            traced.record(span, completion)
        return completion

    def _gone(self) -> ProviderError:
        return ProviderError(
            f"the request to {self.base_url} was given up: nobody waits for the answer any more "
            "(past its time limit, its call abandoned, or the provider closed)",
            endpoint=self.base_url,
        )  # not unreachable: the server is fine, and the tick's later calls may still ask it

    def _with_retries(self, max_retries: int | None) -> openai.OpenAI:
        client = self._client()
        if max_retries is not None and max_retries != self.max_retries:
            client = client.with_options(max_retries=max_retries)
        return client

    def _streamed(self, request: dict[str, Any], gone: Callable[[], bool], max_retries: int | None) -> Completion:
        """The answer to ``request`` as a stream, its connection closed as soon as ``gone()`` (the server
        stops generating when it sees the closed connection)."""
        if gone():
            raise self._gone()
        client = self._with_retries(max_retries)
        parts: list[str] = []
        finish: str | None = None
        model, usage = request["model"], None
        try:
            stream = client.chat.completions.create(**request, stream=True, stream_options={"include_usage": True})
        except Exception as exc:  # noqa: BLE001 - every failure becomes one ProviderError
            raise self._translate(exc, "chat completion") from None
        try:
            for chunk in stream:
                if gone():
                    raise self._gone()
                data = chunk.model_dump()
                model, usage = data.get("model") or model, data.get("usage") or usage
                for choice in data.get("choices") or []:
                    if choice.get("index", 0) == 0:
                        parts.append((choice.get("delta") or {}).get("content") or "")
                        finish = choice.get("finish_reason") or finish
        except ProviderError:
            raise
        except Exception as exc:  # noqa: BLE001 - every failure becomes one ProviderError
            raise self._translate(exc, "chat completion") from None
        finally:
            stream.close()  # before the end: the connection is dropped, which cancels the generation
        if finish is None:
            raise ProviderError(
                f"{self.base_url} ended the streamed chat completion before its answer did (no finish reason); "
                "llama_cpp.server cuts a stream short when another request comes: start it with "
                "--interrupt_requests false (scripts/llama_server.sh does)",
                endpoint=self.base_url,
            )
        message = {"role": "assistant", "content": "".join(parts)}
        answer = {"model": model, "choices": [{"message": message, "finish_reason": finish}], "usage": usage}
        return completion_from_response(answer, endpoint=self.base_url, model=request["model"])

    def _request(self, request: dict[str, Any], max_retries: int | None) -> Completion:
        client = self._with_retries(max_retries)
        try:
            response = client.chat.completions.create(**request)
        except Exception as exc:  # noqa: BLE001 - every failure becomes one ProviderError
            raise self._translate(exc, "chat completion") from None
        dump = getattr(response, "model_dump", None)
        data = dump() if callable(dump) else None
        if not isinstance(data, dict) or data.get("choices") is None:
            raise ProviderError(
                f"{self.base_url} answered the chat completion with something that is not "
                f"OpenAI chat JSON ({one_line(response, 80)!r}); check that the base URL points "
                f"at an OpenAI-compatible API (it usually ends in /v1)",
                endpoint=self.base_url,
            )
        return completion_from_response(data, endpoint=self.base_url, model=request["model"])

    def _translate(self, exc: Exception, what: str) -> ProviderError:
        import openai

        url = self.base_url
        if isinstance(exc, openai.APITimeoutError):
            return ProviderError(
                f"{what} at {url} timed out after {self.timeout:g} s; raise timeout= "
                f"(AGI_OPENAI_TIMEOUT), lower max_tokens, or check the server's load",
                endpoint=url,
                unreachable=True,
            )
        if isinstance(exc, openai.APIConnectionError):
            return ProviderError(
                f"cannot reach the OpenAI-compatible server at {url} ({_root_cause(exc)}); "
                f"start the server (scripts/llama_server.sh runs a local one) or set "
                f"AGI_OPENAI_BASE_URL to its URL",
                endpoint=url,
                unreachable=True,
            )
        if isinstance(exc, openai.APIStatusError):
            status, detail = exc.status_code, _status_detail(exc)
            if isinstance(exc, openai.AuthenticationError):
                message = (
                    f"{url} refused the API key (HTTP 401: {one_line(detail, 160)}); "
                    f"set OPENAI_API_KEY (or AGI_OPENAI_API_KEY) to a valid key"
                )
            elif isinstance(exc, openai.NotFoundError):
                message = (
                    f"{url} answered HTTP 404 to the {what} for model {self.model!r} "
                    f"({one_line(detail, 160)}); check that the base URL ends in /v1 and the "
                    f"model name exists (AGI_OPENAI_MODEL)"
                )
            else:
                fix = (
                    "fix the request (response_format, tools or messages)"
                    if _request_was_bad(status, detail)
                    else "retry later or check the server's log"
                )
                message = f"{url} answered HTTP {status} to the {what} ({one_line(detail, 160)}); {fix}"
            return ProviderError(message, endpoint=url, status=status, detail=detail)
        if isinstance(exc, (openai.APIResponseValidationError, ValueError)):
            return ProviderError(
                f"{url} answered the {what} with malformed JSON ({one_line(exc, 120)}); check "
                f"that the base URL points at an OpenAI-compatible API (it usually ends in /v1)",
                endpoint=url,
            )
        if isinstance(exc, ProviderError):
            return exc
        return ProviderError(f"{what} at {url} failed: {type(exc).__name__}: {one_line(exc, 160)}", endpoint=url)
