"""Who said an input where: its ``speaker``, ``channel``, ``conversation`` and ``metadata``, checked."""

from __future__ import annotations

from typing import Any

from agi_core.errors import ValidationError
from agi_core.inputs import clean_text, preview
from agi_core.model import INPUT_LABEL_CHARS
from agi_core.serialization import dumps


def input_labels(
    speaker: str | None = None,
    channel: str | None = None,
    conversation: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An input's speaker, channel, conversation and metadata, checked; :class:`ValidationError` in one line."""
    labels: dict[str, Any] = {"speaker": speaker, "channel": channel, "conversation": conversation}
    for name, value in labels.items():
        if value is not None and (not isinstance(value, str) or not value or len(value) > INPUT_LABEL_CHARS):
            raise ValidationError(
                f"input {name} {preview(str(value), 40)!r} refused; use a non-empty text of at most "
                f"{INPUT_LABEL_CHARS} characters"
            )
        labels[name] = None if value is None else clean_text(value)
    if metadata:
        if not isinstance(metadata, dict):
            raise ValidationError(f"input metadata must be a JSON object, not {type(metadata).__name__}")
        try:
            dumps(metadata)
        except TypeError as exc:
            raise ValidationError(f"input metadata is not JSON ({exc}); pass a JSON object") from None
    labels["metadata"] = dict(metadata or {})
    return labels
