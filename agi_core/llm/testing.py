"""Scripted stand-ins for OpenAI-compatible servers, for testing providers and plugins.

``FakeOpenAIServer`` answers every request with ``respond(path, body)`` (a chat completion as
server-sent events when the request asks for a stream) and records the requests;
``SilentServer`` accepts connections and never answers (timeouts);
``free_port()`` gives a port nothing listens on (connection refused). Standard library
only; each server runs in a daemon thread and stops when its ``with`` block ends.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

Reply = tuple[int, str, bytes]  # status, content type, body
Responder = Callable[[str, dict[str, Any]], Reply]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listened on a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def json_reply(payload: Any, status: int = 200) -> Reply:
    return status, "application/json", json.dumps(payload).encode()


def chat_reply(
    content: str | None = "ok",
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str = "stop",
    model: str = "fake-model",
) -> Reply:
    """A 200 chat-completion response with one choice."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return json_reply(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
        }
    )


def streamed(reply: dict[str, Any]) -> bytes:
    """A chat completion as the server-sent events of a streamed one: its content, its finish reason,
    its usage, then ``[DONE]``."""
    head = {key: reply.get(key) for key in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    events = []
    for choice in reply.get("choices") or []:
        message, index = choice.get("message") or {}, choice.get("index", 0)
        delta = {"role": "assistant", "content": message.get("content")}
        events.append({**head, "choices": [{"index": index, "delta": delta, "finish_reason": None}]})
        finish = choice.get("finish_reason")
        events.append({**head, "choices": [{"index": index, "delta": {}, "finish_reason": finish}]})
    if reply.get("usage") is not None:
        events.append({**head, "choices": [], "usage": reply["usage"]})
    return b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events) + b"data: [DONE]\n\n"


class _Server:
    def __enter__(self) -> Any:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError


class FakeOpenAIServer(_Server):
    """An HTTP server whose answers a test scripts: set ``respond`` at any time.

    ``url`` is the base URL (``http://127.0.0.1:<port>/v1``); ``requests`` lists
    ``(path, json_body)`` in arrival order. By default every request gets ``chat_reply()``.
    """

    def __init__(self, respond: Responder | None = None) -> None:
        self.respond: Responder = respond or (lambda path, body: chat_reply())
        self.requests: list[tuple[str, dict[str, Any]]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else {}
                fake.requests.append((self.path, body))
                status, content_type, payload = fake.respond(self.path, body)
                if body.get("stream") is True and status == 200 and content_type == "application/json":
                    content_type, payload = "text/event-stream", streamed(json.loads(payload))
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


class SilentServer(_Server):
    """Accepts TCP connections and never answers; ``url`` is its base URL."""

    def __init__(self) -> None:
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(8)
        self._listener.settimeout(0.1)
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"
        self._accepted: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            self._accepted.append(conn)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for conn in self._accepted:
            conn.close()
        self._listener.close()
