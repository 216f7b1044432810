"""Built-in tools: respond, file read/list/write confined to the workspace, clock."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agi_core.errors import ToolError
from agi_core.hookspecs import Register, hookimpl

if TYPE_CHECKING:  # agi_core.tools and agi_core.model load when the tools register (a kernel opens), not for agi --help
    from agi_core.tools import Tool, ToolContext

MAX_READ_BYTES = 64 * 1024


def _respond(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"text": str(args.get("text", ""))}


def _file_read(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    from agi_core.tools import confined_path

    path = confined_path(context.workspace, args.get("path", ""))
    if not path.is_file():
        raise ToolError(f"no file {args.get('path')!r} in the workspace; list it with /file_list")
    data = path.read_bytes()[:MAX_READ_BYTES]
    text = data.decode("utf-8", errors="replace")
    return {"path": args["path"], "text": text, "truncated": path.stat().st_size > MAX_READ_BYTES}


def _file_list(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    from agi_core.tools import confined_path

    folder = confined_path(context.workspace, args.get("path") or ".")
    if folder == context.workspace.resolve() and not folder.exists():
        return {"entries": []}
    if not folder.is_dir():
        raise ToolError(f"no folder {args.get('path')!r} in the workspace")
    root = context.workspace.resolve()
    return {"entries": sorted(str(p.relative_to(root)) + ("/" if p.is_dir() else "") for p in folder.iterdir())}


def _file_write(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    from agi_core.tools import confined_path

    path = confined_path(context.workspace, args.get("path", ""))
    text = str(args.get("text", ""))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return {"path": args["path"], "bytes": len(text.encode("utf-8"))}


CLOCK_LABELS = {
    False: "deterministic: derived from the seed and a counter, not the wall clock",
    True: "live: the wall clock, recorded for replay",
}


def _clock(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"now": context.now(), "clock": CLOCK_LABELS[context.live]}


def builtin_tools() -> tuple[Tool, ...]:
    """The built-in tools (built when they register)."""
    from agi_core.model import ToolDefinition
    from agi_core.tools import Tool

    return (
        Tool(ToolDefinition("respond", "Reply to the user.", {"text": "string"}, "read"), _respond),
        Tool(
            ToolDefinition("file_read", "Read a text file inside the workspace.", {"path": "string"}, "read"),
            _file_read,
        ),
        Tool(
            ToolDefinition("file_list", "List a folder inside the workspace.", {"path": "string"}, "read"),
            _file_list,
        ),
        Tool(
            ToolDefinition(
                "file_write", "Write a text file inside the workspace.", {"path": "string", "text": "string"}, "write"
            ),
            _file_write,
        ),
        Tool(ToolDefinition("clock", "The current (deterministic) time.", {}, "read"), _clock),
    )


@hookimpl
def agi_register_actuators(register: Register) -> None:
    for tool in builtin_tools():
        register(tool)
