"""The kernel's message box: the sensor that turns deliveries into ticks, acks after commit, the publisher.

Receiving: :meth:`Mailbox.poll` (the ``message_box`` sensor) takes the next delivery; one whose
id the inbox holds already (its tick committed, its ack was lost) is acknowledged and skipped.
Otherwise it becomes the tick's input (``source`` ``message:<sender>``); the tick writes the id
to the inbox (:func:`agi_core.messaging.inbox.receive`) and :meth:`after_commit` acknowledges it.

Sending: a tick writes outbox rows (:mod:`agi_core.messaging.outbox`); :meth:`flush` publishes
the committed, unpublished ones with their id as the duplicate key and marks them published. A
crash between publish and mark publishes again; the broker drops the duplicate.
"""

from __future__ import annotations

import collections
import sys
from typing import Any

import orjson

from agi_core.errors import AgiError, ToolError, ValidationError
from agi_core.faults import fault_point
from agi_core.inputs import normalize
from agi_core.messaging.address import check_name, ensure_named
from agi_core.messaging.envelope import from_data
from agi_core.messaging.inbox import SOURCE_PREFIX
from agi_core.messaging.transport import Delivery, Transport, open_transport
from agi_core.model import Input, JournalRecord

CHANNEL = "message"  # the input channel of a message from another agent
KNOWN_SHOWN = 10  # agents named in an unknown-recipient error


def public_url(url: str) -> str:
    """``url`` without user and password (for messages)."""
    scheme, sep, rest = url.partition("://")
    host, at, path = rest.partition("/")
    return f"{scheme}{sep}{host.rpartition('@')[2]}{'/' if at else ''}{path}".partition("?")[0]


class Mailbox:
    """``kernel``'s subscription on ``transport`` and its outbox publisher."""

    name = "message_box"

    def __init__(self, kernel: Any, transport: Transport, url: str = "") -> None:
        self.kernel = kernel
        self.transport = transport
        self.where = public_url(url) or "this transport"
        self.current: Delivery | None = None  # the delivery the tick under way is for
        self._ready: collections.deque[Delivery] = collections.deque()
        self._rejections_told = 0
        self.publish_failure: str | None = None
        self._known: set[str] = set()  # recipients the transport has confirmed

    @classmethod
    def open(cls, kernel: Any, url: str) -> Mailbox:
        return cls(kernel, open_transport(url, ensure_named(kernel), kernel.plugins), url)

    def check_recipient(self, name: str) -> None:
        """Refuse (:class:`ToolError`, one line) a name that is no agent on the transport; a broker
        that cannot answer now lets the message wait in the outbox."""
        try:
            check_name(name)
        except ValidationError as exc:
            raise ToolError(str(exc)) from None
        if name in self._known:
            return
        known = self.transport.agents()
        if known is None or name in known:
            self._known.update(known or ())  # an agent, once seen, stays one (its subscription is durable)
            return
        listed = ", ".join(known[:KNOWN_SHOWN]) + (" …" if len(known) > KNOWN_SHOWN else "") if known else "none"
        raise ToolError(
            f"no agent named {name!r} on {self.where} (agents there: {listed}); check the name, or run that "
            "agent once with the same AGI_MESSAGING_URL so it joins; nothing was sent"
        )

    def poll(self, kernel: Any) -> Input | None:
        """The sensor: the next new message as an input, or None."""
        self.flush()
        while True:
            if not self._ready:
                self._ready.extend(self.transport.fetch(0))
                self._tell_rejections()
            if not self._ready:
                return None
            delivery = self._ready.popleft()
            if kernel.store.inbox_has(delivery.message.id):  # received before: its ack was lost
                self.transport.ack(delivery)
                continue
            self.current = delivery
            text = delivery.message.text
            message = delivery.message
            return Input(
                raw=text,
                normalized=normalize(text),
                source=SOURCE_PREFIX + message.sender,
                speaker=message.sender,  # the other agent is the speaker (the social module's interlocutor)
                channel=CHANNEL,
                conversation=message.conversation,
            )

    def after_commit(self, record: JournalRecord | None) -> None:
        """Acknowledge the delivery the committed ``record`` received (None: a duplicate), then publish."""
        delivery, self.current = self.current, None
        fault_point("message.committed")  # a kill here: the tick committed, the delivery is not acknowledged
        if delivery is not None and (record is None or record.input.source.startswith(SOURCE_PREFIX)):
            self.transport.ack(delivery)
        self.flush()

    def flush(self) -> int:
        """Publish the committed outbox rows not yet published; the count published."""
        store, sent = self.kernel.store, 0
        for text in store.outbox_unpublished():
            message = from_data(orjson.loads(text))
            try:
                self.transport.publish(message)
            except AgiError as exc:  # the broker is away: the row stays, the next flush sends it
                if self.publish_failure != str(exc):
                    self.publish_failure = str(exc)
                    print(f"agi: warning: {exc}; the message stays in the outbox and is sent later", file=sys.stderr)
                return sent
            self.publish_failure = None
            fault_point("message.published")  # a kill here: published, not marked; published again, dropped by id
            with store.tick_transaction():
                store.outbox_published(message.id)
            sent += 1
        return sent

    def _tell_rejections(self) -> None:
        for line in self.transport.rejected[self._rejections_told :]:
            print(f"agi: warning: {line}", file=sys.stderr)
        self._rejections_told = len(self.transport.rejected)

    def close(self) -> None:
        self.transport.close()
