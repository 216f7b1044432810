"""Replay: run a recorded journal again from the same seed and prove it identical.

The journal's ticks are fed to a fresh kernel (or one started from a checkpoint) in a
scratch folder; recorded externals are served back, so no tool runs and no model is
called. The rulebook's eleven fields, then the hook order, the modules' outputs (``modules``)
and the tick's plan, active goal and beliefs, are compared exactly; the first difference stops
the replay with its tick, field and both values.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
import orjson

from agi_core import journal, journal_form
from agi_core.errors import PluginError, ReplayMismatch
from agi_core.journal_key import JournalKey
from agi_core.memory import blobs
from agi_core.model import REPLAY_FIELDS, TICK_STATE_FIELDS, JournalRecord
from agi_core.plugins import Plugins, load_plugins
from agi_core.serialization import dumps, to_data

REPLAY_STOPPED = (
    "replay stopped: {reason}. The replayed tick asked for something the journal does not hold: the code or "
    "plugins differ from those that wrote it (another version of agi or of a plugin), or a plugin is not "
    "deterministic; replay with the versions that wrote the journal"
)


@attrs.frozen
class Mismatch:
    tick: int
    field: str
    expected: Any
    actual: Any
    reason: str | None = None  # replay could not go on (an external the journal does not hold): no values to diff
    # "tick N was written by agi-core V with plugins …; this is …" when the journal's recorded versions differ
    versions: str | None = None

    def headline(self) -> str:
        return f"REPLAY_MISMATCH tick={self.tick} field={self.field}"

    def diff(self) -> str:
        """A unified diff of the expected and actual values, pretty-printed as JSON; or why replay stopped."""
        if self.reason is not None:
            stopped = REPLAY_STOPPED.format(reason=self.reason.rstrip("."))
            return stopped + (f": {self.versions}" if self.versions else "")

        def lines(value: Any) -> list[str]:
            return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).splitlines()

        diff = difflib.unified_diff(
            lines(self.expected), lines(self.actual), "expected (journal)", "actual (replay)", lineterm=""
        )
        written = [f"{self.versions}; replay with the versions that wrote the journal"] if self.versions else []
        return "\n".join([*diff, *written])


@attrs.frozen
class ReplayReport:
    ticks: int
    first_tick: int
    mismatch: Mismatch | None = None
    fields: int = len(REPLAY_FIELDS)  # compared in every tick: 11, up to 16 in records that have the newer fields

    @property
    def ok(self) -> bool:
        return self.mismatch is None

    def summary(self) -> str:
        if self.mismatch is not None:
            return self.mismatch.headline()
        last = self.first_tick + self.ticks - 1
        return f"replay equal: {self.ticks} ticks ({self.first_tick}..{last}), {self.fields} fields each"


RECORDED_SINCE: tuple[str, ...] = ("hook_order", "modules")  # compared too, in records that have them (newer journals)


def compared_fields(recorded: dict[str, Any]) -> tuple[str, ...]:
    """The eleven rulebook fields, then ``hook_order``, ``modules``, the plan, the goal and the
    beliefs when the record has them (journals written before those fields lack them)."""
    stored_form = recorded.get("form") == journal_form.FORM  # it has the goal, left out when it is working memory's
    recorded = journal_form.expand(recorded)
    if stored_form:
        recorded = {"goal": None, **recorded}
    return (*REPLAY_FIELDS, *(field for field in (*RECORDED_SINCE, *TICK_STATE_FIELDS) if field in recorded))


def compare(recorded: dict[str, Any], actual: dict[str, Any]) -> Mismatch | None:
    """The first of :func:`compared_fields` whose canonical JSON differs, if any; both sides in the form
    :func:`agi_core.journal_form.comparable` gives them (a record stored either way, or a replayed tick)."""
    fields = compared_fields(recorded)
    tested = journal_form.by_reference(recorded), journal_form.by_reference(actual)  # references resolved or not
    recorded, actual = journal_form.comparable(recorded), journal_form.comparable(actual)  # shown
    for field in fields:
        value = tested[1].get(field)
        if field == "modules":
            value = _as_journaled(recorded.get(field), value)
        if dumps(tested[0].get(field)) != dumps(value):
            shown = _as_journaled(recorded.get(field), actual.get(field)) if field == "modules" else actual.get(field)
            return Mismatch(int(recorded["tick"]), field, recorded.get(field), shown)
    return None


def _as_journaled(recorded: Any, modules: Any) -> Any:
    """The replayed ``modules`` field without its module → plugin map when the record predates it."""
    if isinstance(modules, dict) and "plugins" in modules and "plugins" not in (recorded or {}):
        return {key: value for key, value in modules.items() if key != "plugins"}
    return modules


def require_tools(tools: Mapping[str, Any], record: dict[str, Any]) -> None:
    """Refuse to replay a tick whose tool no installed plugin provides: it could only mismatch."""
    action = record.get("action") or {}
    ran = (record.get("externals") or {}).get("tool_observation")
    if action.get("type") == "tool" and ran and action.get("name") not in tools:
        raise PluginError(
            f"tick {record['tick']} used tool {action.get('name')!r} which no installed plugin provides; "
            "install the plugin that provides it (agi plugins lists the installed ones)"
        )


def require_modules(installed: Iterable[str], record: dict[str, Any]) -> None:
    """Refuse to replay a tick that ran a module no installed plugin registers, naming the plugin to install."""
    journaled = record.get("modules") or {}
    missing = [name for name in journaled.get("order", ()) if name not in installed]
    if not missing:
        return
    module, plugin = missing[0], journal_form.plugin_of(record, missing[0])
    install = f"install plugin {plugin!r}" if plugin else "install the plugin that registers it"
    raise PluginError(
        f"tick {record['tick']} ran module {module!r}"
        + (f" of plugin {plugin!r}, which is not installed; " if plugin else " which no installed plugin registers; ")
        + f"{install} (agi plugins lists the installed ones)"
    )


def replay_records(
    records: Iterable[dict[str, Any] | str],
    *,
    seed: str,
    plugins: Plugins | None = None,
    start: Path | None = None,
    files: Path | None = None,
    resolve: Callable[[Any], Any] | None = None,
    key_file: Path | None = None,
    backend: str = "sqlite",
    produced: list[JournalRecord] | None = None,
    settings: Mapping[str, Mapping[str, Any]] | None = None,
    written_by: list[dict[str, Any]] | None = None,
    traced_as: tuple[str, str] | None = None,
    plugin_data: Mapping[str, str] | None = None,
) -> ReplayReport:
    """Replay journal ``records`` after the state in ``start`` (a checkpoint file), on ``backend``.

    With ``produced`` (a counterfactual replay), each replayed record is appended to it and
    nothing is compared; ``settings`` (``{plugin: {key: value}}``) are stored before the first tick.

    Records are dicts, or the JSON text as stored; with the text, a replayed tick whose
    canonical JSON is byte-identical needs no field-by-field comparison. ``files`` is the
    agent's ``<db>.state`` folder: its files (content-addressed, never rewritten) are
    copied beside the scratch database so services reading them see what they saw live.
    ``resolve`` turns blob references in stored text back into the strings they stand for.
    ``key_file`` is the agent's journal key, needed when ``start`` is one of its checkpoints.
    ``written_by`` is the journal's version history (:func:`agi_core.memory.versions_meta.history`):
    a mismatch names the versions that wrote its tick when they are not the running ones.
    ``traced_as`` (:func:`trace_names`): the agent and database the replay's traces name, not the scratch copy's.
    ``plugin_data`` are the agent's ``plugin_data:`` meta rows (what its plugins keep, such as MCP
    tool listings), stored in the scratch agent before it opens, so its plugins start as they did.
    The scratch kernel opens with ``replaying=True``: plugins start nothing outside it.
    """
    from agi_core.kernel import Kernel

    with tempfile.TemporaryDirectory(prefix="agi-replay-") as scratch:
        db = Path(scratch) / "replay.db"
        if start is not None:
            shutil.copyfile(start, db)
            if key_file is not None and key_file.is_file():
                shutil.copyfile(key_file, db.with_name(db.name + ".key"))
        if files is not None and files.is_dir():
            shutil.copytree(files, db.with_name(db.name + ".state"))
        plugins = plugins or load_plugins()
        if plugin_data:
            _store_plugin_data(db, backend, plugins, plugin_data)
        kernel = Kernel.open(
            db,
            seed=seed,
            plugins=plugins,
            synchronous="OFF",
            workspace=Path(scratch) / "workspace",
            backend=backend,
            replaying=True,
        )
        kernel.traced_as = traced_as
        if settings:
            _store_settings(kernel, settings)
        modules = {module.name for module in kernel.modules}
        first, count, fields = (
            kernel.tick_count + 1,
            0,
            len(REPLAY_FIELDS) + len(RECORDED_SINCE) + len(TICK_STATE_FIELDS),
        )
        try:
            for item in records:
                text = item if isinstance(item, str) else None
                record = orjson.loads(item) if isinstance(item, str) else item
                if resolve is not None and isinstance(item, str) and blobs.MARKER in item:
                    record = resolve(record)
                if record["tick"] <= kernel.tick_count:
                    continue
                require_tools(kernel.tools, record)
                if produced is None:  # a counterfactual may leave a module out on purpose
                    require_modules(modules, record)
                replayed = kernel.replay_tick(record)
                count += 1
                fields = min(fields, len(compared_fields(record)))
                if produced is not None:
                    produced.append(replayed)
                    continue
                if text is not None and kernel.last_journal_text == text:
                    continue
                mismatch = compare(record, to_data(replayed))
                if mismatch is not None:
                    versions = _versions_differ(kernel, written_by, mismatch.tick)
                    return ReplayReport(count, first, attrs.evolve(mismatch, versions=versions), fields)
        except ReplayMismatch as exc:
            tick = first + count
            versions = _versions_differ(kernel, written_by, tick)
            stopped = Mismatch(tick, "externals", None, None, reason=str(exc), versions=versions)
            return ReplayReport(count, first, stopped, fields)
        finally:
            kernel.close()
    return ReplayReport(count, first, fields=fields if count else len(REPLAY_FIELDS))


def _versions_differ(kernel: Any, written_by: list[dict[str, Any]] | None, tick: int) -> str | None:
    """Which versions wrote ``tick``, when the journal recorded them and they are not this replay's."""
    from agi_core.memory import versions_meta

    return versions_meta.difference(written_by or [], tick, kernel.plugins.versions()) if written_by else None


def trace_names(store: Any) -> tuple[str, str]:
    """The agent (``agi whoami``'s name) and database that the traces of a replay of ``store`` name."""
    from agi_core.messaging.address import agent_name

    return agent_name(store), str(Path(store.path).resolve())


def _store_plugin_data(db: Path, backend: str, plugins: Plugins, rows: Mapping[str, str]) -> None:
    """The agent's ``plugin_data:`` meta rows, written in the scratch agent before its kernel opens."""
    from agi_core.memory.settings_meta import DATA_PREFIX
    from agi_core.opening import open_store

    store = open_store(db, backend, plugins=plugins, synchronous="OFF")
    try:
        with store.tick_transaction():
            store.meta_update({key: value for key, value in rows.items() if key.startswith(DATA_PREFIX)})
    finally:
        store.close()


def plugin_data_rows(store: Any) -> dict[str, str]:
    """The ``plugin_data:`` meta rows of ``store`` (:func:`agi_core.memory.settings_meta.put_data`)."""
    from agi_core.memory.settings_meta import DATA_PREFIX

    return dict(store.meta_items(DATA_PREFIX))


def _store_settings(kernel: Any, settings: Mapping[str, Mapping[str, Any]]) -> None:
    """A counterfactual's settings, checked against their plugins' schemas, stored in the scratch agent and
    pinned: they hold in every replayed tick, over an environment value the journal recorded
    (``AGI_PLUGIN_<PLUGIN>_<KEY>`` set live) and over a ``config set`` the journal replays."""
    from agi_core.memory import settings_meta
    from agi_core.settings import schema

    declared = kernel.plugin_settings.declared
    pinned: dict[str, dict[str, Any]] = {}
    with kernel.store.tick_transaction():
        for plugin, values in settings.items():
            for key, value in values.items():
                schema.check_value(plugin, key, schema.schema_for(declared, plugin, key), value)
                settings_meta.put_setting(kernel.store, plugin, key, value)
                pinned.setdefault(plugin, {})[key] = value
    kernel.plugin_settings.pinned = pinned
    kernel.plugin_settings.forget()


def replay(
    db: str | Path,
    *,
    seed: str | None = None,
    plugins: Plugins | None = None,
    checkpoint: str | None = None,
    backend: str = "sqlite",
) -> ReplayReport:
    """Replay the journal of the agent database ``db`` (from a checkpoint, if named) with its stored seed.

    The replay runs on ``backend`` too; starting from a checkpoint needs SQLite (its copy is a file).
    """
    from agi_core.checkpoints import checkpoint_file
    from agi_core.determinism import Determinism
    from agi_core.errors import ConfigError
    from agi_core.journal_key import key_file, load
    from agi_core.kernel import stored_seed
    from agi_core.memory import versions_meta
    from agi_core.memory.backend import CheckpointTransfer
    from agi_core.memory.sqlite_store import SqliteStore
    from agi_core.opening import is_url, open_store

    store = open_store(db, backend, plugins=plugins)
    if is_url(db):
        backend = "sqlite"  # a server agent's journal replays into a scratch SQLite file
    files = Path(store.path).with_name(Path(store.path).name + ".state")
    stack = contextlib.ExitStack()
    try:
        seed = stored_seed(store, seed)
        if store.meta_get("seed_check") not in (None, Determinism(seed).sign("agi-seed-check")):
            raise ConfigError(f"{db} was created with another seed; replay it with the same --seed")
        key = load(store, seed)
        checkpoint = journal.start_checkpoint(store, key, checkpoint)  # archived: from the archive point
        if checkpoint and not isinstance(store, SqliteStore | CheckpointTransfer):
            raise ConfigError(
                f"replay from a checkpoint needs the sqlite backend, not {store.name!r}; replay from the start"
            )
        start = checkpoint_file(store, checkpoint) if checkpoint and isinstance(store, SqliteStore) else None
        if checkpoint and start is None:  # a copy that is no file: its rows built into one, as an import does
            start = _checkpoint_as_file(store, checkpoint, key, stack.enter_context(tempfile.TemporaryDirectory()))
        with store.read_snapshot():  # the journal verified, its head, versions and plugin data: one state
            verified = _require_intact_chain(store, key, db)
            base = journal.read_base(store, key)
            written_by = versions_meta.history(store)
            data = plugin_data_rows(store)
        # then the records verified, a batch at a time in short snapshots (no transaction held for the whole
        # replay, which would keep a live writer's WAL from being checkpointed), each batch checked to follow on
        rows = journal.rows_in_batches(store, key, verified, base.chain if base is not None else "")
        try:
            return replay_records(
                (text for _tick, _id, text, _chain in rows),
                seed=seed,
                plugins=plugins,
                start=start,
                files=files,
                resolve=lambda data: blobs.resolve(data, store.get_blob),
                key_file=key_file(store),
                backend=backend,
                written_by=written_by,
                traced_as=trace_names(store),
                plugin_data=data,
            )
        finally:
            rows.close()
    finally:
        store.close()
        stack.close()


def _checkpoint_as_file(store: Any, name: str, key: JournalKey, folder: str) -> Path:
    """Checkpoint ``name`` of a backend whose copies are no files (PostgreSQL's snapshot schemas), built into a
    SQLite file in ``folder`` from its rows (:class:`~agi_core.memory.backend.CheckpointTransfer`)."""
    from agi_core.memory.sqlite.checkpoint_transfer import build_file
    from agi_core.memory.transfer import TABLES

    tick = next(info.tick for info in store.checkpoint_list() if info.name == name)
    path = Path(folder) / "start.db"
    with store.checkpoint_rows(name, key) as rows:
        held = rows.table_names()
        build_file(path, name, tick, ((t, *rows.dump_table(t)) for t in TABLES if t in held), key)
    return path


def _require_intact_chain(store: Any, key: JournalKey, db: str | Path) -> journal.VerifyReport:
    """Refuse a journal whose chain or head does not verify: replay compares chosen fields only, so an
    edit elsewhere in a record (its action, say) would replay "equal"."""
    from agi_core.errors import ValidationError
    from agi_core.opening import shown

    report = journal.verify(store, key)
    if not report.ok:
        raise ValidationError(
            f"the journal of {shown(db)} does not verify ({report}); replay proves nothing about an edited journal: "
            "run agi journal verify"
        )
    return report
