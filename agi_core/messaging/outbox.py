"""Sending in the tick: an outbox row written in the tick's transaction, published after its commit.

A tick whose input was a message (not itself a reply) answers its sender with its reply, in the
same conversation; ``agi send`` (kernel command ``send_message``) sends any text to a named agent;
the ``send_message`` tool (effect ``external``) sends from its receipt tick (:func:`from_tool`).
"""

from __future__ import annotations

from typing import Any

from agi_core.messaging.address import check_name
from agi_core.messaging.envelope import Message, MessageRejected, encode, fitted
from agi_core.serialization import dumps

SEND_TOOL = "send_message"  # the external tool a brain calls to send a message (agi_core.default_plugins.messaging)
MESSAGE_SALT = "message_salt"
"""The external that makes a message id this database's, after this many rollbacks: ids come from the seed and the
tick, so an agent recreated under its name (the same seed) or rolled back minted the ids of messages already
delivered, and the broker's duplicate window and the recipient's inbox dropped the new messages unsaid. A journal
from before it (no such external) replays with the ids it recorded, unsalted."""


def message_salt(store: Any) -> str:
    """This database's holder (:func:`~agi_core.messaging.transport.holder_of`) and how many journal rows its
    rollbacks archived: different for another database, and after every rollback that undid a tick. Read once
    until the kernel reloads (:meth:`agi_core.kernel.Kernel.message_salt`)."""
    from agi_core.messaging.transport import holder_of

    counted = getattr(store, "archived_count", None)  # SQLite counts them; another store reads them
    archived = counted() if counted is not None else sum(1 for _ in store.archived_rows())
    return f"{holder_of(store)}:{archived}"


def _salted(kernel: Any, externals: Any) -> str:
    """The salt of this tick's message ids (recorded once a tick: replay serves it), or "" in a journal from before."""
    if externals is None:
        return ""
    recorded = externals.recorded
    if recorded is not None and MESSAGE_SALT not in recorded:
        return ""
    taken = externals.log.get(MESSAGE_SALT)  # a tick that sends two messages fetches (and records) it once
    salt = taken[0] if taken else externals.fetch(MESSAGE_SALT, kernel.message_salt)
    return f"|{salt}"


def send(
    kernel: Any,
    tick: int,
    recipient: str,
    text: str,
    *,
    conversation: str = "",
    reply_to: str | None = None,
    message_id: str | None = None,
    shorten: bool = False,
    externals: Any = None,
) -> Message:
    """Write a message to the outbox in the tick under way; its id, unless given, from the kernel's determinism.

    A message over the size limit is refused here, before it is stored (:class:`MessageRejected`, one
    line), so no row the transport cannot send ever waits at the head of the outbox; ``shorten``
    sends it cut to fit instead (a reply)."""
    check_name(recipient)
    message_id = message_id or kernel.determinism.new_id("message", f"{tick}|{recipient}{_salted(kernel, externals)}")
    message = Message(message_id, kernel.own_name(), recipient, text, conversation or message_id, reply_to)
    if shorten:
        message = fitted(message)
    encode(message)
    kernel.store.outbox_add(message_id, tick, recipient, dumps(message.to_data()))
    return message


def reply(kernel: Any, tick: int, received: Message | None, text: str, externals: Any = None) -> list[dict[str, Any]]:
    """The reply to ``received`` (none to a reply, so two agents never answer each other forever)."""
    if received is None or received.reply_to is not None or not text:
        return []
    sent = send(
        kernel,
        tick,
        received.sender,
        text,
        conversation=received.conversation,
        reply_to=received.id,
        shorten=True,
        externals=externals,
    )
    return [sent.to_data()]


def from_tool(kernel: Any, tick: int, action: Any, observation: Any) -> list[dict[str, Any]]:
    """The message a ``send_message`` receipt tick sends: the tool ran after its intent's commit and
    accepted the recipient; the message goes to the outbox in this (the receipt's) transaction."""
    payload = observation.payload
    if action.type != "tool" or action.name != SEND_TOOL or not observation.success or "intent" in payload:
        return []
    message = send(kernel, tick, payload["to"], payload["text"], message_id=payload["id"])
    return [message.to_data()]


def send_command(kernel: Any, ctx: Any, args: dict[str, Any]) -> tuple[str, Any]:
    """Kernel command ``send_message`` {to, text}: one message to the outbox (``agi send NAME TEXT``)."""
    if not str(args["text"]).strip():  # the recipient drops a message with no text: refuse it here, as the tool does
        raise MessageRejected(f"the message to {str(args['to'])!r} is empty; say what to send")
    message = send(kernel, ctx.tick, str(args["to"]), str(args["text"]), externals=ctx.externals)
    return f"message to {message.recipient} queued ({message.id})", message.to_data()
