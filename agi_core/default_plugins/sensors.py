"""The built-in sensors: inputs queued with ``Kernel.submit``, and the clock (on with ``agi run --follow``)."""

from __future__ import annotations

from typing import Any

from agi_core.autonomy.sensors import ClockSensor
from agi_core.hookspecs import Register, hookimpl
from agi_core.model import Input


class InputQueueSensor:
    name = "input_queue"

    def poll(self, kernel: Any) -> Input | None:
        return kernel.take_pending()


@hookimpl
def agi_register_sensors(register: Register) -> None:
    register(InputQueueSensor())
    register(ClockSensor())
