"""Faults around a real nats-server: an unknown recipient, the broker killed and restarted
mid-conversation, the broker unreachable for a while (a network partition). Each time every
message becomes exactly one tick: none lost, none twice.

The agents here are kernels in the test process (agi-plugin-nats registered directly); the
broker is a real ``nats-server`` process (scripts/start_nats.sh, or started in a network
namespace of its own for the partition).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sqlite3
import subprocess
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
        assert len(_received(bob)) == 3 and _unpublished(bob) == 3  # the batch's replies wait for its durable end
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


class Partition:
    """A nats-server in a network namespace of its own, reached over a veth pair: ``cut()`` takes the
    host's end of the link down (the broker is unreachable, nothing is reset), ``heal()`` brings it up."""

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


@pytest.fixture
def partition(tmp_path, nats_url):  # nats_url: installs nats-server (scripts/start_nats.sh) when missing
    why = _netns_allowed()
    if why is not None:
        pytest.skip(why)
    network = Partition(tmp_path / "partitioned-nats")
    try:
        yield network
    finally:
        network.close()


def test_a_partition_keeps_messages_in_the_outbox_and_delivers_them_once_after(tmp_path, partition):
    url = partition.url + "/partition?ack_wait=1"
    alice = _agent(tmp_path, "alice", url, policy=ALLOW_SEND)
    bob = _agent(tmp_path, "bob", url)
    try:
        alice.tick("tell bob that 1+1")
        _drain([bob], lambda: len(_received(bob)) == 1)
        partition.cut()
        for text in ("tell bob that 2+2", "tell bob that 3+3"):  # sent while the broker is unreachable
            receipt = alice.tick(text)
            assert receipt.observation.success, receipt.observation.error  # recipient not checkable: queued
        assert _unpublished(alice) == 2  # held in the outbox
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
