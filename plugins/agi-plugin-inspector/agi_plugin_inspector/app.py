"""The inspector's Starlette app: server-rendered pages over one open kernel, and a server-sent event stream.

Every page reads through :mod:`agi_plugin_inspector.views` under one lock (the kernel and its
store serve one caller at a time); the memory search's embedding runs beside it, taking the lock
only to list and to store (:mod:`agi_plugin_inspector.embedding`). Nothing but derived data (the
memories and their vectors) is written unless the app was made with ``allow_chat=True``, and then
only by the chat box's ticks.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import anyio
from jinja2 import Environment, FileSystemLoader
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from agi_core.errors import AgiError
from agi_plugin_inspector import dag, views
from agi_plugin_inspector.access import TokenGate, is_loopback, new_form_key, same
from agi_plugin_inspector.embedding import CatchUp

HERE = Path(__file__).resolve().parent
SHOWN_CHARS = 2000  # a value longer than this is cut in tables (the tick page shows it whole, wrapped)
CHAT_TURNS = 20
EMBED_WAIT_S = 2.0  # a search waits this long for the memories to be embedded, then shows how far it got
#: Journal records one event of the live stream reads (under the lock): a stream from far behind
#: (``/events?after=0`` on a journal of months) is sent a page at a time, the lock free between pages.
EVENT_TICKS = 200


def cut(value: Any, limit: int = SHOWN_CHARS) -> str:
    text = str(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def shown_json(value: Any) -> str:
    """``value`` as JSON a person reads: its characters as they are (an apostrophe, ``<``, ``é``), made inert by
    the page's escaping, not by JSON escapes (Jinja's ``tojson`` writes ``'`` as ``\\u0027``, for scripts)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def templates() -> Jinja2Templates:
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=True)  # stored text renders inert
    env.filters["cut"] = cut
    env.filters["json"] = shown_json
    return Jinja2Templates(env=env)


class Inspector:
    """The state one app serves: the CLI state (``db``, ``seed``, ``plugins``, ``open_kernel``) and its options."""

    def __init__(
        self, state: Any, *, allow_chat: bool = False, poll_s: float = 0.5, embed_wait_s: float = EMBED_WAIT_S
    ) -> None:
        self.state = state
        self.allow_chat = allow_chat
        self.poll_s = poll_s
        self.embed_wait_s = embed_wait_s
        self.lock = threading.Lock()
        self.form_key = new_form_key()
        self.kernel = state.open_kernel(existing=True, warn=False)
        self.catch_up = CatchUp(self.kernel, self.lock)
        self.templates = templates()

    def page(self, request: Request, name: str, status: int = 200, **context: Any) -> Response:
        context.update(
            allow_chat=self.allow_chat, db=shown_db(self.state.db), form_key=self.form_key, page=name.split(".")[0]
        )
        return self.templates.TemplateResponse(request, name, context, status_code=status)

    def read(self, function: Any, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            return function(*args, **kwargs)

    # -- pages ---------------------------------------------------------------------------
    def timeline(self, request: Request) -> Response:
        query = request.query_params
        filters = _filters(query)
        before = _int(query.get("before"))
        store = self.kernel.store
        with self.lock:
            found = views.timeline(store, filters, before)
            menus = views.choices(store)
            count = views.tick_count(store)
        return self.page(
            request,
            "timeline.html",
            rows=found.rows,
            filters=filters,
            menus=menus,
            count=count,
            older=found.older,
            searched=found.searched,
            live=before is None,  # the newest ticks: those journaled later that pass the filters come live
            filtered=urlencode({key: value for key, value in query.items() if key in FILTER_KEYS and value}),
        )

    def tick(self, request: Request) -> Response:
        number = int(request.path_params["tick"])
        if number > TICK_MAX:
            raise HTTPException(404, f"no tick {number} in this agent's journal")
        with self.lock:
            found = views.record(self.kernel.store, number)
            receipts = {row["tick"]: row for row in views.intents(self.kernel.store)}
            detail = None if found is None else views.tick_detail(found, self.kernel.store)
        if detail is None:
            raise HTTPException(404, f"no tick {number} in this agent's journal")
        return self.page(request, "tick.html", t=detail, intent=receipts.get(number))

    def replay(self, request: Request) -> Response:
        if request.query_params.get("run") is None:
            return self.page(request, "replay.html", report=None)
        from agi_core.replay import replay

        report = replay(self.state.db, seed=self.state.seed, plugins=self.state.plugins)  # its own scratch copy
        diverged = None
        if report.mismatch is not None:
            found = self.read(views.record, self.kernel.store, report.mismatch.tick)
            diverged = views.tick_detail(found) if found is not None else None
        return self.page(request, "replay.html", report=report, diverged=diverged)

    def goals(self, request: Request) -> Response:
        rows = self.read(views.goals, self.kernel.store)
        return self.page(
            request, "goals.html", goals=rows, graph=dag.layout(rows), node_w=dag.NODE_W, node_h=dag.NODE_H
        )

    def modules(self, request: Request) -> Response:
        with self.lock:
            loaded = views.modules(self.kernel)
            absent = views.absent_modules(self.kernel)
        return self.page(request, "modules.html", modules=loaded, absent=absent)

    def memory(self, request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        prefix = request.query_params.get("prefix", "")
        k = min(max(_int(request.query_params.get("k")) or 10, 1), 100)
        # the memories without a vector are embedded outside the lock (other pages keep answering); until
        # they are, the page says how far it got and reloads
        embedding = bool(query) and not self.catch_up.ready(self.embed_wait_s)
        hits = self.read(views.search, self.kernel, query, k) if query and not embedding else []
        facts = self.read(views.facts, self.kernel.store, prefix)
        return self.page(
            request, "memory.html", query=query, k=k, hits=hits, facts=facts, prefix=prefix,
            embedding=(self.catch_up.done, self.catch_up.total) if embedding else None,
        )  # fmt: skip

    def checkpoints(self, request: Request) -> Response:
        with self.lock:
            rows = views.checkpoints(self.kernel.store)
            intents = views.intents(self.kernel.store)
        return self.page(request, "checkpoints.html", checkpoints=rows, intents=intents)

    def chat(self, request: Request) -> Response:
        store = self.kernel.store
        with self.lock:
            count = views.tick_count(store)
            turns = [views.timeline_row(found) for found in views.journal(store, max(count - CHAT_TURNS, 0))]
        return self.page(request, "chat.html", turns=turns, error=request.query_params.get("error"))

    async def say(self, request: Request) -> Response:
        if not self.allow_chat:
            raise HTTPException(403, "this inspector is read-only; start it with agi serve --allow-chat to run ticks")
        form = await request.form()
        if not same(str(form.get("form_key", "")), self.form_key):
            raise HTTPException(403, "the form is from another page or an older server; reload the chat page")
        text = str(form.get("text", "")).strip()
        if text:
            record = await anyio.to_thread.run_sync(self._tick, text)
            return RedirectResponse(f"/chat#tick-{record.tick}", status_code=303)
        return RedirectResponse("/chat", status_code=303)

    def _tick(self, text: str) -> Any:
        limit = self.kernel.config.max_input_bytes
        if len(text.encode("utf-8", "replace")) > limit:
            raise HTTPException(413, f"the message is over {limit:,} bytes; send a shorter one")
        with self.lock:
            return self.kernel.tick(text)

    async def events(self, request: Request) -> Response:
        """Server-sent events: a ``tick`` event with the rendered timeline rows of every new tick (that passes the
        timeline's filters, given as its query parameters)."""
        from sse_starlette.sse import EventSourceResponse

        # a browser that reconnects sends the last event's id: it has the rows up to that tick already
        after = _int(request.headers.get("last-event-id"))
        if after is None:
            after = _int(request.query_params.get("after"))
        if after is None:
            after = self.read(views.tick_count, self.kernel.store)
        return EventSourceResponse(self._new_ticks(request, after, _filters(request.query_params)), ping=15)

    async def _new_ticks(self, request: Request, after: int, filters: views.Filters) -> AsyncIterator[dict[str, Any]]:
        row_template = self.templates.get_template("_rows.html")
        while not await request.is_disconnected():
            read_from = after
            after, rows = await anyio.to_thread.run_sync(self._rows_after, after, filters)
            if rows:
                yield {"event": "tick", "id": str(after), "data": row_template.render(rows=rows[::-1])}
            if after - read_from < EVENT_TICKS:  # caught up: wait for new ticks (else the next page at once)
                await anyio.sleep(self.poll_s)

    def _rows_after(
        self, after: int, filters: views.Filters | None = None, limit: int = EVENT_TICKS
    ) -> tuple[int, list[dict[str, Any]]]:
        """``(last, rows)``: the rows of the (at most ``limit``) ticks after ``after`` that pass ``filters``, and
        the last tick read (``after`` lowered to the journal's end when a rollback shortened it: the ticks that
        replace the undone ones are sent as they come)."""
        with self.lock:
            count = views.tick_count(self.kernel.store)
            after = min(after, count)
            if count <= after:
                return after, []
            read = itertools.islice(views.journal(self.kernel.store, after, limit), limit)
            rows = [views.timeline_row(found) for found in read]
            last = rows[-1]["tick"] if rows else after
            kept = rows if filters is None else [row for row in rows if filters.keeps(row)]
            return last, views.timed(self.kernel.store, kept)


def shown_db(db: Any) -> str:
    from agi_core.opening import shown

    return shown(db)


TICK_MAX = 2**62  # past any journal, and inside SQLite's 64-bit integers (a larger one raised OverflowError: a 500)


FILTER_KEYS = ("source", "agent", "code", "q")  # the timeline's filters, as query parameters


def _filters(query: Any) -> views.Filters:
    """The timeline's filters in a request's query parameters."""
    return views.Filters(
        source=query.get("source", ""), agent=query.get("agent", ""), code=query.get("code", ""),
        text=query.get("q", ""),
    )  # fmt: skip


def _int(value: str | None) -> int | None:
    """A query parameter as a whole number within ±:data:`TICK_MAX`; None when it is absent or none."""
    try:
        number = int(value) if value is not None and value != "" else None
    except ValueError:
        return None
    return None if number is None or abs(number) > TICK_MAX else number


def create_app(
    state: Any,
    *,
    allow_chat: bool = False,
    token: str | None = None,
    host: str = "127.0.0.1",
    poll_s: float = 0.5,
    embed_wait_s: float = EMBED_WAIT_S,
) -> Starlette:
    """The inspector of the agent ``state`` opens (an existing one: nothing is created)."""
    inspector = Inspector(state, allow_chat=allow_chat, poll_s=poll_s, embed_wait_s=embed_wait_s)

    async def error_page(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 400
        detail = exc.detail if isinstance(exc, HTTPException) else str(exc)
        return inspector.page(request, "error.html", status=status, message=detail)

    def threaded(handler: Any) -> Any:
        async def endpoint(request: Request) -> Response:
            return await anyio.to_thread.run_sync(handler, request)

        return endpoint

    routes = [
        Route("/", threaded(inspector.timeline), name="timeline"),
        Route("/ticks/{tick:int}", threaded(inspector.tick), name="tick"),
        Route("/replay", threaded(inspector.replay), name="replay"),
        Route("/goals", threaded(inspector.goals), name="goals"),
        Route("/modules", threaded(inspector.modules), name="modules"),
        Route("/memory", threaded(inspector.memory), name="memory"),
        Route("/checkpoints", threaded(inspector.checkpoints), name="checkpoints"),
        Route("/chat", threaded(inspector.chat), name="chat"),
        Route("/chat", inspector.say, methods=["POST"], name="say"),
        Route("/events", inspector.events, name="events"),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    middleware = [Middleware(TokenGate, token=token)]
    if is_loopback(host):  # a page of another site cannot reach it by a name that resolves to 127.0.0.1
        named = "[::1]" if host in ("::1", "[::1]") else host  # the bound address itself (127.0.0.2 too)
        allowed = list(dict.fromkeys(["127.0.0.1", "localhost", "[::1]", named]))
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed))
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={HTTPException: error_page, AgiError: error_page},
    )
    app.state.inspector = inspector
    return app
