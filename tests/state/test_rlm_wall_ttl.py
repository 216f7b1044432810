"""Inside an agent, a TTL counts seconds of the tick's recorded wall clock, not ticks (issue 22 item 2).

Ids and timestamps stay on the deterministic clock (D1-D3); the wall clock enters a tick once,
recorded (``tick_clock`` from the kernel's clock, else ``wall_clock`` read when a TTL needs it),
so replay serves the same reading back and expires the same variables.
"""

from __future__ import annotations

import pytest

from agi_core.replay import replay
from agi_core.scheduling.clock import CLOCK_EXTERNAL, PinnedClock, SimulatedClock
from agi_core.scheduling.wall_time import TICK_READ
from agi_core.state import VariableNotFound, clock
from agi_core.testing import builtin_plugins, open_kernel

SEED = "wall-ttl"
START_MS = 1_795_000_000_000  # 2026-11-18


def op(kernel, op_name, /, **args):
    return kernel.command("state", {"op": op_name, "args": args})


def names(kernel):
    return [v["name"] for v in op(kernel, "variables").agent_outputs["state"]["variables"]]


@pytest.fixture
def sim():
    return SimulatedClock(START_MS)


@pytest.fixture
def db(tmp_path):
    return tmp_path / "agent.db"


def advance(kernel, seconds):
    kernel.config.clock.source.advance(seconds)
    kernel.config.clock.refresh()


def test_a_ttl_of_60_s_outlives_many_ticks_within_60_s_and_ends_at_60_s(db, sim):
    with open_kernel(db, seed=SEED, clock=PinnedClock(sim)) as kernel:
        op(kernel, "create_state", prompt="p")
        made = op(kernel, "set", name="tmp", value="soon gone", scope="temporary", ttl_seconds=60)
        assert made.externals[CLOCK_EXTERNAL] == [START_MS]
        assert made.agent_outputs["state"]["variable"]["expires_at"] == clock.from_ms(START_MS + 60_000)
        counter = kernel.determinism.counter
        for _ in range(40):  # many ticks, no time: the deterministic clock moves on, the wall clock does not
            kernel.tick("1+1")
        assert kernel.determinism.counter - counter > 60  # a TTL on ticks (the old rule) would be over
        assert op(kernel, "get", name="tmp").agent_outputs["state"]["value"] == "soon gone"
        advance(kernel, 59.999)
        assert names(kernel) == ["Final", "prompt", "tmp"]
        assert op(kernel, "get", name="tmp").agent_outputs["state"]["value"] == "soon gone"
        advance(kernel, 0.001)  # 60 s after the write: gone, after a single tick
        with pytest.raises(VariableNotFound, match="expired at 2026-11-18T"):
            op(kernel, "get", name="tmp")
        assert names(kernel) == ["Final", "prompt"]
        purged = op(kernel, "purge_expired")
        assert purged.agent_outputs["state"]["purged"] == ["tmp"]
        (deleted,) = op(kernel, "history", limit=1).agent_outputs["state"]["mutations"]
        assert (deleted["operation"], deleted["source"]) == ("delete", "ttl")
        ticks = kernel.tick_count
    report = replay(db, seed=SEED, plugins=builtin_plugins())
    assert report.ok, report.mismatch and report.mismatch.diff()
    assert report.summary().startswith(f"replay equal: {ticks} ticks")


def test_a_write_renews_the_ttl_from_the_wall_clock(db, sim):
    with open_kernel(db, seed=SEED, clock=PinnedClock(sim)) as kernel:
        op(kernel, "create_state", prompt="p")
        op(kernel, "set", name="tmp", value=1, scope="temporary", ttl_seconds=60)
        advance(kernel, 50)
        renewed = op(kernel, "set", name="tmp", value=2)
        assert renewed.agent_outputs["state"]["variable"]["expires_at"] == clock.from_ms(START_MS + 110_000)
        advance(kernel, 50)  # 100 s after the first write, 50 s after the second
        assert op(kernel, "get", name="tmp").agent_outputs["state"]["value"] == 2
    assert replay(db, seed=SEED, plugins=builtin_plugins()).ok


def test_a_kernel_without_a_clock_reads_the_wall_clock_once_only_when_a_ttl_needs_it(db):
    """``agi state`` opens its kernel without a clock: the tick that sets or checks a TTL reads the
    wall clock once, recorded as ``wall_clock``; a tick with no TTL to look at reads nothing."""
    with open_kernel(db, seed=SEED) as kernel:
        created = op(kernel, "create_state", prompt="p")
        plain = op(kernel, "set", name="kept", value=1)
        made = op(kernel, "set", name="tmp", value=1, scope="temporary", ttl_seconds=3600)
        read = op(kernel, "get", name="tmp")
    assert TICK_READ not in created.externals and TICK_READ not in plain.externals
    (when,) = made.externals[TICK_READ]
    assert made.agent_outputs["state"]["variable"]["expires_at"] == clock.from_ms(when + 3_600_000)
    assert len(read.externals[TICK_READ]) == 1 and read.agent_outputs["state"]["value"] == 1
    assert replay(db, seed=SEED, plugins=builtin_plugins()).ok  # the readings are served back
