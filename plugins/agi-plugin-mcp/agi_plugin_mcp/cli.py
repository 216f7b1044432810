"""``agi mcp``: ``serve`` (the agent as an MCP server) and ``tools`` (the MCP servers' tools it has)."""

from __future__ import annotations

import json
from typing import Any

import click

from agi_plugin_mcp.plugin import NAME


@click.group("mcp")
def mcp_group() -> None:
    """MCP: serve this agent to MCP hosts; list the tools it takes from MCP servers."""


@mcp_group.command("serve")
@click.option(
    "--http",
    "port",
    type=click.IntRange(1, 65535),
    metavar="PORT",
    help="Serve streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio.",
)
@click.option(
    "--allow-tool",
    "allow_tools",
    multiple=True,
    metavar="NAME",
    help="Let ticks run this write/external tool (repeatable).",
)
@click.pass_obj
def serve(state: Any, port: int | None, allow_tools: tuple[str, ...]) -> None:
    """Serve the agent over MCP (stdio by default): tools tell, ask, search_memory, goals; resources
    agi://facts and agi://ticks/recent. Every tool call is a journaled tick from source mcp:<client>."""
    from agi_core import ToolPolicy
    from agi_plugin_mcp.serve import KernelThread, build_server

    kernels = KernelThread(lambda: state.open_kernel(policy=ToolPolicy(allow_tools=frozenset(allow_tools))))
    server = build_server(kernels)
    try:
        if port is None:
            server.run("stdio")
        else:
            click.echo(f"agi: serving MCP on http://127.0.0.1:{port}/mcp", err=True)
            server.run("streamable-http", host="127.0.0.1", port=port)
    finally:
        kernels.close(state.close)


@mcp_group.command("tools")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array: name, effect, parameters, description.")
@click.pass_obj
def tools(state: Any, as_json: bool) -> None:
    """List the tools this agent takes from MCP servers, asking each configured server again."""
    from agi_plugin_mcp.actuators import relist

    kernel = state.open_kernel(existing=True)
    relist(kernel)
    found = [t for name, t in sorted(kernel.tools.items()) if kernel.tool_plugins.get(name) == NAME and "." in name]
    if as_json:
        rows = [
            {
                "name": t.name,
                "effect": t.effect,
                "parameters": t.definition.parameters,
                "description": t.definition.description,
            }
            for t in found
        ]
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for tool in found:
        params = ", ".join(f"{k}: {v}" for k, v in tool.definition.parameters.items())
        click.echo(f"{tool.name} [{tool.effect}] ({params}) {tool.definition.description}")
