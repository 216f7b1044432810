"""``file_path`` values and blobs never leave the state's own folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agi_core.errors import StorageError
from agi_core.state import PathEscapeError, VariableValueError
from agi_core.state.paths import normalize_ref


@pytest.fixture
def folder(root, sid) -> Path:
    path = root / sid
    (path / "variables").mkdir(parents=True)
    (path / "variables" / "report.json").write_text('{"ok": true}')
    return path


@pytest.mark.parametrize(
    "given_ref,stored",
    [
        ("file:variables/report.json", "file:variables/report.json"),
        ("variables/report.json", "file:variables/report.json"),
        ("file:./variables//report.json", "file:variables/report.json"),
    ],
)
def test_file_paths_inside_the_folder_are_normalized(svc, sid, folder, given_ref, stored):
    variable = svc.set(sid, "report", given_ref, type="file_path")
    assert (variable.value, variable.file) == (stored, None)
    assert svc.path(sid, "report") == (folder / "variables" / "report.json").resolve()


@pytest.mark.parametrize(
    "ref,problem",
    [
        ("file:../other/secret.txt", "contains '..'"),
        ("file:variables/../../secret.txt", "contains '..'"),
        ("file:..", "contains '..'"),
        ("file:/etc/passwd", "is absolute"),
        ("/etc/passwd", "is absolute"),
        ("file:C:/Windows/win.ini", "is absolute"),
        ("file:variables\\..\\..\\x", "is empty or has a NUL or backslash"),
        ("file:a\x00b", "is empty or has a NUL or backslash"),
        ("file:", "is empty or has a NUL or backslash"),
        ("file:.", "names the state folder itself"),
    ],
)
def test_escaping_paths_are_refused(svc, sid, folder, ref, problem):
    with pytest.raises(PathEscapeError) as info:
        svc.set(sid, "f", ref, type="file_path")
    assert str(info.value) == (
        f"file path {ref!r} {problem}; use a path relative to the folder of {sid}, e.g. file:variables/report.json"
    )
    assert [v.name for v in svc.variables(sid)] == ["Final", "prompt"]


def test_symlink_to_a_file_outside_is_refused(svc, sid, folder, tmp_path):
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("secret")
    (folder / "variables" / "link.txt").symlink_to(secret)
    (folder / "escape").symlink_to(secret.parent, target_is_directory=True)
    for ref in ("file:variables/link.txt", "file:escape/secret.txt"):
        with pytest.raises(PathEscapeError) as info:
            svc.set(sid, "f", ref, type="file_path")
        assert str(info.value) == (
            f"file path {ref!r} resolves outside the folder of {sid} "
            "(through a symlink); store the file itself inside the state folder"
        )


def test_symlink_inside_the_folder_is_fine(svc, sid, folder):
    (folder / "alias.json").symlink_to(folder / "variables" / "report.json")
    assert svc.set(sid, "f", "file:alias.json", type="file_path").value == "file:alias.json"


def test_a_missing_file_is_refused(svc, sid, folder):
    with pytest.raises(VariableValueError) as info:
        svc.set(sid, "f", "file:variables/nope.json", type="file_path")
    assert str(info.value) == (
        f"file path 'file:variables/nope.json' does not name an existing file "
        f"in the folder of {sid}; write the file first"
    )


def test_a_file_swapped_for_a_symlink_later_is_caught_on_use(svc, sid, folder, tmp_path):
    svc.set(sid, "report", "file:variables/report.json", type="file_path")
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    target = folder / "variables" / "report.json"
    target.unlink()
    target.symlink_to(outside)
    with pytest.raises(PathEscapeError, match="resolves outside the folder"):
        svc.path(sid, "report")


def test_state_folder_replaced_by_a_symlink_is_refused(svc, sid, root, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "variables").mkdir(parents=True)
    (elsewhere / "variables" / "x.txt").write_text("x")
    if (root / sid).exists():
        os.rmdir(root / sid)
    (root / sid).symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(PathEscapeError) as info:
        svc.set(sid, "f", "file:variables/x.txt", type="file_path")
    assert str(info.value) == (f"the folder of {sid} is a symlink; replace it with a real folder at {root / sid}")


def test_blobs_folder_replaced_by_a_symlink_is_refused(svc, sid, root, tmp_path):
    outside = tmp_path / "blobs_outside"
    outside.mkdir()
    (root / sid / "blobs").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PathEscapeError, match="resolves outside the folder"):
        svc.set(sid, "big", "b" * 11000)
    assert list(outside.iterdir()) == []


def test_a_tampered_blob_is_detected(svc, sid, root):
    variable = svc.set(sid, "big", "b" * 11000)
    (root / sid / variable.file[5:]).write_text('"tampered"')
    with pytest.raises(StorageError) as info:
        svc.get(sid, "big")
    assert str(info.value) == (
        f"{variable.file} of {sid} was modified on disk (digest mismatch); restore "
        "the file from a backup or roll back to a checkpoint taken after it was written"
    )


def test_garbage_collection_keeps_referenced_blobs(svc, sid, root):
    kept = svc.set(sid, "kept", "k" * 11000).file
    gone = svc.set(sid, "gone", "g" * 11000).file
    svc.delete(sid, "gone")
    in_checkpoint = svc.set(sid, "old", "o" * 11000).file
    svc.checkpoint(sid, "with_old")
    current = svc.set(sid, "old", "n" * 11000).file
    assert svc.collect_garbage(sid) == [gone]
    assert svc.collect_garbage(sid) == []
    assert not (root / sid / gone[5:]).exists()
    for ref in (kept, in_checkpoint, current):
        assert (root / sid / ref[5:]).is_file()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab./\\:\x00C~"), max_size=12))
def test_normalized_refs_never_leave_the_folder(text):
    try:
        ref = normalize_ref(text, "state-00000000")
    except PathEscapeError:
        return
    rel = ref[len("file:") :]
    assert not rel.startswith("/") and ".." not in rel.split("/") and "\\" not in rel
    base = Path("/srv/rlm/state-00000000")
    assert base in (base / rel).parents
