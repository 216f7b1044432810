"""Calling hooks through pluggy: isolation of each implementation, call frames, the call-order log.

Every hook is called as ``pm.hook.<name>(**kwargs)``, so pluggy's own loop decides the
order and ``tryfirst``/``trylast``/``wrapper``/``hookwrapper`` mean what pluggy says. What
agi-core adds is done once per plugin, when it is loaded: :func:`isolated` builds the
:class:`HookProxy` that pluggy registers in the plugin's place, whose implementations report
an exception with the plugin's name and return ``None`` (pluggy then goes on with the next
implementation), skip the plugins a call excludes, print the call under ``AGI_TRACE_PLUGINS``
and note that the plugin ran (:class:`Frame`, :class:`OrderLog`).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from typing import Any

import pluggy

from agi_core.hookspecs import hookimpl

Report = Callable[[str, str, BaseException | str], None]


# dataclasses, not attrs: this module loads for agi --help, which must not import attrs (benchmarks/startup.py)
@dataclass(slots=True)
class Frame:
    """One hook call in progress: what it skips, which plugins ran, what each returned."""

    hook: str
    kwargs: tuple[str, ...] = ()
    skip: frozenset[str] = frozenset()
    results: list[tuple[str, Any]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


REGISTRATION_PREFIX = "agi_register_"


@dataclass(slots=True)
class OrderLog:
    """``{hook: [plugin, ...]}`` in the order the implementations ran (each plugin once per hook).

    Registration hooks are left out: what they register is collected once, built-ins first,
    and one may run inside a tick only because something was first needed there (an
    embedder, a contract), which a replay that serves the recorded result never does.
    """

    order: dict[str, list[str]] = field(default_factory=dict)

    def ran(self, hook: str, plugin: str) -> None:
        if hook.startswith(REGISTRATION_PREFIX):
            return
        names = self.order.setdefault(hook, [])
        if plugin not in names:
            names.append(plugin)


class Calls:
    """The call stack of hook frames and the active order log of one :class:`~agi_core.plugins.Plugins`."""

    def __init__(self, report: Report, trace: bool) -> None:
        self.report = report
        self.trace = trace
        self.frames: list[Frame] = []
        self.running: list[str] = []  # plugin names whose implementation is running, innermost last
        self.log: OrderLog | None = None

    def frame(self, hook: str) -> Frame:
        """The innermost frame of ``hook``; a bare one for calls made around the facade."""
        for frame in reversed(self.frames):
            if frame.hook == hook:
                return frame
        return Frame(hook)

    def ran(self, frame: Frame, plugin: str) -> None:
        if self.trace:
            print(f"agi: {plugin}.{frame.hook}({', '.join(frame.kwargs)})", file=sys.stderr)
        if self.log is not None:
            self.log.ran(frame.hook, plugin)

    def call(self, caller: Any, hook: str, kwargs: dict[str, Any], skip: Iterable[str] = ()) -> Frame:
        """``caller(**kwargs)`` inside a new frame; the frame holds each plain implementation's result."""
        frame = Frame(hook, tuple(kwargs), frozenset(skip))
        self.frames.append(frame)
        try:
            caller(**kwargs)
        finally:
            self.frames.pop()
        return frame


class HookProxy:
    """What pluggy registers for one plugin: its hook implementations, each isolated, under the same marks.

    pluggy has no hook around an implementation's call, so isolation is done here, by
    registering this object instead of the plugin (pluggy's own objects are never changed).
    Every other attribute (``agi_manifest``, a module's constants) is read from the plugin.
    """

    def __init__(self, plugin: object, implementations: dict[str, Callable[..., Any]]) -> None:
        self.__dict__.update(implementations)
        self.__dict__["agi_wrapped_plugin"] = plugin

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["agi_wrapped_plugin"], name)

    def __dir__(self) -> list[str]:
        """The implementations (and the wrapped plugin): what pluggy's ``register`` looks through, without
        the ~30 attributes every object has (each one an ``inspect.getattr_static`` at start-up)."""
        return list(self.__dict__)


def isolated(calls: Calls, plugin: str, obj: object, marked: dict[str, pluggy.HookimplOpts]) -> HookProxy:
    """The :class:`HookProxy` of ``obj``: each ``marked`` attribute (its ``@hookimpl`` options), isolated, marked alike.

    pluggy reads an implementation's arguments through ``__wrapped__`` (``functools.wraps``), so
    it passes each implementation what the plugin's own function asks for.
    """
    implementations: dict[str, Callable[..., Any]] = {}
    for attr, opts in marked.items():
        function = getattr(obj, attr)
        hook = opts.get("specname") or attr
        if opts.get("wrapper") or opts.get("hookwrapper"):
            guarded = _guard_wrapper(calls, hook, plugin, function, new_style=bool(opts.get("wrapper")))
        else:
            guarded = _guard_plain(calls, hook, plugin, function)
        functools.update_wrapper(guarded, function)
        implementations[attr] = hookimpl(**opts)(guarded)
    return HookProxy(obj, implementations)


def _failed(calls: Calls, plugin: str, hook: str, exc: BaseException) -> None:
    from agi_core.effects.isolation import must_propagate  # here: agi_core.effects (threads, queues) is not for --help

    if must_propagate(exc):
        raise exc
    calls.report(plugin, hook, exc)


def _guard_plain(calls: Calls, hook: str, plugin: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(*args: Any, **kwargs: Any) -> Any:
        frame = calls.frame(hook)
        if plugin in frame.skip:
            return None
        calls.ran(frame, plugin)
        calls.running.append(plugin)
        try:
            result = function(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - a plugin's bug, SystemExit included, must not stop the kernel
            _failed(calls, plugin, hook, exc)
            frame.failed.append(plugin)
            return None
        finally:
            calls.running.pop()
        frame.results.append((plugin, result))
        return result

    return guarded


def _guard_wrapper(
    calls: Calls, hook: str, plugin: str, function: Callable[..., Any], *, new_style: bool
) -> Callable[..., Generator[None, Any, Any]]:
    """A wrapper whose setup or teardown raises is reported and steps aside: the result passes through."""

    def guarded(*args: Any, **kwargs: Any) -> Generator[None, Any, Any]:
        frame = calls.frame(hook)
        if plugin in frame.skip:
            return (yield)
        calls.ran(frame, plugin)
        try:
            inner = function(*args, **kwargs)
            next(inner)
        except StopIteration:
            calls.report(plugin, hook, "the wrapper did not yield; a wrapper must yield exactly once")
            return (yield)
        except BaseException as exc:  # noqa: BLE001 - reported; the wrapper steps aside
            _failed(calls, plugin, hook, exc)
            frame.failed.append(plugin)
            return (yield)
        try:
            sent = yield
        except BaseException as exc:  # an inner implementation raised: the wrapper sees it, as in pluggy
            try:
                inner.throw(exc)
            except StopIteration as stop:
                return stop.value
            inner.close()
            raise
        try:
            inner.send(sent)
        except StopIteration as stop:
            return stop.value if new_style else None
        except BaseException as exc:  # noqa: BLE001 - reported; the wrapper steps aside
            _failed(calls, plugin, hook, exc)
            return sent
        inner.close()
        calls.report(plugin, hook, "the wrapper yielded twice; a wrapper must yield exactly once")
        return sent

    return guarded


def planned_order(caller: Any, skip: Iterable[str] = ()) -> list[str]:
    """The plugins pluggy will call for ``caller``, in call order (each once)."""
    skipped, names = set(skip), []
    for impl in reversed(caller.get_hookimpls()):
        if impl.plugin_name not in skipped and impl.plugin_name not in names:
            names.append(impl.plugin_name)
    return names
