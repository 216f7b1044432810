"""The typed module base: :class:`CognitiveModule`, no-op phases a subclass overrides.

A module subclasses it and overrides the phases it takes part in; the kernel finds those
phases by override (a method still the base's no-op is not called, costs nothing and is not
journaled), as pydantic-ai finds a capability's hooks. Plain objects with the same methods
(the first protocol) still work: for them a phase is any callable attribute of that name.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from agi_core.model import JSON

if TYPE_CHECKING:
    from agi_core.modules.context import ModuleContext
    from agi_core.modules.proposals import Proposals
    from agi_core.modules.revision import Draft, Revision

DEFAULT_PRIORITY = 100


class CognitiveModule:
    """Base class of a cognitive module (docs/modules.md): override the phases it takes part in.

    Class attributes: ``name`` (required), ``priority`` (lower runs first), ``before`` /
    ``after`` (names of modules this one must run before / after, whatever their
    priority), ``state_schema`` (JSON Schema of its state object), ``contracts`` (the LLM
    contracts it calls), ``inline`` (run in the tick's thread, no timeout), ``timeout_s`` (its
    own limit per phase call and ``vote``, instead of the kernel's ``module_timeout_s``),
    ``phase_timeouts`` (``{phase or "vote": seconds}``, over ``timeout_s``) and ``recalls_long_term``
    (it recalls from long-term memory: the kernel mirrors the episodes into it before its first tick,
    outside the tick, instead of inside the tick of its first recall).
    """

    name: ClassVar[str] = ""
    priority: ClassVar[int] = DEFAULT_PRIORITY
    before: ClassVar[tuple[str, ...]] = ()
    after: ClassVar[tuple[str, ...]] = ()
    state_schema: ClassVar[dict[str, Any] | None] = None
    contracts: ClassVar[tuple[str, ...]] = ()
    inline: ClassVar[bool] = False
    timeout_s: ClassVar[float | None] = None
    phase_timeouts: ClassVar[Mapping[str, float]] = MappingProxyType({})
    recalls_long_term: ClassVar[bool] = False

    def perceive(self, ctx: ModuleContext) -> JSON:
        """After the input is read; returns any JSON value (journaled)."""
        return None

    def recall(self, ctx: ModuleContext) -> JSON:
        """After the kernel's own recall; returns any JSON value."""
        return None

    def deliberate(self, ctx: ModuleContext) -> Proposals | dict[str, JSON] | None:
        """Before the brain reasons: what the module proposes (beliefs, goals, candidates, claims)."""
        return None

    def revise(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        """After the brain decides, before acting: rewrite the reply's form, replace it or veto it
        (:mod:`agi_core.modules.revision`); None keeps the draft."""
        return None

    def observe(self, ctx: ModuleContext) -> JSON:
        """After the action ran (``ctx.outcome``); returns any JSON value."""
        return None

    def maintain(self, ctx: ModuleContext) -> JSON:
        """In maintenance ticks only; returns any JSON value."""
        return None

    def vote(self, claims: list[dict[str, JSON]], evidence_items: list[dict[str, JSON]]) -> list[dict[str, JSON]]:
        """A seat on the council: ``[{"voter", "vote": "approve" | "reject", "reason"}]``."""
        return []


def overrides(obj: Any, method: str) -> bool:
    """Whether ``obj`` takes part in ``method``: overridden from :class:`CognitiveModule`, or, for a
    plain object, any callable of that name."""
    if isinstance(obj, CognitiveModule):
        return getattr(type(obj), method, None) is not getattr(CognitiveModule, method, None)
    return callable(getattr(obj, method, None))
