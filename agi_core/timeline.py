"""The agent's timeline as a Python API: :meth:`Kernel.checkpoint`, :meth:`Kernel.rollback`, :meth:`Kernel.replay`.

``replay(compare=False, overrides=...)`` is a counterfactual replay: the journal runs again in a
scratch copy (the agent itself is never touched), with other plugins or settings, and the records
it produced come back, so a module can score what would have happened with a change.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agi_core import journal
from agi_core.errors import ConfigError
from agi_core.memory import blobs

if TYPE_CHECKING:
    from agi_core.kernel import Kernel
    from agi_core.model import JournalRecord
    from agi_core.replay import ReplayReport

OVERRIDES = ("plugins", "settings")


def replay(
    kernel: Kernel,
    *,
    checkpoint: str | None = None,
    compare: bool = True,
    overrides: Mapping[str, Any] | None = None,
) -> ReplayReport | list[JournalRecord]:
    """Replay ``kernel``'s journal in a scratch copy (from ``checkpoint`` if named).

    ``compare=True``: a :class:`~agi_core.replay.ReplayReport` (the first difference ends it).
    ``compare=False``: the records the replay produced, compared with nothing; ``overrides``
    may give ``plugins`` (another plugin set) and ``settings`` (``{plugin: {key: value}}``,
    stored in the scratch copy before the first replayed tick).
    """
    from agi_core.checkpoints import checkpoint_file
    from agi_core.journal_key import key_path
    from agi_core.memory import versions_meta
    from agi_core.memory.sqlite_store import SqliteStore
    from agi_core.replay import plugin_data_rows, replay_records, trace_names

    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(OVERRIDES))
    if unknown:
        raise ConfigError(f"replay cannot override {unknown[0]!r}; overrides are {', '.join(OVERRIDES)}")
    if compare and overrides:
        raise ConfigError("overrides make a counterfactual replay; pass compare=False")
    store = kernel.store
    checkpoint = journal.start_checkpoint(store, kernel.journal_key, checkpoint)  # archived: from the archive point
    if checkpoint and not isinstance(store, SqliteStore):
        raise ConfigError(f"replay from a checkpoint needs the sqlite backend, not {store.name!r}")
    path = Path(store.path)
    produced: list[JournalRecord] = []
    report = replay_records(
        [text for _tick, _id, text, _chain in store.journal_rows()],
        seed=kernel.config.seed,
        plugins=overrides.get("plugins") or kernel.plugins,
        start=checkpoint_file(store, checkpoint) if checkpoint and isinstance(store, SqliteStore) else None,
        files=path.with_name(path.name + ".state"),
        resolve=lambda data: blobs.resolve(data, store.get_blob),
        key_file=key_path(path),
        produced=None if compare else produced,
        settings=overrides.get("settings"),
        written_by=versions_meta.history(store),
        traced_as=trace_names(store),
        plugin_data=plugin_data_rows(store),
    )
    if compare:
        return report
    if report.mismatch is not None:  # the changed run asked the outside for something the journal does not hold
        from agi_core.errors import ReplayMismatch

        raise ReplayMismatch(f"counterfactual replay stopped at tick {report.mismatch.tick}: {report.mismatch.reason}")
    return produced
