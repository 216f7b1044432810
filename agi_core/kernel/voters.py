"""The council's members as the kernel runs them: who votes, how long a module may take, who hears of a failure."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agi_core.plugins import BUILTIN_PLUGINS


class Voters:
    """The modules that vote (``members``, in run order); ``report`` is the plugins' failure report and
    ``module_timeout_s()`` the kernel's module timeout, read when a vote starts."""

    def __init__(
        self,
        modules: Sequence[Any],  # the kernel's loaded modules (agi_core.modules, a floor above)
        report: Callable[[str, str, str], None],
        module_timeout_s: Callable[[], float],
    ) -> None:
        voting = [module for module in modules if module.votes]
        self.members = [module.obj for module in voting]
        self._modules = {id(module.obj): module for module in voting}
        self._report, self._module_timeout_s = report, module_timeout_s

    def failed(self, member: Any, cause: str) -> None:
        """A member abstained for a failure (it raised, or its votes were misshapen): reported on stderr with
        its plugin, as a module's skipped phase is (the journal's vote says why)."""
        module = self._modules.get(id(member))
        name = getattr(member, "name", "?") if module is None else module.name
        self._report("?" if module is None else module.plugin, f"module {name}.vote", cause)

    def limit(self, member: Any) -> float:
        """A member's vote timeout in seconds (0: none): a module's ``phase_timeouts["vote"]``, else its
        ``timeout_s``, else the kernel's module timeout; none for an ``inline`` module and the built-in voters."""
        module = self._modules.get(id(member))
        if module is None or module.inline or module.plugin in BUILTIN_PLUGINS:
            return 0.0
        own = module.timeout("vote")
        return self._module_timeout_s() if own is None else own
