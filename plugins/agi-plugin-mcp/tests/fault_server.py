"""A small MCP server for the fault tests, run as ``python fault_server.py MODE`` (stdio).

Modes: ``ok`` (well-behaved tools), ``many`` (lists 500 tools), ``dead`` (exits before answering),
``http PORT`` (the ``ok`` tools over streamable HTTP on 127.0.0.1:PORT).
Its tools misbehave on request: ``crash`` kills the process mid-call, ``hang`` never answers,
``garbage`` writes a line that is not JSON-RPC to stdout before answering, ``fail`` reports an
error. ``echo`` counts its calls in the file named by ``FAULT_COUNT`` (to prove a refused call
never reached the server); each start is counted in the file named by ``FAULT_STARTS``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
if os.environ.get("FAULT_STARTS"):
    with Path(os.environ["FAULT_STARTS"]).open("a") as started:
        started.write("start\n")
if MODE == "dead":
    sys.exit("fault_server: told to die at start")

server = MCPServer("fault-server", log_level="WARNING")
READ = ToolAnnotations(read_only_hint=True)


@server.tool(annotations=READ, structured_output=False)
def echo(text: str, times: int = 1) -> str:
    """Echo the text."""
    count = os.environ.get("FAULT_COUNT")
    if count:
        with Path(count).open("a") as file:
            file.write("call\n")
    return " ".join([text] * times)


@server.tool(annotations=READ, structured_output=False)
def crash() -> str:
    """Kill the server in the middle of the call."""
    os._exit(3)


@server.tool(annotations=READ, structured_output=False)
def hang() -> str:
    """Never answer."""
    time.sleep(3600)
    return "late"


@server.tool(annotations=READ, structured_output=False)
def garbage() -> str:
    """Write a line that is not JSON-RPC on the protocol channel, then answer."""
    sys.stdout.write("this is not JSON-RPC {{{\n")
    sys.stdout.flush()
    return "after garbage"


@server.tool(annotations=READ, structured_output=False)
def fail() -> str:
    """Report an error."""
    raise ToolError("the disk is full")


@server.tool(annotations=ToolAnnotations(destructive_hint=True), structured_output=False)
def wipe() -> str:
    """A destructive tool (effect write)."""
    return "wiped"


@server.tool(
    annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
    structured_output=False,
)
def note(text: str) -> str:
    """An additive, closed-world tool (effect write)."""
    return f"noted {text}"


@server.tool(structured_output=False)
def fetch(url: str) -> str:
    """A tool without annotations (effect external)."""
    return f"fetched {url}"


if MODE == "many":
    for index in range(500):
        server.add_tool(lambda: "x", name=f"extra_{index:03d}", description="one of many")

if MODE == "http":
    server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
else:
    server.run("stdio")
