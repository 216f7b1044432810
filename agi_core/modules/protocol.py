"""The module protocol: one object that may take part in any phase of a tick.

Modelled on pydantic-ai's capabilities: a module is a plain object with a ``name`` and
any of the optional phase methods below, each called with a
:class:`~agi_core.modules.context.ModuleContext`. Optional attributes: ``priority``
(lower runs first, default 100), ``state_schema`` (JSON Schema of its state object),
``contracts`` (names of the LLM contracts it calls, shown by ``agi modules``) and
``vote(claims, evidence_items)`` (a seat on the council, see :mod:`agi_core.modules.council`)
and ``inline = True`` (run in the tick's thread: exceptions are still isolated, but there is
no timeout; for modules that do no I/O, as Stage-0's rule agents).

Modules run in the order ``(priority, name)``; the order is recorded in the journal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs
import jsonschema

from agi_core.errors import RegistrationError
from agi_core.modules.state import key_validator

if TYPE_CHECKING:
    from agi_core.plugins import Plugins

HOOK = "agi_register_modules"
PHASES: tuple[str, ...] = ("perceive", "recall", "deliberate", "observe", "maintain")
TICK_PHASES: tuple[str, ...] = ("perceive", "recall", "deliberate", "observe")  # a maintain tick runs maintain only
DEFAULT_PRIORITY = 100
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


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

    def method(self, phase: str) -> Any:
        return getattr(self.obj, phase)


def check_module(name: str, obj: Any, plugin: str = "?") -> LoadedModule:
    """``obj`` as a :class:`LoadedModule`; :class:`RegistrationError` naming the problem otherwise."""
    if not name or len(name) > 64 or not name[0].isalpha() or not set(name) <= NAME_CHARS:
        raise RegistrationError(f"module name {name!r} is invalid; use lowercase letters, digits and _ (64 at most)")
    priority = getattr(obj, "priority", DEFAULT_PRIORITY)
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise RegistrationError(
            f"module {name!r}: priority {priority!r} is not an integer; set an int (lower runs first)"
        )
    phases = tuple(phase for phase in PHASES if callable(getattr(obj, phase, None)))
    votes = callable(getattr(obj, "vote", None))
    if not phases and not votes:
        raise RegistrationError(f"module {name!r} has none of the methods {', '.join(PHASES)}, vote; add at least one")
    schema = getattr(obj, "state_schema", None)
    if schema is not None:
        if not isinstance(schema, dict):
            raise RegistrationError(f"module {name!r}: state_schema must be a JSON Schema object (a dict)")
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as exc:
            raise RegistrationError(
                f"module {name!r}: state_schema is not a valid JSON Schema: {exc.message}"
            ) from None
    contracts = getattr(obj, "contracts", ())
    if (
        isinstance(contracts, str)
        or not isinstance(contracts, Sequence)
        or not all(isinstance(c, str) for c in contracts)
    ):
        raise RegistrationError(f"module {name!r}: contracts must be a list of contract names")
    inline = getattr(obj, "inline", False) is True
    validator = key_validator(schema)
    return LoadedModule(name, plugin, priority, obj, phases, tuple(contracts), schema, validator, votes, inline)


def load_modules(plugins: Plugins) -> list[LoadedModule]:
    """Every module the plugins register, checked, in run order (priority, then name)."""
    found = plugins.register_modules(validate=check_module)
    loaded = [attrs.evolve(reg.obj, plugin=reg.plugin) for reg in found.values()]
    return sorted(loaded, key=lambda module: (module.priority, module.name))
