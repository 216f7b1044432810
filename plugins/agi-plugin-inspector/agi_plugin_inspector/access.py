"""Who may reach the inspector: loopback by default; any other address only with a token.

A request carries the token as ``Authorization: Bearer TOKEN``, or as ``?token=TOKEN`` once
(the answer sets a cookie, so a browser's next pages carry it). Form posts (the chat box) also
carry a per-server form key, so another web page cannot make the visitor's browser post a tick.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from typing import Any

from agi_core.errors import ConfigError

COOKIE = "agi_inspector_token"
TOKEN_ENV = "AGI_SERVE_TOKEN"
TOKEN_MIN_CHARS = 16


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse a non-loopback ``host`` without a token, and a token too short to guess at."""
    if token is not None and len(token) < TOKEN_MIN_CHARS:
        raise ConfigError(
            f"the inspector token is {len(token)} characters; give one of at least {TOKEN_MIN_CHARS} "
            "(python -c 'import secrets; print(secrets.token_urlsafe())')"
        )
    if not is_loopback(host) and token is None:
        raise ConfigError(
            f"agi serve --host {host} would show the agent to the network; give a token with --token "
            f"or {TOKEN_ENV} (or serve on 127.0.0.1)"
        )


def new_form_key() -> str:
    return secrets.token_urlsafe(24)


def same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


class TokenGate:
    """ASGI middleware: with a token set, answer 401 to any request that does not carry it."""

    def __init__(self, app: Any, token: str | None) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self.token is None or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        from starlette.requests import Request
        from starlette.responses import PlainTextResponse, RedirectResponse

        request = Request(scope)
        bearer = request.headers.get("authorization", "")
        given = bearer[7:] if bearer.lower().startswith("bearer ") else request.cookies.get(COOKIE)
        if same(given, self.token):
            await self.app(scope, receive, send)
            return
        if same(request.query_params.get("token"), self.token):
            response = RedirectResponse(request.url.remove_query_params("token"), status_code=303)
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict")
            await response(scope, receive, send)
            return
        denied = PlainTextResponse("this inspector needs its token: open it with ?token=TOKEN", status_code=401)
        await denied(scope, receive, send)
