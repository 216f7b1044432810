"""How a backend turns text and JSON into stored text and back: large strings as blob references.

Shared by every backend: a store mixes in :class:`StoredText` and provides ``put_blob(hex,
data)`` and ``get_blob(hex)``; the layout of what is stored is then the same everywhere.
"""

from __future__ import annotations

from typing import Any

import orjson

from agi_core.memory import blobs
from agi_core.serialization import dumps


class StoredText:
    """``store_json``/``store_record``/``load_json``/``load_text`` over the store's blob methods."""

    def put_blob(self, hex_digest: str, data: bytes) -> None:
        raise NotImplementedError

    def get_blob(self, hex_digest: str) -> str:
        raise NotImplementedError

    def load_text(self, text: str) -> str:
        return blobs.resolve_text(text, self.get_blob)

    def store_json(self, data: object) -> str:
        """Canonical JSON text of ``data`` with its large strings stored as blobs."""
        text = dumps(data)
        if not blobs.maybe_refs(text):
            return text
        return dumps(blobs.externalize(data, self.put_blob))

    def store_record(self, data: dict[str, Any]) -> str:
        """A journal record's stored text: canonical JSON, large strings as blob references."""
        return blobs.stored_record_text(data, self.put_blob)

    def load_json(self, text: str) -> Any:
        """Stored JSON text back as data, references resolved."""
        data = orjson.loads(text)
        return blobs.resolve(data, self.get_blob) if blobs.MARKER in text else data
