"""``agi serve``: the inspector on 127.0.0.1 (another address only with a token), read-only unless ``--allow-chat``."""

from __future__ import annotations

import os
import socket
from typing import Any

import click

from agi_core.errors import ConfigError
from agi_plugin_inspector.access import TOKEN_ENV, check_bind, is_loopback


@click.command("serve")
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to listen on; other than loopback needs --token."
)
@click.option("--port", type=click.IntRange(0, 65535), default=8377, show_default=True, help="Port (0: any free one).")
@click.option(
    "--token",
    default=None,
    envvar=TOKEN_ENV,
    help=f"Secret every request must carry (?token=, a cookie, or Authorization: Bearer); also {TOKEN_ENV}.",
)
@click.option("--allow-chat", is_flag=True, help="Let the chat box run ticks (default: read-only, no tick runs).")
@click.pass_obj
def serve(state: Any, host: str, port: int, token: str | None, allow_chat: bool) -> None:
    """Inspect the agent in a browser: ticks, replay, goals, modules, memory, checkpoints (read-only by default).

    Opens the existing agent of --db (SQLite file or backend URL; creates nothing) and serves
    server-rendered pages: the tick timeline (live while agi run --follow runs), one tick,
    a replay run with its first divergence, the goal graph, module states, memory search,
    checkpoints, and a chat box (with --allow-chat). See docs/inspector.md.
    """
    import uvicorn

    from agi_plugin_inspector.app import create_app

    token = token or os.environ.get(TOKEN_ENV) or None
    check_bind(host, token)
    app = create_app(state, allow_chat=allow_chat, token=token, host=host)
    sock = listening_socket(host, port)
    shown = f"[{host}]" if ":" in host else host
    mode = "chat allowed" if allow_chat else "read-only"
    click.echo(
        f"agi inspector on http://{shown}:{sock.getsockname()[1]}/ ({mode}{', token required' if token else ''}); "
        "Ctrl-C stops it",
        err=True,
    )
    if not is_loopback(host):
        click.echo("open it once with ?token=TOKEN; the browser then keeps a cookie", err=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        app.state.inspector.catch_up.stop()  # a memory search's embedding ends before the process does


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (port 0: a free one, printed), or a one-line error."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port or --host") from None
    sock.listen(64)
    return sock
