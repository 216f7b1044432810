"""A tick's externals: what an abandoned call fetched is taken back, and it can fetch nothing more."""

from __future__ import annotations

import pytest

from agi_core.contracts.caller import EXTERNAL, ContractCaller
from agi_core.externals import CallAbandoned, Externals


def test_withdraw_takes_back_what_the_call_fetched_and_refuses_what_it_asks_later():
    externals = Externals()
    call, other = object(), object()
    externals.fetch("x", lambda: "the tick's own")
    externals.run_owned(call, lambda _: externals.fetch("x", lambda: "the call's"), None)
    externals.run_owned(other, lambda _: externals.fetch("x", lambda: "another call's"), None)
    externals.run_owned(call, lambda _: externals.fetch("y", lambda: "the call's"), None)
    externals.withdraw(call)
    assert externals.log == {"x": ["the tick's own", "another call's"]}

    asked: list[str] = []
    with pytest.raises(CallAbandoned, match="after its call was abandoned"):
        externals.run_owned(call, lambda _: externals.fetch("x", lambda: asked.append("asked")), None)
    assert asked == []  # not even asked
    assert externals.log == {"x": ["the tick's own", "another call's"]}


def test_a_fetch_that_ends_after_its_call_was_withdrawn_records_nothing():
    externals = Externals()
    call = object()

    def overran() -> str:
        externals.withdraw(call)  # the tick gave up on the call while it was asking
        return "late"

    with pytest.raises(CallAbandoned):
        externals.run_owned(call, lambda _: externals.fetch("x", overran), None)
    assert externals.log == {}


def test_an_abandoned_contract_call_is_taken_back(registry_for_externals):
    externals = Externals()
    call = object()
    caller = ContractCaller(registry_for_externals, externals)
    caller.call("dialogue_state", {"turn": {"user": "the tick's own"}})
    externals.run_owned(call, lambda _: caller.call("dialogue_state", {"turn": {"user": "hello?"}}), None)
    assert len(externals.log[EXTERNAL]) == 2
    externals.withdraw(call)
    assert [record["value"]["summary"] for record in externals.log[EXTERNAL]] == ["Last said: the tick's own"]


@pytest.fixture(scope="module")
def registry_for_externals():
    from agi_core import Plugins
    from agi_core.contracts import registry_from_plugins

    return registry_from_plugins(Plugins.builtins())
