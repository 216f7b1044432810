"""The built-in sensor: inputs queued with ``Kernel.submit`` (what ``agi chat`` feeds)."""

from __future__ import annotations

from typing import Any

from agi_core.hookspecs import Register, hookimpl
from agi_core.model import Input


class InputQueueSensor:
    name = "input_queue"

    def poll(self, kernel: Any) -> Input | None:
        return kernel.take_pending()


@hookimpl
def agi_register_sensors(register: Register) -> None:
    register(InputQueueSensor())
