"""Where a variable's value lives: inline canonical JSON, or a blob in the owner's folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from agi_core.errors import StorageError
from agi_core.state import paths
from agi_core.state.model import Limits, Variable
from agi_core.state.values import canonical, size_of


@attrs.frozen
class Stored:
    """The stored form of a value: ``value`` (JSON text) xor ``file`` (a ``file:`` ref)."""

    value: str | None
    file: str | None
    size_bytes: int

    @property
    def logged(self) -> str:
        """JSON text for the mutation log: the value, or the ``file:`` ref of a blob."""
        return self.value if self.value is not None else canonical(self.file)


def encode(root: Path, owner: str, vtype: str, value: Any, limits: Limits) -> tuple[Any, Stored]:
    """Store ``value`` (already type-checked); return the value to keep and its stored form.

    ``file_path`` values are normalized and must name a file inside the owner's folder;
    ``file_content`` always goes to a ``.txt`` blob; anything else above
    ``limits.max_inline_bytes`` of canonical JSON goes to a ``.json`` blob.
    """
    folder = paths.state_folder(root, owner)
    if vtype == "file_path":
        value = paths.normalize_ref(value, owner)
        paths.resolve_ref(folder, value, owner)
    if vtype == "file_content":
        data = value.encode("utf-8")
        return value, Stored(None, paths.write_blob(folder, data, ".txt", owner), len(data))
    text = canonical(value)
    size = size_of(text)
    if size > limits.max_inline_bytes:
        ref = paths.write_blob(folder, text.encode("utf-8"), ".json", owner)
        return value, Stored(None, ref, size)
    return value, Stored(text, None, size)


def decode(root: Path, row: dict[str, Any]) -> Any:
    """The value of a ``rlm_variables`` row, read from its blob when it has one."""
    if row["file"] is None:
        return json.loads(row["value"])
    owner = row["owner_state_id"]
    data = paths.read_blob(paths.state_folder(root, owner), row["file"], owner)
    try:
        text = data.decode("utf-8")
        return text if row["type"] == "file_content" else json.loads(text)
    except ValueError:
        raise StorageError(f"{row['file']} of {owner} is not valid UTF-8 JSON; roll back to a checkpoint") from None


def to_variable(root: Path, row: dict[str, Any]) -> Variable:
    """A full :class:`Variable` (value loaded) from a ``rlm_variables`` row."""
    return Variable(
        name=row["name"],
        value=decode(root, row),
        type=row["type"],
        scope=row["scope"],
        owner_state_id=row["owner_state_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        access_count=row["access_count"],
        read_only=bool(row["read_only"]),
        description=row["description"],
        source=row["source"],
        ttl_seconds=row["ttl_seconds"],
        expires_at=row["expires_at"],
        file=row["file"],
        size_bytes=row["size_bytes"],
    )


def copy_file(root: Path, src_state: str, ref: str, dst_state: str) -> str:
    """Copy the file ``ref`` of ``src_state`` to ``from/<src_state>/...`` of ``dst_state``."""
    src = paths.resolve_ref(paths.state_folder(root, src_state), ref, src_state)
    rel = f"from/{src_state}/{paths.normalize_ref(ref, src_state)[len(paths.FILE_PREFIX) :]}"
    dst_folder = paths.state_folder(root, dst_state)
    target = dst_folder / rel
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        paths.ensure_inside(dst_folder, target.parent, rel, dst_state)
        if target.is_symlink():
            target.unlink()
        target.write_bytes(src.read_bytes())
    except OSError as exc:
        raise StorageError(f"cannot copy {ref} into {dst_state}: {exc.strerror or exc}") from None
    paths.resolve_ref(dst_folder, rel, dst_state)
    return paths.FILE_PREFIX + rel
