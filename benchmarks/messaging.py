"""Agent messaging: round-trip latency and throughput on memory:// and NATS, against the raw transport.

Two agents (two kernels on SQLite files, ``synchronous=FULL``) in one process:

- **round trip**: alice sends bob a question (a tick that writes the outbox, published after its
  commit), bob's tick answers it (the reply in his outbox, published after his commit), alice's
  tick receives the answer. ``--round-trips`` of them one after the other; p50/p99 in ms.
- **throughput**: alice sends ``--messages`` messages (one tick each), then bob takes them (one
  tick each); messages per second from the first send to bob's last tick. Afterwards the inboxes
  are counted: delivered, lost (sent, never a tick) and duplicated (a second tick) (goal: N / 0 / 0).
  With ``--restart`` the NATS broker is killed (SIGKILL) and restarted on its data half-way
  through bob's ticks.
- **kills** (NATS, ``--kill-bob K``): the same throughput run with bob as a real ``agi run --follow``
  process, SIGKILLed K times (``AGI_FAULT``: right after a message tick commits, before its ack; every
  N/(K+1) messages) and started again (with
  ``--restart`` the broker is restarted half-way too); delivered / lost / duplicated are counted
  from his database afterwards (goal: N / 0 / 0).
- **no fsync**: the throughput and round-trip runs again with both agents on ``synchronous=OFF``
  (no commit waits for the disk; not a setting to run agents with): what the ticks and the
  transport cost without the durable commits, so the gap to the row above is the disk's.

Each throughput run also prints messages/s of each 1,000-message stretch (alice's sends, then
bob's ticks): flat when the cost per message does not grow with the history.

The baseline of each transport, measured in the same run before and after the agents (the two runs
taken as one, so a change of the machine's load falls on both sides), is the transport without agents: the
raw hub of memory:// (publish, fetch, ack), and raw nats-py on JetStream (publish awaiting the
stream's ack, a durable pull consumer, explicit acks), in the same shapes. The ratio is agent /
raw (messages/s) and raw / agent (latency), so 1.0 is "as fast as the transport alone".
NATS needs nats-server (scripts/start_nats.sh installs it) and agi-plugin-nats on the path.
Usage: python benchmarks/messaging.py [--messages 1000] [--round-trips 200] [--transports memory nats]
[--restart] [--kill-bob K] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agi_core import Kernel, Plugins

ROOT = Path(__file__).resolve().parents[1]
ACK_WAIT_S = 2.0  # the NATS consumers' ack wait here: an unacknowledged delivery comes again after it


def quantiles_ms(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1000,
    }


def wait_for(step: Callable[[], Any], timeout_s: float = 60.0) -> Any:
    """``step()`` again until it returns something, for at most ``timeout_s``."""
    end = time.monotonic() + timeout_s
    while (result := step()) is None:
        if time.monotonic() > end:
            raise TimeoutError("a message did not arrive within 60 s")
    return result


# -- agents -------------------------------------------------------------------------------
def open_agent(folder: Path, name: str, url: str, plugins: Plugins, synchronous: str = "FULL") -> Kernel:
    kernel = Kernel.open(folder / f"{name}.db", seed="bench", plugins=plugins, messaging=url, synchronous=synchronous)
    kernel.command("set_name", {"name": name})
    return kernel


def inbox_counts(kernel: Kernel) -> tuple[int, int]:
    """``(distinct message ids, message ticks)`` of ``kernel``'s journal."""
    rows = kernel.store.journal_rows()
    sources = [json.loads(row[2])["input"]["source"] for row in rows]
    ids = kernel.conn.execute("SELECT count(*) FROM messages_in").fetchone()[0]
    return ids, sum(source.startswith("message:") for source in sources)


def agent_round_trips(alice: Kernel, bob: Kernel, count: int) -> list[float]:
    spans = []
    for n in range(count):
        began = time.perf_counter()
        alice.command("send_message", {"to": "bob", "text": f"{n} + 1"})
        wait_for(bob.tick)
        wait_for(alice.tick)
        spans.append(time.perf_counter() - began)
    return spans


class Stages:
    """Messages per second of each ``STAGE``-message stretch of a run (flat when the cost per message is)."""

    def __init__(self) -> None:
        self.rates: list[float] = []
        self._mark = (time.perf_counter(), 0)

    def reached(self, done: int) -> None:
        """``done`` messages so far: record a rate for each stretch completed since the last call."""
        at, was = self._mark
        if done // STAGE > was // STAGE:
            now = time.perf_counter()
            self.rates.append((done - was) / (now - at))
            self._mark = (now, done)


STAGE = 1000  # messages per stretch of the per-stretch rates


def send_all(alice: Kernel, count: int, group: int, sending: Stages) -> None:
    """alice sends ``count`` messages, one tick each; ``group`` ticks at a time share one durable point
    (``Kernel.group_commit``: the host hands her a list of inputs), then their messages are published."""
    for start in range(0, count, group):
        with alice.group_commit() if group > 1 else contextlib.nullcontext():
            for n in range(start, min(start + group, count)):
                alice.command("send_message", {"to": "bob", "text": f"note {n}"})
        sending.reached(min(start + group, count))


def agent_throughput(
    alice: Kernel, bob: Kernel, count: int, group: int, halfway: Callable[[], None] | None
) -> dict[str, Any]:
    before_ids, before_ticks = inbox_counts(bob)
    sending = Stages()
    began = time.perf_counter()
    send_all(alice, count, group, sending)
    taken = 0
    taking = Stages()
    with bob.held_batches():  # back to back, as agi run ticks: a fetched batch is one transaction
        while taken < count:
            if halfway is not None and taken == count // 2:
                halfway()
                halfway = None
            if wait_for(bob.tick) is not None:
                taken += 1
                taking.reached(taken)
    seconds = time.perf_counter() - began  # (leaving the block committed a batch still held)
    time.sleep(ACK_WAIT_S + 0.5)  # past the ack wait: anything unacknowledged would come again now
    while bob.tick() is not None:  # anything that would come twice (alice's replies are not the point here)
        pass
    ids, ticks = inbox_counts(bob)
    delivered = ids - before_ids
    return {
        "messages": count,
        "seconds": seconds,
        "messages_per_s": count / seconds,
        "delivered": delivered,
        "lost": count - delivered,
        "duplicated": (ticks - before_ticks) - delivered,
        "sent_per_1000": sending.rates,
        "taken_per_1000": taking.rates,
    }


def run_agents(
    url: str,
    plugins: Plugins,
    args: argparse.Namespace,
    halfway: Callable[[], None] | None,
    synchronous: str = "FULL",
) -> Any:
    with tempfile.TemporaryDirectory(prefix="agi-messaging-") as name:
        folder = Path(name)
        alice = open_agent(folder, "alice", url, plugins, synchronous)
        bob = open_agent(folder, "bob", url, plugins, synchronous)
        try:
            spans = agent_round_trips(alice, bob, args.round_trips)
            return {**quantiles_ms(spans), **agent_throughput(alice, bob, args.messages, args.send_group, halfway)}
        finally:
            alice.close()
            bob.close()


def bob_process(db: Path, url: str, kill_at: int | None = None) -> subprocess.Popen[bytes]:
    """bob as the real CLI: ``agi run --follow`` on ``db``, his message box on ``url``; with ``kill_at`` N,
    SIGKILLed by ``AGI_FAULT`` right after his N-th message tick commits, before its ack (the hardest moment)."""
    nats_plugin = ROOT / "plugins" / "agi-plugin-nats"
    env = {
        **os.environ,
        "AGI_MESSAGING_URL": url,
        "AGI_LOAD_PLUGINS": "nats",
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(nats_plugin), os.environ.get("PYTHONPATH", "")]),
    }
    env.pop("AGI_FAULT", None)
    # bytecode cached, as for an installed package (pip compiles it; startup.py does the same): a checkout
    # run with PYTHONDONTWRITEBYTECODE=1 compiled ~90 modules at each of bob's starts (0.1-0.2 s each start)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if kill_at is not None:
        env["AGI_FAULT"] = f"message.committed:{kill_at}"
    command = [sys.executable, "-m", "agi_core", "--db", str(db), "run", "--follow", "--clock-every", "0"]
    return subprocess.Popen(
        command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def received(db: Path) -> int:
    """How many message ids the agent in ``db`` has received (its inbox's rows; cheap, for polling)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return int(conn.execute("SELECT count(*) FROM messages_in").fetchone()[0])
    except sqlite3.OperationalError:  # bob has not created his tables yet
        return 0
    finally:
        conn.close()


def file_counts(db: Path) -> tuple[int, int]:
    """``(distinct message ids, message ticks)`` of the agent in ``db``, read without opening a kernel
    (a scan of the whole journal: once, at the end; polling it every 50 ms cost more as the journal grew)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        ids = conn.execute("SELECT count(*) FROM messages_in").fetchone()[0]
        ticks = conn.execute('SELECT count(*) FROM journal WHERE record LIKE \'%"source":"message:%\'').fetchone()[0]
        return ids, ticks
    finally:
        conn.close()


def agent_throughput_killed(
    folder: Path,
    url: str,
    plugins: Plugins,
    count: int,
    group: int,
    kills: int,
    halfway: Callable[[], None] | None,
) -> dict[str, Any]:
    """alice sends ``count`` messages; bob, a real process, takes them and is SIGKILLed ``kills`` times."""
    alice = open_agent(folder, "alice", url, plugins)
    bob_db = folder / "bob.db"
    open_agent(folder, "bob", url, plugins).close()  # his name and durable consumer exist before the messages
    spacing = max(1, count // (kills + 1))  # each life of bob takes this many messages, then is killed
    killed = exited = 0
    sending = taking = Stages()
    try:
        began = time.perf_counter()
        send_all(alice, count, group, sending)
        taking = Stages()
        bob = bob_process(bob_db, url, spacing if kills else None)
        deadline = time.monotonic() + 600 + count * 0.1
        while (taken := received(bob_db)) < count and time.monotonic() < deadline:
            taking.reached(taken)
            if bob.poll() is not None:  # SIGKILLed after a commit, before its ack (or the broker was away): again
                if bob.returncode == -signal.SIGKILL:
                    killed += 1
                else:
                    exited += 1
                bob = bob_process(bob_db, url, spacing if killed < kills else None)
            if halfway is not None and taken >= count // 2:
                halfway()
                halfway = None
            time.sleep(0.05)
        seconds = time.perf_counter() - began
        time.sleep(ACK_WAIT_S + 1)  # past the consumer's ack wait: anything that would come twice comes now
        bob.send_signal(signal.SIGINT)
        bob.wait(timeout=60)
    finally:
        alice.close()
    ids, ticks = file_counts(bob_db)
    return {
        "messages": count,
        "seconds": seconds,
        "messages_per_s": count / seconds,
        "delivered": ids,
        "lost": count - ids,
        "duplicated": ticks - ids,
        "bob_killed": killed,
        "bob_exited": exited,  # other ends: started while the broker was down (it cannot connect), …
        "sent_per_1000": sending.rates,
        "taken_per_1000": taking.rates,
    }


# -- the raw transports -----------------------------------------------------------------
def raw_memory(args: argparse.Namespace) -> dict[str, Any]:
    from agi_core.messaging.envelope import Message
    from agi_core.messaging.inprocess import MemoryTransport

    url = f"memory://raw-{uuid.uuid4().hex[:8]}"
    alice, bob = MemoryTransport(url, agent="alice"), MemoryTransport(url, agent="bob")
    ids = (f"m{n}" for n in itertools.count())

    def take(transport: MemoryTransport) -> None:
        (delivery,) = wait_for(lambda: transport.fetch(0) or None)
        transport.ack(delivery)

    spans = []
    for n in range(args.round_trips):
        began = time.perf_counter()
        alice.publish(Message(next(ids), "alice", "bob", f"{n} + 1", "c"))
        take(bob)
        bob.publish(Message(next(ids), "bob", "alice", f"{n + 1}", "c", "x"))
        take(alice)
        spans.append(time.perf_counter() - began)
    began = time.perf_counter()
    for n in range(args.messages):
        alice.publish(Message(next(ids), "alice", "bob", f"note {n}", "c"))
    taken = 0
    while taken < args.messages:
        for delivery in bob.fetch(0):
            bob.ack(delivery)
            taken += 1
    seconds = time.perf_counter() - began
    return {**quantiles_ms(spans), "messages": args.messages, "seconds": seconds, "messages_per_s": taken / seconds}


async def _raw_nats(server: str, args: argparse.Namespace) -> dict[str, Any]:
    import nats
    from nats.js import api

    nc = await nats.connect(server)
    js = nc.jetstream()
    stream = f"RAW_{uuid.uuid4().hex[:8].upper()}"
    await js.add_stream(api.StreamConfig(name=stream, subjects=[f"{stream}.>"], storage=api.StorageType.FILE))
    subs = {}
    for agent in ("alice", "bob"):
        config = api.ConsumerConfig(durable_name=agent, ack_policy=api.AckPolicy.EXPLICIT)
        subs[agent] = await js.pull_subscribe(f"{stream}.{agent}", durable=agent, stream=stream, config=config)

    async def take(agent: str, batch: int = 1) -> int:
        msgs = await subs[agent].fetch(batch=batch, timeout=30)
        for msg in msgs:
            await msg.ack_sync()
        return len(msgs)

    spans = []
    for n in range(args.round_trips):
        began = time.perf_counter()
        await js.publish(f"{stream}.bob", f"{n} + 1".encode(), headers={"Nats-Msg-Id": f"q{n}"})
        await take("bob")
        await js.publish(f"{stream}.alice", f"{n + 1}".encode(), headers={"Nats-Msg-Id": f"a{n}"})
        await take("alice")
        spans.append(time.perf_counter() - began)
    began = time.perf_counter()
    for n in range(args.messages):
        await js.publish(f"{stream}.bob", f"note {n}".encode(), headers={"Nats-Msg-Id": f"n{n}"})
    taken = 0
    while taken < args.messages:
        taken += await take("bob", 16)
    seconds = time.perf_counter() - began
    # the agents' shape with --send-group: each group written at once, its acks awaited together
    began = time.perf_counter()
    for start in range(0, args.messages, args.send_group):
        acks = [
            await js.publish_async(f"{stream}.bob", f"note {n}".encode(), headers={"Nats-Msg-Id": f"g{n}"})
            for n in range(start, min(start + args.send_group, args.messages))
        ]
        await asyncio.gather(*acks)
    grouped = 0
    while grouped < args.messages:
        grouped += await take("bob", 16)
    grouped_seconds = time.perf_counter() - began
    await js.delete_stream(stream)
    await nc.close()
    return {
        **quantiles_ms(spans),
        "messages": args.messages,
        "seconds": seconds,
        "messages_per_s": taken / seconds,
        "grouped_messages_per_s": grouped / grouped_seconds,
    }


def around(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The raw baseline measured before and after the agents, as one: messages/s over both runs, p50s
    averaged, the worse p99 (a change of the machine's load during the agents' runs falls on both sides)."""
    merged = {**before}
    merged["messages_per_s"] = (before["messages"] + after["messages"]) / (before["seconds"] + after["seconds"])
    merged["p50_ms"] = (before["p50_ms"] + after["p50_ms"]) / 2
    merged["p99_ms"] = max(before["p99_ms"], after["p99_ms"])
    if "grouped_messages_per_s" in before:
        merged["grouped_messages_per_s"] = (before["grouped_messages_per_s"] + after["grouped_messages_per_s"]) / 2
    merged["before_after_messages_per_s"] = [before["messages_per_s"], after["messages_per_s"]]
    return merged


def start_nats(folder: Path) -> dict[str, str]:
    done = subprocess.run(
        [str(ROOT / "scripts" / "start_nats.sh"), str(folder)], capture_output=True, text=True, check=True, timeout=300
    )
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


# -- the run ------------------------------------------------------------------------------
def measure(transport: str, args: argparse.Namespace) -> dict[str, Any]:
    if transport == "memory":
        raw = raw_memory(args)
        agents = run_agents(f"memory://bench-{uuid.uuid4().hex[:8]}", Plugins.builtins(), args, None)
        # the floor: the same agents with no fsync at all (synchronous=OFF): the ticks' own cost
        unsynced = run_agents(f"memory://bench-{uuid.uuid4().hex[:8]}", Plugins.builtins(), args, None, "OFF")
        raw = around(raw, raw_memory(args))
        return {"transport": transport, "raw": raw, "agents": agents, "agents_no_fsync": unsynced}
    import agi_plugin_nats.plugin as nats_plugin

    with tempfile.TemporaryDirectory(prefix="agi-messaging-nats-") as name:
        folder = Path(name) / "server"
        server = start_nats(folder)
        try:
            raw = asyncio.run(_raw_nats(server["URL"], args))

            def restart() -> None:
                subprocess.run([server["STOP"], "--keep"], check=True, timeout=60)
                start_nats(folder)

            url = f"{server['URL']}/bench{uuid.uuid4().hex[:8]}?ack_wait={ACK_WAIT_S:g}&batch={args.batch}"
            agents = run_agents(url, Plugins.builtins(nats_plugin), args, restart if args.restart else None)
            url = f"{server['URL']}/bench{uuid.uuid4().hex[:8]}?ack_wait={ACK_WAIT_S:g}&batch={args.batch}"
            unsynced = run_agents(url, Plugins.builtins(nats_plugin), args, None, "OFF")  # no fsync, no restart
            if args.kill_bob:
                url = f"{server['URL']}/bench{uuid.uuid4().hex[:8]}?ack_wait={ACK_WAIT_S:g}&batch={args.batch}"
                killed = agent_throughput_killed(
                    Path(name),
                    url,
                    Plugins.builtins(nats_plugin),
                    args.messages,
                    args.send_group,
                    args.kill_bob,
                    restart if args.restart else None,
                )
            raw = around(raw, asyncio.run(_raw_nats(server["URL"], args)))
        finally:
            subprocess.run([server["STOP"]], check=False, timeout=60)
    row = {
        "transport": transport,
        "raw": raw,
        "agents": agents,
        "agents_no_fsync": unsynced,
        "broker_restarted": args.restart,
    }
    if args.kill_bob:
        row["agents_killed"] = killed
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1000, help="messages of the throughput run")
    parser.add_argument("--round-trips", type=int, default=200)
    parser.add_argument("--transports", nargs="+", default=["memory", "nats"], choices=["memory", "nats"])
    parser.add_argument("--restart", action="store_true", help="kill and restart nats-server half-way")
    parser.add_argument(
        "--kill-bob",
        type=int,
        default=0,
        metavar="K",
        help="NATS: also a run with bob a real process SIGKILLed K times",
    )
    parser.add_argument(
        "--send-group",
        type=int,
        default=16,
        metavar="G",
        help="alice's sends: G ticks share one durable point (Kernel.group_commit); 1: each tick its own",
    )
    parser.add_argument(
        "--batch",
        type=int,
        default=16,
        metavar="B",
        help="NATS: messages bob's transport fetches at once (?batch=B; each batch has one durable point)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()
    rows = [measure(transport, args) for transport in args.transports]
    load = {"before": load_before, "after": os.getloadavg()}
    for row in rows:
        raw, agents = row["raw"], row["agents"]
        row["throughput_ratio"] = agents["messages_per_s"] / raw["messages_per_s"]
        row["round_trip_ratio"] = raw["p50_ms"] / agents["p50_ms"]
    if args.json:
        print(json.dumps({"load_average": load, "rows": rows}, indent=2))
    else:
        print(
            f"{args.messages} messages, {args.round_trips} round trips, alice's sends {args.send_group} ticks to a "
            f"durable point, NATS batches of {args.batch}; ratio: agents / raw transport (1.0 = as fast)"
        )
        print(f"{'transport':<10}{'who':<8}{'msg/s':>9}{'rt p50 ms':>11}{'rt p99 ms':>11}  delivered/lost/dup")
        for row in rows:
            for who in ("raw", "agents"):
                r = row[who]
                tally = f"{r['delivered']}/{r['lost']}/{r['duplicated']}" if who == "agents" else ""
                print(
                    f"{row['transport']:<10}{who:<8}{r['messages_per_s']:>9.0f}{r['p50_ms']:>11.3f}"
                    f"{r['p99_ms']:>11.3f}  {tally}"
                )
            print(
                f"{'':<10}{'ratio':<8}{row['throughput_ratio']:>9.3f}{row['round_trip_ratio']:>11.3f}"
                + ("   (broker restarted half-way)" if row.get("broker_restarted") else "")
            )
            before, after = row["raw"]["before_after_messages_per_s"]
            print(f"{'':<10}{'':<8}{'':>9}  (raw: {before:.0f} msg/s before the agents, {after:.0f} after)")
            if "grouped_messages_per_s" in row["raw"]:
                print(
                    f"{'':<10}{'raw G':<8}{row['raw']['grouped_messages_per_s']:>9.0f}{'':>22}  "
                    f"(raw nats-py publishing {args.send_group} at a time, their acks awaited together)"
                )
            if "agents_no_fsync" in row:
                r = row["agents_no_fsync"]
                print(
                    f"{'':<10}{'no fsync':<8}{r['messages_per_s']:>9.0f}{r['p50_ms']:>11.3f}{r['p99_ms']:>11.3f}  "
                    f"{r['delivered']}/{r['lost']}/{r['duplicated']}   (the same agents, synchronous=OFF)"
                )
            if "agents_killed" in row:
                k = row["agents_killed"]
                print(
                    f"{'':<10}{'killed':<8}{k['messages_per_s']:>9.0f}{'':>22}  "
                    f"{k['delivered']}/{k['lost']}/{k['duplicated']}   (bob SIGKILLed {k['bob_killed']} times, "
                    f"{k['bob_exited']} other exits)"
                )
        print(f"\nmessages/s of each {STAGE:,}-message stretch (sending: alice's ticks; taking: bob's)")
        for row in rows:
            for who in ("agents", "agents_no_fsync", "agents_killed"):
                if who in row:
                    for part in ("sent", "taken"):
                        rates = " ".join(f"{rate:.0f}" for rate in row[who][f"{part}_per_1000"])
                        print(f"{row['transport']:<10}{who:<15}{part:<7}{rates}")
        print(
            "load average (1, 5, 15 min): before "
            + " ".join(f"{x:.2f}" for x in load["before"])
            + ", after "
            + " ".join(f"{x:.2f}" for x in load["after"])
            + f"; {os.cpu_count()} cores"
        )
    good = all(
        row[who]["lost"] == row[who]["duplicated"] == 0
        for row in rows
        for who in ("agents", "agents_no_fsync", "agents_killed")
        if who in row
    )
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
