"""Fixtures for long-term memory tests: the real MiniLM model, loaded once per session."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from agi_core.default_plugins.embedder_minilm import MiniLMEmbedder
from agi_core.longterm import LongTermMemory

LOCOMO = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "conv-26.json"
LOCOMO_MINI = Path(__file__).with_name("data") / "locomo_mini.json"


@pytest.fixture(scope="session")
def _minilm_loaded() -> None:
    """Load the model once (the SentenceTransformer is cached per process)."""
    MiniLMEmbedder().warm_up()


@pytest.fixture
def embedder(_minilm_loaded: None) -> MiniLMEmbedder:
    """A fresh embedder object (fresh call counters) over the already-loaded model."""
    return MiniLMEmbedder()


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(tmp_path / "agent.db")
    yield connection
    connection.close()


@pytest.fixture
def ltm(conn: sqlite3.Connection, tmp_path: Path, embedder: MiniLMEmbedder) -> LongTermMemory:
    return LongTermMemory(conn, tmp_path / "index", embedder)


@pytest.fixture
def locomo_mini() -> Path:
    """A small LoCoMo-format conversation written for these tests."""
    return LOCOMO_MINI


@pytest.fixture
def locomo_conv26() -> Path:
    """The real LoCoMo conversation conv-26 from shared/data/locomo."""
    return LOCOMO
