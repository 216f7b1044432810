"""The error every LLM provider raises on purpose."""

from __future__ import annotations

from agi_core.errors import AgiError


class ProviderError(AgiError):
    """An LLM provider could not produce a completion: unreachable server, HTTP error,
    timeout, malformed response, missing model file or missing optional dependency.

    The message is one line naming the provider's endpoint (base URL or model path) and
    the fix. ``status`` is the HTTP status when the server answered one, else ``None``;
    ``detail`` is the server's own error message, flattened to one line. ``unreachable`` is true
    when the provider itself cannot answer now (no connection, a request timed out, no model to
    load), so the next request would fail the same way; false for a failure of one request.
    """

    def __init__(
        self,
        message: str,
        *,
        endpoint: str = "",
        status: int | None = None,
        detail: str = "",
        unreachable: bool = False,
    ) -> None:
        super().__init__(message)
        self.endpoint = endpoint
        self.status = status
        self.detail = detail
        self.unreachable = unreachable
