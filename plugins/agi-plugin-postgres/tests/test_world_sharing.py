"""Two agents on two processes share world/ knowledge through PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys

KEY = "world/entity/france/capital"

# one agent, in its own process, writes the shared key N times (one tick per write)
WRITER = """
import sys
from agi_core import Kernel
from agi_core.plugins import Plugins
url, tag, n, key = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
with Kernel.open(url, plugins=Plugins.builtins("agi_plugin_postgres.plugin")) as kernel:
    for i in range(n):
        kernel.put_fact(key, f"{tag}-{i}")
"""


def test_what_one_agent_learns_about_world_the_other_answers_naming_the_source(agent_url, agi):
    alice, bob = agent_url("alice"), agent_url("bob")
    learned = agi(alice, "run", stdin="the capital of France is Paris\n")
    assert learned.stdout.strip() == "Noted: the capital of France is Paris."
    answered = agi(bob, "run", stdin="what is the capital of France?\nmy favorite color is red\n")
    assert answered.stdout.splitlines() == [
        "The capital of France is Paris (learned from agent alice_"
        + alice.split("agent=alice_")[1].split("&")[0]
        + ").",
        "Got it: your favorite color is red.",
    ]
    # bob's own facts stay his: alice does not see them, and sees world/ as her own write (no source)
    assert (
        agi(alice, "memory", "get", "user/person/self/favorite_color").stdout.strip()
        == '{"exists":false,"last_updated":null,"value":null}'
    )
    assert (
        agi(alice, "run", stdin="what is the capital of France?\n").stdout.strip() == "The capital of France is Paris."
    )
    # what bob read and recalled of the shared scope is recorded in his journal, as externals
    first, second = (json.loads(line)["record"] for line in agi(bob, "journal", "export").stdout.splitlines())
    source = alice.split("agent=")[1].split("&")[0]
    (shared,) = first["externals"]["shared_read"]
    assert (shared["key"], shared["read"]["value"], shared["read"]["source"]) == (KEY, "Paris", source)
    ((recalled,),) = [served["facts"] for served in second["externals"]["shared_facts"]]
    assert (recalled["key"], recalled["value"]) == (KEY, "Paris")
    # alice changes the shared fact: bob's replay still serves what he saw, so it stays equal
    agi(alice, "run", stdin="the capital of France is Lutetia\n")
    assert agi(bob, "replay").stdout.strip() == "replay equal: 2 ticks (1..2), 16 fields each"
    assert (
        agi(bob, "run", stdin="what is the capital of France?\n")
        .stdout.strip()
        .startswith("The capital of France is Lutetia (learned from agent ")
    )


def test_two_processes_writing_one_key_keep_one_consistent_history(agent_url, child_env):
    from agi_plugin_postgres.store import PostgresStore

    n = 25
    key = "world/entity/race_" + agent_url("x").split("agent=x_")[1].split("&")[0] + "/winner"  # new each run
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, agent_url(tag), tag, str(n), key], env=child_env, text=True)
        for tag in ("ann", "ben")
    ]
    assert [w.wait(timeout=300) for w in writers] == [0, 0]
    store = PostgresStore(agent_url("reader"))
    history = store.history(key)
    assert [version for version, *_ in history] == list(range(1, 2 * n + 1))  # no gap, no duplicate
    for tag in ("ann", "ben"):  # each writer's values appear in the order it wrote them
        writer = agent_url(tag).split("agent=")[1].split("&")[0]
        assert [value for _v, w, value, _t in history if w == writer] == [f"{tag}-{i}" for i in range(n)]
    last = history[-1]
    read = store.sem_read(key)
    assert (read.value, read.source) == (last[2], last[1])  # the current value is the newest version
