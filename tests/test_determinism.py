"""Rules D1-D3: seeded ids and timestamps, identical journals (no clock, no randomness: test_no_clock.py)."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agi_core.determinism import Determinism
from agi_core.serialization import dumps, to_data
from agi_core.testing import open_kernel

SCRIPT = [
    "2+2",
    "my favorite color is teal",
    "what is my favorite color?",
    "the capital of Chile is Santiago",
    "what is the capital of Chile?",
    "hello",
    "/clock",
    "5^3",
    "what is my favorite food?",
]


def _journal(path, seed):
    with open_kernel(path, seed=seed) as kernel:
        return [dumps(to_data(record)) for record in kernel.run(SCRIPT)]


def test_same_seed_and_inputs_give_a_byte_identical_journal(tmp_path):
    assert _journal(tmp_path / "a.db", "s1") == _journal(tmp_path / "b.db", "s1")


def test_different_seed_gives_different_ids(tmp_path):
    first, second = _journal(tmp_path / "a.db", "s1"), _journal(tmp_path / "b.db", "s2")
    assert first != second
    assert [line.split('"id":"')[1][:64] for line in first] != [line.split('"id":"')[1][:64] for line in second]


def test_ids_are_hmac_of_seed_namespace_payload_counter():
    import hashlib
    import hmac

    det = Determinism("seed")
    expected = hmac.new(b"seed", b"memory|x|1", hashlib.sha256).hexdigest()
    assert det.new_id("memory", "x") == expected


@given(st.text(min_size=1, max_size=20), st.integers(min_value=0, max_value=10**6))
def test_timestamps_are_iso_and_strictly_increasing(seed, start):
    det = Determinism(seed, counter=start)
    stamps = [det.now() for _ in range(5)]
    assert stamps == sorted(stamps) and len(set(stamps)) == 5
    for stamp in stamps:
        datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ")


def test_reopening_restores_the_agent_exactly(tmp_path):
    path = tmp_path / "a.db"
    with open_kernel(path, seed="r") as kernel:
        list(kernel.run(SCRIPT[:4]))
        working, counter = kernel.working(), kernel.determinism.counter
    with open_kernel(path, seed="r") as reopened:
        assert reopened.working() == working
        assert (reopened.determinism.counter, reopened.tick_count) == (counter, 4)
        assert reopened.tick("what is my favorite color?").final_output == "Your favorite color is teal."
    continued = _journal(tmp_path / "c.db", "r")
    with open_kernel(tmp_path / "d.db", seed="r") as first:
        list(first.run(SCRIPT[:4]))
    with open_kernel(tmp_path / "d.db", seed="r") as second:
        rest = [dumps(to_data(record)) for record in second.run(SCRIPT[4:])]
    assert rest == continued[4:]


def test_opening_with_another_seed_is_refused(tmp_path):
    from agi_core.errors import ConfigError

    open_kernel(tmp_path / "a.db", seed="one").close()
    with pytest.raises(ConfigError, match="created with seed 'one', not 'two'; leave out --seed"):
        open_kernel(tmp_path / "a.db", seed="two")
