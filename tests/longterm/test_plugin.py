"""The built-in embedder plugin: registration through the hook, lazy heavy imports."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from agi_core.default_plugins import embedder_minilm
from agi_core.default_plugins.embedder_minilm import MiniLMEmbedder
from agi_core.errors import ConfigError, PluginError
from agi_core.hookspecs import hookimpl
from agi_core.longterm import Embedder, embedder_from_plugins
from agi_core.longterm.embedder import check_embedder
from agi_core.plugins import Plugins


def test_minilm_registers_through_the_hook() -> None:
    plugins = Plugins()
    assert plugins.add_module(embedder_minilm, name="embedder_minilm", builtin=True)
    found = plugins.collect("agi_register_embedders")
    assert found["minilm"].obj is MiniLMEmbedder
    assert found["minilm"].plugin == "embedder_minilm"
    embedder = embedder_from_plugins("minilm", plugins)
    assert isinstance(embedder, MiniLMEmbedder) and isinstance(embedder, Embedder)
    assert (embedder.name, embedder.dim) == ("minilm", 384)


class _Hashing:
    """A toy embedder registered by a test plugin: proves another embedder plugs in."""

    name = "hashing"
    dim = 8

    def encode(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, sum(map(ord, word)) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


class _HashingPlugin:
    @hookimpl
    def agi_register_embedders(self, register):
        register(_Hashing, name="hashing")


def test_another_embedder_plugs_in(tmp_path) -> None:
    import sqlite3

    from agi_core.longterm import LongTermMemory

    plugins = Plugins()
    plugins.add_module(_HashingPlugin(), name="hashing_plugin")
    embedder = embedder_from_plugins("hashing", plugins)
    ltm = LongTermMemory(sqlite3.connect(tmp_path / "a.db"), tmp_path / "idx", embedder)
    ltm.add("red apples and green pears", tick=1)
    ltm.add("a blue bicycle", tick=2)
    assert ltm.search("blue bicycle", k=1, mode="dense")[0].item.tick == 2
    assert (tmp_path / "idx" / "ltm-hashing.faiss").exists()  # saved when first built
    ltm.close()
    assert (tmp_path / "idx" / "ltm-hashing.json").exists()


def test_unknown_embedder_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"no embedder named 'nope' \(registered: minilm\)"):
        embedder_from_plugins("nope", Plugins.builtins())


def test_disabled_builtin_is_not_forced_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGI_DISABLE_PLUGINS", "embedder_minilm")
    with pytest.raises(ConfigError, match=r"no embedder named 'minilm' \(registered: none\)"):
        embedder_from_plugins("minilm", Plugins.builtins())


def test_check_embedder_names_what_is_missing() -> None:
    with pytest.raises(PluginError, match="lacks dim, encode"):
        check_embedder(type("Half", (), {"name": "half"})())


def test_encode_is_batched_unit_float32(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.encode(["one", "two", "three"])
    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert embedder.encode_calls == 1
    assert embedder.encode([]).shape == (0, 384)


def test_importing_does_not_load_torch_or_faiss() -> None:
    code = (
        "import sys, sqlite3\n"
        "import agi_core.longterm as lt\n"
        "from agi_core.default_plugins import embedder_minilm\n"
        "m = lt.LongTermMemory(sqlite3.connect(':memory:'), None, embedder_minilm.MiniLMEmbedder())\n"
        "m.add('a rule-only tick writes a row', tick=1)\n"
        "print(sorted(x for x in ('torch', 'faiss', 'sentence_transformers') if x in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
