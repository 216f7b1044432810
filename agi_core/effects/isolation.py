"""Isolation of plugin calls: which exceptions a plugin may raise through the kernel.

None, except ``KeyboardInterrupt`` (the user stopping the agent) and the kernel's own
``ReplayMismatch`` (a replay that is not the recorded run). Everything else, ``SystemExit``
and other ``BaseException`` subclasses included, is caught at the call site and recorded
as a failure that names the plugin. ``os._exit`` ends the process before any handler
runs: no in-process isolation can catch it (documented in docs/reliability.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agi_core.errors import BackendUnavailable, ReplayMismatch, TransactionLost


def must_propagate(exc: BaseException) -> bool:
    """True for the exceptions a plugin call lets through: Ctrl-C, a replay mismatch, the store's server
    gone away (the plugin is not at fault: the tick cannot be stored, it waits and runs again), and the
    tick's transaction rolled back by the database (a full disk: the tick cannot be stored)."""
    return isinstance(exc, KeyboardInterrupt | ReplayMismatch | BackendUnavailable | TransactionLost)


def describe(exc: BaseException) -> str:
    """``TypeName: first line of the message`` (``SystemExit: 3``), for one-line reports."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


Report = Callable[[str, str, BaseException | str], None]


def isolated_reason(
    reason: Callable[[Any], Any],
    brain: str,
    plugin: str,
    report: Report,
    failed: Callable[[str, BaseException], Any],
) -> Callable[[Any], Any]:
    """``reason`` wrapped so that a failing brain gives ``failed(brain, exc)`` (the F4 reply) instead of failing
    the tick. What the brain wrote before failing is undone (a savepoint); its reads stay recorded.
    """

    def run(ctx: Any) -> Any:
        try:
            with ctx.store.savepoint("agi_brain"):
                return reason(ctx)
        except BaseException as exc:
            if must_propagate(exc):
                raise
            ctx.sem_writes.clear()  # the savepoint undid them
            report(plugin, f"brain {brain}", exc)
            return failed(brain, exc)

    return run
