"""Fixtures for the RLM state tests: a real SQLite file, a seeded clock, a state folder."""

from __future__ import annotations

import importlib.util
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from agi_core.determinism import Determinism
from agi_core.state import StateService, migrate

SEED = "rlm-test"


def _load_rlm_seed() -> ModuleType:
    """Import ``rlm_seed.py`` by path (works with any pytest import mode) as ``rlm_seed``."""
    if "rlm_seed" in sys.modules:
        return sys.modules["rlm_seed"]
    spec = importlib.util.spec_from_file_location("rlm_seed", Path(__file__).with_name("rlm_seed.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["rlm_seed"] = module
    spec.loader.exec_module(module)
    return module


RLM_SEED = _load_rlm_seed()


@pytest.fixture(scope="session")
def rlm_seed() -> ModuleType:
    """The seed-check helpers of ``tests/state/rlm_seed.py``."""
    return RLM_SEED


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    """A migrated connection on ``tmp_path/agent.db`` (the test owns the transaction)."""
    connection = sqlite3.connect(tmp_path / "agent.db")
    connection.execute("PRAGMA foreign_keys = ON")
    migrate(connection)
    yield connection
    connection.close()


@pytest.fixture
def det() -> Determinism:
    return Determinism(SEED)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "rlm"


@pytest.fixture
def svc(conn: sqlite3.Connection, det: Determinism, root: Path) -> StateService:
    return StateService(conn, det, root)


@pytest.fixture
def sid(svc: StateService) -> str:
    """A fresh state in session ``sess-1`` with prompt ``Find all TypeScript errors``."""
    return svc.create_state("Find all TypeScript errors", session_id="sess-1").state_id


@pytest.fixture
def dump_rows(conn: sqlite3.Connection):
    """``dump_rows(namespace)``: every column of every row of one namespace, stably ordered."""

    def dump(namespace: str) -> list[tuple[object, ...]]:
        return conn.execute("SELECT * FROM rlm_variables WHERE namespace = ? ORDER BY name", (namespace,)).fetchall()

    return dump
