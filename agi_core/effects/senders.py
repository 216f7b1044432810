"""Another agent's message runs no tool on its say-so: the tools a message may run, per sender.

A message tick (input source ``message:<sender>``) asks for a tool on another agent's behalf, and what the tool
returns goes back to that agent as the reply: "/file_read notes.txt" from anyone who can message this agent would
send them the file. So a message runs only the effect-free built-ins (:data:`FREE_TOOLS`: the clock, a plain
response) and the tools this agent's user allowed its sender, the ``messaging.allow_tools`` setting
(``agi config set messaging.allow_tools '{"alice": ["file_read"]}'``; ``"*"`` names any sender or any tool). A tool
allowed here still passes the ordinary policy (a ``write`` or ``external`` tool needs ``--allow-tool`` too). Goals and
reminders are the ``goals`` tool's (the LLM brain's; Stage-0's goal rule asks the same, :data:`GOALS`).

The check runs where the tool's observation is made (:func:`agi_core.effects.acting.observe`), inside the
recorded external, so replay serves what the live tick decided: a journal from before replays as it was written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agi_core.errors import AgiError
from agi_core.messaging.inbox import SOURCE_PREFIX  # a message tick's input source

SETTINGS_PLUGIN, SETTING = "messaging", "allow_tools"
ANY = "*"
GOALS = "goals"  # setting, listing, finishing or stepping goals, and reminders: the tool name a user allows
FREE_TOOLS = frozenset({"clock", "respond"})
"""Built-ins that read nothing of this agent's and change nothing: any message may run them."""


def sender_of(source: str) -> str | None:
    """The agent whose message a tick's input is (``message:bob`` → ``bob``); None for any other input."""
    return source[len(SOURCE_PREFIX) :] if source.startswith(SOURCE_PREFIX) else None


def allowed_tools(settings: Callable[[str], Mapping[str, Any]]) -> Mapping[str, Any]:
    """The ``messaging.allow_tools`` setting (``{sender: [tool, …]}``); {} where the messaging plugin is not loaded."""
    try:
        value = settings(SETTINGS_PLUGIN).get(SETTING, {})
    except AgiError:
        return {}
    return value if isinstance(value, Mapping) else {}


def refusal(
    sender: str, tool: str, allowed: Mapping[str, Any], free: frozenset[str] = FREE_TOOLS, *, does: str = ""
) -> str | None:
    """Why ``sender``'s message may not run ``tool`` (one line, naming the fix), or None where it may (``free``:
    the tools any message may run; ``does``: what the message asked, in words, for a tool it names none of)."""
    if tool in free:
        return None
    for name in (sender, ANY):
        tools = allowed.get(name) or ()
        if tool in tools or ANY in tools:
            return None
    return (
        f"a message from {sender} {does or f'runs no {tool}'} here "
        "(another agent's message runs no tool on its say-so); "
        f'this agent\'s user may allow it: agi config set messaging.allow_tools \'{{"{sender}": ["{tool}"]}}\''
    )


__all__ = ["ANY", "FREE_TOOLS", "GOALS", "SETTING", "SETTINGS_PLUGIN", "allowed_tools", "refusal", "sender_of"]
