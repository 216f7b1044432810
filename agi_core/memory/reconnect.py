"""Waiting for a store whose server went away: bounded backoff, one line on stderr.

A server backend raises :class:`~agi_core.errors.BackendUnavailable` when its server cannot be
reached, and offers ``reconnect()``: one try at reaching it again, raising the same error while it
is still away. :class:`Reconnect` retries that with a doubling delay (0.1 s up to 2 s), says once
on stderr that it is waiting and once that the server is back, and gives up after ``limit_s``
seconds of waiting with the last error, one line. A backend without ``reconnect`` (SQLite: a file
never goes away) is not waited for: the error is raised at once.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from agi_core.errors import BackendUnavailable

FIRST_DELAY_S = 0.1
MAX_DELAY_S = 2.0
T = TypeVar("T")


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class Reconnect:
    """Waits (no clock is read: the waited time is the sum of the delays slept) for ``store``'s server."""

    def __init__(
        self,
        store: object,
        limit_s: float,
        *,
        say: Callable[[str], None] = _stderr,
        stop: threading.Event | None = None,
    ) -> None:
        self.store, self.limit_s, self.say = store, limit_s, say
        self.stop = stop or threading.Event()  # set (SIGINT/SIGTERM under --follow): stop waiting, raise

    def wait(self, error: BackendUnavailable) -> None:
        """Return once ``store.reconnect()`` succeeds; raise :class:`BackendUnavailable` (one line) when
        the store cannot reconnect, after ``limit_s`` seconds of waiting, or when ``stop`` is set."""
        reconnect = getattr(self.store, "reconnect", None)
        if reconnect is None or self.limit_s <= 0:
            raise error
        limit = "until it is back" if self.limit_s == float("inf") else f"for up to {self.limit_s:g} s"
        self.say(f"agi: {error}; retrying {limit}")
        delay, waited = FIRST_DELAY_S, 0.0
        while waited < self.limit_s:
            pause = min(delay, self.limit_s - waited)
            if self.stop.wait(pause):
                break
            waited += pause
            delay = min(delay * 2, MAX_DELAY_S)
            try:
                reconnect()
            except BackendUnavailable as again:
                error = again
                continue
            self.say(f"agi: reconnected after {waited:.1f} s; going on")
            return
        raise BackendUnavailable(f"{error}; gave up after {waited:.0f} s; start the server, then run the command again")


def wait_to_open(open_store: Callable[[], T], stop: threading.Event, *, say: Callable[[str], None] = _stderr) -> T:
    """``open_store()``, tried again while it raises :class:`BackendUnavailable` (a follower started while its
    server is down): says so once, waits 0.1 s doubling to 2 s between tries as long as it takes, says once
    that it is up. Raises the last error, one line, when ``stop`` is set first (SIGINT or SIGTERM)."""
    try:
        return open_store()
    except BackendUnavailable as first:
        error = first
    say(f"agi: {error}; waiting until it is up")
    delay, waited = FIRST_DELAY_S, 0.0
    while not stop.wait(delay):
        waited += delay
        delay = min(delay * 2, MAX_DELAY_S)
        try:
            opened = open_store()
        except BackendUnavailable as again:
            error = again
            continue
        say(f"agi: connected after {waited:.1f} s; going on")
        return opened
    raise BackendUnavailable(f"{error}; stopped waiting after {waited:.0f} s")


def journal_holds(store: Any, tick: int, chain: str | None) -> bool:
    """Whether the journal's record of ``tick`` carries ``chain`` (so the tick that computed it committed)."""
    rows = store.journal_rows(since=tick - 1)
    try:
        first = next(iter(rows), None)
    finally:
        getattr(rows, "close", lambda: None)()
    return first is not None and first[0] == tick and first[3] == chain
