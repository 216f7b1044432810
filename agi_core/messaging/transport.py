"""The transport protocol: publish, a durable subscription per agent, explicit acks.

A transport is opened for one agent (``factory(url, agent=NAME)``); it publishes as that
agent (the sender is the transport's, never the payload's) and receives what is addressed to
it, durably: a message not acknowledged is delivered again (after a restart, or once the
ack wait has passed). An agent joins by subscribing once (:meth:`Transport.agents` lists
them: the recipients ``send_message`` accepts). A malformed or oversized message is
acknowledged and dropped by the transport with one line in :attr:`Transport.rejected`. Transports are plugins
(hook ``agi_register_transports``, registered under their URL scheme).

A name is one mailbox: a factory that takes ``holder`` (:func:`holder_of`: the database's, the same for every
process of one agent) refuses to open while an agent of another database holds ``agent`` on that broker
(:class:`NameInUse`), so two databases with one name do not take each other's messages.
"""

from __future__ import annotations

import hashlib
import inspect
from concurrent.futures import Future
from typing import Any, Protocol

import attrs

from agi_core.errors import AgiError, ConfigError
from agi_core.messaging.envelope import Message


@attrs.frozen
class Delivery:
    """A received message and the transport's handle to acknowledge it."""

    message: Message
    token: Any = attrs.field(eq=False, repr=False)


@attrs.frozen
class Published:
    """What :meth:`Transport.publish_async` got the broker to hold: the first ``count`` messages; ``error``
    (one line) stopped the others."""

    count: int
    error: AgiError | None = None


class Transport(Protocol):
    agent: str
    rejected: list[str]  # one line per malformed or oversized message dropped

    def publish(self, message: Message) -> None:
        """Send ``message`` (its sender must be this transport's agent); ``message.key`` (sender and id) is
        the duplicate key."""

    def publish_async(self, messages: list[Message]) -> Future[Published]:
        """Start publishing ``messages`` in order (a broker may be sent them all at once, on one connection);
        the future's result says how many of the leading ones it holds and the error that stopped the rest."""

    def fetch(self, timeout_s: float) -> list[Delivery]:
        """The next messages for this agent (waiting at most ``timeout_s``); empty when none."""

    def ready(self) -> bool:
        """True when the next :meth:`fetch` returns messages at once (a batch already in hand); never waits."""

    def ack(self, delivery: Delivery) -> None:
        """Acknowledge ``delivery``: it is never delivered again."""

    def ack_all(self, deliveries: list[Delivery]) -> None:
        """Acknowledge each of ``deliveries`` (in one exchange with the broker where it can)."""

    def close(self) -> None:
        """Disconnect; unacknowledged deliveries come again to the next subscription."""

    def agents(self) -> list[str] | None:
        """The agents that have subscribed here (each is a recipient); None when the broker cannot say now."""


class NameInUse(ConfigError):
    """Another live agent (another database) holds this agent's name on the transport."""


def holder_of(store: Any) -> str:
    """Who holds a name on a transport: the database (a digest of its journal key's check, so every process of
    one agent, and the agent moved with its key, is one holder; two databases are two). Not the check itself."""
    mark = store.meta_get("journal_key_check") or f"path:{getattr(store, 'path', '')}"
    return hashlib.sha256(f"agi-mailbox-holder:{mark}".encode()).hexdigest()[:32]


def _takes_holder(factory: Any) -> bool:
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "holder" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def open_transport(url: str, agent: str, plugins: Any, holder: str | None = None) -> Transport:
    """The transport for ``url`` (its scheme names a registered transport), subscribed for ``agent``; a factory
    that takes ``holder`` claims the name for it (:class:`NameInUse` when another holder has it)."""
    scheme = url.partition("://")[0] if "://" in url else ""
    factories = {name: registration.obj for name, registration in plugins.register_transports().items()}
    if scheme not in factories:
        known = ", ".join(sorted(factories)) or "none"
        raise ConfigError(
            f"no messaging transport for {url!r}; installed schemes: {known} (nats:// needs agi-plugin-nats)"
        )
    factory = factories[scheme]
    extra = {"holder": holder} if holder is not None and _takes_holder(factory) else {}
    transport: Transport = factory(url, agent=agent, **extra)
    return transport


def check_sender(transport: Transport, message: Message) -> None:
    """Refuse to publish a message whose sender is not the transport's agent (no impersonation)."""
    if message.sender != transport.agent:
        raise ConfigError(
            f"message {message.id} names sender {message.sender!r}, but this transport is agent "
            f"{transport.agent!r}; an agent sends only as itself"
        )
