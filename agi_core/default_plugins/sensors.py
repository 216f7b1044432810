"""The built-in sensors: inputs queued with ``Kernel.submit``, the clock (on with ``agi run --follow``),
and new files in a folder.

The clock's period is this plugin's setting ``clock_every_s`` (``agi config set
sensors.clock_every_s 10``, or ``AGI_PLUGIN_SENSORS_CLOCK_EVERY_S``); ``--clock-every``
overrides it for one run. The folder the file sensor watches is the setting ``watch_dir``
(relative to the database's folder; empty: off). The lifecycle hooks apply both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agi_core.hookspecs import Register, hookimpl
from agi_core.scheduling import DEFAULT_CLOCK_EVERY_MS

if TYPE_CHECKING:  # the sensors load when they register (a kernel opens), not for agi --help
    from agi_core.model import Input

agi_manifest = {
    "description": "The input queue, the clock sensor and the file sensor.",
    "settings": {
        "type": "object",
        "properties": {
            "clock_every_s": {
                "type": "number",
                "minimum": 0,
                "default": DEFAULT_CLOCK_EVERY_MS // 1000,
                "description": "Seconds between clock percepts under agi run --follow; 0 turns the clock off.",
            },
            "watch_dir": {
                "type": "string",
                "default": "",
                "description": "A folder whose new files become percepts (relative to the database's folder); "
                "empty turns the file sensor off.",
            },
        },
    },
}


class InputQueueSensor:
    name = "input_queue"

    def poll(self, kernel: Any) -> Input | None:
        return kernel.take_pending()


@hookimpl
def agi_register_sensors(register: Register) -> None:
    from agi_core.scheduling.sensors import ClockSensor, FileSensor

    register(InputQueueSensor())
    register(ClockSensor())
    register(FileSensor())


@hookimpl
def agi_start_plugin(kernel: Any) -> None:
    """Give the kernel's clock sensor its configured period (used when ``--follow`` names none), and the
    file sensor its folder."""
    from agi_core.scheduling.sensors import ClockSensor, FileSensor

    settings = kernel.settings("sensors")
    sensor = kernel.sensors.get("clock")
    if isinstance(sensor, ClockSensor):
        sensor.configured_ms = round(settings["clock_every_s"] * 1000) or None
    files = kernel.sensors.get("files")
    if isinstance(files, FileSensor):
        files.folder = kernel.store.path.parent / settings["watch_dir"] if settings["watch_dir"] else None


@hookimpl
def agi_stop_plugin(kernel: Any) -> None:
    """Disarm the clock and file sensors: a closed kernel's sensor never fires again."""
    from agi_core.scheduling.sensors import ClockSensor, FileSensor

    sensor = kernel.sensors.get("clock")
    if isinstance(sensor, ClockSensor):
        sensor.every_ms = sensor.configured_ms = None
    files = kernel.sensors.get("files")
    if isinstance(files, FileSensor):
        files.folder = None
