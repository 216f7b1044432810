"""Registers the ``nats`` messaging transport (``AGI_MESSAGING_URL=nats://HOST:PORT[/DEPLOYMENT]``)."""

from __future__ import annotations

from typing import Any

from agi_core.hookspecs import Register, hookimpl


def _nats(url: str, *, agent: str, holder: str | None = None) -> Any:
    from agi_plugin_nats.transport import NatsTransport  # here: `agi --help` does not import nats-py

    return NatsTransport(url, agent=agent, holder=holder)


@hookimpl
def agi_register_transports(register: Register) -> None:
    register(_nats, name="nats")
