"""A message between agents, and its wire form: the payload carries no sender.

The transport puts the sender and the recipient on the subject (``…to.<recipient>.from.<sender>``)
and sets the sender itself: a payload that names another sender is not believed (there is no
field for it). Payloads are capped at :data:`MAX_MESSAGE_BYTES`; anything else is refused with
one line (:class:`MessageRejected`).
"""

from __future__ import annotations

from typing import Any

import attrs
import orjson

from agi_core.errors import ValidationError

MAX_MESSAGE_BYTES = 64 * 1024  # a payload's size limit (the text, ids and JSON around them)
_ID_MAX = 128


class MessageRejected(ValidationError):
    """A malformed or oversized message: refused with one line, acknowledged, never a tick."""


@attrs.frozen
class Message:
    """One message: ``id`` is unique among its sender's messages; ``reply_to`` the id answered.

    Ids are minted from each agent's seed and tick (deterministic), so two agents with one seed (the
    default) mint the same ids: :attr:`key` (sender and id) is what the inbox and JetStream deduplicate on.
    """

    id: str
    sender: str
    recipient: str
    text: str
    conversation: str
    reply_to: str | None = None

    @property
    def key(self) -> str:
        """``SENDER/ID``: unique across agents (an agent's name holds no ``/``); the duplicate key."""
        return f"{self.sender}/{self.id}"

    def to_data(self) -> dict[str, Any]:
        """The fields in order (``attrs.asdict``'s result, without its generic walk: a few per message tick)."""
        return {
            "id": self.id,
            "sender": self.sender,
            "recipient": self.recipient,
            "text": self.text,
            "conversation": self.conversation,
            "reply_to": self.reply_to,
        }


def encode(message: Message) -> bytes:
    """The payload: id, text, conversation, reply_to (sender and recipient travel on the subject)."""
    payload = _payload(message)
    if len(payload) > MAX_MESSAGE_BYTES:
        raise MessageRejected(
            f"message {message.id} to {message.recipient} is {len(payload):,} bytes; the limit is "
            f"{MAX_MESSAGE_BYTES:,}: send a shorter text"
        )
    return payload


def fitted(message: Message) -> Message:
    """``message``, or a copy whose text is cut (saying so) so that its payload fits :data:`MAX_MESSAGE_BYTES`:
    a reply too long to send is sent shortened rather than failing the tick that answers."""
    if len(_payload(message)) <= MAX_MESSAGE_BYTES:
        return message
    full = len(message.text)
    low, high = 0, full  # the longest prefix whose payload, with the note, fits: a binary search
    while low < high:
        middle = (low + high + 1) // 2
        if len(_payload(_cut(message, middle, full))) <= MAX_MESSAGE_BYTES:
            low = middle
        else:
            high = middle - 1
    return _cut(message, low, full)


def _cut(message: Message, keep: int, full: int) -> Message:
    return attrs.evolve(message, text=f"{message.text[:keep]} … [cut: {full - keep:,} of {full:,} characters]")


def _payload(message: Message) -> bytes:
    data = {"id": message.id, "text": message.text, "conversation": message.conversation, "reply_to": message.reply_to}
    return orjson.dumps(data)


def decode(payload: bytes, *, sender: str, recipient: str) -> Message:
    """The message in ``payload`` from ``sender`` (as the transport says); :class:`MessageRejected` otherwise."""
    where = f"message from {sender} to {recipient}"
    if len(payload) > MAX_MESSAGE_BYTES:
        raise MessageRejected(f"{where} is {len(payload):,} bytes, over the {MAX_MESSAGE_BYTES:,}-byte limit; dropped")
    try:
        data = orjson.loads(payload)
    except orjson.JSONDecodeError:
        raise MessageRejected(f"{where} is not a JSON object; dropped") from None
    if not isinstance(data, dict):
        raise MessageRejected(f"{where} is not a JSON object; dropped")
    for key in ("id", "text", "conversation"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise MessageRejected(f"{where} has no {key!r} string; dropped")
    reply_to = data.get("reply_to")
    if reply_to is not None and not isinstance(reply_to, str):
        raise MessageRejected(f"{where} has a reply_to that is not a string; dropped")
    if len(data["id"]) > _ID_MAX or len(data["conversation"]) > _ID_MAX:
        raise MessageRejected(f"{where} has an id or conversation over {_ID_MAX} characters; dropped")
    return Message(data["id"], sender, recipient, data["text"], data["conversation"], reply_to)


def from_data(data: dict[str, Any]) -> Message:
    return Message(**data)
