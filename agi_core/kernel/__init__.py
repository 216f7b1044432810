"""The kernel: opens an agent's database and runs it one tick at a time.

A tick is perceive → recall → reason → plan → act → store, inside one transaction of the
memory backend (:mod:`agi_core.memory.backend`) that also writes the tick's journal record. The Kernel object keeps only
caches of what is stored (counter, tick, last chain link, working memory, newest
episodes), re-read by :meth:`Kernel.reload` on open, after a rollback, after a failed
tick, and at the start of a tick when another process wrote: reopening the database
restores the agent exactly, and many processes may tick on one database.
"""

from agi_core.kernel.config import KernelConfig, stored_seed
from agi_core.kernel.core import Kernel
from agi_core.model import RouterDecision

__all__ = ["Kernel", "KernelConfig", "RouterDecision", "stored_seed"]
