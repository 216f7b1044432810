"""Receiving in the tick: the message is a recorded external and its id goes into the inbox, in the tick's
transaction. A live tick for an id the inbox holds leaves nothing (:class:`MessageAlreadyReceived`)."""

from __future__ import annotations

from typing import Any

from agi_core.errors import AgiError, ConfigError
from agi_core.externals import Externals
from agi_core.inputs import reply_line
from agi_core.messaging.envelope import Message, from_data
from agi_core.model import Input

SOURCE_PREFIX = "message:"
REPLY_TO, ASKED = "reply_to", "asked"
"""A reply's input metadata (:func:`agi_core.messaging.mailbox.replied`): the id of this agent's message it answers,
and that message's text when the outbox holds it."""


class MessageAlreadyReceived(AgiError):
    """A live tick for a message whose id is in the inbox (another process, or a redelivery): nothing is stored."""


def heard(record: Any) -> str | None:
    """The line that tells the user what another agent said, shown before the reply of its tick
    (``message from bob: The capital of Peru is Lima.``); None for a tick that is no message's. The reply alone
    ("I currently don’t have a module for this type of request.") left the user of ``agi run`` never seeing
    bob's answer to "ask bob …"."""
    source = record.input.source
    if not source.startswith(SOURCE_PREFIX):
        return None
    return f"message from {source[len(SOURCE_PREFIX) :]}: {reply_line(record.input.raw)}"


def reply_of(percept: Input) -> tuple[str, str | None] | None:
    """``(sender, question asked or None)`` for a message tick that answers one of this agent's messages (its input
    names the id, ``reply_to``); None for any other input, and for a reply of a journal from before (no metadata)."""
    if not percept.source.startswith(SOURCE_PREFIX) or not percept.metadata.get(REPLY_TO):
        return None
    asked = percept.metadata.get(ASKED)
    return percept.source[len(SOURCE_PREFIX) :], asked if isinstance(asked, str) else None


def receive(kernel: Any, percept: Input, externals: Externals, tick: int) -> Message | None:
    """The message a ``message:`` tick is for (recorded as the ``message`` external), its id in the inbox."""
    if not percept.source.startswith(SOURCE_PREFIX):
        return None

    def delivered() -> dict[str, Any]:
        mailbox = getattr(kernel, "mailbox", None)
        if mailbox is None or mailbox.current is None:
            raise ConfigError(
                f"an input from {percept.source!r} needs a delivered message; messages come from the message box"
            )
        return mailbox.current.message.to_data()

    message = from_data(externals.fetch("message", delivered))
    added = kernel.store.inbox_add(message.key, tick, message.sender, message.conversation)
    if not added and not externals.replaying:
        raise MessageAlreadyReceived(f"message {message.id} from {message.sender} was received at an earlier tick")
    return message
