"""Messaging: the built-in ``memory://`` transport (agents in one Python process) and the
``send_message`` tool (effect ``external``) a brain calls to send another agent a message
(docs/messaging.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agi_core.errors import ToolError
from agi_core.hookspecs import Register, hookimpl

if TYPE_CHECKING:  # agi_core.tools loads when the tools register (a kernel opens), not for agi --help
    from agi_core.tools import Tool, ToolContext


agi_manifest = {
    "description": "The memory:// transport, the send_message tool, and the tools another agent's message may run.",
    "settings": {
        "type": "object",
        "properties": {
            "allow_tools": {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "default": {},
                "description": 'The tools each sender\'s message may run ({"alice": ["file_read"]}; "*" is '
                "any sender or any tool); others' messages run only the clock. A write/external tool needs "
                "--allow-tool too.",
            },
        },
    },
}


def _memory(url: str, *, agent: str, holder: str | None = None) -> Any:
    from agi_core.messaging.inprocess import MemoryTransport

    return MemoryTransport(url, agent=agent, holder=holder)


def _send_message(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    """Runs after the intent's commit: checks the recipient on the transport; the receipt tick
    writes the message to the outbox (:func:`agi_core.messaging.outbox.from_tool`), published after."""
    to, text = str(args.get("to", "")).strip().lower(), str(args.get("text", ""))
    if not text.strip():
        raise ToolError(f"the message to {to!r} is empty; say what to send")
    if context.check_recipient is None:
        raise ToolError(
            f"no message sent to {to!r}: this agent has no message box; set AGI_MESSAGING_URL "
            "(nats://HOST:PORT/DEPLOYMENT or memory://HUB) and say it again"
        )
    from agi_core.messaging.envelope import Message, MessageRejected, encode

    message_id = str(args["id"])
    try:  # refused before the receipt tick would store it (as agi_core.messaging.outbox.send does)
        encode(Message(message_id, "", to, text, message_id))
    except MessageRejected as exc:
        raise ToolError(str(exc)) from None
    context.check_recipient(to)
    return {"to": to, "text": text, "id": message_id}


def send_message_tool() -> Tool:
    from agi_core.messaging.outbox import SEND_TOOL
    from agi_core.model import ToolDefinition
    from agi_core.tools import Tool

    definition = ToolDefinition(
        SEND_TOOL,
        "Send a message to another agent by name (its reply comes back as a message).",
        {"to": "string", "text": "string", "id": "string"},
        "external",
        timeout_s=10.0,  # the recipient check asks the broker (bounded by the transport, ~1 s)
        idempotency_key="id",  # the message id: a retried intent sends the same id, which the broker drops
    )
    return Tool(definition, _send_message)


@hookimpl
def agi_register_transports(register: Register) -> None:
    register(_memory, name="memory")


@hookimpl
def agi_register_actuators(register: Register) -> None:
    register(send_message_tool())
