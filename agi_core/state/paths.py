"""The state's own folder: ``file:`` references confined to it, and content-addressed blobs.

A ``file:`` reference is a POSIX path relative to ``<root>/<state_id>/``. It may not be
absolute, contain ``..`` or a backslash, or resolve (through symlinks) outside the folder.

Values too large to keep inline, and ``file_content`` values, are written once to
``blobs/<sha256><suffix>`` and never rewritten: a blob's name is its content, so a
rolled-back SQLite transaction or checkpoint can never see a file that changed under it.
Blobs nobody references any more are removed by :func:`remove_unreferenced`.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from agi_core.errors import StorageError
from agi_core.state.errors import PathEscapeError, VariableValueError

FILE_PREFIX = "file:"
BLOBS = "blobs"
_DRIVE = re.compile(r"^[A-Za-z]:")


def state_folder(root: Path, state_id: str) -> Path:
    """The folder that holds every file of ``state_id``."""
    return Path(root) / state_id


def normalize_ref(ref: str, state_id: str) -> str:
    """``ref`` as ``file:<clean relative path>``; refuses absolute paths, ``..`` and ``\\``."""
    if not isinstance(ref, str):
        raise VariableValueError(f"a file_path value must be a string, got {type(ref).__name__}")
    rel = ref[len(FILE_PREFIX) :] if ref.startswith(FILE_PREFIX) else ref
    fix = f"use a path relative to the folder of {state_id}, e.g. file:variables/report.json"
    if not rel or "\x00" in rel or "\\" in rel:
        raise PathEscapeError(f"file path {ref!r} is empty or has a NUL or backslash; {fix}")
    if rel.startswith("/") or _DRIVE.match(rel):
        raise PathEscapeError(f"file path {ref!r} is absolute; {fix}")
    if ".." in rel.split("/"):
        raise PathEscapeError(f"file path {ref!r} contains '..'; {fix}")
    clean = PurePosixPath(rel).as_posix()
    if clean in ("", "."):
        raise PathEscapeError(f"file path {ref!r} names the state folder itself; {fix}")
    return FILE_PREFIX + clean


def ensure_inside(folder: Path, path: Path, ref: str, state_id: str) -> Path:
    """``path`` resolved (symlinks followed), refused unless it lies inside ``folder``."""
    if folder.is_symlink():
        raise PathEscapeError(f"the folder of {state_id} is a symlink; replace it with a real folder at {folder}")
    base = folder.resolve()
    resolved = path.resolve()
    if resolved != base and base not in resolved.parents:
        raise PathEscapeError(
            f"file path {ref!r} resolves outside the folder of {state_id} (through a symlink); "
            "store the file itself inside the state folder"
        )
    return resolved


def resolve_ref(folder: Path, ref: str, state_id: str) -> Path:
    """The existing regular file ``ref`` names, proven to lie inside ``folder``."""
    clean = normalize_ref(ref, state_id)
    resolved = ensure_inside(folder, folder / clean[len(FILE_PREFIX) :], ref, state_id)
    if not resolved.is_file():
        raise VariableValueError(
            f"file path {ref!r} does not name an existing file in the folder of {state_id}; write the file first",
            path="$.value",
        )
    return resolved


def write_blob(folder: Path, data: bytes, suffix: str, state_id: str) -> str:
    """Store ``data`` as ``blobs/<sha256><suffix>`` (idempotent); return its ``file:`` ref."""
    digest = hashlib.sha256(data).hexdigest()
    ref = f"{FILE_PREFIX}{BLOBS}/{digest}{suffix}"
    blobs = folder / BLOBS
    try:
        blobs.mkdir(parents=True, exist_ok=True)
        ensure_inside(folder, blobs, ref, state_id)
        path = blobs / f"{digest}{suffix}"
        if path.is_file() and not path.is_symlink() and _digest(path) == digest:
            return ref
        tmp = blobs / f".{digest}{suffix}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as exc:
        raise StorageError(
            f"cannot write {ref} for {state_id}: {exc.strerror or exc}; check the folder {folder}"
        ) from None
    return ref


def read_blob(folder: Path, ref: str, state_id: str) -> bytes:
    """The bytes of a blob, checked against the digest in its name."""
    path = resolve_ref(folder, ref, state_id)
    data = path.read_bytes()
    digest = PurePosixPath(ref).name.split(".", 1)[0]
    if hashlib.sha256(data).hexdigest() != digest:
        raise StorageError(
            f"{ref} of {state_id} was modified on disk (digest mismatch); restore the file "
            "from a backup or roll back to a checkpoint taken after it was written"
        )
    return data


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def remove_unreferenced(folder: Path, referenced: Iterable[str]) -> list[str]:
    """Delete blobs of ``folder`` not in ``referenced``; return the removed refs, sorted.

    Call it outside any transaction that might still roll back (it cannot be undone).
    """
    keep = set(referenced)
    blobs = folder / BLOBS
    if not blobs.is_dir() or blobs.is_symlink():
        return []
    removed = []
    for path in sorted(blobs.iterdir()):
        ref = f"{FILE_PREFIX}{BLOBS}/{path.name}"
        if ref not in keep and path.is_file() and not path.name.startswith("."):
            path.unlink()
            removed.append(ref)
    return removed
