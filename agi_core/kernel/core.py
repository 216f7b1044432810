"""The :class:`Kernel`: opening an agent, its plugins and stores, and the API around the tick
(commands, intents, checkpoints, replay); the tick's phases are in :mod:`agi_core.kernel.tick`, the
ticks' shared durable points (``group_commit``, ``held_batches``) in :mod:`agi_core.kernel.commit_batching`."""

from __future__ import annotations

import collections
import contextlib
import hashlib
import math
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import orjson

from agi_core import journal_form, journal_key, lifecycle, tracing
from agi_core.contracts.caller import ContractCaller
from agi_core.determinism import Determinism
from agi_core.effects import intents
from agi_core.effects.inflight import InFlight
from agi_core.effects.isolation import describe, isolated_reason, must_propagate
from agi_core.effects.scope import TickScope
from agi_core.errors import (
    BackendUnavailable,
    ConfigError,
    DatabaseLocked,
    JobAlreadyRan,
    PluginError,
    ValidationError,
)
from agi_core.externals import Externals
from agi_core.hookcalls import OrderLog
from agi_core.inputs import PREVIEW_CHARS, Oversized, clean_text, normalize, preview, utf8_size
from agi_core.journal import HEAD
from agi_core.labels import input_labels
from agi_core.memory.backend import HeldBatch, MemoryBackend, TickTimingStore
from agi_core.memory.keys import check_key, merge_synonyms
from agi_core.memory.reconnect import Reconnect, journal_holds
from agi_core.memory.state_cache import StateCache
from agi_core.messaging import inbox, outbox
from agi_core.messaging.address import NAME_META, agent_name, default_name
from agi_core.messaging.mailbox import Mailbox
from agi_core.model import (
    Input,
    JournalRecord,
    SemanticRead,
    WorkingMemory,
)
from agi_core.opening import open_store
from agi_core.plugins import Plugins, load_plugins
from agi_core.reasoning import Decision, ReasonContext, failed_decision, recorded_write_failures
from agi_core.seal import SEAL
from agi_core.serialization import dumps, from_data, non_finite_path, to_data
from agi_core.settings.runtime import PluginSettings
from agi_core.tools import Tool, validate_tool

if TYPE_CHECKING:
    from agi_core.contracts.registry import ContractRegistry
from agi_core.kernel.commit_batching import CommitBatching
from agi_core.kernel.config import RECALL_EPISODES, SENSOR_CURSOR, KernelConfig, stored_seed
from agi_core.kernel.contract_calls import ContractCalls
from agi_core.kernel.tick import command_decision, conduct, perceive
from agi_core.kernel.voters import Voters


class Kernel(CommitBatching):
    """One agent, backed by one memory backend (SQLite by default). Use :meth:`open`; close it (or use ``with``)."""

    def __init__(self, store: MemoryBackend, config: KernelConfig, plugins: Plugins) -> None:
        self.store = store
        self.config = config
        self.plugins = plugins
        self.determinism = Determinism(config.seed)
        self.journal_key = journal_key.load(store, config.seed)
        self.reload()
        self.workspace = (config.workspace or store.path.parent / "workspace").resolve()
        self._pending: collections.deque[Input] = collections.deque()
        self.last_journal_text = ""
        actuators = plugins.register_actuators(validate=validate_tool)
        self.tools: dict[str, Tool] = {name: reg.obj for name, reg in actuators.items()}
        self.tool_plugins = {name: reg.plugin for name, reg in actuators.items()}
        self.inflight = InFlight.beside(store.path)  # which intents this process is executing
        self._due: intents.Intent | None = None  # a write/external call to run once its tick commits
        self.traced_as: tuple[str, str] | None = None  # (agent, db) its traces name: a replay's, the replayed agent's
        self._receipt: dict[str, Any] | None = None  # its observation, served to the receipt tick
        sensors = plugins.register_sensors()
        self.sensors = {name: reg.obj for name, reg in sensors.items()}
        self.sensor_plugins = {name: reg.plugin for name, reg in sensors.items()}
        self.parts = plugins.tick_parts()  # modules' runner, goals and plans, jobs, commands (agi_core.tickparts)
        self.modules = self.parts.load_modules(plugins)  # cognitive modules, in run order (priority, name)
        self.voters = Voters(self.modules, plugins.report_failure, lambda: self.config.module_timeout_s)
        self._revisers = any("revise" in module.phases for module in self.modules)
        self._recallers = any(getattr(module.obj, "recalls_long_term", False) for module in self.modules)
        self.router_agents = {name: reg.obj for name, reg in plugins.register_router_agents().items()}
        tables = {reg.plugin + ":" + name: reg.obj for name, reg in plugins.register_synonyms().items()}
        self.synonyms = merge_synonyms(tables)
        brains = plugins.register_brains()
        self._brain_factories = {name: reg.obj for name, reg in brains.items()}
        self._brain_plugins = {name: reg.plugin for name, reg in brains.items()}
        self._brains: dict[str, Any] = {}
        self._long_term: Any = None
        self._calls = ContractCalls(plugins, lambda: self.config)  # contracts, providers, the tick's caller
        self.brain = self.get_brain(config.brain)
        self.tick_now_ms: int | None = None  # this tick's recorded clock reading (None without a clock)
        # where each tick's measured duration goes (agi_core.kernel.stopwatch); None: the backend keeps none
        self.tick_timings: TickTimingStore | None = store if isinstance(store, TickTimingStore) else None
        self._check_seed()
        self._opened_at_tick = self.tick_count
        self._locked = 0  # write_lock()s entered and not left (a tick under way): > 0 inside one
        if self.store.meta_get(SEAL) is None and self.store.meta_get(HEAD) is None:
            self.seal()  # a new database (or one from before seals): its first seal
        self.disabled_plugins: frozenset[str] = frozenset()  # plugins whose agi_start_plugin raised
        self._hook_log = OrderLog()
        self.plugin_settings = PluginSettings(plugins, store)
        self.disabled_plugins = lifecycle.start(self)
        self.mailbox: Mailbox | None = None
        self.grouped = False  # inside group_commit(): ticks commit without waiting for the disk
        self._holds = isinstance(store, HeldBatch)  # its ticks may share one held transaction (a runtime check: once)
        self.batches_held = False  # inside held_batches(): a fetched batch of messages is one transaction
        if config.messaging:
            try:
                self.mailbox = Mailbox.open(self, config.messaging)
            except BaseException:
                self.close()
                raise
            self.sensors[Mailbox.name] = self.mailbox
            self.sensor_plugins[Mailbox.name] = "messaging"

    # -- lifecycle -------------------------------------------------------------------
    @classmethod
    def open(
        cls, path: str | Path, *, seed: str | int | None = None, plugins: Plugins | None = None, **options: Any
    ) -> Kernel:
        """Open (or create) the agent stored at ``path``; ``options`` are KernelConfig fields.

        A new database stores ``seed`` (default ``"0"``) and keeps it: on an existing one,
        ``seed=None`` uses the stored seed and a given seed is only checked against it.
        """
        try:
            config = KernelConfig(seed="0" if seed is None else str(seed), **options)
        except TypeError as exc:
            raise ConfigError(f"unknown kernel option ({exc}); see agi_core.KernelConfig for the options") from None
        plugins = plugins or load_plugins()
        store = open_store(
            path,
            config.backend,
            plugins=plugins,
            synchronous=config.synchronous,
            lock_timeout_s=config.lock_timeout_s,
        )
        try:
            config = attrs.evolve(config, seed=stored_seed(store, seed))
            return cls(store, config, plugins)
        except BaseException:
            store.close()
            raise

    def get_brain(self, name: str) -> Any:
        """The brain registered as ``name``, built once per kernel."""
        if name not in self._brains:
            if name not in self._brain_factories:
                installed = ", ".join(sorted(self._brain_factories)) or "none"
                raise ConfigError(f"no brain named {name!r}; installed brains: {installed}")
            try:
                self._brains[name] = self._brain_factories[name](self)
            except BaseException as exc:
                if must_propagate(exc):
                    raise
                raise PluginError(
                    f"brain {name!r} (plugin {self._brain_plugins[name]!r}) failed to start: {describe(exc)}; "
                    "fix the plugin or choose another brain with --brain"
                ) from None
        return self._brains[name]

    def _brain_recalls(self, name: str) -> bool:
        """Whether brain ``name`` declares ``recalls_long_term`` (the LLM brain's prompt recalls), as a module may."""
        return name in self._brain_factories and bool(getattr(self.get_brain(name), "recalls_long_term", False))

    def _reason(self, name: str) -> Callable[[ReasonContext], Decision]:
        """The brain's ``reason``, isolated: a brain that raises gives the F4 reply."""
        brain = self.get_brain(name)
        plugin = self._brain_plugins[name]
        return isolated_reason(brain.reason, name, plugin, self.plugins.report_failure, failed_decision)

    def reload(self) -> None:
        """Re-read what the kernel caches of its stored state (on open, after a rollback or a failed tick,
        and under the write lock when another process wrote: see :meth:`write_lock`)."""
        self._data_version = self.store.data_version()  # first: a commit after this forces another reload
        self._stored_name: str | None = None  # own_name()'s, read again after a reload (rollback, another process)
        self._message_salt: str | None = None  # message_salt()'s, read again after a reload, as above
        self.versions_noted = False  # the stored version history ends with this run's versions (read at the next tick)
        self.determinism.counter = int(self.store.meta_get("counter", "0") or 0)
        self.tick_count = int(self.store.meta_get("tick", "0") or 0)
        self._last_chain = self.store.last_chain()
        self._last_observation_ok = self.store.meta_get("last_observation_ok") != "0"
        self._working = self.store.working()
        self.module_state_cache = StateCache()  # module state as stored: read again after a reload
        self._recent_episodes = [to_data(entry) for entry in self.store.episodes(RECALL_EPISODES, newest_first=True)]
        if hasattr(self, "plugin_settings"):  # stored settings may have changed too
            self.plugin_settings.forget()

    def message_salt(self) -> str:
        """This database and its rollbacks (:func:`~agi_core.messaging.outbox.message_salt`): salts the ids of the
        messages its ticks send and its intents' default idempotency keys. Kept until :meth:`reload` (a rollback,
        another process's commit), the only ways its holder or archive change: not read again each sending tick."""
        if self._message_salt is None:
            self._message_salt = outbox.message_salt(self.store)
        return self._message_salt

    def own_name(self) -> str:
        """The agent's name (:func:`~agi_core.messaging.address.agent_name`) for the messages its ticks send. Once
        stored it is kept here (``set_name`` refuses another, so it never changes) until :meth:`reload` forgets it:
        a rollback, or another process's commit, may have undone the naming; unnamed, it is read each time."""
        if self._stored_name is None:
            self._stored_name = self.store.meta_get(NAME_META)
            if self._stored_name is None:
                return default_name(self.store)
        return self._stored_name

    @contextlib.contextmanager
    def write_lock(self) -> Iterator[None]:
        """The database's write lock (one transaction), with the caches re-read if another process wrote.

        Every tick runs inside it, so ticks of any number of processes on one database
        serialize: each one numbers, chains and counts from what is stored, never from a
        stale copy. Waiting longer than ``lock_timeout_s`` raises :class:`DatabaseLocked`.
        """
        with self.store.tick_transaction():
            if self.store.data_version() != self._data_version:
                self.reload()
            self._locked += 1
            try:
                yield
            finally:
                self._locked -= 1

    @property
    def long_term(self) -> Any:
        """The agent's long-term memory, caught up with the episodes (see :meth:`long_term_memory`)."""
        return self.long_term_memory()

    def long_term_memory(self, *, caught_up: bool = True) -> Any:
        """The agent's :class:`~agi_core.longterm.LongTermMemory`, caught up with the episodes (rows in this
        database, vector index in ``<db>.ltm/``). Episodes become memories once something needs long-term memory
        (so rule-only ticks pay nothing for it), then at each tick's end and, past a few, before the next tick."""
        if self._long_term is None:
            from agi_core.longterm import LongTermMemory, embedder_from_plugins

            self._long_term = LongTermMemory(
                self.store.ltm_rows(),
                self.store.path.with_name(self.store.path.name + ".ltm"),
                lambda: embedder_from_plugins(plugins=self.plugins),
            )
        if caught_up:
            from agi_core.longterm.episodes import mirror_episodes

            if mirror_episodes(self.store, self._long_term) and not self._locked:
                self.seal()  # its progress row was written outside any tick (agi memory search): sealed too
        return self._long_term

    def recall_long_term(self, query: str, k: int, externals: Externals) -> list[dict[str, Any]]:
        """Top-``k`` long-term memories for ``query``, recorded as an external (the index is derived state)."""
        return list(
            externals.fetch(
                "ltm_recall",
                lambda: [hit.to_dict() for hit in self.long_term.recall(query, k, mode=self.recall_rank())],
            )
        )

    def recall_rank(self) -> str:
        """The ranking of long-term recall: the ``longterm`` plugin's ``rank`` setting, else ``hybrid``."""
        declared = "longterm" in self.plugin_settings.declared
        return str(self.plugin_settings.values("longterm").get("rank", "hybrid")) if declared else "hybrid"

    @property
    def contracts(self) -> ContractRegistry:
        """The contracts the plugins register, collected on first use (``agi_register_contracts`` runs once)."""
        return self._calls.registry

    @property
    def llm_providers(self) -> dict[str, Any]:
        """The LLM provider factories, by name, collected on first use."""
        return self._calls.providers

    def llm_provider(self, name: str) -> Any:
        """The kernel's one LLM provider ``name``, built on first use and shared by the LLM brain and the
        contract calls (an in-process model loads once); ``name`` is one of :attr:`llm_providers`."""
        return self._calls.provider(name)

    def contract_caller(self, externals: Externals) -> ContractCaller:
        """The tick's :class:`ContractCaller`, shared by planning and the modules (:class:`ContractCalls`)."""
        return self._calls.for_tick(externals)

    def seal(self) -> None:
        """Seal the stored state (see :mod:`agi_core.seal`); incremental, in its own write transaction.

        A backend that keeps no seal is skipped: its journal chain still holds.
        """
        if getattr(self.store, "seal", None) is None:
            return
        with self.store.tick_transaction():
            self.store.seal(self.journal_key)

    def close(self) -> None:
        """Stop the plugins, seal, close the stores; a plugin's failure is reported, never raised."""
        try:
            lifecycle.stop(self)
        finally:
            self._close_stores()

    def _close_stores(self) -> None:
        if getattr(self, "mailbox", None) is not None:
            with contextlib.suppress(Exception):  # best effort: unacknowledged deliveries come again
                self.mailbox.close()  # type: ignore[union-attr]
            self.mailbox = None
        if self.tick_count != self._opened_at_tick and not self.config.replaying:  # (a replay's scratch is dropped)
            with contextlib.suppress(Exception):  # best effort, any backend's error: verify names the unsealed ticks
                self.seal()
        if self._long_term is not None:
            if self._long_term.prefetch.any_finished():  # the background's vectors, for the next process
                with contextlib.suppress(Exception), self.store.tick_transaction():  # best effort: else encoded later
                    self._long_term.store_finished()
            self._long_term.close()
        self._calls.close()
        for brain in self._brains.values():
            close = getattr(brain, "close", None)
            if close is not None:
                close()
        self.store.close()

    def __enter__(self) -> Kernel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_seed(self) -> None:
        check = self.determinism.sign("agi-seed-check")
        stored = self.store.meta_get("seed_check")
        if stored is None:
            with self.store.tick_transaction():
                # re-read under the write lock: another process may have created the agent meanwhile
                stored = self.store.meta_get("seed_check")
                if stored is None:
                    self.store.meta_update({"seed_check": check, "seed": self.config.seed})
        if stored is not None and stored != check:
            raise ConfigError(f"{self.store.path} was created with another seed; open it with the same --seed")

    # -- public API ------------------------------------------------------------------
    def submit(self, text: str, source: str = "user") -> None:
        """Queue an input for the built-in ``input_queue`` sensor."""
        text = clean_text(text)
        self._pending.append(Input(raw=text, normalized=normalize(text), source=source))  # type: ignore[arg-type]

    def take_pending(self) -> Input | None:
        return self._pending.popleft() if self._pending else None

    def run(self, lines: Iterable[str]) -> Iterator[JournalRecord]:
        """One tick per non-empty line."""
        for line in lines:
            if line.strip():
                record = self.tick(line.rstrip("\n"))
                if record is not None:
                    yield record

    def put_fact(self, key: str, value: Any) -> JournalRecord:
        """Store one fact directly, as a journaled tick of its own (``agi memory put``)."""
        path = non_finite_path(value)
        if path is not None:
            raise ValidationError(f"the value for {key} has NaN or infinity at {path}; store a finite number or null")
        return self.command("put_fact", {"key": check_key(key), "value": value})

    def command(self, name: str, args: dict[str, Any]) -> JournalRecord:
        """Run a kernel command (``put_fact``, ``state`` …) as a journaled tick of its own.

        Everything a command changes is stored with the tick, so replay runs it again and
        gets the same result. A command that raises leaves nothing stored. A command whose
        action is a write/external call (``goal_step``) is settled as :meth:`tick` settles
        one: the receipt tick is returned (:meth:`command_ticks` gives both).
        """
        return self.command_ticks(name, args)[-1]

    def command_ticks(self, name: str, args: dict[str, Any], *, source: str = "event") -> list[JournalRecord]:
        """Run a kernel command as a tick; then, if it recorded a write/external intent, the tool
        (after that tick's commit, under the intent's lock) and its receipt tick: one or two records."""
        percept = Input(raw=preview(f"{name} {dumps(args)}"), normalized=name, source=source)  # type: ignore[arg-type]
        return self._settled(lambda: self._command_tick(percept, name, args))

    def _settled(self, run: Callable[[], JournalRecord]) -> list[JournalRecord]:
        """Run one tick; a write/external call it decided runs once the tick has committed, and
        its receipt tick follows (:mod:`agi_core.effects.intents`)."""
        self._due = None
        try:
            record = run()
            due, self._due = self._due, None
            if due is None:
                return [record]
            if record.plan.goal is not None:  # a goal's plan step: its receipt judges the step
                due = attrs.evolve(due, goal=record.plan.goal, step=record.plan.current_index)
            traced: dict[str, tracing.Value] | None = None
            if tracing.enabled():  # its execute_intent trace leads back to the agent and the intent's record
                agent, db = self.trace_names()
                traced = {"gen_ai.agent.name": agent, "agi.db": db}
                if record.tick == due.tick:
                    traced["agi.journal.id"] = record.id
            return [record, intents.settle(self.tick_scope(), due, self._receipt_tick, traced=traced)]
        finally:
            self._due = None
            self.inflight.release_all()  # the receipt committed, or the intent never did

    def tick_scope(self, externals: Externals | None = None, *, sender: str | None = None) -> TickScope:
        """The :class:`TickScope` of the next tick: what acting, intents and modules use of this kernel (``sender``:
        the agent whose message the tick's input is)."""
        config = self.config
        mailbox: Mailbox | None = getattr(self, "mailbox", None)  # None until the message box opens
        return TickScope(
            tick=self.tick_count + 1,
            store=self.store,
            determinism=self.determinism,
            externals=Externals() if externals is None else externals,
            tools=self.tools,
            tool_plugins=self.tool_plugins,
            policy=config.policy,
            timeout_s=config.timeout_s,
            workspace=self.workspace,
            live=config.live,
            inflight=self.inflight,
            report=self.plugins.report_failure,
            settings=self.settings,
            modules=self.modules,
            module_timeout_s=config.module_timeout_s,
            module_state_max_bytes=config.module_state_max_bytes,
            module_state_cache=self.module_state_cache,
            now_ms=self.tick_now_ms,
            receipt=self._receipt,
            check_recipient=mailbox.check_recipient if mailbox is not None else None,
            intent_salt=self.message_salt,
            sender=sender,
        )

    def _receipt_tick(self, args: dict[str, Any], receipt: dict[str, Any]) -> JournalRecord:
        """The kernel command ``receipt``, serving ``receipt`` as its tool's observation (see effects.intents)."""
        self._receipt = receipt
        try:
            return self.command("receipt", args)
        finally:
            self._receipt = None

    def _command_tick(
        self,
        percept: Input,
        name: str,
        args: dict[str, Any],
        recorded: dict[str, list[Any]] | None = None,
        cursor: dict[str, Any] | None = None,
    ) -> JournalRecord:
        handler = self._command_handler(name)
        return self._run_tick(
            percept,
            lambda ctx: command_decision(ctx, self, name, handler, args),
            command={name: args},
            recorded=recorded,
            cursor=cursor,
        )

    def _command_handler(self, name: str) -> Callable[..., tuple[Any, ...]]:
        commands = self.parts.commands
        if name not in commands:
            raise ConfigError(f"no kernel command {name!r}; known: {', '.join(sorted(commands))}")
        return commands[name]

    @property
    def state_dir(self) -> Path:
        """Folder for files the agent's services keep beside the database (``<db>.state``)."""
        return self.store.path.with_name(self.store.path.name + ".state")

    @property
    def conn(self) -> Any:
        """The SQLite backend's connection (for tests and tools that inspect the file; None on other backends)."""
        return getattr(self.store, "conn", None)

    def pending_intents(self) -> list[intents.Intent]:
        """Write/external calls whose intent was committed but whose receipt never was (a crash between)."""
        return intents.pending(self.store)

    def orphaned_intents(self) -> list[intents.Intent]:
        """Pending intents no live process is executing (see :mod:`agi_core.effects.inflight`)."""
        return intents.orphaned(self.store, self.inflight)

    def retry_intent(self, tick: int) -> JournalRecord:
        """Run the pending intent of ``tick`` again (its tool must declare ``idempotency_key``); record its receipt."""
        return intents.retry(self.tick_scope(), tick, self._receipt_tick)

    def abandon_intent(self, tick: int) -> JournalRecord:
        """Close the pending intent of ``tick`` without running it: a failed receipt, journaled."""
        return intents.abandon(self.tick_scope(), tick, self._receipt_tick)

    def maintain(self) -> JournalRecord:
        """A maintenance tick (source ``maintain``): every module's ``maintain`` phase, journaled."""
        percept = Input(raw="maintain", normalized="maintain", source="maintain")
        return self._command_tick(percept, "maintain", {})

    def checkpoint(self, name: str) -> Any:
        """Snapshot the whole agent as ``name`` (:func:`agi_core.checkpoints.create`); its ``CheckpointInfo``."""
        from agi_core import checkpoints

        return checkpoints.create(self, name)

    def rollback(self, name: str) -> Any:
        """Restore the whole agent to checkpoint ``name`` in one transaction; its ``RollbackReport``."""
        from agi_core import checkpoints

        return checkpoints.rollback(self, name)

    def replay(
        self, *, checkpoint: str | None = None, compare: bool = True, overrides: dict[str, Any] | None = None
    ) -> Any:
        """Replay the journal in a scratch copy: a ``ReplayReport``, or with ``compare=False`` (a
        counterfactual, ``overrides``: ``plugins``, ``settings``) the records it produced (:mod:`agi_core.timeline`)."""
        from agi_core import timeline

        return timeline.replay(self, checkpoint=checkpoint, compare=compare, overrides=overrides)

    @property
    def has_maintenance(self) -> bool:
        """True when some module has a ``maintain`` phase."""
        return any("maintain" in module.phases for module in self.modules)

    def get_fact(self, key: str) -> SemanticRead:
        return self.store.sem_read(check_key(key))

    def working(self) -> WorkingMemory:
        return self._working

    def settings(self, plugin: str) -> dict[str, Any]:
        """``plugin``'s settings ({key: value}): environment, else database, else declared default.

        A loaded plugin that declares none has ``{}``; a plugin that is not loaded is a :class:`ConfigError`.
        """
        if plugin not in self.plugin_settings.declared and self.plugins.pm.get_plugin(plugin) is None:
            loaded = ", ".join(sorted(name for name, _ in self.plugins.pm.list_name_plugin()))
            raise ConfigError(f"no plugin named {plugin!r} is loaded, so it has no settings; loaded: {loaded}")
        return self.plugin_settings.values(plugin)

    # -- the tick --------------------------------------------------------------------
    def tick(
        self,
        text: str | None = None,
        *,
        source: str = "user",
        speaker: str | None = None,
        channel: str | None = None,
        conversation: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> JournalRecord | None:
        """Run one tick on ``text`` (or on the first sensor percept); None if there was no input,
        or if the ``schedule:`` job it was for was already run by another process.

        ``speaker``, ``channel``, ``conversation`` and ``metadata`` say who said it where
        (:class:`~agi_core.model.Input`); a user line with no speaker gets ``KernelConfig.speaker``.
        """
        cursor = None
        if text is None:
            polled = perceive(self)
            if polled is None:
                return None
            percept, cursor = polled
            text, source, normalized = percept.raw, percept.source, percept.normalized
            speaker, channel, conversation = percept.speaker, percept.channel, percept.conversation
            metadata = percept.metadata
        else:
            normalized = None
        if speaker is None and source == "user":
            speaker = self.config.speaker
        labelled = speaker is not None or channel is not None or conversation is not None or bool(metadata)
        labels = input_labels(speaker, channel, conversation, metadata) if labelled else {}  # most inputs: none
        text = clean_text(text)
        size = utf8_size(text)
        if size > self.config.max_input_bytes:
            digest = hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()
            return self.refuse_input(
                Oversized(text[:PREVIEW_CHARS], size, digest), source=source, cursor=cursor, **labels
            )
        normalized = normalize(text) if normalized is None else clean_text(normalized)
        percept = Input(raw=text, normalized=normalized, source=source, **labels)
        try:
            return self._settled(
                lambda: self._run_tick(percept, self._reason(self.config.brain), brain=self.config.brain, cursor=cursor)
            )[-1]
        except JobAlreadyRan:
            return None  # another process ran this due job first; this tick left nothing
        except inbox.MessageAlreadyReceived:
            if self.mailbox is not None:
                self.mailbox.after_commit(None)  # its tick committed before: acknowledge the redelivery
            return None

    def refuse_input(
        self, oversized: Oversized, *, source: str = "user", cursor: dict[str, Any] | None = None, **labels: Any
    ) -> JournalRecord:
        """A tick that answers an over-limit input with a refusal; only its head, size and hash are stored
        (``labels``: the input's speaker, channel, conversation and metadata; ``cursor``: the sensor's, as in
        :meth:`tick`)."""
        if labels.get("speaker") is None and source == "user":
            labels["speaker"] = self.config.speaker
        raw = f"{oversized.head}… [{oversized.size} bytes, sha256:{oversized.sha256}]"
        percept = Input(raw=raw, normalized=normalize(raw), source=source, **input_labels(**labels))
        args = {"bytes": oversized.size, "limit": self.config.max_input_bytes, "sha256": oversized.sha256}
        return self._command_tick(percept, "refuse_input", args, cursor=cursor)

    def replay_tick(self, recorded: dict[str, Any]) -> JournalRecord:
        """Run the tick a journal record describes again, serving its recorded externals (either stored form)."""
        recorded = journal_form.expand(recorded)
        externals = recorded.get("externals", {})
        percept = from_data(externals.get("input") or recorded["input"], Input)
        command = externals.get("command") or {}
        fetched = {kind: values for kind, values in externals.items() if kind not in ("input", "command")}
        fetched.update(recorded_write_failures(recorded))
        if command:
            ((command_name, args),) = command.items()
            return self._command_tick(percept, command_name, args, fetched)
        name = recorded.get("brain") or self.config.brain
        return self._run_tick(percept, self._reason(name), recorded=fetched, brain=name)

    def trace_names(self) -> tuple[str, str]:
        """The agent (``agi whoami``'s name) and the database (absolute) its traces name; a replay's,
        the replayed agent's (:attr:`traced_as`)."""
        return self.traced_as or (agent_name(self.store), str(Path(self.store.path).resolve()))

    def _run_tick(
        self,
        percept: Input,
        reason: Callable[[ReasonContext], Decision],
        *,
        command: dict[str, Any] | None = None,
        recorded: dict[str, list[Any]] | None = None,
        brain: str = "",
        cursor: dict[str, Any] | None = None,
    ) -> JournalRecord:
        """One tick, its trace's root span (``invoke_agent``, docs/tracing.md) around it."""
        if not tracing.enabled():
            return self._attempt_tick(percept, reason, command, recorded, brain, cursor)
        agent, db = self.trace_names()
        attributes: dict[str, tracing.Value] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": agent,
            "agi.db": db,
            "agi.input.source": percept.source,
            "agi.replaying": recorded is not None,
        }
        if command:
            attributes["agi.command"] = next(iter(command))
        elif brain:
            attributes["agi.brain"] = brain
        with tracing.span(f"invoke_agent {agent}", attributes) as traced:
            record = self._attempt_tick(percept, reason, command, recorded, brain, cursor)
            traced.set("agi.tick", record.tick)  # agi replay --tick N; the journal id names the record
            traced.set("agi.journal.id", record.id)
            traced.set("gen_ai.conversation.id", percept.conversation)
            return record

    def _attempt_tick(
        self,
        percept: Input,
        reason: Callable[[ReasonContext], Decision],
        command: dict[str, Any] | None,
        recorded: dict[str, list[Any]] | None,
        brain: str,
        cursor: dict[str, Any] | None,
    ) -> JournalRecord:
        # a backlog mirrored outside the tick; a command (agi memory put …) opens no long-term memory for it
        recalling = self._long_term is not None or (command is None and (self._recallers or self._brain_recalls(brain)))
        if recorded is None and recalling and not (self._locked or self.holding):
            self.long_term_memory(caught_up=False).before_tick(self.store, self.seal)
        waiting: Reconnect | None = None  # made when the server first goes away (its Event costs every tick)
        locked_out = False  # another writer held the database past the lock timeout (said once)
        while True:
            externals = Externals(recorded)
            done: JournalRecord | None = None
            began = False
            if self.grouped:
                self.store.lazy_commit()  # type: ignore[attr-defined]  # a GroupCommit store (group_commit)
                if self._holds:
                    self.store.hold(True, isolated=True)  # type: ignore[attr-defined]  # the block: one transaction
            try:
                with self.write_lock(), self.plugins.recording_order() as self._hook_log:
                    began = True
                    done = conduct(self, percept, reason, externals, command, brain, cursor)
                    if self._long_term is not None and not externals.replaying:
                        self._long_term.after_tick(self.store)  # mirror its episodes, store vectors encoded ahead
                break
            except BackendUnavailable as exc:  # the server went away: wait, then retry unless it committed
                failure, chain = exc, self._last_chain  # set by _store once done: the chain it committed
            except DatabaseLocked as exc:
                if began or not math.isinf(self.config.reconnect_s):
                    self.reload()
                    raise
                if not locked_out:  # an agent that lives for ever (run --follow) waits for the other writer
                    locked_out = True
                    print(f"agi: {exc}; waiting for it (the tick has not begun)", file=sys.stderr, flush=True)
                continue  # each try waits the lock timeout again
            except BaseException:
                self.reload()
                raise
            finally:
                self.plugin_settings.end_tick()
            if waiting is None:
                waiting = Reconnect(self.store, self.config.reconnect_s)
            if self._committed_after(failure, waiting, done, chain):
                break
            if self._due is not None:  # the intent it decided was not stored: the retry decides again
                self.inflight.release(self._due.tick)
                self._due = None
        record = done
        assert record is not None
        self.tick_count = record.tick
        self.plugins.after_tick(kernel=self, record=record, replaying=externals.replaying, skip=self.disabled_plugins)
        if self.mailbox is not None and not externals.replaying:
            self.mailbox.after_commit(record)  # ack the message this tick received, publish what it sent
        elif self.grouped and record.observation.payload.get("intent") == "pending":
            self.store.sync()  # type: ignore[attr-defined]  # durable before its tool runs
        if self._long_term is not None and not externals.replaying:
            self._long_term.encode_ahead()  # the new memories' vectors, computed before a recall needs them
        return record

    def _committed_after(
        self, error: BackendUnavailable, waiting: Reconnect, record: JournalRecord | None, chain: str | None
    ) -> bool:
        """Wait for the server, then tell whether the tick that failed with ``error`` committed: under
        the write lock (so the lost connection's transaction has ended either way) the journal holds
        ``record``'s tick with the ``chain`` this process computed for it. The caches are re-read."""
        self._data_version = -1  # stale (the failed tick moved them): re-read before any other tick, even if we give up
        while True:
            waiting.wait(error)
            try:
                with self.store.tick_transaction():
                    self.reload()
                    # None: it failed before it stored anything, so nothing was committing
                    return record is not None and journal_holds(self.store, record.tick, chain)
            except BackendUnavailable as again:  # away again before we could tell
                error = again

    def sensor_cursor(self, sensor: str) -> Any:
        """The cursor sensor ``sensor`` reached (from its last :class:`Percept` a tick took), None before any."""
        stored = self.store.meta_get(f"{SENSOR_CURSOR}:{sensor}")
        return None if stored is None else orjson.loads(stored)
