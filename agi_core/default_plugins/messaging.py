"""The built-in ``memory://`` messaging transport: agents in one Python process (docs/messaging.md)."""

from __future__ import annotations

from typing import Any

from agi_core.hookspecs import Register, hookimpl


def _memory(url: str, *, agent: str) -> Any:
    from agi_core.messaging.inprocess import MemoryTransport

    return MemoryTransport(url, agent=agent)


@hookimpl
def agi_register_transports(register: Register) -> None:
    register(_memory, name="memory")
