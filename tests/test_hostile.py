"""Hostile user text never crashes a tick and never corrupts what is stored."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agi_core.journal import verify
from agi_core.schemas import validate
from agi_core.serialization import to_data
from agi_core.testing import open_kernel

hostile_text = st.one_of(
    st.text(max_size=300),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=50).map(lambda t: "/" + t),
    st.sampled_from(
        [
            "my favorite  is ",
            "my favorite ''' is x",
            "what is the  of ?",
            "/file_read ../../etc/passwd",
            '/file_write "unterminated',
            "9" * 5000 + "^9",
            "2 ^ 99999",
            "my name is " + "x" * 100_000,
            "\x00\x01\x02",
            "the capital of \u202e is \u0000",
            "/clock $0=1 $1=2",
        ]
    ),
    st.builds(lambda a, b: f"my favorite {a} is {b}", st.text(max_size=30), st.text(max_size=30)),
)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    with open_kernel(folder / "a.db", seed="hostile", workspace=folder / "ws") as kernel:
        kernel.tick("my favorite color is green")
        yield kernel


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=hostile_text)
def test_any_text_gives_a_valid_journaled_tick(kernel, text):
    before = kernel.tick_count
    record = kernel.tick(text)
    assert record.tick == before + 1
    validate("journal_record", to_data(record))
    assert kernel.get_fact("user/person/self/favorite_color").exists


def test_the_chain_still_verifies_after_hostile_input(kernel):
    assert verify(kernel.store, kernel.journal_key).ok
