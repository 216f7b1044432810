"""The ``mcp`` plugin: MCP servers' tools as agent tools, and the ``agi mcp`` commands.

Light on purpose: ``agi --help`` loads this module, so the ``mcp`` library is imported only when a
kernel starts with servers configured, or an ``agi mcp`` command runs.
"""

from __future__ import annotations

from typing import Any

from agi_core.hookspecs import hookimpl

NAME = "mcp"  # the entry point's name: settings are mcp.<key>, AGI_PLUGIN_MCP_<KEY>

SERVER_NAME = "^[a-z][a-z0-9_]{0,63}$"
TIMEOUT_MAX_S = 86400  # a day, as agi run --timeout: a larger limit overflows the event loop's timers

agi_manifest = {
    "description": "The tools of MCP servers as agent tools (server.tool), and agi mcp serve.",
    "settings": {
        "type": "object",
        "properties": {
            "servers": {
                "type": "object",
                "default": {},
                "description": (
                    'MCP servers by name: {"time": {"command": ["python", "-m", "mcp_server_time"]}} '
                    '(stdio) or {"docs": {"url": "http://127.0.0.1:8000/mcp"}} (streamable HTTP).'
                ),
                "propertyNames": {"pattern": SERVER_NAME},
                "additionalProperties": {
                    "type": "object",
                    "properties": {
                        "command": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                        "url": {"type": "string", "pattern": "^https?://"},
                        "env": {"type": "object", "additionalProperties": {"type": "string"}},
                        "cwd": {"type": "string"},
                        "timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": TIMEOUT_MAX_S},
                    },
                    "additionalProperties": False,
                    "oneOf": [{"required": ["command"]}, {"required": ["url"]}],
                },
            },
            "timeout_s": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": TIMEOUT_MAX_S,
                "default": 10,
                "description": "Seconds one tool call may take (a server's own timeout_s overrides it).",
            },
            "connect_timeout_s": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": TIMEOUT_MAX_S,
                "default": 20,
                "description": "Seconds a server may take to start and list its tools.",
            },
            "max_tools": {
                "type": "integer",
                "minimum": 1,
                "default": 100,
                "description": "A server listing more tools than this is refused (none of its tools is registered).",
            },
        },
    },
}


@hookimpl
def agi_start_plugin(kernel: Any) -> None:
    """Connect to the configured servers and add their tools to the kernel's (see :mod:`.actuators`)."""
    from agi_plugin_mcp.actuators import start

    start(kernel)


@hookimpl
def agi_stop_plugin(kernel: Any) -> None:
    """Close the servers' connections (stdio servers stop)."""
    from agi_plugin_mcp.actuators import stop

    stop(kernel)


@hookimpl
def agi_register_commands(cli: Any) -> None:
    cli.add_lazy_command(
        "mcp",
        "agi_plugin_mcp.cli:mcp_group",
        "MCP: serve this agent to MCP hosts; list the tools it takes from MCP servers.",
    )
