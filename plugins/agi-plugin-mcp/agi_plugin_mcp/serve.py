"""The agent as an MCP server: tools ``tell``, ``ask``, ``search_memory``, ``goals``; resources for facts
and recent ticks.

Every tool call is one journaled tick whose input source is ``mcp:<client>`` (the client's name
from its ``clientInfo``), so ``agi replay`` replays it with no client. ``search_memory`` and
``goals`` are ticks of the read tools this plugin registers (``/search_memory …``, ``/goals``):
the tool-command path every brain's Stage-0 router already has. The resources only read.

The kernel is used from one thread (:class:`KernelThread`): MCP requests run one tick at a time.
This module imports ``mcp`` at the top (MCPServer reads the tools' annotations at run time); only
``agi mcp`` commands import it.
"""

import asyncio
import concurrent.futures
import json
import re
import shlex
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from agi_core import AgiError

RECENT_TICKS = 20
CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo"


def source_of(client: str | None) -> str:
    """``mcp:<client>``, the client's name folded into the input source's alphabet."""
    name = re.sub(r"[^a-z0-9_-]+", "-", (client or "").lower()).strip("-_")[:64]
    return f"mcp:{name if name[:1].isalnum() else 'client'}"


class KernelThread:
    """One thread that opens the kernel and runs every call on it, in order."""

    def __init__(self, open_kernel: Callable[[], Any]) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agi-mcp-kernel")
        self._open = open_kernel
        self._kernel: Any = None

    async def run(self, work: Callable[[Any], Any]) -> Any:
        """``work(kernel)`` on the kernel's thread; an ``AgiError`` becomes the call's one-line error."""

        def call() -> Any:
            if self._kernel is None:
                self._kernel = self._open()
            return work(self._kernel)

        try:
            return await asyncio.wrap_future(self._pool.submit(call))
        except AgiError as exc:  # MCPServer hides other exceptions' messages; this one is for the client
            raise ToolError(str(exc)) from None

    def close(self, closer: Callable[[], None]) -> None:
        self._pool.submit(closer).result()
        self._pool.shutdown()


def client_name(ctx: Any) -> str | None:
    """The calling client's name: its ``initialize`` clientInfo, or the per-request one (2026-07-28)."""
    try:
        params = ctx.session.client_params
        if params is not None and params.client_info is not None:
            return str(params.client_info.name)
    except Exception:  # noqa: BLE001 - a transport without a session: look in the request's meta
        pass
    meta = getattr(ctx.request_context, "meta", None) or {}
    info = meta.get(CLIENT_INFO_META_KEY) if isinstance(meta, dict) else getattr(meta, CLIENT_INFO_META_KEY, None)
    name = info.get("name") if isinstance(info, dict) else getattr(info, "name", None)
    return str(name) if name else None


def build_server(kernels: KernelThread) -> MCPServer:
    """The ``MCPServer`` whose tools run ticks through ``kernels``."""
    server: MCPServer = MCPServer(
        "agi-core",
        instructions="An agi-core agent: tell it facts, ask it questions, search its memory, list its goals.",
        log_level="WARNING",  # stderr stays for warnings (stdout is the stdio transport's)
    )
    changes = ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
    )
    reads = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    async def tick(text: str, ctx: Context, tool: str = "") -> str:
        """The reply of one tick on ``text``; a read tool's reply without its ``tool: `` prefix (JSON)."""
        source = source_of(client_name(ctx))

        def run(kernel: Any) -> str:
            # the client is the channel the user speaks through, not a speaker: "my name" is the user's
            record = kernel.tick(text, source=source, channel=source.removeprefix("mcp:"))
            return str(record.final_output) if record is not None else ""

        reply = str(await kernels.run(run))
        return reply.removeprefix(f"{tool}: ") if tool else reply

    @server.tool(annotations=changes)
    async def tell(text: str, ctx: Context) -> str:
        """Tell the agent something (a fact, a goal, an instruction); returns its reply. One journaled tick."""
        return await tick(text, ctx)

    @server.tool(annotations=changes)
    async def ask(question: str, ctx: Context) -> str:
        """Ask the agent a question; returns its answer. One journaled tick."""
        return await tick(question, ctx)

    @server.tool(annotations=reads)
    async def search_memory(query: str, ctx: Context, k: int = 5) -> str:
        """Search the agent's long-term memory; returns the hits as JSON. One journaled tick."""
        return await tick(f"/search_memory {shlex.quote(query)} k={int(k)}", ctx, "search_memory")

    @server.tool(annotations=reads)
    async def goals(ctx: Context) -> str:
        """The agent's goals (id, status, description, plan progress) as JSON. One journaled tick."""
        return await tick("/goals", ctx, "goals")

    @server.resource("agi://facts", mime_type="application/json")
    async def facts() -> str:
        """Every fact the agent knows: key, value, last update."""

        def read(kernel: Any) -> str:
            from agi_core.serialization import to_data

            return json.dumps([to_data(fact) for fact in kernel.store.facts()], ensure_ascii=False)

        return str(await kernels.run(read))

    @server.resource("agi://ticks/recent", mime_type="application/json")
    async def recent_ticks() -> str:
        """The last 20 ticks: number, input source, input, reply."""
        return str(await kernels.run(recent))

    return server


def recent(kernel: Any, count: int = RECENT_TICKS) -> str:
    """The last ``count`` journal records, summarised, oldest first."""
    rows = list(kernel.store.journal_rows(since=max(kernel.tick_count - count, 0)))
    summary = []
    for _tick, _id, text, _chain in rows[-count:]:
        record = json.loads(text)
        summary.append(
            {
                "tick": record["tick"],
                "source": record["input"]["source"],
                "input": record["input"]["raw"],
                "reply": record["final_output"],
            }
        )
    return json.dumps(summary, ensure_ascii=False)
