"""A stdio MCP server that speaks JSON-RPC but answers nonsense, for the fault tests.

It lists ``nonsense`` (whose answers are not a CallToolResult) and ``bad_schema`` (whose inputSchema
is not a JSON Schema), and ``fine``. No MCP library: the test needs answers the library would refuse
to send.
"""

from __future__ import annotations

import json
import sys

TOOLS = [
    {"name": "nonsense", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
    {"name": "bad_schema", "inputSchema": {"type": "object", "properties": {"x": {"type": 5}}}},
    {"name": "Fine-Tool", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
]


def answer(request: dict) -> dict | None:
    method = request.get("method")
    if "id" not in request:
        return None  # a notification
    if method == "initialize":
        result = {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call" and request["params"]["name"] == "nonsense":
        result = {"content": "this is not a list of content blocks", "isError": "maybe"}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "fine"}]}
    else:
        return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": f"no {method}"}}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


for line in sys.stdin:
    reply = answer(json.loads(line))
    if reply is not None:
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
