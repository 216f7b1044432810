"""How a kernel runs (:class:`KernelConfig`), the seed it opens a database with, and the tick's bounds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from agi_core.errors import ConfigError
from agi_core.inputs import MAX_INPUT_BYTES
from agi_core.memory.backend import MAX_STATE_VALUE_BYTES
from agi_core.memory.locking import DEFAULT_LOCK_TIMEOUT_S
from agi_core.tools import ToolPolicy

if TYPE_CHECKING:
    pass

RECALL_EPISODES = 4  # newest episodes handed to the reason step
TURN_CHARS = 1000  # a working-memory turn keeps this much of its text, then its length and sha256
RECALL_FACTS = 10  # facts under the focus entity handed to the reason step (read with a LIMIT: O(1) in all facts)
SENSOR_CURSOR = "sensor_cursor"  # the external recording a sensor's cursor, and the prefix of its meta key


def stored_seed(store: Any, seed: str | int | None) -> str:
    """The seed to open ``store`` with: its stored seed, else ``seed`` (default ``"0"``).

    A ``seed`` that differs from the stored one is refused: a database keeps its seed.
    """
    stored = store.meta_get("seed")
    if stored is None:
        return "0" if seed is None else str(seed)
    if seed is not None and str(seed) != stored:
        raise ConfigError(
            f"{store.path} was created with seed {stored!r}, not {str(seed)!r}; "
            "leave out --seed (a database keeps the seed it was created with)"
        )
    return stored


@attrs.frozen
class KernelConfig:
    """How a kernel runs; everything has an embedded default."""

    seed: str = "0"
    brain: str = "stage0"
    timeout_s: float = 2.0
    policy: ToolPolicy = attrs.field(factory=ToolPolicy)
    workspace: Path | None = None
    synchronous: str = "FULL"
    live: bool = False
    backend: str = "sqlite"
    max_input_bytes: int = MAX_INPUT_BYTES
    lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S
    clock: Callable[[], int] | None = None  # ms since the epoch, read once per tick and recorded (scheduling.clock)
    contract_provider: str | None = None  # LLM provider for contract calls by kernel code; None: heuristics only
    llm_timeout_s: float | None = None  # the LLM brain's limit per model request (None: the provider's own)
    speaker: str | None = None  # who says the user lines that name no speaker (agi run/chat --speaker)
    module_timeout_s: float = 2.0  # a module phase call's limit, unless the module sets its own (0: none)
    module_state_max_bytes: int = MAX_STATE_VALUE_BYTES  # the largest value a module may store under one key
    messaging: str | None = None  # a transport URL (memory://HUB, nats://HOST:PORT/DEPLOYMENT): the message box
    replaying: bool = False  # a replay's scratch agent: plugins start nothing outside (no server, no process)
    offline: bool = False  # a command that only reads or configures the agent: plugins reach no server as it opens
    reconnect_s: float = 60.0  # how long a tick waits for a server backend that went away (inf: forever; 0: not)
