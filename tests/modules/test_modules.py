"""Modules as tick phases: order, journal, proposals, own state, isolation, replay, rollback, seal."""

from __future__ import annotations

import importlib.util
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import ClassVar

import pytest

from agi_core import checkpoints
from agi_core.hookspecs import hookimpl
from agi_core.integrity import verify_agent
from agi_core.journal_key import load as load_key
from agi_core.memory.backend import MAX_STATE_VALUE_BYTES
from agi_core.modules import Belief, ModuleStateError, Proposals
from agi_core.replay import replay, replay_records
from agi_core.replies import F3_NO_AGENT
from agi_core.testing import builtin_plugins, open_kernel

PLUGIN_FILE = Path(__file__).with_name("notebook_plugin.py")


def notebook_plugin():
    """The test plugin module, freshly imported from its file."""
    spec = importlib.util.spec_from_file_location("notebook_plugin", PLUGIN_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def calls(record):
    return [(c["module"], c["phase"], c.get("output", c.get("skipped"))) for c in record.modules["calls"]]


def test_every_phase_runs_in_order_and_its_output_and_state_writes_are_journaled(tmp_path):
    with open_kernel(tmp_path / "a.db", notebook_plugin()) as kernel:
        kernel.tick("my name is Ada")
        record = kernel.tick("hello")
        assert record.modules["order"] == ["sem_council", "notebook"]  # priority 0, then 50
        perceive, recall, deliberate, observe = record.modules["calls"]
        assert (perceive["module"], perceive["phase"], perceive["output"]["seen"]) == ("notebook", "perceive", 2)
        assert perceive["state"] == [{"key": "seen", "value": 2}]
        assert recall["output"] == {"user_facts": {"user/person/self/name": "Ada"}, "episodes": 2}
        assert [read["key"] for read in record.sem_reads] == ["user/person/self/name"]  # reads go through the tick
        assert deliberate["output"] == {
            "beliefs": [{"about": "dialogue_state", "value": "fallback", "confidence": 0.5}],
            "goals": [],
            "candidates": [],
            "claims": [],
        }
        assert observe["output"] == {"ok": True}
        assert observe["state"] == [{"key": "last", "value": record.final_output[:40]}]
        assert record.externals["contract_call"][0]["source"] == "fallback"  # the contract call is recorded
        assert dict(kernel.store.conn.execute("SELECT key, value FROM module_state WHERE module = 'notebook'")) == {
            "seen": "2",
            "last": '"' + record.final_output[:40] + '"',
        }


def test_a_modules_belief_proposal_is_a_belief_of_the_tick_the_brain_sees_and_the_journal_keeps(tmp_path):
    seen = []

    class Spy:
        name = "spy"

        def reason(self, ctx):
            seen.append(ctx.state.beliefs)
            return builtin_brain.reason(ctx)

    with open_kernel(tmp_path / "a.db", notebook_plugin()) as kernel:
        builtin_brain = kernel.brain
        kernel._brains["stage0"] = Spy()
        record = kernel.tick("hello")
    held = {"key": "dialogue_state", "value": "fallback", "confidence": 0.5, "source": "module:notebook"}
    assert held in seen[0].facts
    assert held in record.beliefs.facts


def test_a_candidate_answers_only_when_no_rule_matches_and_the_council_checks_its_claims(tmp_path):
    with open_kernel(tmp_path / "a.db", notebook_plugin()) as kernel:
        assert kernel.tick("2 + 3").final_output == "2 + 3 = 5"  # a rule's answer stands
        record = kernel.tick("notebook?")
        assert (record.final_output, record.router_decision.agent) == ("I have seen 2 inputs.", "module:notebook")
        assert record.router_decision.why == "module_candidate"
        kernel.put_fact("user/person/self/name", "Ada")
        record = kernel.tick("who is talking?")  # no rule answers it ("who am i?" is R2 now)
        assert record.final_output == "You are Ada."
        assert [(v["voter"], v["vote"]) for v in record.council_votes] == [
            ("evidence_check", "approve"),
            ("value_check", "approve"),
        ]
        assert record.claims[0]["evidence"] == record.evidence_items[0]["id"]
        assert record.claims[0]["id"].startswith("cl-") and record.evidence_items[0]["id"].startswith("ev-")


def test_state_survives_checkpoint_more_ticks_rollback_and_replays_equal(tmp_path):
    db = tmp_path / "a.db"
    plugin = notebook_plugin()
    with open_kernel(db, plugin) as kernel:
        for line in ("hello", "notebook?", "2 + 3"):
            kernel.tick(line)
        checkpoints.create(kernel, "three")
        kernel.tick("more")
        assert kernel.maintain().modules["calls"] == [
            {
                "module": "notebook",
                "phase": "maintain",
                "output": {"tidied": 1},
                "state": [{"key": "tidied", "value": 1}],
            }
        ]
        assert _state(kernel) == {"seen": 4, "last": F3_NO_AGENT[:40], "tidied": 1}
        checkpoints.rollback(kernel, "three")
        assert _state(kernel) == {"seen": 3, "last": "2 + 3 = 5"}
        assert kernel.tick("notebook?").final_output == "I have seen 4 inputs."
        kernel.maintain()
    report = replay(db, plugins=builtin_plugins(plugin))
    assert (report.ok, report.ticks) == (True, 5)
    with open_kernel(db, plugin) as kernel:
        assert verify_agent(kernel.store, load_key(kernel.store, "test")).problems() == []


def _state(kernel):
    import json

    rows = kernel.store.conn.execute("SELECT key, value FROM module_state WHERE module = 'notebook'")
    return {key: json.loads(value) for key, value in rows}


def test_replay_compares_the_modules_outputs(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, notebook_plugin()) as kernel:
        kernel.tick("hello")
        records = [text for _t, _i, text, _c in kernel.store.journal_rows()]
    changed = notebook_plugin()
    changed.Notebook.observe = lambda self, ctx: {"ok": "changed"}
    report = replay_records(records, seed="test", plugins=builtin_plugins(changed))
    assert (report.ok, report.mismatch.field) == (False, "modules")
    assert replay_records(records, seed="test", plugins=builtin_plugins(notebook_plugin())).ok


class Raises:
    name = "raises"

    def deliberate(self, ctx):
        ctx.own.put("before", 1)  # undone with the failed call
        raise RuntimeError("boom")


HANG_S = 10.0


class Hangs:
    """Hangs in ``perceive`` until released (at most :data:`HANG_S`), then tries a late write; the next
    call hangs again."""

    name = "hangs"

    def __init__(self) -> None:
        self.released, self.tried = threading.Event(), threading.Event()

    def perceive(self, ctx):
        self.released.wait(HANG_S)
        self.released.clear()
        try:
            ctx.own.put("late", 1)  # refused: the tick moved on
        finally:
            self.tried.set()


class BadState:
    name = "bad_state"
    state_schema: ClassVar[dict] = {"type": "object", "properties": {"count": {"type": "integer"}}}

    def perceive(self, ctx):
        try:
            ctx.own.put("count", "three")
        except ModuleStateError as exc:
            return {"refused": str(exc)}
        return {"refused": None}

    def observe(self, ctx):
        ctx.own.put("count", "four")  # not caught: the call is skipped, the tick goes on


class Faulty:
    def __init__(self) -> None:
        self.hangs = Hangs()

    @hookimpl
    def agi_register_modules(self, register):
        register(Raises())
        register(self.hangs)
        register(BadState())


def test_a_module_that_raises_or_hangs_is_skipped_and_recorded_and_the_tick_completes(tmp_path):
    db = tmp_path / "a.db"
    faulty = Faulty()
    with open_kernel(db, faulty, module_timeout_s=0.3) as kernel:
        started = time.perf_counter()
        record = kernel.tick("2 + 3")
        assert time.perf_counter() - started < HANG_S  # the hang was abandoned at the timeout
        assert record.final_output == "2 + 3 = 5"
        assert calls(record) == [
            ("bad_state", "perceive", {"refused": _refusal("three")}),
            ("hangs", "perceive", "TimedOut: hangs ran past 0.3 s and was abandoned"),
            ("raises", "deliberate", "RuntimeError: boom"),
            ("bad_state", "observe", "ModuleStateError: " + _refusal("four")),
        ]
        assert record.externals["module_timeout"] == [
            {"call": "hangs/perceive", "skipped": "TimedOut: hangs ran past 0.3 s and was abandoned"}
        ]
        assert [(f.plugin, f.stage) for f in kernel.plugins.failures][-3:] == [
            ("Faulty", "module hangs.perceive"),
            ("Faulty", "module raises.deliberate"),
            ("Faulty", "module bad_state.observe"),
        ]
        faulty.hangs.released.set()  # the abandoned call wakes up and tries to write: refused
        assert faulty.hangs.tried.wait(HANG_S)
        assert kernel.store.conn.execute("SELECT count(*) FROM module_state").fetchone() == (0,)
        assert kernel.tick("2 + 2").final_output == "2 + 2 = 4"
    started = time.perf_counter()
    assert replay(db, plugins=builtin_plugins(Faulty())).ok  # the recorded timeout is served: no wait
    assert time.perf_counter() - started < HANG_S


def _refusal(value):
    return (
        f"module 'bad_state': state value refused at $.count: '{value}' is not of type 'integer'; "
        "store a value its state_schema allows"
    )


def test_the_seal_covers_module_state(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, notebook_plugin()) as kernel:
        kernel.tick("hello")
    with open_kernel(db, notebook_plugin()) as kernel:
        kernel.store.conn.execute("UPDATE module_state SET value = '99' WHERE key = 'seen'")
        problems = verify_agent(kernel.store, load_key(kernel.store, "test")).problems()
        assert problems == ["STATE_CHANGED module_state key 'notebook/seen': changed outside the journal"]


@pytest.mark.parametrize(
    ("module", "problem"),
    [
        (
            type("M", (), {"name": "Bad-Name", "perceive": lambda self, ctx: None})(),
            "module name 'Bad-Name' is invalid",
        ),
        (type("M", (), {"name": "empty"})(), "module 'empty' has none of the methods"),
        (
            type("M", (), {"name": "schema", "state_schema": {"type": 3}, "perceive": lambda self, ctx: None})(),
            "module 'schema': state_schema is not a valid JSON Schema",
        ),
    ],
)
def test_a_bad_registration_is_reported_and_skipped(tmp_path, module, problem):
    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(module)

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        assert [m.name for m in kernel.modules] == ["sem_council"]
        assert problem in kernel.plugins.failures[-1].cause
        assert kernel.tick("2 + 3").final_output == "2 + 3 = 5"


def test_modules_run_by_priority_then_name_whatever_the_registration_order(tmp_path):
    def module(name, priority):
        return type(name, (), {"name": name, "priority": priority, "perceive": lambda self, ctx: ctx.module})()

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            for name, priority in (("b_mod", 5), ("a_mod", 5), ("z_mod", 1), ("late", 200)):
                register(module(name, priority))

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        record = kernel.tick("2 + 3")
        assert record.modules["order"] == ["sem_council", "z_mod", "a_mod", "b_mod", "late"]
        assert [c["output"] for c in record.modules["calls"]] == ["z_mod", "a_mod", "b_mod", "late"]


def test_a_rule_that_matches_but_cannot_answer_leaves_the_reply_to_the_candidates(tmp_path):
    """R2 matches anything with "my favo" in it but answers F3 to "are you sure about my favorite color?"."""
    from agi_core.modules import Candidate, Proposals

    class Sure:
        name = "sure"

        def deliberate(self, ctx):
            return Proposals(candidates=[Candidate("Quite sure.", score=0.7)])

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(Sure())

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        record = kernel.tick("are you sure about my favorite color?")
        assert record.selected_agents == ["module:sure"]
        assert (record.router_decision.agent, record.final_output) == ("module:sure", "Quite sure.")
        assert kernel.tick("my favorite color is teal").final_output == "Got it: your favorite color is teal."


def test_a_rule_answer_stands_against_any_candidate_and_an_unsupported_claim_is_rejected(tmp_path):
    from agi_core.modules import Candidate, Claim, Proposals
    from agi_core.replies import F1_SEM_MISS

    class Eager:
        name = "eager"

        def deliberate(self, ctx):
            claim = Claim("user/person/self/name", "Bob", "You are Bob.", None)  # cites no read
            return Proposals(candidates=[Candidate("You are Bob.", score=1.0, claims=[claim])])

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(Eager())

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        assert kernel.tick("2 + 3").final_output == "2 + 3 = 5"
        record = kernel.tick("who is talking?")  # no rule answers it ("who am i?" is R2 now)
        assert (record.router_decision.agent, record.final_output) == ("module:eager", F1_SEM_MISS)
        assert [(v["voter"], v["vote"]) for v in record.council_votes] == [
            ("evidence_check", "reject"),
            ("value_check", "approve"),
        ]


def test_an_inline_module_runs_in_the_ticks_thread_and_its_exception_is_still_isolated(tmp_path):
    import threading

    class Inline:
        name, inline = "inline_mod", True

        def perceive(self, ctx):
            return threading.current_thread() is threading.main_thread()

        def observe(self, ctx):
            raise ValueError("inline boom")

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(Inline())

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        record = kernel.tick("2 + 3")
        assert record.final_output == "2 + 3 = 5"
        assert calls(record) == [("inline_mod", "perceive", True), ("inline_mod", "observe", "ValueError: inline boom")]


def test_a_state_key_no_backend_stores_alike_is_refused_in_one_line(tmp_path):
    """NUL (PostgreSQL TEXT cannot hold it) and lone surrogates are refused before any backend sees them."""

    class Keys:
        name = "keys"

        def perceive(self, ctx):
            refused = []
            for key in ("a\x00b", "a\ud800b"):
                try:
                    ctx.own.put(key, 1)
                except ModuleStateError as exc:
                    refused.append(str(exc))
            ctx.own.put("ok", 1)
            return refused

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(Keys())

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        record = kernel.tick("2 + 3")
        rule = "use a non-empty string of at most 200 characters, without NUL or lone surrogates"
        assert calls(record) == [
            (
                "keys",
                "perceive",
                [
                    f"module 'keys': state key 'a\\x00b' refused; {rule}",
                    f"module 'keys': state key 'a\\ud800b' refused; {rule}",
                ],
            )
        ]
        assert dict(kernel.store.module_state_items("keys")) == {"ok": 1}


def test_a_state_value_over_the_limit_is_refused_in_one_line_and_the_module_skipped(tmp_path):
    """A 20 MB value every tick grew the database by 20 MB a tick (80 MB after three). Now a value over
    the limit (default 4 MiB of JSON, ``module_state_max_bytes`` to change it) is refused in one line,
    the module is skipped for the phase and what it stored before stays."""

    class Hoarder:
        name = "hoarder"

        def perceive(self, ctx):
            ctx.own.put("kept", ctx.own.get("kept", 0) + 1)
            ctx.own.put("blob", ctx.text * (MAX_STATE_VALUE_BYTES // len(ctx.text)))

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(Hoarder())

    assert MAX_STATE_VALUE_BYTES == 4 * 1024 * 1024  # the documented default
    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        record = kernel.tick("ab")  # "abab…": 4 MiB of text, 4 MiB + 2 bytes of JSON
        assert calls(record) == [
            (
                "hoarder",
                "perceive",
                "ModuleStateError: module 'hoarder': state 'blob' is 4,194,306 bytes of JSON, over the limit of "
                "4,194,304 bytes per value; store less under one key, or raise the limit "
                "(--module-state-max, KernelConfig.module_state_max_bytes)",
            )
        ]
        assert kernel.store.module_state_items("hoarder") == []  # the call's writes were all undone
        assert kernel.tick("2 + 3").final_output == "2 + 3 = 5"

    class Sized:
        name = "sized"

        def perceive(self, ctx):
            outcomes = []
            for value in ("x" * 98, "x" * 99, "é" * 49, "é" * 50):  # JSON: 100, 101, 100 and 102 bytes
                try:
                    ctx.own.put("v", value)
                    outcomes.append("stored")
                except ModuleStateError as exc:
                    outcomes.append(str(exc).split(";")[0])
            return outcomes

    class SizedPlugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(Sized())

    with open_kernel(tmp_path / "b.db", SizedPlugin(), module_state_max_bytes=100) as kernel:
        record = kernel.tick("hello")
        over = "module 'sized': state 'v' is {} bytes of JSON, over the limit of 100 bytes per value"
        assert calls(record) == [("sized", "perceive", ["stored", over.format(101), "stored", over.format(102)])]
        assert kernel.store.module_state_items("sized") == [("v", "é" * 49)]


def test_a_module_name_registered_twice_names_the_module_both_plugins_and_the_fixes(tmp_path):
    """It said "'notes' is registered by both 'A' and 'A'; ... disable a plugin" for one plugin registering
    the name twice, and named no kind of thing for two plugins; now one line says which."""

    def notes():
        return type("Notes", (), {"name": "notes", "perceive": lambda self, ctx: "notes"})()

    def plugin(label, count=1):
        module = ModuleType(label)
        module.agi_register_modules = hookimpl(lambda register: [register(notes()) for _ in range(count)])
        return module

    with open_kernel(tmp_path / "a.db", plugin("alpha_notes"), plugin("beta_notes")) as kernel:
        assert [(m.name, m.plugin) for m in kernel.modules] == [("sem_council", "stage0"), ("notes", "alpha_notes")]
        assert [str(failure) for failure in kernel.plugins.failures] == [
            "plugin 'beta_notes' failed in agi_register_modules: RegistrationError: module 'notes' is registered "
            "by both plugins 'alpha_notes' and 'beta_notes'; rename one of the two, or disable one plugin "
            "(AGI_DISABLE_PLUGINS=beta_notes)"
        ]
    with open_kernel(tmp_path / "b.db", plugin("twice", count=2)) as kernel:
        assert [m.name for m in kernel.modules] == ["sem_council", "notes"]
        assert [failure.cause for failure in kernel.plugins.failures] == [
            "RegistrationError: plugin 'twice' registers the module 'notes' twice; give each module its own name"
        ]
        assert calls(kernel.tick("2 + 3")) == [("notes", "perceive", "notes")]


def test_a_write_after_the_call_ended_says_how_it_ended(tmp_path):
    """A thread a module left behind was told "this tick has ended (the module timed out)" though the
    module had returned in time; now the line says whether the call returned, raised or timed out."""
    told = {}

    def later(ctx, label):
        def write():
            gates[label].wait(5)  # the call has ended: a later phase began
            try:
                ctx.own.put("late", 1)
            except Exception as exc:  # noqa: BLE001 - the line is what the test looks at
                told[label] = f"{type(exc).__name__}: {exc}"

        thread = threading.Thread(target=write)
        threads.append(thread)
        return thread

    threads = []
    gates = {"returned": threading.Event(), "raised": threading.Event()}

    class Leaver:
        name = "leaver"

        def perceive(self, ctx):
            later(ctx, "returned").start()  # writes once the call has returned
            return None

        def recall(self, ctx):
            gates["returned"].set()
            later(ctx, "raised").start()
            raise ValueError("boom")

        def observe(self, ctx):
            gates["raised"].set()
            time.sleep(0.6)  # past its 0.3 s timeout: abandoned; it tries to write anyway
            try:
                ctx.own.put("late", 1)
            except Exception as exc:  # noqa: BLE001 - the line is what the test looks at
                told["timed out"] = f"{type(exc).__name__}: {exc}"

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(Leaver())

    with open_kernel(tmp_path / "a.db", Plugin(), module_timeout_s=0.3) as kernel:
        kernel.tick("hello")
        time.sleep(0.8)
        for thread in threads:
            thread.join()
        assert kernel.store.module_state_items("leaver") == []
    assert told == {
        "returned": "ContextClosed: module 'leaver': its perceive call had already returned, so this is refused "
        "(a thread it left running?); do the work before the phase returns (join the thread)",
        "raised": "ContextClosed: module 'leaver': its recall call had already raised, so this is refused "
        "(a thread it left running?); join such a thread before returning",
        "timed out": "ContextClosed: module 'leaver': its observe call ran past its 0.3 s timeout and was "
        "abandoned, so this is refused; raise the module's timeout_s / phase_timeouts or --module-timeout",
    }


def test_an_output_that_is_not_json_is_one_line_naming_module_phase_type_and_fix(tmp_path):
    """A set returned by perceive was a bare "TypeError: Object of type set is not JSON serializable"; a set
    in a belief's value got past the checks and stopped the tick when its record was stored."""

    class Sloppy:
        name = "sloppy"

        def perceive(self, ctx):
            return {"tags": {"a", "b"}}

        def recall(self, ctx):
            return [b"raw"]

        def deliberate(self, ctx):
            return Proposals(beliefs=[Belief("tags", {"a"}, 0.5)])

        def observe(self, ctx):
            return object()

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(Sloppy())

    fix = "which is not JSON; return JSON (dict, list, str, number, bool, None): a list for a set, text for bytes, "
    fix += "a dict for an object"
    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        record = kernel.tick("2 + 3")
        assert record.final_output == "2 + 3 = 5"
        assert calls(record) == [
            (
                "sloppy",
                "perceive",
                f"ValidationError: module 'sloppy': perceive returned a value of type set at $.tags, {fix}",
            ),
            (
                "sloppy",
                "recall",
                f"ValidationError: module 'sloppy': recall returned a value of type bytes at $[0], {fix}",
            ),
            (
                "sloppy",
                "deliberate",
                "ValidationError: module 'sloppy': deliberate returned proposals with a value of type set at "
                f"$.beliefs[0].value, {fix}",
            ),
            ("sloppy", "observe", f"ValidationError: module 'sloppy': observe returned a value of type object, {fix}"),
        ]
        assert kernel.replay().ok
