"""Time and autonomy: the recorded tick clock, scheduled jobs, the clock sensor and ``agi run --follow``.

- :mod:`~agi_core.autonomy.clock`: wall, simulated and pinned clocks; the one recorded clock read per tick.
- :mod:`~agi_core.autonomy.when`: durations, ``--at`` times and cron expressions (croniter).
- :mod:`~agi_core.autonomy.jobs`: the job model, when a job is due, coalescing of missed runs.
- :mod:`~agi_core.autonomy.commands`: the journaled ``schedule_add``/``schedule_remove`` commands.
- :mod:`~agi_core.autonomy.sensors`: the clock sensor, the standard-input reader, draining sensors.
- :mod:`~agi_core.autonomy.follow`: the ``--follow`` loop.
"""
