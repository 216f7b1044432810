"""Named fault-injection points, for the kill-point benchmark and the crash tests.

``AGI_FAULT=<point>:<n>`` makes the process SIGKILL itself the ``n``-th time (1-based) it
reaches ``fault_point("<point>")``; unset, a point costs one dictionary lookup. The points
sit between the steps whose order makes storage atomic (see docs/reliability.md):
``migration`` (before each step), ``migration.done`` (after a step, before its record),
``checkpoint.copied``, ``checkpoint.renamed``, ``rollback.attached``,
``rollback.copied``, ``seal``, ``tick.before_commit``, ``message.committed`` (a message's tick
committed, its delivery not yet acknowledged), ``message.published`` (an outbox row published,
not yet marked), and ``agi import``'s
``import.rows``, ``import.built``, ``import.linked`` (:mod:`agi_core.agent_import`), and ``agi journal
archive``'s ``archive.header``, ``archive.written``, ``archive.deleted`` (:mod:`agi_core.archive`).
"""

from __future__ import annotations

import os
import signal

_PLAN: dict[str, int] = {}
_SEEN: dict[str, int] = {}


def _load(spec: str) -> None:
    for item in filter(None, spec.split(",")):
        point, _, count = item.partition(":")
        _PLAN[point] = int(count or 1)


def fault_point(point: str) -> None:
    """SIGKILL this process here if ``AGI_FAULT`` asks for it (the real signal, no cleanup)."""
    if point not in _PLAN:
        return
    _SEEN[point] = _SEEN.get(point, 0) + 1
    if _SEEN[point] == _PLAN[point]:
        os.kill(os.getpid(), signal.SIGKILL)


_load(os.environ.get("AGI_FAULT", ""))
