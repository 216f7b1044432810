"""Two readings of one thing, the old way's and a changed way's, for a module that changed how it reads.

A module that reads something a new way (its user's lines past hours of clock ticks, say) keeps the
old reading too, so a journal written before the change replays as it was written. Asking
:meth:`ModuleContext.changed` wherever the two readings differ records ``module_changed`` in every tick
where they do, which, in an idle agent, is every tick for ever, though what the module does with them
is the same. :meth:`ChangedReading.view` asks only where what the caller derives from them differs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from agi_core.modules.context import ModuleContext

R = TypeVar("R")
T = TypeVar("T")


class ChangedReading(Generic[R]):
    """The ``old`` and ``new`` readings of one thing, under the change named ``change``."""

    def __init__(self, ctx: ModuleContext, change: str, old: R, new: R) -> None:
        self._ctx, self._change, self.old, self.new = ctx, change, old, new
        self._taken: bool | None = None

    def view(self, derive: Callable[[R], T]) -> T:
        """``derive`` of the new reading where the change is taken, else of the old one. The change is
        asked for (and recorded live) only where the two derivations differ, once per reading."""
        old, new = derive(self.old), derive(self.new)
        if old == new:
            return old
        if self._taken is None:
            self._taken = self._ctx.changed(self._change)
        return new if self._taken else old
