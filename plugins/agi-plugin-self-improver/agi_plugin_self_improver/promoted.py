"""Promoted plugin files: code proposals the shadow replay accepted, answering through their router agents.

The source of each promoted file lives in the setting ``self_improver.code`` (``{proposal id:
source}``), written by journaled ``config_set`` ticks, so checkpoints, rollback, export and replay
carry it. The router agent ``improvement_agent`` (tried before every other rule) reads the
setting before each tick and loads each file once per kernel through the plugin manager facade
(:meth:`agi_core.plugins.Plugins.add_module` on a private manager): a file that raises on import,
implements a hook other than ``agi_register_router_agents`` or registers nothing is reported
(``agi: warning: plugin 'improvement:ID' failed in …``) and skipped. It answers an input when a
promoted router agent is the first of all the kernel's router agents, by priority, whose rule
matches it; a promoted agent's ``matches`` runs under the kernel's agent timeout, its ``handle``
too (the agent is not inline), and what it raises is the F4 of one tick, named.
"""

from __future__ import annotations

import hashlib
import types
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from agi_core.effects import TimedOut, call_with_timeout, describe, must_propagate
from agi_core.errors import PluginError
from agi_core.plugins import Plugins
from agi_core.reasoning import AgentReply, ReasonContext

NAME = "improvement_agent"
#: the only hook a promoted file may implement
HOOK = "agi_register_router_agents"
#: what a router agent has (agi_core.hookspecs.agi_register_router_agents)
AGENT_ATTRIBUTES = ("name", "rule", "priority", "matches", "handle")


@attrs.frozen
class Loaded:
    """One promoted file loaded: its router agents, or why it was skipped."""

    pid: str
    agents: tuple[Any, ...] = ()
    failure: str | None = None


def label(pid: str) -> str:
    """The plugin name of a promoted file (``improvement:imp-…``), in reports and warnings."""
    return f"improvement:{pid}"


def load(pid: str, source: str) -> Loaded:
    """Run the file ``source`` as a plugin module and collect its router agents; a failure is reported, not raised."""
    plugins = Plugins()  # a private manager: only the promoted file, only its router agents are used
    name = label(pid)
    module = types.ModuleType("agi_improvement_" + pid.replace("-", "_"))
    module.__file__ = f"<{name}>"
    try:
        exec(compile(source, module.__file__, "exec"), module.__dict__)
    except BaseException as exc:  # as Plugins.add_module: any import failure, SystemExit included, is reported
        if must_propagate(exc):
            raise
        return _failed(plugins, pid, "import", describe(exc))
    if not plugins.add_module(module, name=name):
        return Loaded(pid, failure=str(plugins.failures[-1]))
    hooks = sorted({hook for info in plugins.info() for hook in info.hooks} - {HOOK})
    if hooks:
        return _failed(
            plugins, pid, "register", f"implements {hooks[0]}; a promoted plugin file may implement only {HOOK}"
        )
    agents = tuple(reg.obj for reg in plugins.register_router_agents(validate=_check_agent).values())
    if plugins.failures:
        return Loaded(pid, failure=str(plugins.failures[-1]))
    if not agents:
        return _failed(plugins, pid, "register", f"registers no router agent; implement {HOOK}")
    return Loaded(pid, agents)


def _failed(plugins: Plugins, pid: str, stage: str, cause: str) -> Loaded:
    plugins.report_failure(label(pid), stage, cause)
    return Loaded(pid, failure=str(plugins.failures[-1]))


def _check_agent(name: str, agent: Any) -> None:
    missing = [attribute for attribute in AGENT_ATTRIBUTES if not hasattr(agent, attribute)]
    if missing:
        raise PluginError(f"router agent {name!r} has no {missing[0]!r}; give it {', '.join(AGENT_ATTRIBUTES)}")
    if not isinstance(agent.priority, int):
        raise PluginError(f"router agent {name!r} has priority {agent.priority!r}; make it an int")


def _key(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


@attrs.define
class ImprovementAgent:
    """Tried first; matches when a promoted agent is the first of all router agents whose rule matches."""

    name: str = NAME
    priority: int = -(10**9)  # before every rule: it decides by the others' priorities
    inline: bool = False  # promoted code runs under the kernel's agent timeout
    timeout_s: float = 30.0
    loaded: dict[tuple[str, str], Loaded] = attrs.field(factory=dict)
    active: list[tuple[str, Any]] = attrs.field(factory=list)  # (proposal id, agent)
    peers: list[Any] = attrs.field(factory=list)
    chosen: tuple[str, Any] | None = None

    def refresh(self, code: Mapping[str, str], agents: Iterable[Any], timeout_s: float) -> None:
        """The promoted files of the agent's settings (each loaded once) and the other rules, before each tick."""
        self.active = []
        for pid in sorted(code):
            key = (pid, _key(code[pid]))
            if key not in self.loaded:
                self.loaded[key] = load(pid, code[pid])
            self.active.extend((pid, agent) for agent in self.loaded[key].agents)
        self.peers = [agent for agent in agents if agent is not self]
        self.timeout_s = timeout_s

    @property
    def rule(self) -> str:
        """The promoted agent that answers, as ``promoted:ID:AGENT:RULE`` (the journal's router decision)."""
        if self.chosen is None:
            return "promoted"
        pid, agent = self.chosen
        return f"promoted:{pid}:{agent.name}:{agent.rule}"

    def _first(self, text: str) -> tuple[str, Any] | None:
        order = [("", agent) for agent in self.peers] + self.active
        for pid, agent in sorted(order, key=lambda item: (item[1].priority, item[1].name, item[0])):
            if not pid:
                try:
                    if agent.matches(text):
                        return None  # an installed rule comes first: it answers, as without the promoted code
                except Exception:  # noqa: BLE001 - the Stage-0 router reports it when it reaches that rule
                    continue
            elif self._call(pid, agent, agent.matches, text):
                return pid, agent
        return None

    def _call(self, pid: str, agent: Any, function: Any, argument: Any) -> Any:
        try:
            return call_with_timeout(function, (argument,), self.timeout_s)
        except TimedOut:
            raise PluginError(f"promoted plugin {pid} ({agent.name}) took longer than {self.timeout_s:g} s") from None
        except BaseException as exc:
            if must_propagate(exc):
                raise
            raise PluginError(f"promoted plugin {pid} ({agent.name}) failed: {describe(exc)}") from None

    def matches(self, text: str) -> bool:
        self.chosen = self._first(text) if self.active else None
        return self.chosen is not None

    def handle(self, ctx: ReasonContext) -> AgentReply:
        if self.chosen is None:
            raise PluginError("improvement_agent answered an input no promoted agent matched")
        pid, agent = self.chosen
        try:  # under the Stage-0 brain's timeout: this agent is not inline
            reply = agent.handle(ctx)
        except BaseException as exc:
            if must_propagate(exc):
                raise
            raise PluginError(f"promoted plugin {pid} ({agent.name}) failed: {describe(exc)}") from None
        if not isinstance(reply, AgentReply):
            returned = type(reply).__name__
            raise PluginError(f"promoted plugin {pid} ({agent.name}) returned {returned}, not an AgentReply")
        return reply
