"""Faults around a real nats-server: an unknown recipient, the broker killed and restarted
mid-conversation, the broker unreachable for a while (a network partition). Each time every
message becomes exactly one tick: none lost, none twice.

The agents here are kernels in the test process (agi-plugin-nats registered directly); the
broker is a real ``nats-server`` process (scripts/start_nats.sh; for the partition, one in a
network namespace of its own, and two in a cluster whose routes pass through route_proxy.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import agi_plugin_nats.plugin as nats_plugin
import pytest

from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel
from agi_core.tools import ToolPolicy

ROOT = Path(__file__).resolve().parents[3]


def _conversation_helpers():
    """test_conversation.py's ``agi`` (the real CLI in a subprocess) and ``ticks`` (tests are no package)."""
    spec = importlib.util.spec_from_file_location(
        "agi_nats_conversation", Path(__file__).with_name("test_conversation.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.agi, module.ticks


agi, ticks = _conversation_helpers()
ALLOW_SEND = ToolPolicy(allow_tools=frozenset({"send_message"}))


def _agent(tmp_path: Path, name: str, url: str, **options):
    kernel = open_kernel(tmp_path / f"{name}.db", nats_plugin, messaging=url, **options)
    if kernel.store.meta_get("agent_name") is None:
        kernel.command("set_name", {"name": name})
    return kernel


def _unpublished(kernel) -> int:
    return kernel.conn.execute("SELECT count(*) FROM messages_out WHERE published = 0").fetchone()[0]


def _received(kernel) -> Counter[str]:
    """How many ticks each received message id made (the journal's ``message`` externals)."""
    rows = kernel.conn.execute("SELECT id FROM messages_in").fetchall()
    return Counter(row[0] for row in rows)


def _drain(kernels, want, deadline_s: float = 60.0) -> None:
    """Tick every kernel until ``want()`` holds (each tick polls the message box and flushes the outbox)."""
    end = time.monotonic() + deadline_s
    while not want():
        assert time.monotonic() < end, "messages did not arrive in time"
        if not any(kernel.tick() is not None for kernel in kernels):
            time.sleep(0.2)


def test_an_unknown_recipient_is_refused_in_one_line_and_nothing_is_sent(tmp_path, deployment):
    alice = tmp_path / "alice.db"
    assert agi(alice, "init", "--name", "alice").returncode == 0
    assert agi(alice, "run", url=deployment).returncode == 0  # alice joins the deployment
    done = agi(alice, "send", "carol", "hello", url=deployment)
    assert done.returncode != 0 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert "no agent named 'carol' on nats://127.0.0.1:" in line and "(agents there: alice)" in line
    assert "nothing was sent" in line and "?ack_wait" not in line
    told = agi(alice, "run", "--allow-tool", "send_message", url=deployment, stdin="tell carol that hello\n")
    assert told.returncode == 0 and "send_message failed: no agent named 'carol'" in told.stdout
    with sqlite3.connect(alice) as conn:
        assert conn.execute("SELECT count(*) FROM messages_out").fetchone()[0] == 0


def test_an_agent_started_with_no_broker_listening_says_so_in_one_line(tmp_path):
    """No nats-server on the URL's port: the real ``agi`` says so in one line that names the server and the
    fix, at once (nats-py alone retries a first connection for ever; this took 20 s and said nothing)."""
    (port,) = _free_ports(1)
    named = agi(tmp_path / "alice.db", "init", "--name", "alice")
    assert named.returncode == 0, named.stderr
    failed = agi(tmp_path / "alice.db", "run", url=f"nats://127.0.0.1:{port}/t", stdin="hello\n")
    assert failed.returncode == 1 and failed.stdout == ""
    (line,) = failed.stderr.strip().splitlines()
    assert line.startswith(f"Error: cannot reach the NATS server at nats://127.0.0.1:{port} (")
    assert line.endswith("start it (scripts/start_nats.sh) or fix AGI_MESSAGING_URL")


def test_agi_send_with_the_broker_away_keeps_the_message_in_the_outbox_and_it_leaves_once_it_is_back(
    tmp_path, start_nats
):
    """`agi send` refused to queue while the broker was away ("Error: cannot reach the NATS server …", exit 1,
    nothing stored), though a running agent's message waits in its outbox then (docs/messaging.md). Now it is
    stored and said queued, with one warning; the next `agi run` that reaches the broker publishes it, once."""
    server = start_nats(tmp_path / "nats")
    url = server["URL"] + "/away"
    alice, bob = tmp_path / "alice.db", tmp_path / "bob.db"
    for db, name in ((alice, "alice"), (bob, "bob")):
        assert agi(db, "init", "--name", name).returncode == 0
        assert agi(db, "run", url=url).returncode == 0  # joins the deployment (its durable subscription)
    subprocess.run([server["STOP"], "--keep"], check=True, timeout=60)  # SIGKILL; the data and port stay
    sent = agi(alice, "send", "bob", "what is 2+3?", url=url)
    assert sent.returncode == 0 and sent.stdout.startswith("message to bob queued ("), sent.stderr
    (line,) = sent.stderr.strip().splitlines()
    assert line.startswith(f"agi: warning: cannot reach the NATS server at {server['URL']} (")
    assert line.endswith(
        "the message waits in the outbox (the recipient unchecked) and leaves with this "
        "agent's next agi run or agi send that reaches the server; start it (scripts/start_nats.sh)"
    )
    with sqlite3.connect(alice) as conn:
        assert conn.execute("SELECT count(*) FROM messages_out WHERE published = 0").fetchone()[0] == 1
    try:
        assert start_nats(tmp_path / "nats")["URL"] == server["URL"]
        assert agi(alice, "run", url=url).returncode == 0  # publishes the outbox
        taken = agi(bob, "run", url=url)
        assert taken.returncode == 0 and taken.stdout == "message from alice: what is 2+3?\n2+3 = 5\n", taken.stderr
        assert agi(bob, "run", url=url).stdout == ""  # once
    finally:
        subprocess.run([server["STOP"]], check=False, timeout=60)
    for db in (alice, bob):
        assert agi(db, "replay").returncode == 0


def test_a_broker_restart_mid_conversation_loses_and_duplicates_nothing(tmp_path, start_nats):
    folder = tmp_path / "nats"
    server = start_nats(folder)
    url = server["URL"] + "/restart"
    alice = _agent(tmp_path, "alice", url, policy=ALLOW_SEND)
    bob = _agent(tmp_path, "bob", url)
    try:
        for n in range(3):
            alice.command("send_message", {"to": "bob", "text": f"{n}+1"})
        assert bob.tick().final_output == "0+1 = 1"  # one taken before the broker dies (a lazy commit: 2 more in hand)
        subprocess.run([server["STOP"], "--keep"], check=True, timeout=60)  # SIGKILL; its data stays
        for n in range(3, 5):  # the agents go on while the broker is down: the outbox holds these
            alice.command("send_message", {"to": "bob", "text": f"{n}+1"})
        assert _unpublished(alice) == 2
        while bob.tick() is not None:  # what bob fetched before the kill: answered, acks and replies held
            pass
        # the batch's replies wait for its durable end; how many bob had fetched (1 to 3) depends on when alice's
        # in-flight publishes reached the broker before it died. If the first fetch held only "0+1", that tick
        # ended its batch and its reply left before the kill (seen once under a loaded full run): one fewer waits
        taken = len(_received(bob))
        assert 1 <= taken <= 3 and taken - 1 <= _unpublished(bob) <= taken
        assert start_nats(folder)["URL"] == server["URL"]  # the same port and data folder
        _drain([alice, bob], lambda: len(_received(alice)) == 5 and _unpublished(alice) == 0)
        time.sleep(2)  # past the consumers' ack wait: anything unacknowledged would come again now
        assert alice.tick() is None and bob.tick() is None
        asked, answers = _received(bob), _received(alice)
        assert len(asked) == 5 and set(asked.values()) == {1}  # five messages, each one tick
        assert len(answers) == 5 and set(answers.values()) == {1}  # five replies, each one tick
        assert (
            sorted(source for _, source in ticks(tmp_path / "bob.db") if source.startswith("message:"))
            == ["message:alice"] * 5
        )
    finally:
        alice.close()
        bob.close()
        subprocess.run([server["STOP"]], check=False, timeout=60)
    for name in ("alice", "bob"):
        report = replay(tmp_path / f"{name}.db", plugins=builtin_plugins())  # no broker, no nats plugin
        assert report.ok, report.summary()


class NamespacePartition:
    """A nats-server in a network namespace of its own, reached over a veth pair: ``cut()`` takes the
    host's end of the link down (the broker is unreachable, nothing is reset), ``heal()`` brings it up."""

    held_in_outbox = True  # cut off from the broker, alice's messages wait in her outbox

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        tag = uuid.uuid4().hex[:6]
        self.host_end, self.ns_end = f"ah{tag}", f"an{tag}"
        octet = int(tag[:2], 16) % 250 + 1
        self.host_ip, self.ns_ip = f"10.213.{octet}.1", f"10.213.{octet}.2"
        self.holder = subprocess.Popen(["unshare", "-n", "sleep", "3600"])  # holds the namespace
        pid = str(self.holder.pid)
        time.sleep(0.2)
        self._ip("link", "add", self.host_end, "type", "veth", "peer", "name", self.ns_end, "netns", pid)
        self._ip("addr", "add", f"{self.host_ip}/30", "dev", self.host_end)
        self._ip("link", "set", self.host_end, "up")
        inside = ["nsenter", "-t", pid, "-n"]
        for args in (
            ["addr", "add", f"{self.ns_ip}/30", "dev", self.ns_end],
            ["link", "set", self.ns_end, "up"],
            ["link", "set", "lo", "up"],
        ):
            subprocess.run([*inside, "ip", *args], check=True, timeout=30)
        (folder / "data").mkdir(parents=True)
        self.server = subprocess.Popen(
            [
                *inside,
                shutil.which("nats-server") or "nats-server",
                "-js",
                "-a",
                self.ns_ip,
                "-p",
                "4222",
                "-sd",
                str(folder / "data"),
                "-l",
                str(folder / "server.log"),
            ],
            stdin=subprocess.DEVNULL,
        )
        self.url = f"nats://{self.ns_ip}:4222"
        self._wait_reachable()

    def url_of(self, agent: str) -> str:
        return self.url

    @staticmethod
    def _ip(*args: str) -> None:
        subprocess.run(["ip", *args], check=True, timeout=30, capture_output=True)

    def _wait_reachable(self) -> None:
        import socket

        for _ in range(100):
            try:
                socket.create_connection((self.ns_ip, 4222), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("nats-server in the namespace did not start: " + (self.folder / "server.log").read_text())

    def cut(self) -> None:
        self._ip("link", "set", self.host_end, "down")

    def heal(self) -> None:
        self._ip("link", "set", self.host_end, "up")

    def close(self) -> None:
        self.server.kill()
        self.server.wait(30)
        self.holder.kill()  # the namespace goes with its last process, and the veth pair with it
        self.holder.wait(30)
        subprocess.run(["ip", "link", "delete", self.host_end], check=False, capture_output=True, timeout=30)


def _netns_allowed() -> str | None:
    """Why a network namespace with a veth pair cannot be made here (None: it can)."""
    if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("unshare") or not shutil.which("nsenter"):
        return "needs root, ip, unshare and nsenter (a network namespace and a veth pair)"
    probe = subprocess.run(
        ["unshare", "-n", "ip", "link", "add", "p0", "type", "veth", "peer", "name", "p1"], capture_output=True
    )
    return None if probe.returncode == 0 else "this machine does not allow veth pairs in a network namespace"


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("127.0.0.1", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


class RoutePartition:
    """Two nats-servers in a JetStream cluster on loopback: alice's (``a``) and bob's (``b``). Both routes
    between them run through a relay process (route_proxy.py): ``cut()`` SIGKILLs it (each server sees
    its route close and cannot reach the other), ``heal()`` starts it again on the same ports. The
    deployment's stream is made first, placed on ``stream_on``'s server: on bob's, alice's messages wait
    in her outbox during the cut; on alice's, they wait in the stream where bob cannot fetch them."""

    def __init__(self, folder: Path, deployment: str, stream_on: str) -> None:
        self.folder, self.processes = folder, []
        self.held_in_outbox = stream_on == "b"
        try:
            self._start(deployment, stream_on)
        except BaseException:
            self.close()
            raise

    def _start(self, deployment: str, stream_on: str) -> None:
        client, cluster, relay = {}, {}, {}
        for side in ("a", "b"):
            client[side], cluster[side], relay[side] = _free_ports(3)
        self.relay_ports = [f"{relay[side]}:{cluster[side]}" for side in ("a", "b")]
        self.relay: subprocess.Popen[str] | None = None
        self.relay = self._start_relay()
        for side, other in (("a", "b"), ("b", "a")):
            store = self.folder / side
            store.mkdir(parents=True)
            config = self.folder / f"{side}.conf"
            config.write_text(
                f'server_name: {side}\nlisten: 127.0.0.1:{client[side]}\nserver_tags: ["side:{side}"]\n'
                f'jetstream {{ store_dir: "{store}" }}\n'
                f"cluster {{ name: agi, listen: 127.0.0.1:{cluster[side]}, advertise: 127.0.0.1:{relay[side]}, "
                f"routes: [nats-route://127.0.0.1:{relay[other]}] }}\n"
            )
            log = self.folder / f"{side}.log"
            self.processes.append(
                subprocess.Popen(
                    [shutil.which("nats-server") or "nats-server", "-c", str(config), "-l", str(log)],
                    stdin=subprocess.DEVNULL,
                )
            )
        self.urls = {"alice": f"nats://127.0.0.1:{client['a']}", "bob": f"nats://127.0.0.1:{client['b']}"}
        asyncio.run(self._make_stream(deployment, stream_on))

    def _start_relay(self) -> subprocess.Popen[str]:
        relay = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("route_proxy.py")), *self.relay_ports],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert relay.stdout is not None
        with relay.stdout:
            assert relay.stdout.readline().strip() == "ready"
        return relay

    async def _make_stream(self, deployment: str, stream_on: str) -> None:
        """The deployment's stream on ``stream_on``'s server, once the cluster's JetStream answers."""
        import nats
        from agi_plugin_nats.transport import stream_config
        from nats.js import api

        config = dataclasses.replace(stream_config(deployment), placement=api.Placement(tags=[f"side:{stream_on}"]))
        end = time.monotonic() + 60
        while True:
            try:
                connection = await nats.connect(self.urls["alice"], connect_timeout=2, max_reconnect_attempts=0)
                try:
                    await connection.jetstream(timeout=2).add_stream(config)
                    return
                finally:
                    await connection.close()
            except Exception:  # noqa: BLE001 - not up yet, or no JetStream leader elected yet
                if time.monotonic() > end:
                    logs = "".join((self.folder / f"{side}.log").read_text()[-2000:] for side in ("a", "b"))
                    raise AssertionError("the NATS cluster's JetStream did not come up:\n" + logs) from None
                await asyncio.sleep(0.5)

    def url_of(self, agent: str) -> str:
        return self.urls[agent]

    def cut(self) -> None:
        assert self.relay is not None
        self.relay.kill()
        self.relay.wait(30)

    def heal(self) -> None:
        self.relay = self._start_relay()

    def close(self) -> None:
        for process in [*self.processes, self.relay]:
            if process is not None:
                process.kill()
                process.wait(30)


@pytest.fixture(params=["namespace", "route, stream on bob's server", "route, stream on alice's server"])
def partition(request, tmp_path, nats_url):  # nats_url: installs nats-server (scripts/start_nats.sh) when missing
    """A partition between alice and bob: the broker in a network namespace behind a veth pair (where the
    machine allows it), and a two-server cluster whose routes are cut (everywhere)."""
    if request.param == "namespace":
        why = _netns_allowed()
        if why is not None:
            pytest.skip(why)
        network: NamespacePartition | RoutePartition = NamespacePartition(tmp_path / "partitioned-nats")
    else:
        network = RoutePartition(tmp_path / "cluster", "partition", "b" if "bob's" in request.param else "a")
    try:
        yield network
    finally:
        network.close()


def test_a_broker_that_dies_owing_a_confirmation_does_not_hold_the_agent_for_its_timeout(
    tmp_path, start_nats, monkeypatch
):
    """The acks of a batch are sent and their confirmation awaited; the broker dies before it answers. The wait
    ends when the connection drops, not after the confirmation's timeout (set to 60 s here; with the 5 s
    default a broker restart stopped every tick for 5 s). The batch, unconfirmed, comes again after the ack wait."""
    from agi_plugin_nats import transport as nats_transport

    from agi_core.messaging.envelope import Message

    monkeypatch.setattr(nats_transport, "CONNECT_TIMEOUT_S", 60.0)
    folder = tmp_path / "nats"
    server = start_nats(folder)
    url = server["URL"] + "/owed?ack_wait=1"
    alice = nats_transport.NatsTransport(url, agent="alice")
    bob = nats_transport.NatsTransport(url, agent="bob")
    try:
        for n in range(3):
            alice.publish(Message(id=f"m{n}", sender="alice", recipient="bob", conversation="c", text=f"{n}"))
        deliveries = bob.fetch(5)
        assert [d.message.id for d in deliveries] == ["m0", "m1", "m2"]
        pid = int((folder / "pid").read_text())
        os.kill(pid, signal.SIGSTOP)  # the broker takes the acks and answers nothing
        bob.ack_all(deliveries)  # sent; the confirmation is awaited by the next ack, or by close
        time.sleep(0.2)
        subprocess.run([server["STOP"], "--keep"], check=True, timeout=60)  # SIGKILL: the connection drops
        began = time.monotonic()
        bob.ack_all([])  # waits for the confirmation in flight
        assert time.monotonic() - began < 30, "the wait outlived the connection it was owed on"
        assert start_nats(folder)["URL"] == server["URL"]
        again, end = [], time.monotonic() + 30
        while len(again) < 3 and time.monotonic() < end:
            again += [d.message.id for d in bob.fetch(1)]
        assert sorted(again) == ["m0", "m1", "m2"]  # unconfirmed: delivered again (the inbox would find the ids)
    finally:
        alice.close()
        bob.close()
        subprocess.run([server["STOP"]], check=False, timeout=60)


def test_a_partition_keeps_messages_in_the_outbox_and_delivers_them_once_after(tmp_path, partition):
    alice = _agent(tmp_path, "alice", partition.url_of("alice") + "/partition?ack_wait=1", policy=ALLOW_SEND)
    bob = _agent(tmp_path, "bob", partition.url_of("bob") + "/partition?ack_wait=1")
    try:
        alice.tick("tell bob that 1+1")
        _drain([bob], lambda: len(_received(bob)) == 1)
        partition.cut()
        for text in ("tell bob that 2+2", "tell bob that 3+3"):  # sent while the broker is unreachable
            receipt = alice.tick(text)
            assert receipt.observation.success, receipt.observation.error  # recipient not checkable: queued
        alice.mailbox.flush(leave_in_flight=False)  # the last publish's confirmation (else the next tick's flush)
        assert _unpublished(alice) == (2 if partition.held_in_outbox else 0)  # held in the outbox, or the stream
        assert bob.tick() is None
        partition.heal()
        _drain([alice, bob], lambda: len(_received(bob)) == 3 and len(_received(alice)) == 3)
        time.sleep(2)  # past the ack wait: a redelivery or a second publish would show now
        assert alice.tick() is None and bob.tick() is None
        assert set(_received(bob).values()) == {1} and set(_received(alice).values()) == {1}
        assert _unpublished(alice) == 0
    finally:
        alice.close()
        bob.close()
