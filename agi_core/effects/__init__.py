"""Calling plugin code safely: isolation, timeouts, result checks, intent → receipt.

Every call the kernel makes into a plugin (tools, sensors, router agents, brains, hooks)
goes through this package: a failure of any kind (``SystemExit`` included, only
``KeyboardInterrupt`` passes) becomes a recorded failure naming the plugin, a tool runs
under a timeout and its result must be JSON, and a write or external tool runs only
after its intent is committed, with its receipt committed after it (see
``docs/reliability.md``).
"""

from agi_core.effects.isolation import describe, must_propagate
from agi_core.effects.timeouts import TimedOut, call_with_timeout

__all__ = ["TimedOut", "call_with_timeout", "describe", "must_propagate"]
