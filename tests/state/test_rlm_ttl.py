"""Temporary variables expire on the deterministic clock; nothing reads the wall clock."""

from __future__ import annotations

import random
import time
import uuid
from datetime import datetime

import pytest

from agi_core.determinism import Determinism
from agi_core.state import StateService, VariableNotFound, VariableValueError, clock


def _next_now(det: Determinism) -> str:
    """The timestamp ``det.now()`` will return next, without advancing ``det``."""
    return Determinism(det.seed, counter=det.counter).now()


def test_temporary_needs_a_ttl_and_only_temporary_has_one(svc, sid):
    with pytest.raises(VariableValueError) as info:
        svc.set(sid, "tmp", 1, scope="temporary")
    assert str(info.value) == (
        "a temporary variable needs 1 <= ttl_seconds <= 2147483647, got None; pass ttl_seconds=<seconds>"
    )
    with pytest.raises(VariableValueError, match=r"^ttl_seconds is only for scope 'temporary', not 'state'"):
        svc.set(sid, "x", 1, ttl_seconds=5)
    with pytest.raises(VariableValueError, match="needs 1 <= ttl_seconds <= 2147483647, got 0"):
        svc.set(sid, "tmp", 1, scope="temporary", ttl_seconds=0)
    assert svc.set(sid, "tmp", 1, scope="temporary", ttl_seconds=2**31 - 1).ttl_seconds == 2**31 - 1
    with pytest.raises(VariableValueError, match=f"got {10**12}; "):  # would overflow the clock
        svc.set(sid, "tmp", 1, scope="temporary", ttl_seconds=10**12)


def test_expiry_follows_the_deterministic_clock(svc, sid, det):
    variable = svc.set(sid, "cache", [1, 2], scope="temporary", ttl_seconds=6)
    assert variable.expires_at == clock.add_seconds(variable.updated_at, 6)
    reads = 0
    while not clock.is_expired(variable.expires_at, _next_now(det)):
        assert svc.get(sid, "cache") == [1, 2]
        reads += 1
    # The write drew a timestamp and a mutation id, each read draws one timestamp: the clock
    # moves one second per draw (plus a sub-second jitter), so 4 reads fit in 6 seconds.
    assert reads == 4
    with pytest.raises(VariableNotFound) as info:
        svc.get(sid, "cache")
    assert str(info.value) == (
        f"variable 'cache' of {sid} expired at {variable.expires_at}; set it first "
        "(agi state set NAME VALUE) or list names (agi state list)"
    )
    last = svc.history(sid)[-1]
    assert (last.operation, last.variable_name, last.old_value, last.source) == ("delete", "cache", [1, 2], "ttl")
    assert last.metadata == {"reason": f"ttl of 6s expired at {variable.expires_at}", "scope": "temporary"}
    assert [v.name for v in svc.variables(sid)] == ["Final", "prompt"]


def test_expired_variables_are_hidden_then_purged(svc, sid, det):
    variable = svc.set(sid, "cache", 1, scope="temporary", ttl_seconds=2)
    for _ in range(3):
        det.now()  # the agent's clock moves on (other work, other ticks)
    assert clock.is_expired(variable.expires_at, _next_now(det))
    assert "cache" not in [v.name for v in svc.variables(sid)]
    assert "cache" not in svc.export(sid)["variables"]
    with pytest.raises(VariableNotFound, match="does not exist"):
        svc.describe(sid, "cache")
    assert svc.purge_expired(sid) == ["cache"]
    assert svc.purge_expired(sid) == []


def test_an_expired_temporary_uncovers_a_shared_variable(svc, det):
    sid = svc.create_state("p", session_id="s").state_id
    svc.set(sid, "mode", "session-wide", scope="session")
    svc.set(sid, "mode", "for now", scope="temporary", ttl_seconds=5)
    assert svc.get(sid, "mode") == "for now"
    for _ in range(5):
        det.now()
    assert svc.get(sid, "mode") == "session-wide"
    assert svc.describe(sid, "mode").scope == "session"


def test_a_write_renews_the_ttl(svc, sid):
    first = svc.set(sid, "cache", 1, scope="temporary", ttl_seconds=100)
    second = svc.set(sid, "cache", 2)
    assert (second.scope, second.ttl_seconds) == ("temporary", 100)
    assert second.expires_at == clock.add_seconds(second.updated_at, 100) > first.expires_at


def test_timestamp_arithmetic():
    assert clock.add_seconds("2025-03-01T23:59:59.250Z", 2) == "2025-03-02T00:00:01.250Z"
    assert clock.is_expired("2025-03-02T00:00:01.250Z", "2025-03-02T00:00:01.250Z") is True
    assert clock.is_expired("2025-03-02T00:00:01.250Z", "2025-03-02T00:00:01.249Z") is False


def test_nothing_reads_the_wall_clock_or_global_randomness(monkeypatch, conn, root, tmp_path):
    def forbidden(*args, **kwargs):
        raise AssertionError("the RLM state service read the wall clock or global randomness")

    class NoNow(datetime):
        now = utcnow = today = classmethod(forbidden)  # type: ignore[assignment]

    for target, name in [
        (time, "time"),
        (time, "time_ns"),
        (random, "random"),
        (random, "randrange"),
        (random, "getrandbits"),
        (uuid, "uuid4"),
        (uuid, "uuid1"),
    ]:
        monkeypatch.setattr(target, name, forbidden)
    monkeypatch.setattr(clock, "datetime", NoNow)

    det = Determinism("no-clock")
    svc = StateService(conn, det, root)
    parent = svc.create_state("p", session_id="s", tree_id=svc.new_tree_id()).state_id
    (root / parent / "variables").mkdir(parents=True)
    (root / parent / "variables" / "in.txt").write_text("data")
    svc.set(parent, "doc", "file:variables/in.txt", type="file_path")
    svc.set(parent, "cache", "c" * 20000, scope="temporary", ttl_seconds=3)
    child = svc.spawn_child(parent, "sub", inputs={"doc": "doc"}, result_name="answer").state_id
    ckpt = svc.checkpoint(child, "c")
    svc.set(child, "Final", "ok")
    svc.rollback(child, ckpt.checkpoint_id)
    assert svc.purge_expired(parent) == []  # the child's result delivery purged it already
    assert [(m.operation, m.variable_name, m.source) for m in svc.history(parent)][-2:] == [
        ("delete", "cache", "ttl"),
        ("create", "answer", child),
    ]
    assert svc.export(parent)["metadata"]["completion_status"] == "incomplete"
    assert svc.get(parent, "answer") == "ok"
    assert svc.get(child, "Final") is None
