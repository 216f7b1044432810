"""Memory upkeep through a real kernel and SQLite file, heuristic path, on a simulated clock: the
schedule (``semantic_memory_manager``), what is kept (``memory_store_strategy``,
``memory_semantic_bridge``), linked (``episodic_linker``), digested (``memory_long_term_digest``)
and told back (``memory_system_narrative``) when the user asks "what have we talked about?"."""

from __future__ import annotations

import json

import agi_plugin_retrieval.plugin as retrieval
import jsonschema
from agi_plugin_retrieval.module import NOTHING_NOTICED, STATE_SCHEMA

from agi_core import checkpoints
from agi_core.hookspecs import hookimpl
from agi_core.longterm import ingest_file
from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

START_MS = 1_700_000_000_000
CHAT = [
    "my favorite color is teal",
    "hello",
    "is it going to rain?",
    "my dog is called Rex",
    "I walk my dog in the park every morning",
]


class Clock:
    def __init__(self) -> None:
        self.ms = START_MS

    def __call__(self) -> int:
        return self.ms


def contracts(record):
    return [call["contract"] for call in record.externals.get("contract_call", [])]


def test_upkeep_keeps_links_and_digests_what_was_said_and_tells_it_back(tmp_path):
    db, clock = tmp_path / "agent.db", Clock()
    with open_kernel(db, retrieval, clock=clock) as kernel:
        for line in CHAT:
            kernel.tick(line)
        before = kernel.tick("what have we talked about?")
        upkept = kernel.maintain()
        after = kernel.tick("what have we talked about?")
        state = dump_state(kernel.store, "retrieval")
    assert before.final_output == after.final_output  # no digest yet: the tick draws it as the upkeep does
    assert after.final_output == (
        "We talked about dog, favorite, color, teal, rex. 'my dog is called Rex' goes with "
        "'I walk my dog in the park every morning'. You told me: my favorite color is teal; "
        "my dog is called Rex; I walk my dog in the park every morning."
    )
    assert after.router_decision.agent == "module:retrieval"
    assert contracts(upkept) == [
        "semantic_memory_manager",
        *["memory_store_strategy"] * 6,  # the six user inputs so far
        "memory_semantic_bridge",
        "episodic_linker",
        "memory_long_term_digest",
        "memory_system_narrative",
    ]
    digest = state["digest"]
    # the greeting and the questions are ranked low by the store strategy: not kept
    assert [m["text"] for m in digest["memories"]] == [CHAT[0], CHAT[3], CHAT[4]]
    assert [m["kind"] for m in digest["memories"]] == ["preference", "personal", "personal"]
    assert [m["salience"] for m in digest["memories"]] == [0.8, 0.8, 0.8]
    assert digest["links"][0]["relation"] == "related" and digest["source"] == "fallback"
    assert state["schedule"] == {"period": 3600, "next_run": START_MS // 1000 + 3600, "backlog": 6}
    jsonschema.Draft202012Validator(STATE_SCHEMA).validate(state)
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


def test_the_schedule_decides_when_upkeep_runs_again(tmp_path):
    clock = Clock()
    with open_kernel(tmp_path / "agent.db", retrieval, clock=clock) as kernel:
        kernel.tick("my favorite color is teal")
        kernel.maintain()
        kernel.tick("I play the cello in an orchestra")
        clock.ms += 60_000  # a minute later: not due
        early = kernel.maintain()
        clock.ms += 3600_000  # past the next run
        due = kernel.maintain()
        told = kernel.tick("what did we talk about?").final_output
    assert contracts(early) == [] and early.modules["calls"][0]["output"] is None
    assert contracts(due)[0] == "semantic_memory_manager"
    assert "I play the cello in an orchestra" in told


def test_a_backlog_of_ten_halves_the_upkeep_period_and_rollback_restores_the_digest(tmp_path):
    clock = Clock()
    with open_kernel(tmp_path / "agent.db", retrieval, clock=clock) as kernel:
        kernel.tick("my favorite color is teal")
        kernel.maintain()
        checkpoints.create(kernel, "one")
        saved = dump_state(kernel.store, "retrieval")
        for n in range(10):
            kernel.tick(f"my friend number {n} lives in city {n}")
        clock.ms += 3601_000
        kernel.maintain()
        busy = dump_state(kernel.store, "retrieval")["schedule"]
        checkpoints.rollback(kernel, "one")
        assert dump_state(kernel.store, "retrieval") == saved
    assert busy["period"] == 1800 and busy["backlog"] == 10


class BikeBooster:
    """A named fake model: it answers only ``memory_index_optimizer``, boosting the memory about a
    bike; every other contract gets a non-JSON answer, so its heuristic answers. A real model's
    boost cannot be had on demand."""

    name = "bike-booster"

    def complete(self, messages, **_options):
        from agi_core.contracts.provider import Completion

        prompt = "\n".join(str(m.get("content")) for m in messages)
        if not prompt.startswith("You produce the output of the contract 'memory_index_optimizer'"):
            return Completion(text="no")
        documents = json.loads(prompt[prompt.index("Input:\n") + 7 :])["documents"]
        boosts = [{"id": d["id"], "boost": 1.0} for d in documents if "bike" in d["title"]]
        return Completion(text=json.dumps({"reranked": boosts}))


class BoosterPlugin:
    @hookimpl
    def agi_register_llm_providers(self, register):
        register(BikeBooster, name="bike-booster")


def test_the_index_boosts_decide_which_memory_answers(tmp_path):
    path = tmp_path / "diary.jsonl"
    lines = [
        {"text": "Ann's neighbour keeps bees and sells honey at the market.", "speaker": "Ann"},
        {"text": "Honey from the market is sold by the neighbour of Ann.", "speaker": "Ann"},
        {"text": "I sold my bike at the market for 40 euros.", "speaker": "Ann"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    question = "What did Ann sell at the market?"
    with open_kernel(tmp_path / "plain.db", retrieval) as kernel:
        ingest_file(kernel.long_term, path, progress=False)
        kernel.store.conn.commit()
        plain = kernel.tick(question)
    with open_kernel(tmp_path / "boosted.db", retrieval, BoosterPlugin(), contract_provider="bike-booster") as kernel:
        ingest_file(kernel.long_term, path, progress=False)
        kernel.store.conn.commit()
        boosted = kernel.tick(question)
    assert "bike" not in plain.final_output.split("[")[0]  # the heuristic boosts favour the honey
    assert boosted.final_output.startswith("Ann said “I sold my bike at the market for 40 euros.” [ltm-")
    sources = {c["contract"]: c["source"] for c in boosted.externals["contract_call"]}
    assert sources["memory_index_optimizer"] == "llm" and sources["retrieval_answer"] == "fallback"


def test_what_a_sensor_perceived_is_kept_and_said_when_asked(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, retrieval) as kernel:
        before = kernel.tick("what have you noticed?")
        kernel.tick("file report.txt", source="env", metadata={"file": "report.txt", "bytes": 120})
        kernel.tick("the garden gate is open", source="env")
        after = kernel.tick("what have you noticed?")
        state = dump_state(kernel.store, "retrieval")
    assert before.final_output == NOTHING_NOTICED
    assert after.final_output == (
        "I noticed: the file report.txt (120 bytes); something about file, report, txt; "
        "something about garden, gate, open."
    )
    assert [entry["tick"] for entry in state["percepts"]] == [2, 3]
    jsonschema.Draft202012Validator(STATE_SCHEMA).validate(state)
    assert replay(db, plugins=builtin_plugins(retrieval)).ok
