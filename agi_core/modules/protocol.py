"""The module protocol: one object that may take part in any phase of a tick.

Modelled on pydantic-ai's capabilities: a module subclasses
:class:`~agi_core.modules.base.CognitiveModule` and overrides the phases it takes part in,
each called with a :class:`~agi_core.modules.context.ModuleContext` (a plain object with a
``name`` and the same methods works too). Optional attributes: ``priority`` (lower runs
first, default 100), ``before`` / ``after`` (module names), ``state_schema`` (JSON Schema of
its state object), ``contracts`` (names of the LLM contracts it calls, shown by
``agi modules``), ``vote(claims, evidence_items)`` (a seat on the council, see
:mod:`agi_core.council`) and ``inline = True`` (run in the tick's thread: exceptions
are still isolated, but there is no timeout; for modules that do no I/O, as Stage-0's rule agents).

Modules run in the order ``(priority, name)`` within the ``before`` / ``after`` constraints
(:mod:`agi_core.modules.ordering`); the order is recorded in the journal.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from agi_core.errors import RegistrationError
from agi_core.modules.base import DEFAULT_PRIORITY, overrides
from agi_core.modules.ordering import run_order
from agi_core.modules.state import key_validator
from agi_core.schemas import RemoteReference, json_path

if TYPE_CHECKING:
    from agi_core.plugins import Plugins

HOOK = "agi_register_modules"
PHASES: tuple[str, ...] = ("perceive", "recall", "deliberate", "revise", "observe", "maintain")
# a maintain tick runs maintain only
TICK_PHASES: tuple[str, ...] = ("perceive", "recall", "deliberate", "revise", "observe")
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
#: the arguments the kernel calls each phase (and ``vote``) with, after ``self``
CALLED_WITH: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(PHASES, ("ctx",)),
    "revise": ("ctx", "draft"),
    "vote": ("claims", "evidence_items"),
}


@attrs.frozen
class LoadedModule:
    """A registered module, checked: its phases, order key and state validator."""

    name: str
    plugin: str
    priority: int
    obj: Any
    phases: tuple[str, ...]
    contracts: tuple[str, ...]
    state_schema: dict[str, Any] | None
    validator: Any = attrs.field(eq=False, repr=False)
    votes: bool = False
    inline: bool = False
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    timeouts: dict[str, float] = attrs.field(factory=dict)  # the module's own limit per phase ("*": every phase)

    def method(self, phase: str) -> Any:
        return getattr(self.obj, phase)

    def timeout(self, phase: str) -> float | None:
        """The module's own limit for ``phase`` in seconds (None: it declares none; the kernel's applies)."""
        return self.timeouts.get(phase, self.timeouts.get("*"))


def check_module(name: str, obj: Any, plugin: str = "?") -> LoadedModule:
    """``obj`` as a :class:`LoadedModule`; :class:`RegistrationError` naming the problem otherwise."""
    if not name or len(name) > 64 or not name[0].isalpha() or not set(name) <= NAME_CHARS:
        raise RegistrationError(f"module name {name!r} is invalid; use lowercase letters, digits and _ (64 at most)")
    priority = getattr(obj, "priority", DEFAULT_PRIORITY)
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise RegistrationError(
            f"module {name!r}: priority {priority!r} is not an integer; set an int (lower runs first)"
        )
    phases = tuple(phase for phase in PHASES if overrides(obj, phase))
    votes = overrides(obj, "vote")
    if not phases and not votes:
        raise RegistrationError(f"module {name!r} has none of the methods {', '.join(PHASES)}, vote; add at least one")
    for method in phases + (("vote",) if votes else ()):
        _check_signature(name, obj, method)
    schema = getattr(obj, "state_schema", None)
    if schema is not None:
        _check_state_schema(name, schema)
    contracts = getattr(obj, "contracts", ())
    if (
        isinstance(contracts, str)
        or not isinstance(contracts, Sequence)
        or not all(isinstance(c, str) for c in contracts)
    ):
        raise RegistrationError(f"module {name!r}: contracts must be a list of contract names")
    inline = getattr(obj, "inline", False)
    if not isinstance(inline, bool):
        raise RegistrationError(
            f"module {name!r}: inline is {inline!r}, not True or False; set inline = True to run in the "
            "tick's thread (no timeout), or leave it out"
        )
    try:
        validator = key_validator(schema, f"module {name!r}: state_schema")
    except RemoteReference as exc:  # never fetched: refused here, not at the first put
        raise RegistrationError(str(exc)) from None
    except ValueError as exc:  # jsonschema-rs refuses to compile what jsonschema's meta-schema let through
        raise RegistrationError(f"module {name!r}: state_schema cannot be compiled: {exc}") from None
    before, after = _names(name, obj, "before"), _names(name, obj, "after")
    loaded = LoadedModule(
        name, plugin, priority, obj, phases, tuple(contracts), schema, validator, votes, inline, before, after
    )
    return attrs.evolve(loaded, timeouts=_timeouts(name, obj))


def _check_state_schema(name: str, schema: Any) -> None:
    """Refuse a state_schema that is not a JSON Schema of an object, naming the JSON path of the problem."""
    example = '{"type": "object", "properties": {"KEY": {"type": "integer"}}}'
    if not isinstance(schema, dict):
        raise RegistrationError(
            f"module {name!r}: state_schema is {type(schema).__name__} {schema!r}, not a JSON Schema; "
            f"give a dict describing the state object, e.g. {example}"
        )
    import jsonschema  # here: an agent with no module declaring a state schema does without it (~35 ms)

    meta = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)
    error = jsonschema.exceptions.best_match(meta.iter_errors(schema))
    if error is not None:
        if error.context:  # anyOf / oneOf: "3 is not valid under any of the given schemas" says nothing
            error = jsonschema.exceptions.best_match(error.context) or error
        raise RegistrationError(
            f"module {name!r}: state_schema is not a valid JSON Schema at {json_path(error)}: {error.message}; "
            "correct that keyword (JSON Schema Draft 2020-12)"
        )
    kind = schema.get("type", "object")
    if kind != "object" and not (isinstance(kind, list) and "object" in kind):
        raise RegistrationError(
            f"module {name!r}: state_schema has type {kind!r} at $.type, but a module's state is an object "
            f"of keys (ctx.own.put(key, value)); describe each key's value under properties, e.g. {example}"
        )


def _check_signature(name: str, obj: Any, method: str) -> None:
    """Refuse a phase (or ``vote``) that cannot take the arguments the kernel calls it with."""
    params = CALLED_WITH[method]
    try:
        signature = inspect.signature(getattr(obj, method))
    except (TypeError, ValueError):  # a callable Python cannot read the signature of: its calls will tell
        return
    try:
        signature.bind(*params)
    except TypeError:
        raise RegistrationError(
            f"module {name!r}: {method}{signature} cannot be called as {method}({', '.join(params)}); "
            f"define it as def {method}(self, {', '.join(params)})"
        ) from None


def _timeouts(name: str, obj: Any) -> dict[str, float]:
    """``timeout_s`` (every phase, and ``vote``) and ``phase_timeouts`` ({phase or "vote": seconds}), checked."""
    own = getattr(obj, "timeout_s", None)
    per_phase = getattr(obj, "phase_timeouts", None) or {}
    if not isinstance(per_phase, Mapping):
        raise RegistrationError(f"module {name!r}: phase_timeouts must be a dict {{phase: seconds}}")
    timeouts = dict(per_phase) if own is None else {"*": own, **per_phase}
    for phase, seconds in timeouts.items():
        if phase != "*" and phase not in (*PHASES, "vote"):
            raise RegistrationError(
                f"module {name!r}: phase_timeouts names {phase!r}; use one of {', '.join(PHASES)}, vote"
            )
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 < seconds < math.inf:
            which = "timeout_s" if phase == "*" else f"phase_timeouts[{phase!r}]"
            raise RegistrationError(
                f"module {name!r}: {which} is {seconds!r}, not a positive number of seconds; set it to a "
                "number above 0 (e.g. 5.0), or leave it out to use the kernel's --module-timeout"
            )
    return {phase: float(seconds) for phase, seconds in timeouts.items()}


def _names(name: str, obj: Any, attribute: str) -> tuple[str, ...]:
    names = getattr(obj, attribute, ())
    if isinstance(names, str) or not isinstance(names, Sequence) or not all(isinstance(n, str) for n in names):
        example = f"({names!r},)" if isinstance(names, str) else '("other_module",)'
        raise RegistrationError(
            f"module {name!r}: {attribute} is {names!r}, not a list of module names; write {attribute} = {example}"
        )
    if name in names:
        raise RegistrationError(f"module {name!r}: {attribute} names the module itself; drop it")
    return tuple(names)


def load_modules(plugins: Plugins) -> list[LoadedModule]:
    """Every module the plugins register, checked, in run order (priority, then name, within before/after).

    A module ordered against one that is not loaded, or caught in a cycle, is reported and left out.
    """
    found = plugins.register_modules(validate=check_module)
    loaded = [attrs.evolve(reg.obj, plugin=reg.plugin) for reg in found.values()]
    return run_order(loaded, lambda module, problem: plugins.report_failure(module.plugin, HOOK, problem))
