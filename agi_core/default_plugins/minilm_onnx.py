"""MiniLM without torch at query time: a cached ONNX export run by onnxruntime.

Importing torch and sentence-transformers costs 5-10 s per process, far more than
encoding one query (~10 ms). The packaged model ships only safetensors weights, so the
first process that needs the model exports it once (torch's ONNX exporter, the model with
its mean pooling) to the user cache, checks that the export gives the same vectors as
sentence-transformers on probe texts (max difference :data:`TOLERANCE`), and only then
publishes the file (atomic rename). Every later process loads onnxruntime and the
tokenizers library in well under a second. Vectors stay interchangeable with those stored
by the torch path: same weights, same tokenizer, same pooling, checked at export.

The cache folder is ``$AGI_CACHE_DIR``, else ``$XDG_CACHE_HOME/agi-core``, else
``~/.cache/agi-core``. A failed export leaves a ``.failed`` file naming the cause, so
later processes go straight to torch instead of retrying.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import warnings
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

#: Bump when the export changes (inputs, pooling, opset): old cache files are then ignored.
EXPORT_VERSION = 1
OPSET = 17
TOLERANCE = 1e-5
PROBES = (
    "hello",
    "Where does Alice live?",
    "Émile a mangé des crêpes à Paris 🎉",
    "",
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful. " * 30,
)

_SESSIONS: dict[str, Any] = {}
_LOCK = threading.Lock()


def cache_dir() -> Path:
    """Where exported models are kept (see the module docstring)."""
    if os.environ.get("AGI_CACHE_DIR"):
        return Path(os.environ["AGI_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agi-core"


def onnx_path(model_dir: str | Path) -> Path:
    """The cache file for ``model_dir``: named by a digest of its weights' identity and the exporter."""
    model_dir = Path(model_dir)
    ident = [str(model_dir.resolve()), str(EXPORT_VERSION), str(OPSET)]
    for name in ("model.safetensors", "config.json", "tokenizer.json", "sentence_bert_config.json"):
        stat = (model_dir / name).stat() if (model_dir / name).exists() else None
        ident.append(f"{name}:{stat.st_size}:{stat.st_mtime_ns}" if stat else f"{name}:-")
    for dist in ("torch", "transformers"):
        try:
            ident.append(f"{dist}:{metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            ident.append(f"{dist}:-")
    digest = hashlib.sha256("\n".join(ident).encode()).hexdigest()[:16]
    return cache_dir() / f"minilm-{digest}.onnx"


def failure(path: Path) -> str | None:
    """Why the export to ``path`` failed before, or None."""
    marker = path.with_suffix(".failed")
    return marker.read_text(encoding="utf-8").strip() if marker.exists() else None


def max_seq_length(model_dir: str | Path) -> int:
    """Tokens kept per text, as sentence-transformers does (``sentence_bert_config.json``)."""
    config = Path(model_dir) / "sentence_bert_config.json"
    if config.exists():
        return int(json.loads(config.read_text(encoding="utf-8")).get("max_seq_length", 256))
    return 256


class OnnxMiniLM:
    """Mean-pooled, normalised sentence vectors from an exported model.

    :param path: the ``.onnx`` file (see :func:`export`).
    :param model_dir: the model folder, for ``tokenizer.json`` and the sequence length.
    """

    def __init__(self, path: Path, model_dir: str | Path) -> None:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
        tokenizer.enable_truncation(max_seq_length(model_dir))
        tokenizer.no_padding()
        self.tokenizer = tokenizer
        self.session = _session(path)

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """``(len(texts), dim)`` float32 unit rows; texts are batched by length, like sentence-transformers."""
        encodings = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encodings)), key=lambda i: -len(encodings[i].ids))
        out: np.ndarray | None = None
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            width = max(len(encodings[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            types = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                enc = encodings[i]
                ids[r, : len(enc.ids)] = enc.ids
                mask[r, : len(enc.ids)] = enc.attention_mask
                types[r, : len(enc.ids)] = enc.type_ids
            pooled = self.session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
            if out is None:
                out = np.zeros((len(encodings), pooled.shape[1]), dtype=np.float32)
            out[rows] = pooled
        assert out is not None
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return np.ascontiguousarray(out / norms, dtype=np.float32)


def _session(path: Path) -> Any:
    """One onnxruntime session per file per process."""
    with _LOCK:
        key = str(path)
        if key not in _SESSIONS:
            import onnxruntime as ort

            options = ort.SessionOptions()
            # Spinning worker threads starve faiss's OpenMP threads on small machines.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.log_severity_level = 3
            _SESSIONS[key] = ort.InferenceSession(key, options, providers=["CPUExecutionProvider"])
        return _SESSIONS[key]


def export(model_dir: str | Path, path: Path, reference: Any) -> None:
    """Export ``model_dir`` to ``path`` and check it against ``reference`` (a SentenceTransformer).

    Publishes ``path`` only when every probe vector matches within :data:`TOLERANCE`;
    otherwise writes ``<path>.failed`` with the cause and raises ``RuntimeError``.
    """
    partial = path.with_name(f"{path.stem}.{os.getpid()}.{threading.get_ident()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _export_graph(model_dir, partial)
        got = OnnxMiniLM(partial, model_dir).encode(PROBES, batch_size=2)
        want = reference.encode(list(PROBES), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        diff = float(np.abs(got - want).max())
        if not diff <= TOLERANCE:
            raise RuntimeError(f"the ONNX export differs from sentence-transformers by {diff:.2e}")
        os.replace(partial, path)
    except Exception as exc:
        with contextlib.suppress(OSError):
            path.with_suffix(".failed").write_text(f"{type(exc).__name__}: {exc}\n", encoding="utf-8")
        raise RuntimeError(f"could not export {model_dir} to ONNX ({exc})") from exc
    finally:
        with _LOCK:
            _SESSIONS.pop(str(partial), None)
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


def _export_graph(model_dir: str | Path, target: Path) -> None:
    import torch
    from transformers import AutoModel

    class Pooled(torch.nn.Module):
        def __init__(self, bert: Any) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)

    model = Pooled(AutoModel.from_pretrained(str(model_dir)).eval())
    ids = torch.tensor([[101, 7592, 2088, 102], [101, 7592, 102, 0]])
    mask = (ids > 0).long()
    dynamic: dict[str, dict[int, str]] = {
        name: {0: "batch", 1: "tokens"} for name in ("input_ids", "attention_mask", "token_type_ids")
    }
    dynamic["embedding"] = {0: "batch"}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation and tracer notices
        torch.onnx.export(
            model,
            (ids, mask, torch.zeros_like(ids)),
            str(target),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["embedding"],
            dynamic_axes=dynamic,
            opset_version=OPSET,
            dynamo=False,
        )
