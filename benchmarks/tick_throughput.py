"""Durable tick throughput: agi-core's kernel against the same loop built in LangGraph.

Both run the same mixed Stage-0 script (math, profile write/read, knowledge write/read,
generic) with the same router agents, one tick per input, persisted to a SQLite file:
agi-core through its one-transaction-per-tick store, LangGraph through a six-node
StateGraph (perceive → recall → reason → plan → act → store) checkpointed by its
SqliteSaver. Setup (LangGraph lives only in the benchmark environment):

    python3 -m venv benchmarks/.env
    benchmarks/.env/bin/pip install -r benchmarks/requirements-langgraph.txt
    benchmarks/.env/bin/pip install --no-deps -e .
    benchmarks/.env/bin/python benchmarks/tick_throughput.py --ticks 10000

``--modules N`` measures the cost of cognitive modules: the mixed script with 0 and with N
(default 6) instances of a realistic module using every tick phase (own state read and
written, facts read through the tick, a contract called, a proposal made), in the same run,
with the ratio of the median tick; a third row has the N modules marked ``inline`` (run in
the tick's thread, no timeout). The rows' ticks alternate, one tick of each row in turn:

    python benchmarks/tick_throughput.py --modules 6 [--module-ticks 2000]

``--phase-overhead N`` measures the module protocol's own cost: the same script with 0 and N
modules that do nothing in each of their five phases, isolated and inline, and the cost per
phase call ((p50 with N − p50 without) / (5 N)):

    python benchmarks/tick_throughput.py --phase-overhead 6 [--module-ticks 2000]

``--contract-call`` measures one module's contract call on the heuristic path (no provider):
µs per ``ContractCaller.call("dialogue_state", {"text": …})`` (owned by a call, as a module's
phase runs it, a fresh tick's externals every 6 calls), against the bare heuristic
(``conversation_fallbacks.dialogue_state``) on the same variables, in the same run:

    python benchmarks/tick_throughput.py --contract-call [--calls 20000]

The LangGraph run also has a row with the 6 realistic modules loaded (synchronous=FULL),
against the same LangGraph loop, and two rows of the disk alone: one ``synchronous=FULL`` commit a
tick of one row as large as the mean journal record (without modules, with the 6), nothing else:
the ceiling of any durable tick on this disk, as a multiple of LangGraph's loop.

``--conversation-modules`` measures the same script with no module, with the beliefs and
social packages installed (their heuristic path, every contract through its fallback), and with
the autonomy and learning packages too:

    python benchmarks/tick_throughput.py --conversation-modules [--module-ticks 2000]
        [--durable] [--think-ms 200] [--langgraph-python benchmarks/.env/bin/python] [--langgraph-ticks 500]

``--durable`` commits with ``synchronous=FULL``; ``--think-ms`` pauses before each tick, untimed (a
person reading and typing: the long-term memories encoded ahead between ticks are then ready);
``--langgraph-python`` adds LangGraph's loop, run by the benchmark environment's interpreter in a
process of its own during the run, and each row's ticks/s against it. Each row also gives the p50 of
the question ticks (the input ends with ``?``: with retrieval, they recall) and of the others.

It also measures, with agi-core alone (no LangGraph needed): the per-tick cost with 100,
10k and 100k facts under the focus entity (the 100-fact run is the baseline, goal: flat
within 20%), and the storage bytes per tick (database growth / ticks) for short inputs and
for 1 MB inputs. ``--quick`` runs only those two, small, in under a minute:

    python benchmarks/tick_throughput.py --quick
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SCRIPT = [
    "12 + 30",
    "my favorite color is blue",
    "what is my favorite color?",
    "the capital of France is Paris",
    "what is the capital of France?",
    "tell me a joke",
    "7 ^ 3",
    "my favourite food is ramen",
    "what is my favorite food?",
    "what is the capital of Peru?",
]


def _summary(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "ticks_per_s": len(ordered) / sum(ordered),
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[int(len(ordered) * 0.99) - 1] * 1000,
    }


def _by_kind(latencies: list[float], texts: list[str]) -> dict[str, float]:
    """p50 of the question ticks (the input ends with ``?``: with retrieval, they recall) and of the others."""
    asked = [taken for taken, text in zip(latencies, texts, strict=True) if text.endswith("?")]
    told = [taken for taken, text in zip(latencies, texts, strict=True) if not text.endswith("?")]
    return {
        "question_p50_ms": statistics.median(asked) * 1000 if asked else 0.0,
        "other_p50_ms": statistics.median(told) * 1000 if told else 0.0,
    }


def bench_agi(path: Path, ticks: int, synchronous: str, *extra: Any) -> dict[str, float]:
    """agi-core's durable ticks on the mixed script; ``extra`` plugins (modules) loaded too."""
    from agi_core import Kernel, Plugins

    latencies = []
    with Kernel.open(path, seed="bench", plugins=Plugins.builtins(*extra), synchronous=synchronous) as kernel:
        for i in range(ticks):
            start = time.perf_counter()
            kernel.tick(SCRIPT[i % len(SCRIPT)])
            latencies.append(time.perf_counter() - start)
    return _summary(latencies)


def bench_commit_floor(path: Path, ticks: int, row_bytes: int) -> dict[str, float]:
    """The disk's share alone: one ``synchronous=FULL`` commit a tick of one journal-sized row (WAL, as the
    store), nothing else. No durable tick here can go faster than this loop."""
    import sqlite3

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE journal (tick INTEGER PRIMARY KEY, record TEXT NOT NULL)")
    record = "x" * row_bytes
    latencies = []
    for tick in range(ticks):
        start = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO journal VALUES (?, ?)", (tick, record))
        conn.execute("COMMIT")
        latencies.append(time.perf_counter() - start)
    conn.close()
    return _summary(latencies)


def journal_bytes(path: Path) -> int:
    """The mean size of the journal records in the agent database at ``path``."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(path)) as conn:
        return int(conn.execute("SELECT avg(length(record)) FROM journal").fetchone()[0])


class _StateFacts:
    """The LangGraph loop keeps facts in its checkpointed state; agents read them through this."""

    def __init__(self, facts: dict[str, Any]) -> None:
        self.facts = facts

    def sem_read(self, key: str) -> Any:
        from agi_core.model import SemanticRead

        found = self.facts.get(key)
        return SemanticRead(exists=True, value=found[0], last_updated=found[1]) if found else SemanticRead(False)

    def savepoint(self, name: str) -> Any:
        import contextlib

        return contextlib.nullcontext()

    def sem_write(self, entry: Any, tick: int) -> bool:
        self.facts[entry.key] = (entry.value, entry.updated_at)
        return True


def build_langgraph(path: Path, durability: str) -> Any:
    import sqlite3
    from typing import TypedDict

    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph

    from agi_core.brain.stage0.agents import STAGE0_AGENTS
    from agi_core.brain.stage0.brain import Stage0Brain
    from agi_core.default_plugins.synonyms import builtin_synonyms
    from agi_core.determinism import Determinism
    from agi_core.model import Input, TickState
    from agi_core.reasoning import ReasonContext

    brain = Stage0Brain(STAGE0_AGENTS, timeout_s=0)
    determinism = Determinism("bench")

    class State(TypedDict, total=False):
        text: str
        input: dict[str, str]
        facts: dict[str, Any]
        recent_turns: list[str]
        decision: dict[str, Any]
        final_output: str
        tick: int
        journal: list[dict[str, Any]]

    def perceive(state: State) -> State:
        text = state["text"]
        return {
            "input": {"raw": text, "normalized": " ".join(text.split()), "source": "user"},
            "tick": state.get("tick", 0) + 1,
        }

    def recall(state: State) -> State:
        return {"recent_turns": state.get("recent_turns", [])[-10:]}

    def reason(state: State) -> State:
        facts = dict(state.get("facts", {}))
        tick_state = TickState(input=Input(**state["input"]))
        ctx = ReasonContext(
            state=tick_state,
            tick=state["tick"],
            store=_StateFacts(facts),  # type: ignore[arg-type]
            determinism=determinism,
            synonyms=builtin_synonyms(),
        )
        decision = brain.reason(ctx)
        return {
            "facts": facts,
            "decision": {
                "router_decision": {"agent": decision.router_decision.agent, "why": decision.router_decision.why},
                "sem_reads": ctx.sem_reads,
                "sem_writes": ctx.sem_writes,
                "claims": decision.claims,
                "council_votes": decision.council_votes,
                "final_output": decision.final_output,
            },
        }

    def plan(state: State) -> State:
        return {}

    def act(state: State) -> State:
        return {"final_output": state["decision"]["final_output"]}

    def store(state: State) -> State:
        turns = [*state.get("recent_turns", []), f"user: {state['input']['raw']}", f"agent: {state['final_output']}"]
        return {"recent_turns": turns[-10:], "journal": [{"tick": state["tick"], **state["decision"]}]}

    graph = StateGraph(State)
    for name, node in [
        ("perceive", perceive),
        ("recall", recall),
        ("reason", reason),
        ("plan", plan),
        ("act", act),
        ("store", store),
    ]:
        graph.add_node(name, node)
    graph.add_edge(START, "perceive")
    for a, b in [("perceive", "recall"), ("recall", "reason"), ("reason", "plan"), ("plan", "act"), ("act", "store")]:
        graph.add_edge(a, b)
    graph.add_edge("store", END)
    conn = sqlite3.connect(path, check_same_thread=False)
    return graph.compile(checkpointer=SqliteSaver(conn)), conn


def bench_langgraph(path: Path, ticks: int, durability: str) -> dict[str, float]:
    app, conn = build_langgraph(path, durability)
    config = {"configurable": {"thread_id": "bench"}}
    latencies = []
    for i in range(ticks):
        start = time.perf_counter()
        app.invoke({"text": SCRIPT[i % len(SCRIPT)]}, config, durability=durability)
        latencies.append(time.perf_counter() - start)
    conn.close()
    return _summary(latencies)


def _populate_facts(kernel: Any, count: int) -> None:
    """``count`` facts under the Stage-0 focus entity ``user/person/self`` (written directly, one transaction)."""
    from agi_core.model import SemanticEntry

    with kernel.store.tick_transaction():
        for i in range(count):
            key = f"user/person/self/attr_{i:07d}"
            kernel.store.sem_write(SemanticEntry(id=f"bench{i}", key=key, value=i, fact=key), 0)


FOCUS_SCRIPT = ["what is my favorite color?", "tell me a joke", "12 + 30", "my favorite color is blue"]
"""Every tick of it recalls the focus entity user/person/self (a reply without a focus keeps the last one)."""


def bench_fact_scale(folder: Path, sizes: list[int], ticks: int) -> dict[str, Any]:
    """Per-tick cost with ``size`` facts under the focus entity, each tick recalling it; the first size is the base."""
    from agi_core import Kernel, Plugins

    rows: dict[str, Any] = {}
    for size in sizes:
        with Kernel.open(
            folder / f"facts_{size}.db", seed="bench", plugins=Plugins.builtins(), synchronous="NORMAL"
        ) as k:
            _populate_facts(k, size)
            k.tick("my favorite color is blue")  # focus on user/person/self
            latencies = []
            for i in range(ticks):
                start = time.perf_counter()
                k.tick(FOCUS_SCRIPT[i % len(FOCUS_SCRIPT)])
                latencies.append(time.perf_counter() - start)
            assert k.working().focus == "user/person/self"
        rows[str(size)] = _summary(latencies)
    base = rows[str(sizes[0])]["p50_ms"]
    for row in rows.values():
        row["p50_ratio_vs_first"] = row["p50_ms"] / base
    return rows


class BenchModule:
    """A realistic module: every phase, its own state, facts read through the tick, one contract call."""

    priority = 100
    contracts = ("dialogue_state",)
    state_schema = {  # noqa: RUF012 - a plain module attribute, read once at registration
        "type": "object",
        "properties": {"seen": {"type": "integer", "minimum": 0}, "last": {"type": "string"}},
        "additionalProperties": False,
    }

    def __init__(self, name: str) -> None:
        self.name = name

    def perceive(self, ctx: Any) -> dict[str, Any]:
        seen = ctx.own.get("seen", 0) + 1
        ctx.own.put("seen", seen)
        return {"seen": seen}

    def recall(self, ctx: Any) -> dict[str, Any]:
        return {"facts": len(ctx.memory.facts("user/person/self/", limit=3))}

    def deliberate(self, ctx: Any) -> Any:
        from agi_core.modules import Belief, Candidate, Proposals

        outcome = ctx.contracts.call("dialogue_state", {"text": ctx.text})
        return Proposals(
            beliefs=[Belief("dialogue_state", outcome.source, 0.5)],
            candidates=[Candidate(f"{self.name} heard {len(ctx.text)} characters", score=0.1)],
        )

    def observe(self, ctx: Any) -> dict[str, Any]:
        ctx.own.put("last", ctx.outcome["final_output"][:80])
        return {"ok": ctx.outcome["observation"]["success"]}

    def maintain(self, ctx: Any) -> dict[str, Any]:
        return {"seen": ctx.own.get("seen", 0)}


def modules_plugin(count: int, *, inline: bool = False, module_class: Any = None) -> Any:
    """A plugin object registering ``count`` instances of ``module_class`` (default :class:`BenchModule`)
    through the real hook."""
    from agi_core.hookspecs import hookimpl

    made = BenchModule if module_class is None else module_class

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register: Any) -> None:
            for i in range(count):
                module = made(f"{made.__name__.lower()}_{i}")
                module.inline = inline
                register(module)

    return Plugin()


def _module_rows(folder: Path, runs: list[tuple[str, Any, int]], ticks: int) -> dict[str, Any]:
    """``{label: summary}`` of the mixed script for each ``(label, plugin, modules it registers)``, the
    first the baseline (``p50_ratio_vs_first``), each on its own database (synchronous=NORMAL).

    The rows' ticks alternate (one tick of each row in turn), so a change of load on a shared machine
    falls on every row alike instead of on whichever row ran then."""
    import contextlib

    from agi_core import Kernel, Plugins

    latencies: dict[str, list[float]] = {label: [] for label, _plugin, _loaded in runs}
    with contextlib.ExitStack() as stack:
        kernels = []
        for label, plugin, loaded in runs:
            path = folder / f"modules_{label.replace(' ', '_')}.db"
            k = stack.enter_context(
                Kernel.open(path, seed="bench", plugins=Plugins.builtins(plugin), synchronous="NORMAL")
            )
            assert len([m for m in k.modules if m.phases]) == loaded
            k.tick("warm up")  # loads the contract registry once
            kernels.append((latencies[label], k))
        for i in range(ticks):
            for taken, k in kernels:
                start = time.perf_counter()
                k.tick(SCRIPT[i % len(SCRIPT)])
                taken.append(time.perf_counter() - start)
    rows = {label: _summary(taken) for label, taken in latencies.items()}
    base = rows[runs[0][0]]["p50_ms"]
    for row in rows.values():
        row["p50_ratio_vs_first"] = row["p50_ms"] / base
    return rows


def bench_modules(folder: Path, count: int, ticks: int) -> dict[str, Any]:
    """Per-tick cost of the mixed script with 0 modules (the base), ``count`` modules, and ``count`` inline ones."""
    runs = [
        ("0", modules_plugin(0), 0),
        (str(count), modules_plugin(count), count),
        (f"{count} inline", modules_plugin(count, inline=True), count),
    ]
    return _module_rows(folder, runs, ticks)


class NoOpModule:
    """A module that does nothing in every phase of a user tick: what remains is the protocol's own cost."""

    priority = 100

    def __init__(self, name: str) -> None:
        self.name = name

    def perceive(self, ctx: Any) -> None:
        return None

    def recall(self, ctx: Any) -> None:
        return None

    def deliberate(self, ctx: Any) -> None:
        return None

    def revise(self, ctx: Any, draft: Any) -> None:
        return None

    def observe(self, ctx: Any) -> None:
        return None


NOOP_PHASES = 5  # perceive, recall, deliberate, revise, observe: each called once per user tick


def bench_phase_overhead(folder: Path, count: int, ticks: int) -> dict[str, Any]:
    """The protocol's own cost per phase call: the mixed script with 0 and with ``count`` do-nothing
    modules, isolated (on the worker thread, under a timeout) and inline, in the same run."""
    runs = [
        ("0", modules_plugin(0), 0),
        (f"{count} no-op", modules_plugin(count, module_class=NoOpModule), count),
        (f"{count} no-op inline", modules_plugin(count, inline=True, module_class=NoOpModule), count),
    ]
    rows = _module_rows(folder, runs, ticks)
    base = rows["0"]["p50_ms"]
    for label, row in rows.items():
        calls = 0 if label == "0" else count * NOOP_PHASES
        row["us_per_phase_call"] = (row["p50_ms"] - base) * 1000 / calls if calls else 0.0
    return rows


def bench_contract_call(calls: int, rounds: int = 5) -> dict[str, Any]:
    """µs per heuristic-path contract call against the bare heuristic, best of ``rounds`` rounds each (the
    two alternate, so a change of load on a shared machine falls on both)."""
    from agi_core import Plugins
    from agi_core.contracts import registry_from_plugins
    from agi_core.contracts.caller import ContractCaller
    from agi_core.contracts.conversation_fallbacks import dialogue_state
    from agi_core.externals import Externals

    registry = registry_from_plugins(Plugins.builtins())
    texts = [SCRIPT[i % len(SCRIPT)] for i in range(calls)]
    owner = object()  # a module's phase call, on whose behalf the caller fetches

    def bare() -> float:
        start = time.perf_counter()
        for text in texts:
            dialogue_state({"text": text})
        return time.perf_counter() - start

    def contract() -> float:
        taken = 0.0
        for first in range(0, calls, 6):
            externals = Externals()  # one tick's
            caller = ContractCaller(registry, externals)
            batch = texts[first : first + 6]
            start = time.perf_counter()
            for text in batch:
                externals.run_owned(owner, lambda t, c=caller: c.call("dialogue_state", {"text": t}), text)
            taken += time.perf_counter() - start
        return taken

    contract()  # warm up: the contract's validator and fallback are built on first use
    bare_s, contract_s = [], []
    for _ in range(rounds):
        bare_s.append(bare())
        contract_s.append(contract())
    bare_us, call_us = min(bare_s) * 1e6 / calls, min(contract_s) * 1e6 / calls
    return {"calls": calls, "bare_heuristic_us": bare_us, "contract_call_us": call_us, "overhead_us": call_us - bare_us}


CONVERSATION_MODULES = ("agi_plugin_beliefs.plugin", "agi_plugin_social.plugin")
GROWTH_MODULES = ("agi_plugin_autonomy.plugin", "agi_plugin_learning.plugin")
RETRIEVAL_MODULE = "agi_plugin_retrieval.plugin"


def bench_conversation_modules(
    folder: Path, ticks: int, synchronous: str = "NORMAL", think_s: float = 0.0
) -> dict[str, Any]:
    """Per-tick cost of the mixed script with no module (the base), with the conversation modules installed
    (beliefs and social, heuristic path: every contract through its fallback, journaled), then with retrieval
    too (each question recalls from long-term memory, which mirrors and embeds every episode), then with the
    growth modules too (autonomy, learning: user ticks only, no maintenance tick), in the same run.
    ``think_s``: a pause before each tick, not timed (a person reading the reply and typing: what the
    kernel does between ticks, such as encoding new memories ahead, happens then)."""
    import importlib

    from agi_core import Kernel, Plugins

    rows: dict[str, Any] = {}
    rounds = (
        ("0", ()),
        ("beliefs + social", CONVERSATION_MODULES),
        ("beliefs + social + retrieval", (*CONVERSATION_MODULES, RETRIEVAL_MODULE)),
        ("+ autonomy, learning", (*CONVERSATION_MODULES, RETRIEVAL_MODULE, *GROWTH_MODULES)),
    )
    for label, names in rounds:
        plugins = Plugins.builtins(*(importlib.import_module(name) for name in names))
        with Kernel.open(
            folder / f"conversation_{len(names)}.db", seed="bench", plugins=plugins, synchronous=synchronous
        ) as k:
            assert len([m for m in k.modules if m.phases]) == len(names)
            k.tick("warm up")  # loads the contract registry once
            latencies = []
            texts = [SCRIPT[i % len(SCRIPT)] for i in range(ticks)]
            for text in texts:
                time.sleep(think_s)
                start = time.perf_counter()
                k.tick(text)
                latencies.append(time.perf_counter() - start)
        rows[label] = {**_summary(latencies), **_by_kind(latencies, texts)}
    for row in rows.values():
        row["p50_ratio_vs_first"] = row["p50_ms"] / rows["0"]["p50_ms"]
    return rows


def langgraph_in(python: str, ticks: int) -> dict[str, float]:
    """LangGraph's loop run by ``python`` (the benchmark environment: agi-core's own environment has no
    LangGraph), in a process of its own during this run."""
    import subprocess

    done = subprocess.run(
        [python, __file__, "--langgraph-only", "--ticks", str(ticks), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(done.stdout)["langgraph_sync"])


def print_modules(rows: dict[str, Any]) -> None:
    kinds = all("question_p50_ms" in row for row in rows.values())
    extra = f"{'question p50':>14}{'other p50':>11}" if kinds else ""
    print(f"{'modules loaded':<30}{'ticks/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'p50 ratio':>11}{extra}")
    for label, row in rows.items():
        by_kind = f"{row['question_p50_ms']:>14.3f}{row['other_p50_ms']:>11.3f}" if kinds else ""
        print(
            f"{label:<30}{row['ticks_per_s']:>10.0f}{row['p50_ms']:>10.3f}{row['p99_ms']:>10.3f}"
            f"{row['p50_ratio_vs_first']:>10.2f}x{by_kind}"
        )


def _db_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())


def bench_storage(folder: Path, short_ticks: int, big_ticks: int) -> dict[str, Any]:
    """Database growth per tick (file size after closing, so the WAL is checkpointed) for three kinds of input."""
    from agi_core import Kernel, Plugins

    one_mb = 1_000_000
    kinds = {
        "short": (short_ticks, lambda i: SCRIPT[i % len(SCRIPT)]),
        "1mb_line": (big_ticks, lambda i: (f"{i} " + "lorem ipsum dolor sit amet " * 40_000)[:one_mb]),
        "1mb_fact": (big_ticks, lambda i: (f"my note {i} is {i} " + "z" * one_mb)[:one_mb]),
    }
    rows: dict[str, Any] = {}
    for name, (ticks, text) in kinds.items():
        path = folder / f"storage_{name}.db"
        options = {"seed": "bench", "plugins": Plugins.builtins(), "max_input_bytes": 2 * one_mb}
        with Kernel.open(path, **options) as kernel:
            kernel.tick("hello")
        before = _db_bytes(path)
        input_bytes = 0
        with Kernel.open(path, **options) as kernel:
            for i in range(ticks):
                line = text(i)
                input_bytes += len(line.encode("utf-8"))
                kernel.tick(line)
        growth = _db_bytes(path) - before
        rows[name] = {
            "ticks": ticks,
            "bytes_per_tick": growth / ticks,
            "input_bytes_per_tick": input_bytes / ticks,
            "stored_per_input_byte": growth / input_bytes,
        }
    return rows


def print_scale_and_storage(results: dict[str, Any]) -> None:
    print(f"{'facts under focus':<20}{'ticks/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'p50 ratio':>11}")
    for size, row in results["fact_scale"].items():
        print(
            f"{int(size):<20,}{row['ticks_per_s']:>10.0f}{row['p50_ms']:>10.3f}{row['p99_ms']:>10.3f}"
            f"{row['p50_ratio_vs_first']:>10.2f}x"
        )
    print(f"{'input':<20}{'ticks':>8}{'input B/tick':>15}{'stored B/tick':>15}{'stored/input':>14}")
    for name, row in results["storage"].items():
        print(
            f"{name:<20}{row['ticks']:>8}{row['input_bytes_per_tick']:>15,.0f}{row['bytes_per_tick']:>15,.0f}"
            f"{row['stored_per_input_byte']:>13.2f}x"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=10_000)
    parser.add_argument(
        "--langgraph-ticks", type=int, default=None, help="ticks for LangGraph (default: same as --ticks)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="only the fact-scale and storage figures, small (< 60 s)")
    parser.add_argument("--scale-ticks", type=int, default=None, help="ticks per fact-scale size (default 2000)")
    parser.add_argument("--modules", type=int, default=None, metavar="N", help="only: 0 vs N modules loaded")
    parser.add_argument("--module-ticks", type=int, default=2000, help="ticks per module count (default 2000)")
    parser.add_argument(
        "--phase-overhead",
        type=int,
        default=None,
        metavar="N",
        help="only: the protocol's cost per phase call, with 0 and N do-nothing modules (isolated, inline)",
    )
    parser.add_argument(
        "--contract-call",
        action="store_true",
        help="only: µs per heuristic-path contract call (dialogue_state) against the bare heuristic",
    )
    parser.add_argument("--calls", type=int, default=20_000, help="calls per round of --contract-call")
    parser.add_argument(
        "--conversation-modules",
        action="store_true",
        help="only: no module, beliefs + social, + retrieval, + autonomy and learning (synchronous=NORMAL)",
    )
    parser.add_argument(
        "--durable",
        action="store_true",
        help="with --conversation-modules: synchronous=FULL (a commit waits for the disk, as LangGraph's)",
    )
    parser.add_argument(
        "--langgraph-python",
        metavar="PYTHON",
        help="with --conversation-modules: also LangGraph's loop, run by this interpreter (benchmarks/.env/bin/python)",
    )
    parser.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="with --conversation-modules: a pause before each tick, not timed (a person typing)",
    )
    parser.add_argument("--langgraph-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    results: dict[str, Any] = {"ticks": args.ticks}
    if args.langgraph_only:
        with tempfile.TemporaryDirectory() as folder:
            results["langgraph_sync"] = bench_langgraph(Path(folder) / "lg.db", args.ticks, "sync")
        print(json.dumps(results))
        return 0
    if args.conversation_modules:
        synchronous = "FULL" if args.durable else "NORMAL"
        with tempfile.TemporaryDirectory() as folder:
            rows = bench_conversation_modules(Path(folder), args.module_ticks, synchronous, args.think_ms / 1000)
        if args.langgraph_python:
            lg = langgraph_in(args.langgraph_python, args.langgraph_ticks or args.module_ticks)
            rows["LangGraph SqliteSaver"] = {**lg, "p50_ratio_vs_first": lg["p50_ms"] / rows["0"]["p50_ms"]}
            for row in rows.values():
                row["ticks_per_s_vs_langgraph"] = row["ticks_per_s"] / lg["ticks_per_s"]
        results["conversation_modules"] = rows
        if args.json:
            print(json.dumps(rows, indent=2))
            return 0
        print(
            f"synchronous={synchronous}" + (f", {args.think_ms:g} ms pause before each tick" if args.think_ms else "")
        )
        print_modules(rows)
        if args.langgraph_python:
            for label, row in rows.items():
                print(f"{label}: {row['ticks_per_s_vs_langgraph']:.1f}x LangGraph's ticks/s")
        return 0
    if args.contract_call:
        row = bench_contract_call(args.calls)
        if args.json:
            print(json.dumps(row, indent=2))
        else:
            print(
                f"dialogue_state, {row['calls']} calls: bare heuristic {row['bare_heuristic_us']:.1f} µs, "
                f"ContractCaller.call {row['contract_call_us']:.1f} µs (+{row['overhead_us']:.1f} µs)"
            )
        return 0
    if args.phase_overhead is not None:
        with tempfile.TemporaryDirectory() as folder:
            results["phase_overhead"] = bench_phase_overhead(Path(folder), args.phase_overhead, args.module_ticks)
        rows = results["phase_overhead"]
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            print_modules(rows)
            for label, row in rows.items():
                if label != "0":
                    print(f"{label}: {row['us_per_phase_call']:.1f} µs per phase call")
        return 0
    if args.modules is not None:
        with tempfile.TemporaryDirectory() as folder:
            results["modules"] = bench_modules(Path(folder), args.modules, args.module_ticks)
        print(json.dumps(results["modules"], indent=2)) if args.json else print_modules(results["modules"])
        return 0
    with tempfile.TemporaryDirectory() as folder:
        scale_ticks = args.scale_ticks or (500 if args.quick else 2000)
        results["fact_scale"] = bench_fact_scale(Path(folder), [100, 10_000, 100_000], scale_ticks)
        results["storage"] = bench_storage(Path(folder), 200 if args.quick else 2000, 5 if args.quick else 20)
        if args.quick:
            print(json.dumps(results, indent=2)) if args.json else print_scale_and_storage(results)
            return 0
        for mode in ("FULL", "NORMAL"):
            results[f"agi_sync_{mode.lower()}"] = bench_agi(Path(folder) / f"agi_{mode}.db", args.ticks, mode)
        # P1 with modules: durable ticks with 6 realistic modules (BenchModule) against the same LangGraph run
        results["agi_sync_full_6_modules"] = bench_agi(
            Path(folder) / "agi_mod.db", args.ticks, "FULL", modules_plugin(6)
        )
        for name, db in (("disk_floor", "agi_FULL.db"), ("disk_floor_6_modules", "agi_mod.db")):
            size = journal_bytes(Path(folder) / db)
            results[name] = {**bench_commit_floor(Path(folder) / f"{name}.db", args.ticks, size), "row_bytes": size}
        try:
            import langgraph  # noqa: F401
        except ImportError:
            print(
                "LangGraph is not installed here; see this file's docstring for the benchmark environment.",
                file=sys.stderr,
            )
            return 2
        lg_ticks = args.langgraph_ticks or args.ticks
        results["langgraph_sync"] = bench_langgraph(Path(folder) / "lg.db", lg_ticks, "sync")
    base = results["langgraph_sync"]["ticks_per_s"]
    results["ratio_full_vs_langgraph"] = results["agi_sync_full"]["ticks_per_s"] / base
    results["ratio_normal_vs_langgraph"] = results["agi_sync_normal"]["ticks_per_s"] / base
    results["ratio_full_6_modules_vs_langgraph"] = results["agi_sync_full_6_modules"]["ticks_per_s"] / base
    results["ratio_disk_floor_vs_langgraph"] = results["disk_floor"]["ticks_per_s"] / base
    results["ratio_disk_floor_6_modules_vs_langgraph"] = results["disk_floor_6_modules"]["ticks_per_s"] / base
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print_scale_and_storage(results)
    print(f"{'loop':<28}{'ticks/s':>10}{'p50 ms':>10}{'p99 ms':>10}")
    loops = ("agi_sync_full", "agi_sync_normal", "agi_sync_full_6_modules", "disk_floor", "disk_floor_6_modules")
    for name in (*loops, "langgraph_sync"):
        row = results[name]
        print(f"{name:<28}{row['ticks_per_s']:>10.0f}{row['p50_ms']:>10.3f}{row['p99_ms']:>10.3f}")
    print(f"agi (synchronous=FULL) / LangGraph SqliteSaver: {results['ratio_full_vs_langgraph']:.1f}x")
    print(f"agi (synchronous=NORMAL) / LangGraph SqliteSaver: {results['ratio_normal_vs_langgraph']:.1f}x")
    print(f"agi (FULL, 6 modules) / LangGraph SqliteSaver: {results['ratio_full_6_modules_vs_langgraph']:.1f}x")
    for name, label in (("disk_floor", "no module"), ("disk_floor_6_modules", "6 modules")):
        print(
            f"the disk alone ({label}: one FULL commit of a {results[name]['row_bytes']:,}-byte record a tick) / "
            f"LangGraph: {results[f'ratio_{name}_vs_langgraph']:.1f}x (no durable tick can beat this)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
