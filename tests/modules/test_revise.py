"""The revise phase: modules rewrite, replace or veto the brain's reply before the agent acts, journaled."""

from __future__ import annotations

import orjson
import pytest

from agi_core.errors import PluginError
from agi_core.hookspecs import hookimpl
from agi_core.modules import CognitiveModule, Draft, ModuleContext, Revision
from agi_core.modules.state import dump_state
from agi_core.replay import replay, replay_records
from agi_core.testing import builtin_plugins, open_kernel


class Polite(CognitiveModule):
    name, priority = "polite", 10

    def revise(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        if draft.action.type == "response":
            return Revision.rewrite(draft.reply + ", if I may.", "politeness")
        return None


class Guard(CognitiveModule):
    name, priority = "guard", 20

    def revise(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        if "9" in draft.reply:
            return Revision.veto("no nines", "I keep that number to myself.")
        if ctx.text == "my name is Ada":
            return Revision.replace("Nice to meet you, Ada.", "warmer")
        return None


class Echo(CognitiveModule):
    """Runs last: sees what the others made of the reply."""

    name, priority = "echo", 30

    def revise(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        ctx.own.put("saw", draft.reply)
        return None


class Plugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Echo())
        register(Guard())
        register(Polite())


def revisions(record):
    return [(c["module"], c.get("output", c.get("after_veto", c.get("skipped")))) for c in record.modules["calls"]]


def test_modules_rewrite_replace_and_veto_the_reply_in_order_each_change_journaled_and_replay_is_equal(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, Plugin()) as kernel:
        rewritten = kernel.tick("2 + 3")
        vetoed = kernel.tick("4 + 5")
        replaced = kernel.tick("my name is Ada")
        assert kernel.get_fact("user/person/self/name").value == "Ada"  # the brain's write stands
        saw = kernel.store.module_state_get("echo", "saw")
    assert (rewritten.final_output, rewritten.action.args) == (
        "2 + 3 = 5, if I may.",
        {"text": "2 + 3 = 5, if I may."},
    )
    assert revisions(rewritten) == [
        ("polite", {"kind": "rewrite", "text": "2 + 3 = 5, if I may.", "reason": "politeness"}),
        ("guard", None),
        ("echo", None),
    ]
    assert vetoed.final_output == "I keep that number to myself."
    assert revisions(vetoed) == [
        ("polite", {"kind": "rewrite", "text": "4 + 5 = 9, if I may.", "reason": "politeness"}),
        ("guard", {"kind": "veto", "text": "I keep that number to myself.", "reason": "no nines"}),
        ("echo", "guard"),  # vetoed: not asked
    ]
    assert replaced.final_output == "Nice to meet you, Ada."
    assert saw == "Nice to meet you, Ada."  # the last module saw the draft as the others left it
    report = replay(db, plugins=builtin_plugins(Plugin()))
    assert (report.ok, report.ticks) == (True, 3)


def test_replay_without_the_revising_module_differs_and_a_rewrite_of_a_tool_call_is_skipped(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, Plugin()) as kernel:
        kernel.tick("2 + 3")
        records = [text for _t, _i, text, _c in kernel.store.journal_rows()]

    class OnlyEcho:
        @hookimpl
        def agi_register_modules(self, register):
            register(Echo())

    with pytest.raises(PluginError) as refused:  # the revising modules' plugin is not installed: named, not replayed
        replay_records(records, seed="test", plugins=builtin_plugins(OnlyEcho()))
    assert str(refused.value) == (
        "tick 1 ran module 'polite' of plugin 'Plugin', which is not installed; "
        "install plugin 'Plugin' (agi plugins lists the installed ones)"
    )
    produced: list = []  # a counterfactual without them runs, and the reply differs
    replay_records(records, seed="test", plugins=builtin_plugins(OnlyEcho()), produced=produced)
    assert produced[0].final_output != orjson.loads(records[0])["final_output"]

    class ToolRewriter(CognitiveModule):
        name = "tool_rewriter"

        def revise(self, ctx, draft):
            return Revision.rewrite("done")

    class ToolPlugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(ToolRewriter())

    with open_kernel(tmp_path / "b.db", ToolPlugin()) as kernel:
        record = kernel.tick("/file_list")
    assert (record.action.type, record.observation.success) == ("tool", True)
    assert revisions(record) == [
        (
            "tool_rewriter",
            "ValidationError: a rewrite changes a reply's form; replace or veto a tool call instead",
        )
    ]


def test_a_vetoed_tool_call_is_not_made(tmp_path):
    from agi_core.tools import ToolPolicy

    class NoWrites(CognitiveModule):
        name = "no_writes"

        def revise(self, ctx, draft):
            if draft.action.type == "tool" and draft.action.name == "file_write":
                return Revision.veto("read-only agent", "I may not write files.")
            return None

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(NoWrites())

    db = tmp_path / "a.db"
    with open_kernel(db, Plugin(), policy=ToolPolicy(allow_tools=frozenset({"file_write"}))) as kernel:
        record = kernel.tick("/file_write out.txt data")
        assert (record.final_output, record.action.type) == ("I may not write files.", "response")
        assert not (kernel.workspace / "out.txt").exists()
        assert kernel.pending_intents() == []
    assert replay(db, plugins=builtin_plugins(Plugin())).ok


class Liar(CognitiveModule):
    """Rewrites the reply's numbers: a form change it is not."""

    name, priority = "liar", 10

    def revise(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        return Revision.rewrite(draft.reply.replace("35", "36").replace("= 5", "= 6") + " Cheers!", "style")


class LiarPlugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Liar())


def test_a_rewrite_that_drops_a_fact_of_the_reply_is_refused_and_the_reply_stands(tmp_path):
    """'Your age is 35.' came out 'Your age is 36.' with the claim still saying 35, and the council approved:
    a rewrite changes the form only, its claims stand. What a rewrite adds (a reminder) stays allowed."""
    db = tmp_path / "a.db"
    with open_kernel(db, LiarPlugin()) as kernel:
        kernel.tick("my age is 35")
        asked = kernel.tick("what is my age?")
        summed = kernel.tick("2 + 3")
        greeted = kernel.tick("hello")
    assert asked.final_output == "Your age is 35."
    skipped = [c.get("skipped", "") for c in asked.modules["calls"] if c["module"] == "liar"]
    assert skipped == [
        "ValidationError: a rewrite changes a reply's form only, but this one changed its facts (it drops 35); "
        "keep them, or return Revision.replace (the claims go)"
    ]
    assert summed.final_output == "2 + 3 = 5"
    assert greeted.final_output.endswith(" Cheers!")  # no number dropped: the rewrite stands
    assert replay(db, plugins=builtin_plugins(LiarPlugin())).ok


class Shouter(CognitiveModule):
    """Rewrites the reply in capitals: its form, not its facts (the council reads a claimed value in any case)."""

    name, priority = "shouter", 10

    def revise(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        return Revision.rewrite(draft.reply.upper(), "emphasis")


class ShouterPlugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Shouter())


def test_a_rewrite_that_changes_only_the_case_of_a_claimed_value_is_taken_and_replays_equal(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, ShouterPlugin()) as kernel:
        kernel.tick("my favorite color is teal")
        asked = kernel.tick("what is my favorite color?")
    assert asked.final_output == "YOUR FAVORITE COLOR IS TEAL."
    assert [v["vote"] for v in asked.council_votes] == ["approve", "approve"]
    assert asked.externals["revise_case_kept"] == [{"module": "shouter"}]
    assert replay(db, plugins=builtin_plugins(ShouterPlugin())).ok


def test_a_journal_from_before_that_refused_a_case_only_rewrite_replays_equal(tmp_path, monkeypatch):
    """The journal older code wrote: the claimed value compared case-sensitively, the rewrite refused."""
    from agi_core.modules.runner import ModuleTick

    db = tmp_path / "old.db"
    with monkeypatch.context() as patched:
        patched.setattr(ModuleTick, "_case_kept", lambda run, module: lambda: False)
        with open_kernel(db, ShouterPlugin()) as kernel:
            kernel.tick("my favorite color is teal")
            asked = kernel.tick("what is my favorite color?")
    assert asked.final_output == "Your favorite color is teal."
    skipped = [c.get("skipped", "") for c in asked.modules["calls"] if c["module"] == "shouter"]
    assert skipped == [
        "ValidationError: a rewrite changes a reply's form only, but this one changed its facts (it drops the "
        "claimed value 'teal'); keep them, or return Revision.replace (the claims go)"
    ]
    assert replay(db, plugins=builtin_plugins(ShouterPlugin())).ok


class Reads(CognitiveModule):
    """Sees, in revise, the facts the tick read and stored (and tampers with its copies)."""

    name = "reads"

    def revise(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        reads, writes = ctx.fact_reads, ctx.fact_writes
        ctx.own.put("seen", {"reads": [[r["key"], r["exists"]] for r in reads], "writes": [w["key"] for w in writes]})
        for entry in [*reads, *writes]:
            entry["key"] = "tampered"
        return None


class ReadsPlugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Reads())


def test_revise_sees_the_ticks_fact_reads_and_writes_as_copies(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, ReadsPlugin()) as kernel:
        kernel.tick("what is my favorite color?")
        asked = dump_state(kernel.store, "reads")["seen"]
        told = kernel.tick("my favorite color is teal")
        stored = dump_state(kernel.store, "reads")["seen"]
    assert asked == {"reads": [["user/person/self/favorite_color", False]], "writes": []}
    assert stored == {"reads": [], "writes": ["user/person/self/favorite_color"]}
    # the copies changed, not the tick
    assert [w["key"] for w in told.sem_writes] == ["user/person/self/favorite_color"]
    assert replay(db, plugins=builtin_plugins(ReadsPlugin())).ok
