"""Connections to MCP servers, on an event loop of their own (one thread per kernel).

Each server has one :class:`Link`: a task that holds its ``mcp.Client`` open (entered and left in
that task, as anyio requires) and runs the requests queued to it, one at a time. Every request has
a limit; a request that overruns it, raises (a connection that broke, an answer that is not MCP) or
finds the connection closed ends the link (a stdio server is stopped) and the next request
connects again. A connection found closed before a request is sent (the server exited, or its
stream ended, while the agent was idle) is not a failure: the request goes to a new connection.
Only such a request is sent again; one that may have reached the server never is (a write tool
must not run twice). Every failure is an :class:`McpFailure` whose message is one line naming the
server and the fix.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import suppress
from pathlib import Path
from typing import Any

from agi_core.errors import ToolError

Job = Callable[[Any], Awaitable[Any]]
LIST_PAGES_MAX = 50  # a server whose listing never ends is refused after this many pages


class McpFailure(ToolError):
    """A server that could not be reached, did not answer in time or answered nonsense (one line)."""


class _NotSent(Exception):  # not an error: the link had closed before the request was sent
    """The link found its connection closed before sending the request: it ended, the request can go again."""


def closed(client: Any) -> bool:
    """Whether ``client``'s connection has closed (its stream ended: a stdio server exited): a request
    would not be sent. Read from the session's dispatcher, which sets it at the end of the stream."""
    dispatcher = getattr(getattr(client, "_session", None), "_dispatcher", None)
    return bool(getattr(dispatcher, "_closed", False))


def describe(exc: BaseException) -> str:
    """The innermost cause of ``exc`` (task groups wrap it), as one line."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text and text[0] else type(exc).__name__


class Link:
    """One server's connection: a task owning the client, fed through a queue."""

    def __init__(self, name: str, spec: dict[str, Any], log: Path, ending: set[asyncio.Task[None]]) -> None:
        self.name, self.spec, self.log = name, spec, log
        self._ending = ending  # the hub's abandoned link tasks, still unwinding (awaited when it closes)
        self._task: asyncio.Task[None] | None = None
        self._jobs: asyncio.Queue[tuple[Job, asyncio.Future[Any]] | None] = asyncio.Queue()

    def _client(self, errlog: Any) -> Any:
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters, stdio_client
        from mcp_types import Implementation

        info = Implementation(name="agi-core", version="0.1")
        if "url" in self.spec:
            return Client(self.spec["url"], client_info=info, cache=None)
        command, *args = self.spec["command"]
        params = StdioServerParameters(command=command, args=args, env=self.spec.get("env"), cwd=self.spec.get("cwd"))
        return Client(stdio_client(params, errlog=errlog), client_info=info, cache=None)

    async def _own(self, ready: asyncio.Future[None], jobs: asyncio.Queue[Any]) -> None:
        current: asyncio.Future[Any] | None = None
        self.log.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self.log.open("a", encoding="utf-8") as errlog:
                async with self._client(errlog) as client:
                    ready.set_result(None)
                    while (job := await jobs.get()) is not None:
                        run, current = job
                        if closed(client):  # it died while idle: nothing was sent, the request goes again
                            current.set_exception(_NotSent())
                            current = None
                            self._let_go()
                            return
                        try:
                            current.set_result(await run(client))
                        except McpFailure as exc:  # our own verdict on a good answer: the link goes on
                            current.set_exception(exc)
                        except Exception as exc:  # noqa: BLE001 - a broken link or a bad answer: reconnect next time
                            current.set_exception(exc)
                            self._let_go()
                            return
                        current = None
        except BaseException as exc:
            what = "closed the connection" if ready.done() else "failed to start"
            cause = McpFailure(f"mcp server {self.name!r} {what} ({describe(exc)}); {self.hint()}")
            for waiting in (ready, current):
                if waiting is not None and not waiting.done():
                    waiting.set_exception(cause)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._let_go()
            self._fail_queued(jobs)

    def _let_go(self) -> None:
        """Called by the link's own task as it ends: the next request starts a new link."""
        if self._task is asyncio.current_task():
            self._task = None

    def _fail_queued(self, jobs: asyncio.Queue[Any]) -> None:
        while not jobs.empty():
            job = jobs.get_nowait()
            if job is not None and not job[1].done():
                job[1].set_exception(McpFailure(f"mcp server {self.name!r} closed the connection; {self.hint()}"))

    def hint(self) -> str:
        where = self.spec.get("url") or " ".join(self.spec.get("command", []))
        return f"check that `{where}` runs (its stderr is in {self.log})"

    async def request(self, run: Job, limit: float, what: str, connect_s: float, *, within: bool = False) -> Any:
        """``run(client)`` on this server within ``limit`` seconds, after connecting (within ``connect_s``)
        if the link is not up; ``within``: connecting and the request together within ``connect_s`` (a
        listing)."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        setting = "the agent's --timeout, the mcp setting timeout_s or the server's own timeout_s"
        for _ in range(2):  # a second time only when the link had closed before sending it
            if self._task is None or self._task.done():
                self._jobs = asyncio.Queue()
                ready: asyncio.Future[None] = loop.create_future()
                self._task = loop.create_task(self._own(ready, self._jobs))
                await self._wait(ready, "start and connect", connect_s, "the mcp setting connect_timeout_s")
            done: asyncio.Future[Any] = loop.create_future()
            await self._jobs.put((run, done))
            if within:
                limit, setting = max(connect_s - (loop.time() - started), 0.001), "the mcp setting connect_timeout_s"
            try:
                return await self._wait(done, what, limit, setting, shown=connect_s if within else None)
            except _NotSent:
                continue
        raise McpFailure(f"mcp server {self.name!r} closed the connection as it started; {self.hint()}")

    async def _wait(
        self, future: asyncio.Future[Any], what: str, limit: float, setting: str, shown: float | None = None
    ) -> Any:
        try:
            return await asyncio.wait_for(asyncio.shield(future), limit)
        except TimeoutError:
            future.add_done_callback(_retrieved)  # the link's task fails it as it stops: nobody waits any more
            self.abandon()
            raise McpFailure(
                f"mcp server {self.name!r} did not {what} within {shown or limit:g} s; it was stopped (raise {setting})"
            ) from None

    def abandon(self) -> None:
        """End the link now, without waiting (a stdio server is stopped as its task unwinds)."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            self._ending.add(task)
            task.add_done_callback(self._ending.discard)

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is None or task.done():
            return
        self._jobs.put_nowait(None)
        with suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(task), 5)
        if not task.done():
            task.cancel()
            with suppress(BaseException):
                await asyncio.wait_for(task, 10)


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Take the outcome of a future whose waiter gave up (else asyncio prints "Future exception was never
    retrieved" and a traceback for it)."""
    if not future.cancelled():
        future.exception()


class Hub:
    """The links of one kernel, and the thread whose event loop runs them."""

    def __init__(self, logs: Path, connect_s: float) -> None:
        self.logs, self.connect_s = logs, connect_s
        self._links: dict[str, Link] = {}
        self._ending: set[asyncio.Task[None]] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="agi-mcp", daemon=True)
        self._thread.start()

    def _run(self, coroutine: Coroutine[Any, Any, Any], limit: float) -> Any:
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            return future.result(limit + self.connect_s + 15)  # the link's own limits fire first
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise McpFailure("the MCP event loop did not answer; restart the agent") from None

    def link(self, name: str, spec: dict[str, Any]) -> Link:
        if name not in self._links or self._links[name].spec != spec:
            self._links[name] = Link(name, spec, self.logs / f"{name}.stderr.log", self._ending)
        return self._links[name]

    def list_tools(self, servers: dict[str, dict[str, Any]], limit: float, max_tools: int) -> dict[str, Any]:
        """``{server: its tools (all pages) or the McpFailure}``, the servers asked at once; a server
        listing more than ``max_tools`` fails."""

        def listing(name: str) -> Job:
            async def run(client: Any) -> list[Any]:
                tools: list[Any] = []
                cursor = None
                for _ in range(LIST_PAGES_MAX):
                    page = await client.list_tools(cursor=cursor)
                    tools.extend(page.tools)
                    if len(tools) > max_tools:
                        raise McpFailure(
                            f"mcp server {name!r} lists more than {max_tools} tools; none of them is registered "
                            "(raise the mcp setting max_tools, or configure a smaller server)"
                        )
                    cursor = page.next_cursor
                    if cursor is None:
                        return tools
                raise McpFailure(f"mcp server {name!r} lists tools in more than {LIST_PAGES_MAX} pages; fix the server")

            return run

        async def all_servers() -> dict[str, Any]:
            asked = [
                self._guarded(name, spec, listing(name), limit, "list its tools", within=True)
                for name, spec in servers.items()
            ]
            return dict(zip(servers, await asyncio.gather(*asked, return_exceptions=True), strict=True))

        return self._run(all_servers(), limit)  # type: ignore[no-any-return]

    def call_tool(self, name: str, spec: dict[str, Any], tool: str, args: dict[str, Any], limit: float) -> Any:
        """The server's ``CallToolResult`` for ``tool(args)``."""
        job: Job = lambda client: client.call_tool(tool, args)  # noqa: E731
        return self._run(self._guarded(name, spec, job, limit, f"answer {tool!r}"), limit)

    async def _guarded(
        self, name: str, spec: dict[str, Any], job: Job, limit: float, what: str, *, within: bool = False
    ) -> Any:
        """``job`` on the server's link; every failure an :class:`McpFailure`."""
        try:
            return await self.link(name, spec).request(job, limit, what, self.connect_s, within=within)
        except McpFailure:
            raise
        except Exception as exc:  # noqa: BLE001 - a protocol error or a malformed answer: one line
            raise McpFailure(f"mcp server {name!r} failed to {what}: {describe(exc)}") from None

    def close(self) -> None:
        """Close every link (stdio servers stop), then the loop."""

        async def close_all() -> None:
            await asyncio.gather(*(link.close() for link in self._links.values()), return_exceptions=True)
            if self._ending:  # abandoned links: let them stop their servers
                await asyncio.wait(list(self._ending), timeout=10)

        with suppress(BaseException):
            self._run(close_all(), 15)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()
