"""What the module protocol's cheaper paths must keep: a call's own writes visible to it and
stored only when it succeeds, one fact listing shared by the modules of a run but never their
changes to it, and a tick that leaves no reference cycle for the garbage collector."""

from __future__ import annotations

import copy
import gc
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs

from agi_core.contracts.caller import ContractOutcome
from agi_core.contracts.frozen import _walk, copy_checked
from agi_core.hookspecs import hookimpl
from agi_core.model import SemanticEntry
from agi_core.testing import open_kernel


def plugin_of(*modules: Any) -> Any:
    class Plugin:
        @hookimpl
        def agi_register_modules(self, register: Any) -> None:
            for module in modules:
                register(module)

    return Plugin()


class Writer:
    """Writes, reads back, lists and deletes its own state in one call; raises after writing when told to."""

    name = "writer"
    state_schema = {"type": "object"}  # noqa: RUF012 - read once at registration

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}
        self.fail = False

    def perceive(self, ctx: Any) -> dict[str, Any]:
        ctx.own.put("a", {"n": 1})
        ctx.own.put("b", 2)
        self.seen["get"] = ctx.own.get("a")
        self.seen["items"] = dict(ctx.own.items())
        self.seen["deleted"] = ctx.own.delete("b")
        self.seen["deleted_again"] = ctx.own.delete("b")
        self.seen["after"] = dict(ctx.own.items())
        if self.fail:
            ctx.own.put("a", {"n": 99})
            raise RuntimeError("after writing")
        return {"ok": True}


def test_a_calls_own_writes_are_visible_to_it_and_stored_only_when_it_succeeds(tmp_path):
    writer = Writer()
    with open_kernel(tmp_path / "a.db", plugin_of(writer)) as kernel:
        record = kernel.tick("hello")
        assert writer.seen == {
            "get": {"n": 1},
            "items": {"a": {"n": 1}, "b": 2},
            "deleted": True,
            "deleted_again": False,
            "after": {"a": {"n": 1}},
        }
        (call,) = [c for c in record.modules["calls"] if c["module"] == "writer"]
        assert call["state"] == [
            {"key": "a", "value": {"n": 1}},
            {"key": "b", "value": 2},
            {"key": "b", "deleted": True},
        ]
        assert dict(kernel.store.module_state_items("writer")) == {"a": {"n": 1}}
        writer.fail = True
        record = kernel.tick("hello again")
        (call,) = [c for c in record.modules["calls"] if c["module"] == "writer"]
        assert call["skipped"].startswith("RuntimeError: after writing") and "state" not in call
        assert dict(kernel.store.module_state_items("writer")) == {"a": {"n": 1}}  # nothing of the failed call


class Lister:
    """Lists the user's facts; the first one changes the list value it was given."""

    def __init__(self, name: str, spoil: bool) -> None:
        self.name, self.spoil = name, spoil
        self.got: list[Any] = []

    def recall(self, ctx: Any) -> None:
        facts = ctx.memory.facts("user/person/self/")
        one = ctx.memory.fact("user/person/self/colors")
        self.got.append(copy.deepcopy(facts))
        if self.spoil:
            for value in [*facts.values(), one.value]:
                if isinstance(value, list):
                    value.append("spoiled")


def test_modules_share_a_fact_listing_but_not_their_changes_to_its_values_nor_the_journaled_reads(tmp_path):
    first, second = Lister("lister_a", spoil=True), Lister("lister_b", spoil=False)
    with open_kernel(tmp_path / "a.db", plugin_of(first, second)) as kernel:
        with kernel.store.tick_transaction():
            kernel.store.sem_write(
                SemanticEntry(id="x", key="user/person/self/colors", value=["blue"], fact="colors", updated_at="2030"),
                1,
            )
        record = kernel.tick("hello")
        assert first.got[-1] == second.got[-1] == {"user/person/self/colors": ["blue"]}
        reads = [read for read in record.sem_reads if read["key"] == "user/person/self/colors"]
        assert len(reads) == 4  # each module's reads are recorded, as if each had asked the store
        assert [read["value"] for read in reads] == [["blue"]] * 4  # the journal keeps what was read
        evidence = [item for item in record.evidence_items if item.get("key") == "user/person/self/colors"]
        assert evidence and all(item["value"] == ["blue"] for item in evidence)


class Realistic:
    """Every kind of work the benchmark's module does: state, facts, a contract call, proposals."""

    contracts = ("dialogue_state",)

    def __init__(self, name: str) -> None:
        self.name = name

    def perceive(self, ctx: Any) -> dict[str, Any]:
        ctx.own.put("seen", ctx.own.get("seen", 0) + 1)
        return {"seen": ctx.own.get("seen")}

    def recall(self, ctx: Any) -> dict[str, Any]:
        return {"facts": len(ctx.memory.facts("user/person/self/", limit=3))}

    def deliberate(self, ctx: Any) -> Any:
        from agi_core.modules import Belief, Candidate, Proposals

        outcome = ctx.contracts.call("dialogue_state", {"text": ctx.text})
        return Proposals(beliefs=[Belief("dialogue_state", outcome.source, 0.5)], candidates=[Candidate("hi", 0.1)])

    def observe(self, ctx: Any) -> dict[str, Any]:
        ctx.own.put("last", ctx.outcome["final_output"][:80])
        return {"ok": True}


def no_cycle_left(folder: str) -> None:
    """In a fresh process (see the test): ticks with modules, then nothing for the collector."""
    modules = [Realistic("realistic_a"), Realistic("realistic_b")]
    for inline in (False, True):
        for module in modules:
            module.inline = inline
        with open_kernel(Path(folder) / f"cycles_{inline}.db", plugin_of(*modules)) as kernel:
            for text in ("my favorite color is blue", "what is my favorite color?"):
                kernel.tick(text)  # warm up: caches filled once
            gc.collect()
            gc.disable()
            try:
                for text in ("12 + 30", "my favorite food is ramen", "what is my favorite food?", "tell me a joke"):
                    kernel.tick(text)
                found = gc.collect()
                assert found == 0, f"a tick left {found} objects only the garbage collector can free"
            finally:
                gc.enable()


def test_a_tick_with_modules_leaves_no_reference_cycle(tmp_path):
    # A process of its own: gc.collect() counts the whole process's garbage, and in a test worker the
    # abandoned calls of earlier tests (hanging modules, woken late) leave tracebacks behind.
    probe = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import test_protocol_cost as t; "
    probe += f"t.no_cycle_left({str(tmp_path)!r})"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_exact_type_copy_of_a_contract_value_is_the_walks_copy():
    values = [
        {"a": [1, 2.5, "x", None, True, {"b": ()}], "c": {}},
        ({"k": "v"},),
        {"bad": float("nan")},
        {"bad": "\ud800"},
        {1: "not a string key"},
        {"deep": [[[[]]]]},
        "plain",
        attrs.asdict(ContractOutcome("c", {"v": [1]}, "fallback")),
    ]
    for value in values:
        found: list[Any] = []
        assert copy_checked(value) == (_walk(value, [], found, copy=True), tuple(found))


def test_a_contract_outcome_as_data_is_attrs_asdict():
    outcome = ContractOutcome("c", {"v": [1, {"w": 2}]}, "llm", ["e"], [{"kind": "model", "text": "t"}])
    assert outcome.to_dict() == attrs.asdict(outcome)
    assert ContractOutcome.from_dict(outcome.to_dict()) == outcome
