"""The built-in sensors: inputs queued with ``Kernel.submit``, and the clock (on with ``agi run --follow``).

The clock's period is this plugin's setting ``clock_every_s`` (``agi config set
sensors.clock_every_s 10``, or ``AGI_PLUGIN_SENSORS_CLOCK_EVERY_S``); ``--clock-every``
overrides it for one run. The lifecycle hooks apply it to the kernel's clock sensor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agi_core.hookspecs import Register, hookimpl
from agi_core.scheduling.clock import DEFAULT_CLOCK_EVERY_MS

if TYPE_CHECKING:  # the sensors load when they register (a kernel opens), not for agi --help
    from agi_core.model import Input

agi_manifest = {
    "description": "The input queue and the clock sensor.",
    "settings": {
        "type": "object",
        "properties": {
            "clock_every_s": {
                "type": "number",
                "minimum": 0,
                "default": DEFAULT_CLOCK_EVERY_MS // 1000,
                "description": "Seconds between clock percepts under agi run --follow; 0 turns the clock off.",
            }
        },
    },
}


class InputQueueSensor:
    name = "input_queue"

    def poll(self, kernel: Any) -> Input | None:
        return kernel.take_pending()


@hookimpl
def agi_register_sensors(register: Register) -> None:
    from agi_core.scheduling.sensors import ClockSensor

    register(InputQueueSensor())
    register(ClockSensor())


@hookimpl
def agi_start_plugin(kernel: Any) -> None:
    """Give the kernel's clock sensor its configured period (used when ``--follow`` names none)."""
    from agi_core.scheduling.sensors import ClockSensor

    sensor = kernel.sensors.get("clock")
    if isinstance(sensor, ClockSensor):
        sensor.configured_ms = round(kernel.settings("sensors")["clock_every_s"] * 1000) or None


@hookimpl
def agi_stop_plugin(kernel: Any) -> None:
    """Disarm the clock sensor: a closed kernel's sensor never fires again."""
    from agi_core.scheduling.sensors import ClockSensor

    sensor = kernel.sensors.get("clock")
    if isinstance(sensor, ClockSensor):
        sensor.every_ms = sensor.configured_ms = None
