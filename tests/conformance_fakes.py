"""Deliberately broken memory backends (fakes, named as such): each breaks one rule of the contract.

Each is the real SQLite backend with one realistic defect, registered under its own name by
this module (a plugin): tests/test_conformance_fakes.py runs the conformance suite against
each and checks that the checks for that rule fail.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from agi_core.hookspecs import Register, hookimpl
from agi_core.journal_key import JournalKey
from agi_core.memory.backend import CheckpointInfo, RollbackReport
from agi_core.memory.keys import MAX_KEY_CHARS
from agi_core.memory.sqlite_store import SqliteStore
from agi_core.model import EpisodicEntry, SemanticEntry, SemanticRead, WorkingMemory


class FakeCommitsFailedTicks(SqliteStore):
    """Commits what a failed transaction wrote (an ``except: commit`` in the wrong place)."""

    @contextlib.contextmanager
    def tick_transaction(self) -> Iterator[None]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            self.conn.execute("COMMIT")


class FakeSavepointKeepsFailedStep(SqliteStore):
    """Has no savepoints: a failed step's writes stay in the tick."""

    def savepoint(self, name: str) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()


class FakeBlindDataVersion(SqliteStore):
    """Never reports another process's commits, so kernels keep stale caches."""

    def data_version(self) -> int:
        return 0


class FakeFirstWriteWins(SqliteStore):
    """Never overwrites a stored fact."""

    def sem_write(self, entry: SemanticEntry, tick: int) -> bool:
        if self.sem_read(entry.key).exists:
            return False
        return super().sem_write(entry, tick)


class FakeUnorderedFacts(SqliteStore):
    """Lists facts in storage order, not key order."""

    def facts(self, prefix: str = "", limit: int | None = None) -> list[SemanticEntry]:
        found = super().facts(prefix)[::-1]
        return found if limit is None else found[:limit]


class FakeJsonbJournal(SqliteStore):
    """Keeps journal records as parsed JSON (like a JSONB column): the text read back is not the text written."""

    def journal_rows(self, since: int = 0) -> Iterator[tuple[int, str, str, str]]:
        for tick, record_id, text, chain in super().journal_rows(since):
            yield tick, record_id, json.dumps(json.loads(text), sort_keys=True), chain


class FakeRollbackKeepsFacts(SqliteStore):
    """Rolls back everything but the facts."""

    def checkpoint_rollback(self, name: str, key: Any, rollback_id: Callable[[int, int], str]) -> RollbackReport:
        kept = self.facts()
        report = super().checkpoint_rollback(name, key, rollback_id)
        with self.tick_transaction():
            for entry in kept:
                super().sem_write(entry, 0)
        return report


class FakeRemoveTakesTheNewest(SqliteStore):
    """Removes the newest checkpoint, whatever the name (when the name exists)."""

    def checkpoint_remove(self, name: str) -> CheckpointInfo:
        listed = self.checkpoint_list()
        if name in {info.name for info in listed}:
            name = listed[-1].name
        return super().checkpoint_remove(name)


class FakeWorkingInMemory(SqliteStore):
    """Keeps working memory in the object instead of storing it."""

    held = WorkingMemory()

    def set_working(self, memory: WorkingMemory) -> None:
        self.held = memory

    def working(self) -> WorkingMemory:
        return self.held


class FakeSealBlind(SqliteStore):
    """Never finds a difference between the stored rows and the seal."""

    def seal_problems(self, key: Any, head_tick: int) -> list[str]:
        return []


class FakeTruncatingKeys(SqliteStore):
    """Cuts long keys to the limit (like a VARCHAR column) instead of refusing them."""

    def sem_write(self, entry: SemanticEntry, tick: int) -> bool:
        return super().sem_write(attrs.evolve(entry, key=entry.key[:MAX_KEY_CHARS]), tick)

    def sem_read(self, key: str) -> SemanticRead:
        return super().sem_read(key[:MAX_KEY_CHARS])


class FakeLowercasingKeys(SqliteStore):
    """Folds keys to lower case (a case-insensitive collation) instead of refusing them."""

    def sem_write(self, entry: SemanticEntry, tick: int) -> bool:
        return super().sem_write(attrs.evolve(entry, key=entry.key.lower()), tick)

    def sem_read(self, key: str) -> SemanticRead:
        return super().sem_read(key.lower())


class FakeNanAsNull(SqliteStore):
    """Stores NaN and infinity as null (what a JSON encoder does by default)."""

    def sem_write(self, entry: SemanticEntry, tick: int) -> bool:
        return super().sem_write(attrs.evolve(entry, value=_nan_to_none(entry.value)), tick)


class FakeTruncatingText(SqliteStore):
    """Keeps 255 characters of each text (a VARCHAR(255) column)."""

    def store_text(self, text: str) -> str:
        return super().store_text(text[:255])


class FakeRawSurrogates(SqliteStore):
    """Hands text to the database as it is: a lone surrogate makes the driver raise."""

    def store_text(self, text: str) -> str:
        return text


class FakeForgetsMetaOnClose(SqliteStore):
    """Keeps the ``counter`` meta row in the object: it is gone after reopening."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.held: dict[str, str] = {}

    def meta_update(self, values: dict[str, str]) -> None:
        self.held.update({k: v for k, v in values.items() if k == "counter"})
        super().meta_update({k: v for k, v in values.items() if k != "counter"})

    def meta_get(self, key: str, default: str | None = None) -> str | None:
        return self.held.get(key, default) if key == "counter" else super().meta_get(key, default)


class FakeBigIntsAsFloats(SqliteStore):
    """Reads integers back as doubles (a JSON column without 64-bit integers)."""

    def load_json(self, text: str) -> Any:
        return _ints_to_floats(super().load_json(text))


class FakeMissAsNull(SqliteStore):
    """Answers a miss with an existing null fact."""

    def sem_read(self, key: str) -> SemanticRead:
        found = super().sem_read(key)
        return found if found.exists else SemanticRead(exists=True, value=None, last_updated="")


class FakeUpsertJournal(SqliteStore):
    """Replaces a journaled tick instead of refusing it."""

    def append_journal(self, tick: int, record_id: str, record_json: str, chain: str) -> None:
        self.conn.execute("DELETE FROM journal WHERE tick = ?", (tick,))
        super().append_journal(tick, record_id, record_json, chain)


class FakeValuesAsStrings(SqliteStore):
    """Stores what is not JSON as its ``str()`` (an encoder with ``default=str``)."""

    def sem_write(self, entry: SemanticEntry, tick: int) -> bool:
        value = entry.value if isinstance(entry.value, dict | list | str | int | float | None) else str(entry.value)
        return super().sem_write(attrs.evolve(entry, value=value), tick)


class FakeEpisodesByTimestamp(SqliteStore):
    """Orders episodes by their timestamp instead of their insertion order."""

    def episodes(self, limit: int | None = None, *, newest_first: bool = False) -> list[EpisodicEntry]:
        found = sorted(super().episodes(), key=lambda entry: entry.timestamp, reverse=newest_first)
        return found if limit is None else found[:limit]


class FakeIntentsByInsertion(SqliteStore):
    """Lists intents in insertion order instead of tick order."""

    def intents(self, *, pending_only: bool = False) -> list[tuple[int, str, dict[str, Any], int | None]]:
        found = super().intents(pending_only=pending_only)
        return sorted(found, key=lambda intent: self._inserted.index(intent[0]))

    def intent_add(self, tick: int, tool: str, args_json: str) -> None:
        self._inserted = [*getattr(self, "_inserted", []), tick]
        super().intent_add(tick, tool, args_json)


class FakeJobsUnordered(SqliteStore):
    """Lists jobs in reverse name order."""

    def all_jobs(self) -> list[dict[str, Any]]:
        return super().all_jobs()[::-1]


class FakeModuleStateShared(SqliteStore):
    """Keeps module state in one namespace: every module sees the others' keys."""

    def module_state_put(self, module: str, key: str, value: Any, tick: int = 0, *, text: str | None = None) -> None:
        super().module_state_put("shared", key, value, tick, text=text)

    def module_state_get(self, module: str, key: str, default: Any = None) -> Any:
        return super().module_state_get("shared", key, default)

    def module_state_items(self, module: str) -> list[tuple[str, Any]]:
        return super().module_state_items("shared")


class FakeNoModuleState(SqliteStore):
    """Has no module state at all (a backend written before the part existed), yet claims the whole protocol."""

    module_state_get = module_state_put = module_state_delete = module_state_items = module_state_sizes = None


class FakeSealSkipsModuleState(SqliteStore):
    """Its seal does not cover module state: rows edited outside the journal go unnoticed."""

    def seal_problems(self, key: JournalKey, head_tick: int) -> list[str]:
        return [p for p in super().seal_problems(key, head_tick) if not p.startswith("module_state ")]


class FakeGoalsMoveOnUpdate(SqliteStore):
    """An updated goal moves to the end of the order (a replace instead of an update)."""

    def put_goal(self, goal: dict[str, Any]) -> None:
        self.delete_goal(goal["id"])
        super().put_goal(goal)


class FakeGoalsRankedByAge(SqliteStore):
    """Ranks goals by age only, ignoring their priority (the next active goal would be the oldest)."""

    def goals_ranked(self, status: str, limit: int | None = None) -> list[dict[str, Any]]:
        return [goal for goal in self.goals() if goal["status"] == status][:limit]


class FakeMetaFirstWins(SqliteStore):
    """Keeps the first value of a meta key."""

    def meta_update(self, values: dict[str, str]) -> None:
        super().meta_update({k: v for k, v in values.items() if self.meta_get(k) is None})


class FakeWorkingMerges(SqliteStore):
    """Merges a new working memory's turns into the stored ones instead of replacing it."""

    def set_working(self, memory: WorkingMemory) -> None:
        turns = [*self.working().recent_turns, *memory.recent_turns]
        super().set_working(attrs.evolve(memory, recent_turns=turns))


class FakeTimingsFirstWins(SqliteStore):
    """Keeps the first duration stored for a tick (an INSERT OR IGNORE)."""

    def tick_timing_put(self, tick: int, duration_us: int) -> None:
        if not self.tick_timings(tick, tick):
            super().tick_timing_put(tick, duration_us)


class FakeNoTickTimings(SqliteStore):
    """Keeps no tick timings (a backend written before the part existed), yet claims the whole protocol."""

    tick_timing_put = tick_timings = None


class FakeRollbackKeepsTimings(SqliteStore):
    """Rollback restores everything but the tick timings: those of the undone ticks stay."""

    def checkpoint_rollback(self, name: str, key: JournalKey, rollback_id: Callable[[int, int], str]) -> RollbackReport:
        kept = self.tick_timings(0, 2**62)
        report = super().checkpoint_rollback(name, key, rollback_id)
        with self.tick_transaction():
            for tick, duration_us in kept.items():
                self.tick_timing_put(tick, duration_us)
        return report


class FakeNulAsReplacement(SqliteStore):
    """Stores a goal's and a job's texts with U+FFFD for a NUL (a backend whose TEXT holds none, done the
    lazy way): "learn Sp\x00anish" comes back changed, so a goal listed live and in replay differ."""

    def put_goal(self, goal: dict[str, Any]) -> None:
        super().put_goal(_nul_replaced(goal))

    def put_job(self, job: dict[str, Any]) -> None:
        super().put_job(_nul_replaced(job))


class FakeSealSkipsVersions(SqliteStore):
    """Its seal does not cover the version history: a history rewritten outside the journal goes unnoticed."""

    def seal_problems(self, key: JournalKey, head_tick: int) -> list[str]:
        return [p for p in super().seal_problems(key, head_tick) if "'versions'" not in p]


class FakeTransferReadsLive(SqliteStore):
    """Reads a checkpoint's rows from the live database instead of the checkpoint's copy."""

    def checkpoint_rows(self, name: str, key: JournalKey) -> contextlib.AbstractContextManager[Any]:
        self.checkpoint_problems(name, key)
        return contextlib.nullcontext(self)


class FakeTransferAnyTick(SqliteStore):
    """Builds a checkpoint from rows of any tick, listed at the tick they hold (the one it was given unchecked)."""

    def checkpoint_load(self, name: str, tick: int, tables: Any, key: JournalKey) -> CheckpointInfo:
        tables = list(tables)
        meta = next(dict((row[0], row[1]) for row in rows) for table, _columns, rows in tables if table == "meta")
        return super().checkpoint_load(name, int(meta.get("tick", tick)), tables, key)


class FakeTransferCommitsAlone(SqliteStore):
    """Commits a loaded checkpoint's row at once instead of with the caller's transaction."""

    def checkpoint_load(self, name: str, tick: int, tables: Any, key: JournalKey) -> CheckpointInfo:
        info = super().checkpoint_load(name, tick, tables, key)
        self.conn.execute("COMMIT")
        self.conn.execute("BEGIN IMMEDIATE")
        return info


def _nul_replaced(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v.replace("\x00", "\ufffd") if isinstance(v, str) else v for k, v in row.items()}


def _ints_to_floats(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, dict):
        return {k: _ints_to_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_ints_to_floats(v) for v in value]
    return value


def _nan_to_none(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_to_none(v) for v in value]
    return value


FAKES = {
    "fake_commits_failed_ticks": FakeCommitsFailedTicks,
    "fake_savepoint_keeps_failed_step": FakeSavepointKeepsFailedStep,
    "fake_blind_data_version": FakeBlindDataVersion,
    "fake_first_write_wins": FakeFirstWriteWins,
    "fake_unordered_facts": FakeUnorderedFacts,
    "fake_jsonb_journal": FakeJsonbJournal,
    "fake_rollback_keeps_facts": FakeRollbackKeepsFacts,
    "fake_working_in_memory": FakeWorkingInMemory,
    "fake_remove_takes_the_newest": FakeRemoveTakesTheNewest,
    "fake_seal_blind": FakeSealBlind,
    "fake_truncating_keys": FakeTruncatingKeys,
    "fake_lowercasing_keys": FakeLowercasingKeys,
    "fake_nan_as_null": FakeNanAsNull,
    "fake_truncating_text": FakeTruncatingText,
    "fake_raw_surrogates": FakeRawSurrogates,
    "fake_forgets_meta_on_close": FakeForgetsMetaOnClose,
    "fake_big_ints_as_floats": FakeBigIntsAsFloats,
    "fake_miss_as_null": FakeMissAsNull,
    "fake_upsert_journal": FakeUpsertJournal,
    "fake_values_as_strings": FakeValuesAsStrings,
    "fake_episodes_by_timestamp": FakeEpisodesByTimestamp,
    "fake_intents_by_insertion": FakeIntentsByInsertion,
    "fake_jobs_unordered": FakeJobsUnordered,
    "fake_goals_move_on_update": FakeGoalsMoveOnUpdate,
    "fake_goals_ranked_by_age": FakeGoalsRankedByAge,
    "fake_meta_first_wins": FakeMetaFirstWins,
    "fake_module_state_shared": FakeModuleStateShared,
    "fake_no_module_state": FakeNoModuleState,
    "fake_seal_skips_module_state": FakeSealSkipsModuleState,
    "fake_working_merges": FakeWorkingMerges,
    "fake_timings_first_win": FakeTimingsFirstWins,
    "fake_no_tick_timings": FakeNoTickTimings,
    "fake_rollback_keeps_timings": FakeRollbackKeepsTimings,
    "fake_nul_as_replacement": FakeNulAsReplacement,
    "fake_seal_skips_versions": FakeSealSkipsVersions,
    "fake_transfer_reads_live": FakeTransferReadsLive,
    "fake_transfer_any_tick": FakeTransferAnyTick,
    "fake_transfer_commits_alone": FakeTransferCommitsAlone,
}


@hookimpl
def agi_register_memory_backends(register: Register) -> None:
    for name, factory in FAKES.items():
        register(factory, name=name)
