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


@given(key=st.binary(max_size=200), message=st.text(max_size=300))
def test_the_keyed_hmac_is_hmac_sha256(key, message):
    """HmacSha256 (the key's states kept) gives hmac.new's hex for any key, a key past the block size included."""
    import hashlib
    import hmac

    from agi_core.determinism import HmacSha256

    assert HmacSha256(key).hex(message) == hmac.new(key, message.encode("utf-8"), hashlib.sha256).hexdigest()


@given(seed=st.text(min_size=1, max_size=100), steps=st.integers(min_value=0, max_value=10**7))
def test_ids_and_stamps_are_the_rulebook_formula(seed, steps):
    """D2/D3 written out with the standard library: an id is HMAC(seed, namespace|payload|counter), a
    stamp the seed's epoch plus one second a step plus the HMAC's jitter, formatted by strftime."""
    import hashlib
    import hmac

    key = seed.encode("utf-8")

    def mac(message):
        return hmac.new(key, message.encode("utf-8"), hashlib.sha256).hexdigest()

    clock = Determinism(seed, counter=steps)
    assert clock.new_id("tick", "7") == mac(f"tick|7|{steps + 1}")
    epoch = datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC) + datetime.timedelta(
        seconds=int(mac("epoch")[:8], 16) % (365 * 24 * 3600)
    )
    moment = epoch + datetime.timedelta(seconds=steps + 2, milliseconds=int(mac(str(steps + 2))[:8], 16) % 1000)
    assert clock.now() == moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    assert clock.sign("x") == mac("x")
