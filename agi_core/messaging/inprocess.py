"""The in-process transport (``memory://HUB``): several kernels in one Python process.

Agents that open ``memory://`` URLs with the same hub name share one :class:`Hub`: a durable
queue per recipient, kept for the life of the process. Publishing a message id twice keeps the
first (JetStream's duplicate window, without an end). A delivery stays unacknowledged until
:meth:`MemoryTransport.ack`; closing the transport (or another subscription for the same agent)
makes it deliverable again, as JetStream redelivers after a consumer's restart. A name is one queue: while a
transport of one holder (a database) is open under a name, another holder's is refused (:class:`NameInUse`).
"""

from __future__ import annotations

import itertools
import threading
import weakref
from concurrent.futures import Future
from typing import Any

from agi_core.errors import AgiError
from agi_core.messaging.envelope import Message, MessageRejected, decode, encode
from agi_core.messaging.transport import Delivery, NameInUse, Published, check_sender

_HUBS: dict[str, Hub] = {}
_HUBS_LOCK = threading.Lock()


FETCH_BATCH = 16  # deliveries handed over at most per fetch (as the NATS transport's pull)


class Hub:
    """The durable queues of one ``memory://`` hub: per recipient, ``{seq: [seq, sender, payload, state]}``
    in publishing order (an ack removes its entry by seq)."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.queues: dict[str, dict[int, list[Any]]] = {}
        self.seen: set[str] = set()
        self.members: set[str] = set()  # the agents that subscribed (the recipients it knows)
        self.open: dict[str, weakref.WeakSet[MemoryTransport]] = {}  # the transports open under each name
        self.seq = 0

    def put(self, sender: str, recipient: str, payload: bytes, msg_id: str | None) -> None:
        with self.lock:
            if msg_id is not None:
                if msg_id in self.seen:
                    return  # a re-send: dropped, as JetStream's duplicate window does
                self.seen.add(msg_id)
            self.seq += 1
            self.queues.setdefault(recipient, {})[self.seq] = [self.seq, sender, payload, "ready"]
            self.lock.notify_all()


def hub(name: str) -> Hub:
    with _HUBS_LOCK:
        return _HUBS.setdefault(name, Hub())


class MemoryTransport:
    """A subscription of ``agent`` to the hub named by the URL (``memory://NAME``)."""

    def __init__(self, url: str, *, agent: str, holder: str | None = None) -> None:
        self.agent = agent
        self.holder = holder if holder is not None else f"transport-{id(self)}"  # none given: this one alone
        self.hub = hub(url.partition("://")[2] or "default")
        self.rejected: list[str] = []
        with self.hub.lock:
            holding = self.hub.open.setdefault(agent, weakref.WeakSet())
            if any(other.holder != self.holder for other in holding):
                raise NameInUse(
                    f"agent name {agent!r} is in use on {url.partition('?')[0]} by an agent of another database; "
                    "close that kernel or open this one on another hub (two databases with one name would take "
                    "each other's messages)"
                )
            holding.add(self)
            self.hub.members.add(agent)
        self._release()  # a new subscription: what an earlier one left unacknowledged comes again

    def publish(self, message: Message) -> None:
        check_sender(self, message)
        self.hub.put(self.agent, message.recipient, encode(message), message.key)

    def publish_async(self, messages: list[Message]) -> Future[Published]:
        """:meth:`publish` each in order, done already (the hub holds them at once)."""
        done: Future[Published] = Future()
        for count, message in enumerate(messages):
            try:
                self.publish(message)
            except AgiError as exc:
                done.set_result(Published(count, exc))
                return done
        done.set_result(Published(len(messages)))
        return done

    def publish_raw(self, recipient: str, payload: bytes) -> None:
        """Put any bytes in ``recipient``'s queue as this agent (for hostile-input tests)."""
        self.hub.put(self.agent, recipient, payload, None)

    def fetch(self, timeout_s: float) -> list[Delivery]:
        with self.hub.lock:
            queue = self.hub.queues.setdefault(self.agent, {})
            ready = self._ready(queue)
            if not ready and timeout_s > 0:
                self.hub.lock.wait(timeout_s)
                ready = self._ready(queue)
            deliveries = []
            for entry in ready:
                seq, sender, payload, _ = entry
                try:
                    message = decode(payload, sender=sender, recipient=self.agent)
                except MessageRejected as exc:
                    self.rejected.append(str(exc))
                    del queue[seq]
                    continue
                entry[3] = "delivered"
                deliveries.append(Delivery(message, seq))
            return deliveries

    def ready(self) -> bool:
        with self.hub.lock:
            return any(entry[3] == "ready" for entry in self.hub.queues.get(self.agent, {}).values())

    @staticmethod
    def _ready(queue: dict[int, list[Any]]) -> list[list[Any]]:
        return list(itertools.islice((entry for entry in queue.values() if entry[3] == "ready"), FETCH_BATCH))

    def ack(self, delivery: Delivery) -> None:
        self.ack_all([delivery])

    def ack_all(self, deliveries: list[Delivery]) -> None:
        with self.hub.lock:
            queue = self.hub.queues.get(self.agent, {})
            for delivery in deliveries:
                queue.pop(delivery.token, None)

    def agents(self) -> list[str]:
        with self.hub.lock:
            return sorted(self.hub.members)

    def close(self) -> None:
        with self.hub.lock:
            self.hub.open.get(self.agent, weakref.WeakSet()).discard(self)
        self._release()

    def _release(self) -> None:
        with self.hub.lock:
            for entry in self.hub.queues.get(self.agent, {}).values():
                entry[3] = "ready"
            self.hub.lock.notify_all()
