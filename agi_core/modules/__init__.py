"""Cognitive modules: plugin objects that take part in the phases of a tick.

See ``docs/modules.md``. A plugin registers modules through ``agi_register_modules``; the
kernel runs their ``perceive``, ``recall``, ``deliberate`` and ``observe`` in every
conversation tick, ``maintain`` in maintenance ticks, and journals what each returned.
"""

from agi_core.modules.base import CognitiveModule
from agi_core.modules.context import ContractCalls, ExternalReadError, JournalView, MemoryView, ModuleContext
from agi_core.modules.proposals import Belief, Candidate, Claim, GoalUpdate, Proposals
from agi_core.modules.protocol import PHASES, LoadedModule, load_modules
from agi_core.modules.readings import ChangedReading
from agi_core.modules.revision import Draft, Revision
from agi_core.modules.state import ModuleState, ModuleStateError

__all__ = [
    "PHASES",
    "Belief",
    "Candidate",
    "ChangedReading",
    "Claim",
    "CognitiveModule",
    "ContractCalls",
    "Draft",
    "ExternalReadError",
    "GoalUpdate",
    "JournalView",
    "LoadedModule",
    "MemoryView",
    "ModuleContext",
    "ModuleState",
    "ModuleStateError",
    "Proposals",
    "Revision",
    "load_modules",
]
