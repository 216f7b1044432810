"""Migrations, transactions owned by the caller, and names (Hypothesis)."""

from __future__ import annotations

import re
import sqlite3
import string
from contextlib import closing

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agi_core.determinism import Determinism
from agi_core.state import StateLimitError, StateService, VariableValueError, migrate
from agi_core.state.db import atomic
from agi_core.state.values import check_name

TABLES = ["rlm_checkpoints", "rlm_mutations", "rlm_states", "rlm_variables"]


def _tables(conn):
    return [
        r[0]
        for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rlm_%' ORDER BY name")
    ]


def test_migrate_is_idempotent(tmp_path):
    with closing(sqlite3.connect(tmp_path / "a.db")) as conn:
        assert "m003_rlm_state" in migrate(conn)  # the agent database's one migration list
        assert migrate(conn) == []
        assert _tables(conn) == TABLES


def test_the_service_never_commits(tmp_path):
    path = tmp_path / "agent.db"
    with closing(sqlite3.connect(path)) as conn, closing(sqlite3.connect(path)) as other:
        migrate(conn)
        svc = StateService(conn, Determinism("t"), tmp_path / "rlm")
        sid = svc.create_state("p").state_id
        svc.set(sid, "x", 1)
        assert conn.in_transaction
        assert _tables(other) == []  # nothing visible outside the caller's transaction
        conn.commit()
        assert other.execute("SELECT state_id FROM rlm_states").fetchall() == [(sid,)]
        svc.set(sid, "y", 2)
        conn.rollback()  # the kernel abandons a tick: the write is gone
        assert [v.name for v in svc.variables(sid)] == ["Final", "prompt", "x"]


def test_works_on_an_autocommit_connection_inside_the_callers_transaction(tmp_path):
    with closing(sqlite3.connect(tmp_path / "a.db", isolation_level=None)) as conn:
        conn.execute("BEGIN")
        migrate(conn)
        svc = StateService(conn, Determinism("t"), tmp_path / "rlm")
        sid = svc.create_state("p").state_id
        conn.execute("ROLLBACK")
        assert _tables(conn) == []
        conn.execute("BEGIN")
        migrate(conn)
        assert svc.states() == []
        assert sid.startswith("state-")


def test_atomic_undoes_only_its_own_block(conn):
    conn.execute("CREATE TABLE t (v INTEGER)")
    conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(RuntimeError), atomic(conn):
        conn.execute("INSERT INTO t VALUES (2)")
        raise RuntimeError("boom")
    with atomic(conn), atomic(conn):
        conn.execute("INSERT INTO t VALUES (3)")
    assert conn.execute("SELECT v FROM t ORDER BY v").fetchall() == [(1,), (3,)]


IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
names = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,140}\Z")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=140) | names)
def test_check_name_accepts_exactly_short_ascii_identifiers(name):
    valid = IDENTIFIER.fullmatch(name) is not None
    if valid and len(name) <= 128:
        assert check_name(name) == name
    elif valid:
        with pytest.raises(StateLimitError, match=f"^variable name {re.escape(name[:20])}\\.\\.\\. is {len(name)} "):
            check_name(name)
    else:
        with pytest.raises(VariableValueError, match=r"^invalid variable name "):
            check_name(name)


@pytest.fixture(scope="module")
def shared_service(tmp_path_factory):
    conn = sqlite3.connect(tmp_path_factory.mktemp("names") / "agent.db")
    migrate(conn)
    svc = StateService(conn, Determinism("names"), tmp_path_factory.mktemp("rlm"))
    yield svc, svc.create_state("names").state_id
    conn.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=names.filter(lambda n: len(n) <= 128 and n not in ("Final", "prompt")),
    value=st.integers() | st.text(alphabet=string.printable, max_size=30),
)
def test_any_valid_name_round_trips_and_validates(shared_service, rlm_seed, name, value):
    svc, sid = shared_service
    svc.set(sid, name, value)
    assert svc.get(sid, name) == value
    variable = svc.export(sid, validate=False)["variables"][name]
    assert (
        rlm_seed.errors(rlm_seed.our_validator(), {"version": "1.1.0", "state_id": sid, "variables": {name: variable}})
        == []
    )
    svc.delete(sid, name)
