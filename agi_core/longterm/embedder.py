"""The embedder interface, and how long-term memory finds one among the plugins.

An embedder is any object with a ``name``, a ``dim`` and ``encode(texts)`` returning an
``(n, dim)`` float32 array of L2-normalised rows. Embedders are registered by plugins
through ``agi_register_embedders(register)``; the built-in ``minilm``
(:mod:`agi_core.default_plugins.embedder_minilm`) registers the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from agi_core.errors import ConfigError, PluginError

DEFAULT_EMBEDDER = "minilm"


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors. Heavy imports must wait for the first ``encode``.

    ``name`` keys the stored vectors: two embedders with one name must give the same
    vectors, and vectors of another name are never mixed into an index. ``encode`` is also
    called from background threads (queries, memories encoded between ticks:
    :mod:`agi_core.longterm.prefetch`), beside calls from the caller's thread; onnxruntime,
    torch and tokenizers allow that.
    """

    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32, each row of L2 norm 1 (or 0 for empty input)."""
        ...


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Float32 copy with every non-zero row scaled to unit length."""
    out = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return out / norms


def check_embedder(obj: Any) -> Embedder:
    """``obj`` if it looks like an embedder, else a :class:`PluginError` naming what is missing."""
    missing = [attr for attr in ("name", "dim", "encode") if not hasattr(obj, attr)]
    if missing:
        raise PluginError(f"embedder {obj!r} lacks {', '.join(missing)}; see agi_core.longterm.Embedder")
    return obj  # type: ignore[no-any-return]


def embedder_from_plugins(name: str = DEFAULT_EMBEDDER, plugins: Any = None, **options: Any) -> Embedder:
    """Build the embedder registered as ``name`` by the loaded plugins.

    :param name: the registered name (``minilm`` is built in).
    :param plugins: a :class:`agi_core.plugins.Plugins`; the process default when omitted.
    :param options: passed to the factory.
    """
    if plugins is None:
        from agi_core.plugins import load_plugins

        plugins = load_plugins()
    found = {key: registration.obj for key, registration in plugins.register_embedders().items()}
    if name not in found:
        known = ", ".join(sorted(found)) or "none"
        raise ConfigError(f"no embedder named {name!r} (registered: {known}); install the plugin that provides it")
    factory = found[name]
    return check_embedder(factory(**options))
