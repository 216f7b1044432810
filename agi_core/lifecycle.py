"""Plugin lifecycle around one kernel: start when it opens, stop when it closes, the tick's hook order.

``agi_start_plugin(kernel)`` runs once the kernel's stores are ready. A plugin whose start
raises is reported and takes no further part in that kernel: its tick, checkpoint and stop
hooks are skipped and its tools and sensors are dropped; the other plugins go on.
``agi_stop_plugin(kernel)`` runs when the kernel closes, for every plugin that started, even
after a failed tick; a stop that raises is reported and the kernel still closes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agi_core.hookcalls import OrderLog

if TYPE_CHECKING:
    from agi_core.kernel import Kernel

AFTER_TICK = "agi_after_tick"


def start(kernel: Kernel) -> frozenset[str]:
    """Call every ``agi_start_plugin``; return the plugins that failed to start, their parts removed."""
    failed = frozenset(kernel.plugins.start_plugin(kernel=kernel))
    if failed:
        for name in [name for name, plugin in kernel.tool_plugins.items() if plugin in failed]:
            del kernel.tools[name], kernel.tool_plugins[name]
        kernel.sensors = {
            name: sensor for name, sensor in kernel.sensors.items() if kernel.sensor_plugins.get(name) not in failed
        }
    return failed


def stop(kernel: Kernel) -> None:
    """Call ``agi_stop_plugin`` for every plugin that started (a failing one is reported, never raised)."""
    kernel.plugins.stop_plugin(kernel=kernel, skip=kernel.disabled_plugins)


def hook_order(kernel: Kernel, log: OrderLog) -> dict[str, list[str]]:
    """The tick's ``hook_order``: the hooks that ran so far, and the plugins ``agi_after_tick`` will call.

    Only hooks with at least one implementation are listed (registration hooks never: see
    :class:`agi_core.hookcalls.OrderLog`), each with its plugins in call order (priority,
    then plugin name: :meth:`agi_core.plugins.Plugins.call_order`).
    """
    order = {hook: list(plugins) for hook, plugins in log.order.items()}
    after = kernel.plugins.call_order(AFTER_TICK, skip=kernel.disabled_plugins)
    if after:
        order[AFTER_TICK] = after
    return dict(sorted(order.items()))
