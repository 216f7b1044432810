"""Time and autonomy: the recorded tick clock, scheduled jobs, the clock sensor and ``agi run --follow``.

- :mod:`~agi_core.scheduling.clock`: wall, simulated and pinned clocks; the one recorded clock read per tick.
- :mod:`~agi_core.scheduling.when`: durations, ``--at`` times and cron expressions (croniter).
- :mod:`~agi_core.scheduling.jobs`: the job model, when a job is due, coalescing of missed runs.
- :mod:`~agi_core.scheduling.commands`: the journaled ``schedule_add``/``schedule_remove`` commands.
- :mod:`~agi_core.scheduling.sensors`: the clock sensor, the standard-input reader, draining sensors.
- :mod:`~agi_core.scheduling.follow`: the ``--follow`` loop.
"""

DEFAULT_CLOCK_EVERY_MS = 30_000
"""The clock sensor's period when the sensors plugin's ``clock_every_s`` is not set (AgentOne's TimeSensor).

Here, not in :mod:`~agi_core.scheduling.clock`: the sensors plugin's manifest reads it without
importing the clocks (the plugin module loads for ``agi --help``)."""
