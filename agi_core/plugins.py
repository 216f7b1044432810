"""The plugin manager facade: loading, isolation of failing plugins, registries, typed hook calls.

Core code calls hooks only through the typed methods of :class:`Plugins`, one per hook
(``register_sensors``, ``before_tick`` …, keyword arguments only; tox's ``plugin/manager.py``),
which call ``pm.hook.<name>(...)``: pluggy's own loop runs the implementations, each isolated
by :mod:`agi_core.hookcalls`. Call order is priority (wrappers, ``tryfirst``, plain,
``trylast``), then plugin name, whatever the load order (:meth:`Plugins._build`).

Built-in plugins (``DEFAULT_PLUGINS``) and third-party ones (entry points in the group
``agi``) load through the same path. A plugin that fails to import, implements an unknown
hook, declares something invalid or raises in a hook is reported with its name and the
cause, then skipped; the kernel and the CLI keep working. The process's default set
(:func:`load_plugins`) checks the entry-point plugins' manifests when a hook other than
``agi_register_commands`` is first called, so that ``agi --help`` lists commands without
importing jsonschema-rs (:meth:`Plugins.check_manifests`).

Environment:
  ``AGI_LOAD_PLUGINS``     comma-separated allow list of entry-point plugins ("" loads none)
  ``AGI_DISABLE_PLUGINS``  comma-separated block list (built-ins included)
  ``AGI_TRACE_PLUGINS``    print every hook call to stderr
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pluggy

from agi_core import hookspecs
from agi_core.errors import ConfigError, RegistrationError
from agi_core.hookcalls import Calls, HookProxy, OrderLog, isolated, planned_order
from agi_core.plugin_entry_points import PluginEntryPoint, distribution_version, entry_points, installed_name

if TYPE_CHECKING:
    import click

    from agi_core.kernel import Kernel
    from agi_core.model import JournalRecord, TickState
    from agi_core.tickparts import TickParts

DEFAULT_PLUGINS: tuple[str, ...] = (
    "agi_core.default_plugins.stage0",
    "agi_core.default_plugins.tools",
    "agi_core.default_plugins.sensors",
    "agi_core.default_plugins.sqlite_backend",
    "agi_core.default_plugins.synonyms",
    "agi_core.default_plugins.commands",
    "agi_core.default_plugins.state",
    "agi_core.default_plugins.contracts",
    "agi_core.default_plugins.llm_providers",
    "agi_core.default_plugins.llm_brain",
    "agi_core.default_plugins.embedder_minilm",
    "agi_core.default_plugins.longterm",
    "agi_core.default_plugins.messaging",
    "agi_core.default_plugins.tick_parts",
)
BUILTIN_PLUGINS = frozenset(path.rsplit(".", 1)[1] for path in DEFAULT_PLUGINS)
"""The built-in plugins' names (always installed: not journaled as a module's plugin; their voters have no timeout)."""

ENTRY_POINT_GROUP = "agi"

_MARKS = pluggy.PluginManager("agi")  # reads @hookimpl marks (parse_hookimpl_opts); holds no plugin


# dataclasses, not attrs: this module loads for agi --help, which must not import attrs (benchmarks/startup.py)
@dataclass(frozen=True, slots=True)
class PluginFailure:
    """A plugin that was skipped or degraded, and why."""

    plugin: str
    stage: str  # "import", "register", a hook name
    cause: str

    def __str__(self) -> str:
        return f"plugin {self.plugin!r} failed in {self.stage}: {self.cause}"


@dataclass(frozen=True, slots=True)
class Registration:
    """One object a plugin registered through a ``register`` callback."""

    name: str
    obj: Any
    plugin: str


@dataclass(frozen=True, slots=True)
class PluginInfo:
    """Name, version and hooks of one loaded plugin; ``agi plugins`` shows more (:mod:`agi_core.inventory`)."""

    name: str
    version: str
    hooks: list[str]
    builtin: bool


Validate = Callable[[str, Any], Any]  # ``validate(name, obj)``: a replacement object (or None to keep it), or raise


def _env_list(name: str) -> set[str] | None:
    raw = os.environ.get(name)
    if raw is None:
        return None
    return {part.strip() for part in raw.split(",") if part.strip()}


def _unknown_hook(name: str) -> str:
    return f"implements unknown hook {name}; rename it to one of: {', '.join(hookspecs.HOOK_NAMES)}"


def _marked(obj: object) -> dict[str, pluggy.HookimplOpts]:
    """``{attribute: its @hookimpl options}`` for every marked attribute of ``obj`` (what pluggy would register)."""
    found = {}
    for attr in dir(obj):
        opts = _MARKS.parse_hookimpl_opts(obj, attr)
        if opts is not None:
            found[attr] = opts
    return found


_KINDS = {"actuators": "tool", "llm_providers": "LLM provider", "synonyms": "synonym table"}


def _kind(hook: str) -> str:
    """What a registration hook registers, in words: ``agi_register_memory_backends`` → ``memory backend``."""
    plural = hook.removeprefix("agi_register_")
    return _KINDS.get(plural, plural.removesuffix("s").replace("_", " "))


def _default_name(obj: Any) -> str:
    name = getattr(obj, "name", None) or getattr(obj, "__name__", None)
    if not isinstance(name, str) or not name:
        raise RegistrationError(f"{obj!r} has no name; pass register(obj, name='...') or give it a 'name' attribute")
    return name


FAILURES_KEPT = 1000  # distinct plugin failures a process remembers (Plugins.report_failure)


def _power_of_ten(n: int) -> bool:
    while n % 10 == 0:
        n //= 10
    return n == 1


class Plugins:
    """A pluggy manager plus the bookkeeping that keeps one bad plugin from hurting others."""

    def __init__(self, *, defer_manifests: bool = False) -> None:
        self._failures: dict[PluginFailure, int] = {}  # each distinct failure: how often, the last reported last
        self._defer_manifests = defer_manifests  # check them in check_manifests, not in add_module
        self._unchecked: dict[str, object] = {}  # loaded plugins whose manifest check_manifests has yet to check
        self._versions: dict[str, str] = {}
        self._builtin: set[str] = set()
        self.calls = Calls(self.report_failure, bool(os.environ.get("AGI_TRACE_PLUGINS")))
        self._loaded: dict[str, HookProxy] = {}  # every accepted plugin, by name, as pluggy will see it
        self._pm: pluggy.PluginManager | None = None  # built on first use, from _loaded (see _build)

    # -- loading ---------------------------------------------------------------------
    @classmethod
    def builtins(cls, *extra: Any, defer_manifests: bool = False) -> Plugins:
        """The built-in plugins (less those in ``AGI_DISABLE_PLUGINS``) plus ``extra`` modules or objects."""
        plugins = cls(defer_manifests=defer_manifests)
        blocked = _env_list("AGI_DISABLE_PLUGINS") or set()
        for module_name in DEFAULT_PLUGINS:
            short = module_name.rsplit(".", 1)[1]
            if short not in blocked:
                plugins.add_module(module_name, name=short, builtin=True)
        for plugin in extra:
            plugins.add_module(plugin)
        return plugins

    @classmethod
    def from_environment(cls, *, defer_manifests: bool = False) -> Plugins:
        """Built-ins plus the entry-point plugins the environment allows.

        ``defer_manifests=True``: their manifests are checked by :meth:`check_manifests`, when a
        hook other than ``agi_register_commands`` is first called, not as each one loads.
        """
        plugins = cls.builtins(defer_manifests=defer_manifests)
        blocked = _env_list("AGI_DISABLE_PLUGINS") or set()
        allowed = _env_list("AGI_LOAD_PLUGINS")
        found = [] if allowed == set() else entry_points(ENTRY_POINT_GROUP)  # AGI_LOAD_PLUGINS="": none to look for
        for entry_point in found:
            if entry_point.name in blocked or (allowed is not None and entry_point.name not in allowed):
                continue
            plugins._load_entry_point(entry_point)
        return plugins

    def add_module(
        self,
        module: str | ModuleType | object,
        *,
        name: str | None = None,
        version: str | None = None,
        builtin: bool = False,
    ) -> bool:
        """Load a plugin module (or object); returns False if it was skipped.

        Its hooks are checked here, and its manifest unless the set defers manifests (then
        :meth:`check_manifests` does); it enters pluggy with the others when a hook is next called
        (:meth:`_build`), where pluggy's own check of each implementation's arguments reports it.
        """
        label = name or (
            installed_name(module, ENTRY_POINT_GROUP)  # an installed plugin a test registers: its installed name
            or (module if isinstance(module, str) else getattr(module, "__name__", None) or type(module).__name__)
        )
        try:
            obj = importlib.import_module(module) if isinstance(module, str) else module
        except BaseException as exc:  # any import failure, SystemExit included, is reported, not raised
            if isinstance(exc, KeyboardInterrupt):
                raise
            self.report_failure(label, "import", exc)
            return False
        marked = _marked(obj)
        if not self._check_hook_names(label, obj, marked):
            return False
        # built-ins' manifests are checked by tests, so agi --help never imports jsonschema
        check = not builtin and getattr(obj, "agi_manifest", None) is not None
        if check and not self._defer_manifests and not self._manifest_ok(label, obj):
            return False
        if label in self._loaded:
            self.report_failure(label, "register", f"a plugin named {label!r} is already loaded; rename one of them")
            return False
        if check and self._defer_manifests:
            self._unchecked[label] = obj
        self._loaded[label] = isolated(self.calls, label, obj, marked)
        self._versions[label] = version or _agi_core_version()
        if builtin:
            self._builtin.add(label)
        self._pm = None  # the next hook call registers it among the others, in order
        return True

    def _check_hook_names(self, label: str, obj: object, marked: dict[str, pluggy.HookimplOpts]) -> bool:
        """Refuse an ``agi_*`` function named for no hook; report one not marked with ``@hookimpl``.

        pluggy ignores unmarked functions, so without this a forgotten decorator would load silently.
        """
        names = [attr for attr in dir(obj) if attr.startswith("agi_") and callable(getattr(obj, attr, None))]
        hooks = [opts.get("specname") or attr for attr, opts in marked.items()]
        unknown = [name for name in names + hooks if name not in hookspecs.HOOK_NAMES]
        if unknown:  # under its own name, or a marked implementation under another (``specname=``)
            self.report_failure(label, "register", _unknown_hook(unknown[0]))
            return False
        for attr in names:
            if attr not in marked:
                self.report_failure(
                    label,
                    "register",
                    f"{attr} is not marked as a hook implementation, so it would never be called; "
                    "decorate it with @agi_core.hookimpl",
                )
        return True

    def check_manifests(self) -> list[str]:
        """Check the manifests a deferring set has not checked yet; the plugins refused for theirs, in load order.

        A refused plugin is reported (``failed in manifest``, as when checked at load) and unloaded.
        Every hook call but ``agi_register_commands`` runs this first (through :attr:`pm`); the
        CLI runs it before any command (:class:`agi_core.cli.main.AgiGroup`), then registers the
        commands again without the refused plugins.
        """
        refused = []
        while self._unchecked:
            label, obj = next(iter(self._unchecked.items()))
            del self._unchecked[label]
            if not self._manifest_ok(label, obj):
                del self._loaded[label]
                self._versions.pop(label, None)
                self._pm = None
                refused.append(label)
        return refused

    def _manifest_ok(self, label: str, obj: object) -> bool:
        try:
            self._check_manifest(obj)
        except Exception as exc:  # noqa: BLE001 - an invalid manifest skips the plugin, with the reason
            self.report_failure(label, "manifest", exc)
            return False
        return True

    @property
    def pm(self) -> pluggy.PluginManager:
        """The pluggy manager holding every loaded plugin (its :class:`HookProxy`), built on first use;
        manifests not checked yet are checked first (:meth:`check_manifests`)."""
        self.check_manifests()
        return self._manager()

    def _manager(self) -> pluggy.PluginManager:
        """The pluggy manager, with manifests checked or not (only ``agi_register_commands`` calls it unchecked)."""
        if self._pm is None:
            self._build()
        assert self._pm is not None
        return self._pm

    def _build(self) -> None:
        """Register every loaded plugin in a new pluggy manager, by descending name: the one place plugins enter pluggy.

        pluggy calls the implementations of a hook, within each priority group (wrappers,
        ``tryfirst``, plain, ``trylast``), last registered first, and has no ordering API
        (pluggy#250). Registering once, by descending name, after loading makes the call order
        priority, then plugin name, whatever order the plugins were loaded in; a plugin loaded
        after a hook was called gets a new manager built the same way, never a re-sort of the
        live one. What pluggy registers is each plugin's :class:`HookProxy`, which isolates its
        implementations (:mod:`agi_core.hookcalls`). pluggy's ``check_pending()`` runs after.
        """
        pm = pluggy.PluginManager("agi")
        pm.add_hookspecs(hookspecs)
        for name in sorted(self._loaded, reverse=True):
            try:
                pm.register(self._loaded[name], name=name)
            except Exception as exc:  # noqa: BLE001 - pluggy's validation errors become reports, on one line
                del self._loaded[name]
                self.report_failure(name, "register", "; ".join(f"{type(exc).__name__}: {exc}".splitlines()))
        self._pm = pm
        self.check_pending()

    def check_pending(self) -> None:
        """pluggy's ``check_pending()`` after loading: a plugin it names is reported and unregistered."""
        while True:
            pm = self._manager()
            try:
                pm.check_pending()
                return
            except pluggy.PluginValidationError as exc:
                name = pm.get_name(exc.plugin) or repr(exc.plugin)
                pm.unregister(exc.plugin)
                self._loaded.pop(name, None)
                self.report_failure(name, "register", str(exc))

    def _check_manifest(self, obj: object) -> None:
        """Validate ``agi_manifest`` against ``schemas/plugin_manifest.json`` and its version pin."""
        manifest = getattr(obj, "agi_manifest", None)
        if manifest is None:
            return
        from agi_core.schemas import is_valid, validate

        if not is_valid("plugin_manifest", manifest):
            validate("plugin_manifest", manifest, what="agi_manifest")  # names the problem
        if "settings" in manifest:
            from agi_core.settings.schema import check_declaration

            check_declaration(manifest["settings"])
        wanted = manifest.get("requires_agi_core")
        if wanted and not _satisfies(wanted, _agi_core_version()):
            raise RegistrationError(
                f"needs agi-core {wanted} but {_agi_core_version()} is installed; "
                "upgrade agi-core or install a release of the plugin for this version"
            )

    def _load_entry_point(self, entry_point: PluginEntryPoint) -> None:
        version = entry_point.version
        try:
            module = entry_point.load()
        except BaseException as exc:  # as in add_module: SystemExit at import is reported too
            if isinstance(exc, KeyboardInterrupt):
                raise
            self.report_failure(entry_point.name, "import", exc)
            return
        self.add_module(module, name=entry_point.name, version=version)

    # -- calling ---------------------------------------------------------------------
    def caller(self, hook: str) -> Any:
        """``pm.hook.<hook>``, its implementations in their deterministic order."""
        return getattr(self.pm.hook, hook)

    def call_order(self, hook: str, skip: Iterable[str] = ()) -> list[str]:
        """The plugins ``hook`` calls, in order: priority (wrappers, ``tryfirst``, plain, ``trylast``), then name."""
        return planned_order(self.caller(hook), skip)

    @contextlib.contextmanager
    def recording_order(self) -> Iterator[OrderLog]:
        """Log which plugins each hook called inside the block, in call order (a tick's ``hook_order``)."""
        outer, self.calls.log = self.calls.log, OrderLog()
        try:
            yield self.calls.log
        finally:
            self.calls.log = outer

    @property
    def current_plugin(self) -> str:
        """The plugin whose hook implementation is running ("" outside one)."""
        return self.calls.running[-1] if self.calls.running else ""

    def call_each(self, hook: str, *, skip: Iterable[str] = (), **kwargs: Any) -> list[tuple[str, Any]]:
        """Call ``hook`` through pluggy with keyword arguments; ``(plugin, result)`` of each plain implementation.

        An implementation that raises is reported in :attr:`failures` and left out; the
        others still run. Plugins named in ``skip`` are not called. Core code calls the
        typed methods below instead; this and :meth:`collect` are for tests and tools.
        """
        return self.calls.call(self.caller(hook), hook, kwargs, skip).results

    def collect(self, hook: str, validate: Validate | None = None) -> dict[str, Registration]:
        """Run a registration hook and return what was registered, by name.

        ``validate(name, obj)`` may return a replacement object or raise; an invalid or
        duplicate registration is reported and skipped, the others are kept. Built-ins'
        registrations count first (then the others in call order), and a name a built-in
        registered is refused to any other plugin.
        """
        offered: list[tuple[str, Any, str | None]] = []

        def register(obj: Any, *, name: str | None = None, **_future: Any) -> None:
            offered.append((self.current_plugin, obj, name))

        self.call_each(hook, register=register)
        found: dict[str, Registration] = {}
        for plugin, obj, name in sorted(offered, key=lambda offer: offer[0] not in self._builtin):
            try:
                key = name or _default_name(obj)
                if key in found and found[key].plugin in self._builtin and plugin not in self._builtin:
                    raise RegistrationError(
                        f"plugin {plugin!r} may not register {key!r}: the built-in plugin "
                        f"{found[key].plugin!r} owns that name; give yours another name"
                    )
                if key in found:
                    raise RegistrationError.duplicate(_kind(hook), key, found[key].plugin, plugin)
                value = validate(key, obj) if validate else obj
                found[key] = Registration(key, obj if value is None else value, plugin)
            except Exception as exc:  # noqa: BLE001 - one bad registration skips only itself
                self.report_failure(plugin, hook, exc)
        return found

    def registry(self, hook: str, validate: Validate | None = None) -> dict[str, Any]:
        """``{name: object}`` registered through ``hook`` (see :meth:`collect`)."""
        return {name: registration.obj for name, registration in self.collect(hook, validate).items()}

    # -- the typed facade: one method per hook, named for it without ``agi_``, keyword arguments only.
    # Core code calls hooks only through these (tests/test_hook_calls.py walks agi_core's AST), and a
    # kernel calls each registration hook once: it keeps what it collected.
    def register_sensors(self, *, validate: Validate | None = None) -> dict[str, Registration]:
        """``agi_register_sensors(register)``: the sensors, by name."""
        return self.collect("agi_register_sensors", validate)

    def register_actuators(self, *, validate: Validate | None = None) -> dict[str, Registration]:
        """``agi_register_actuators(register)``: the tools, by name."""
        return self.collect("agi_register_actuators", validate)

    def register_router_agents(self, *, validate: Validate | None = None) -> dict[str, Registration]:
        """``agi_register_router_agents(register)``: the Stage-0 router agents, by name."""
        return self.collect("agi_register_router_agents", validate)

    def register_brains(self, *, validate: Validate | None = None) -> dict[str, Registration]:
        """``agi_register_brains(register)``: the brain factories, by name."""
        return self.collect("agi_register_brains", validate)

    def register_contracts(self, *, validate: Validate | None = None) -> dict[str, Registration]:
        """``agi_register_contracts(register)``: contract files or objects, by name."""
        return self.collect("agi_register_contracts", validate)

    def register_memory_backends(self, *, validate: Validate | None = None) -> dict[str, Registration]:
        """``agi_register_memory_backends(register)``: the memory backend factories, by name."""
        return self.collect("agi_register_memory_backends", validate)

    def register_transports(self, *, validate: Validate | None = None) -> dict[str, Registration]:
        """``agi_register_transports(register)``: the messaging transport factories, by URL scheme."""
        return self.collect("agi_register_transports", validate)

    def register_llm_providers(self, *, validate: Validate | None = None) -> dict[str, Registration]:
        """``agi_register_llm_providers(register)``: the LLM provider factories, by name."""
        return self.collect("agi_register_llm_providers", validate)

    def register_embedders(self, *, validate: Validate | None = None) -> dict[str, Registration]:
        """``agi_register_embedders(register)``: the text-embedder factories, by name."""
        return self.collect("agi_register_embedders", validate)

    def register_synonyms(self, *, validate: Validate | None = None) -> dict[str, Registration]:
        """``agi_register_synonyms(register)``: the synonym tables, by name."""
        return self.collect("agi_register_synonyms", validate)

    def register_modules(self, *, validate: Validate | None = None) -> dict[str, Registration]:
        """``agi_register_modules(register)``: the cognitive modules, by name."""
        return self.collect("agi_register_modules", validate)

    def tick_parts(self) -> TickParts:
        """``agi_tick_parts()``: the first non-None result (a later-registered plugin's before a built-in's)."""
        for _plugin, parts in self.call_each("agi_tick_parts"):
            if parts is not None:
                return parts  # type: ignore[no-any-return]
        raise ConfigError(
            "no plugin provides the tick's parts (hook agi_tick_parts); "
            "do not disable the built-in plugin tick_parts (AGI_DISABLE_PLUGINS)"
        )

    def register_commands(self, *, cli: click.Group) -> list[tuple[str, Any]]:
        """``agi_register_commands(cli)``: the one hook that runs before deferred manifests are checked.

        So ``agi --help`` lists the commands without importing jsonschema-rs; a plugin refused
        later for its manifest loses its commands when the CLI registers them again (:meth:`check_manifests`).
        """
        hook = "agi_register_commands"
        return self.calls.call(getattr(self._manager().hook, hook), hook, {"cli": cli}, ()).results

    def before_tick(self, *, kernel: Kernel, state: TickState, skip: Iterable[str] = ()) -> None:
        """``agi_before_tick(kernel, state)``."""
        if self.caller("agi_before_tick").get_hookimpls():  # none (the usual case): nothing would run or be logged
            self.call_each("agi_before_tick", kernel=kernel, state=state, skip=skip)

    def after_tick(self, *, kernel: Kernel, record: JournalRecord, replaying: bool, skip: Iterable[str] = ()) -> None:
        """``agi_after_tick(kernel, record, replaying)``."""
        if self.caller("agi_after_tick").get_hookimpls():  # none (the usual case): nothing would run or be logged
            self.call_each("agi_after_tick", kernel=kernel, record=record, replaying=replaying, skip=skip)

    def restore_checkpoint(self, *, kernel: Kernel, tick: int, skip: Iterable[str] = ()) -> None:
        """``agi_restore_checkpoint(kernel, tick)``."""
        self.call_each("agi_restore_checkpoint", kernel=kernel, tick=tick, skip=skip)

    def state_completed(self, *, kernel: Kernel, event: Any, replaying: bool, skip: Iterable[str] = ()) -> None:
        """``agi_state_completed(kernel, event, replaying)``: an RLM state completed in the tick."""
        self.call_each("agi_state_completed", kernel=kernel, event=event, replaying=replaying, skip=skip)

    def start_plugin(self, *, kernel: Kernel) -> list[str]:
        """``agi_start_plugin(kernel)``; the plugins whose start raised (reported)."""
        hook = "agi_start_plugin"
        return list(self.calls.call(self.caller(hook), hook, {"kernel": kernel}).failed)

    def stop_plugin(self, *, kernel: Kernel, skip: Iterable[str] = ()) -> None:
        """``agi_stop_plugin(kernel)``, for every plugin but those in ``skip``."""
        self.call_each("agi_stop_plugin", kernel=kernel, skip=skip)

    # -- reporting -------------------------------------------------------------------
    @property
    def failures(self) -> list[PluginFailure]:
        """Each distinct failure reported (plugin, stage and cause alike count once), the last reported last."""
        return list(self._failures)

    def failure_count(self, failure: PluginFailure) -> int:
        """How many times ``failure`` was reported (0 if never, or if it is older than the newest
        :data:`FAILURES_KEPT` distinct ones)."""
        return self._failures.get(failure, 0)

    def report_failure(self, plugin: str, stage: str, cause: BaseException | str) -> None:
        """Record and print that ``plugin`` failed in ``stage``; the caller skips what failed.

        An agent that runs for months next to a plugin failing every tick must neither grow nor flood
        stderr: a failure met again is counted, not kept twice, and printed again only at its 10th,
        100th, 1000th … time (``(N times)``); at most :data:`FAILURES_KEPT` distinct failures are kept,
        the oldest dropped. The journal keeps every tick's skip with its reason.
        """
        text = cause if isinstance(cause, str) else f"{type(cause).__name__}: {cause}"
        failure = PluginFailure(plugin, stage, text.splitlines()[0] if text else "")
        times = self._failures.pop(failure, 0) + 1
        self._failures[failure] = times  # (re)inserted last: failures[-1] is the one just reported
        if len(self._failures) > FAILURES_KEPT:
            del self._failures[next(iter(self._failures))]
        if times == 1:
            print(f"agi: warning: {failure}", file=sys.stderr)
        elif _power_of_ten(times):
            print(f"agi: warning: {failure} ({times} times)", file=sys.stderr)

    def versions(self) -> dict[str, Any]:
        """agi-core's version, and each loaded third-party plugin's (``{"agi-core": V, "plugins": {name: V}}``):
        what the kernel records as the versions that wrote the journal (:mod:`agi_core.memory.versions_meta`)."""
        plugins = {name: version for name, version in self._versions.items() if name not in self._builtin}
        return {"agi-core": _agi_core_version(), "plugins": dict(sorted(plugins.items()))}

    def info(self) -> list[PluginInfo]:
        """Name, version and implemented hooks of every loaded plugin."""
        rows = []
        for name, plugin in self.pm.list_name_plugin():
            hooks = sorted(c.name for c in self.pm.get_hookcallers(plugin) or [])
            rows.append(PluginInfo(name, self._versions.get(name, "unknown"), hooks, name in self._builtin))
        return sorted(rows, key=lambda row: (not row.builtin, row.name))


def register_json_files(register: Callable[..., None], folder: str | os.PathLike[str]) -> None:
    """``register(path, name=path.stem)`` for every ``*.json`` file of ``folder`` (each ``path`` a
    :class:`~pathlib.Path`), in name order.

    What a plugin that ships data files does in its registration hook; for contracts,
    :func:`contract_folder_hook` is the whole hook.
    """
    from pathlib import Path  # when registering (a kernel opens), not for agi --help

    for path in sorted(Path(folder).glob("*.json")):
        register(path, name=path.stem)


def contract_folder_hook(folder: str | os.PathLike[str]) -> Callable[..., None]:
    """The ``agi_register_contracts`` implementation of a plugin whose contracts are the ``*.json`` files of ``folder``.

    A contract pack's plugin module is one assignment, each file registered under its name::

        agi_register_contracts = contract_folder_hook(Path(__file__).parent / "contracts")

    A missing folder fails the plugin's import, so the plugin is reported and skipped. This lives
    here, not in :mod:`agi_core.contracts`: ``agi --help`` imports every plugin module, and the
    contracts package (JSON Schema) would cost more than the whole command may. The plugins of
    this repository pass a ``str`` (``os.path``), which keeps pathlib off ``agi --help`` too.
    """
    if not os.path.isdir(folder):
        raise RegistrationError(f"no contract folder at {folder}; ship the contract files inside the package")

    def agi_register_contracts(register: hookspecs.Register) -> None:
        register_json_files(register, folder)

    hook: Callable[..., None] = hookspecs.hookimpl(specname="agi_register_contracts")(agi_register_contracts)
    return hook


@functools.cache
def _satisfies(specifier: str, version: str) -> bool:
    """Whether ``version`` satisfies the PEP 440 ``specifier`` (packaging, imported only for a pin)."""
    from packaging.specifiers import SpecifierSet

    return SpecifierSet(specifier).contains(version, prereleases=True)


@functools.cache
def _agi_core_version() -> str:
    """The installed agi-core's version, read once per process (each built-in plugin is stamped with it)."""
    return distribution_version("agi-core") or "0+unknown"


_default: Plugins | None = None


def load_plugins() -> Plugins:
    """The process's default plugin set, loaded once (lazy and idempotent); manifests are checked
    when a hook other than ``agi_register_commands`` is first called (:meth:`Plugins.check_manifests`)."""
    global _default
    if _default is None:
        _default = Plugins.from_environment(defer_manifests=True)
    return _default


def reset_plugins() -> None:
    """Forget the default plugin set so the next :func:`load_plugins` reloads it."""
    global _default
    _default = None
