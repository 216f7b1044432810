"""The typed module base: phases found by override, the typed context, before/after ordering."""

from __future__ import annotations

from typing import ClassVar

from agi_core.hookspecs import hookimpl
from agi_core.modules import CognitiveModule, ModuleContext, Proposals
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel


class Counter(CognitiveModule):
    """Overrides perceive and deliberate only: the other phases are neither called nor journaled."""

    name = "counter"
    priority = 10
    state_schema: ClassVar[dict] = {"type": "object", "properties": {"n": {"type": "integer"}}}

    def perceive(self, ctx: ModuleContext) -> int:
        n = ctx.own.get("n", 0) + 1
        ctx.own.put("n", n)
        return n

    def deliberate(self, ctx: ModuleContext) -> Proposals:
        return Proposals()


def plugin(*modules):
    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            for module in modules:
                register(module)

    return Plugin()


def test_a_subclass_takes_part_only_in_the_phases_it_overrides_and_replays_equal(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, plugin(Counter())) as kernel:
        (loaded,) = [m for m in kernel.modules if m.name == "counter"]
        assert (loaded.phases, loaded.votes) == (("perceive", "deliberate"), False)
        kernel.tick("hello")
        record = kernel.tick("2 + 3")
        assert [(c["phase"], c["output"]) for c in record.modules["calls"]] == [
            ("perceive", 2),
            ("deliberate", {"beliefs": [], "goals": [], "candidates": [], "claims": []}),
        ]
        assert kernel.store.conn.execute("SELECT value FROM module_state WHERE module = 'counter'").fetchone() == ("2",)
        assert not kernel.has_maintenance  # maintain is the base's no-op
    assert replay(db, plugins=builtin_plugins(plugin(Counter()))).ok


def named(name, priority=100, before=(), after=()):
    def perceive(self, ctx):
        return ctx.module

    attributes = {"name": name, "priority": priority, "before": before, "after": after, "perceive": perceive}
    return type(name.title(), (CognitiveModule,), attributes)()


def test_before_and_after_order_modules_against_their_priority(tmp_path):
    modules = (
        named("first", 1, after=("last",)),  # priority 1, but after "last"
        named("middle", 50),
        named("last", 90, before=("middle",)),  # priority 90, but before "middle"
        named("free", 60),
    )
    with open_kernel(tmp_path / "a.db", plugin(*modules)) as kernel:
        record = kernel.tick("2 + 3")
    # among the modules whose constraints are met, the lowest (priority, name) runs next
    assert record.modules["order"] == ["sem_council", "free", "last", "first", "middle"]
    assert [c["output"] for c in record.modules["calls"]] == ["free", "last", "first", "middle"]


def test_a_cycle_or_an_unknown_name_is_one_line_naming_the_modules_and_the_others_run(tmp_path):
    modules = (
        named("ping", after=("pong",)),
        named("pong", after=("ping",)),
        named("lost", before=("nowhere",)),
        named("waits", after=("ping",)),  # behind the cycle: left out with it
        named("fine"),
    )
    with open_kernel(tmp_path / "a.db", plugin(*modules)) as kernel:
        assert [m.name for m in kernel.modules] == ["sem_council", "fine"]
        problems = [f.cause for f in kernel.plugins.failures]
        fix = "install that module or drop the name from before/after"
        cycle = "modules 'ping', 'pong' order each other in a cycle (before/after); drop one of the constraints"
        assert problems == [
            f"module 'lost' is ordered against 'nowhere', which is not loaded or was left out; {fix}",
            cycle,  # (reported for each module in the cycle: kept once, Plugins.report_failure)
            f"module 'waits' is ordered against 'ping', which is not loaded or was left out; {fix}",
        ]
        assert kernel.tick("2 + 3").final_output == "2 + 3 = 5"


def test_a_plain_object_of_the_first_protocol_still_works(tmp_path):
    class Plain:
        name = "plain"

        def observe(self, ctx):
            return ctx.outcome["final_output"]

    with open_kernel(tmp_path / "a.db", plugin(Plain())) as kernel:
        record = kernel.tick("2 + 3")
    assert [(c["module"], c["phase"], c["output"]) for c in record.modules["calls"]] == [
        ("plain", "observe", "2 + 3 = 5")
    ]
