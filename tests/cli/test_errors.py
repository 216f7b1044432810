"""Each CLI failure is one line on stderr naming the problem and the fix, with a non-zero exit.

Real processes, real files and real faults: a garbage database file, a truncated one,
``/dev/full`` and a size-limited tmpfs for a full disk, a second process holding the
write lock.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import agi_process


def one_line_error(done: subprocess.CompletedProcess) -> str:
    """The single stderr line of a failed command (asserting there is exactly one, and no traceback)."""
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode != 0, err
    assert "Traceback" not in err and "Traceback" not in done.stdout.decode("utf-8", "replace")
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith("Error: ") and "internal error" not in err, err
    return err.rstrip("\n")


def make_db(tmp_path: Path, name: str = "a.db") -> Path:
    db = tmp_path / name
    done = agi_process("--db", str(db), "run", input=b"my name is Ann\n2+2\n")
    assert done.returncode == 0, done.stderr
    return db


def test_a_garbage_database_file(tmp_path) -> None:
    db = tmp_path / "a.db"
    db.write_bytes(b"not sqlite at all " * 100)
    for args in (["run"], ["journal", "verify"], ["memory", "facts"], ["replay"]):
        assert one_line_error(agi_process("--db", str(db), *args, input=b"1+1\n")) == (
            f"Error: {db} is not an agi database or is corrupt (file is not a database); "
            "restore it from a checkpoint or pass --db with another file"
        )
    assert db.read_bytes() == b"not sqlite at all " * 100


def test_a_damaged_database_file(tmp_path) -> None:
    db = make_db(tmp_path)
    data = bytearray(db.read_bytes())
    data[4096:] = b"\xff" * (len(data) - 4096)  # every page after the first is garbage
    db.write_bytes(bytes(data))
    line = one_line_error(agi_process("--db", str(db), "memory", "facts"))
    assert line.startswith(f"Error: {db} is not an agi database or is corrupt (")
    assert line.endswith("); restore it from a checkpoint or pass --db with another file")


def test_disk_full_while_writing_an_export(tmp_path) -> None:
    db = make_db(tmp_path)
    done = agi_process("--db", str(db), "journal", "export", "-o", "/dev/full")
    assert one_line_error(done) == "Error: disk full while writing /dev/full; free space and retry"


@pytest.fixture
def small_fs(tmp_path):
    """A 1 MiB tmpfs (needs root); skipped where the machine does not allow mounting."""
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("this machine does not allow mounting a tmpfs")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=True)


def test_disk_full_while_writing_the_database(small_fs) -> None:
    db = small_fs / "a.db"
    agi_process("--db", str(db), "run", input=b"1+1\n")
    before = sqlite3.connect(db).execute("SELECT COUNT(*) FROM journal").fetchone()
    filler = small_fs / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:  # fill the file system to the last byte
        while os.write(fd, b"x" * 512):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    lines = "".join(f"note number {n} is {'x' * 200}\n" for n in range(200)).encode()
    line = one_line_error(agi_process("--db", str(db), "run", input=lines))
    assert line == f"Error: disk full while writing {db}; free space and retry"
    filler.unlink()
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM journal").fetchone() >= before
    assert agi_process("--db", str(db), "journal", "verify").returncode == 0


def test_a_locked_database(tmp_path) -> None:
    db = make_db(tmp_path)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        # --lock-timeout 1: the default (30 s) would be waited out in full; the message is the same
        line = one_line_error(
            agi_process("--db", str(db), "--lock-timeout", "1", "memory", "put", "user/person/self/age", "3")
        )
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert str(db) in line and "locked" in line


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["nosuch"], "Error: No such command 'nosuch'. (see 'agi --help')"),
        (["run", "--nope"], "Error: No such option '--nope'. (see 'agi run --help')"),
        (["memory"], "Error: 'agi memory' needs a command (facts, forget, get, put, search); see 'agi memory --help'"),
        (["memory", "put", "user/person/self/x"], "Error: Missing argument 'VALUE'. (see 'agi memory put --help')"),
        (["--brain", "nope", "run"], "Error: no brain named 'nope'; installed brains: llm, stage0"),
        (["rollback", "nope"], "Error: no checkpoint named 'nope'; existing checkpoints: none"),
        (
            ["run", "--timeout", "nan"],
            "Error: Invalid value for '--timeout': 'nan' is not a finite number of seconds; give one such as 2 or 0.5"
            " (see 'agi run --help')",
        ),
        (
            ["--lock-timeout", "inf", "run"],
            "Error: Invalid value for '--lock-timeout': 'inf' is not a finite number of seconds; give one such as 2"
            " or 0.5 (see 'agi --help')",
        ),
        (
            ["--llm-timeout", "0", "run"],
            "Error: Invalid value for '--llm-timeout': '0' seconds is out of range; give greater than 0"
            " (see 'agi --help')",
        ),
        (
            ["chat", "--module-timeout", "-1"],
            "Error: Invalid value for '--module-timeout': '-1' seconds is out of range; give 0 or more"
            " (see 'agi chat --help')",
        ),
    ],
)
def test_bad_arguments(tmp_path, args, expected) -> None:
    db = make_db(tmp_path)
    assert one_line_error(agi_process("--db", str(db), *args, input=b"1+1\n")) == expected


def test_a_directory_as_database(tmp_path) -> None:
    line = one_line_error(agi_process("--db", str(tmp_path), "run", input=b"1+1\n"))
    assert line == f"Error: Invalid value for '--db': File '{tmp_path}' is a directory. (see 'agi --help')"


def test_non_utf8_contract_output(tmp_path) -> None:
    bad = tmp_path / "out.json"
    bad.write_bytes(b'{"intent": "\xff\xfe"}')
    done = agi_process("contracts", "validate", "intent_ingestion", str(bad))
    err = done.stderr.decode("utf-8")
    assert done.returncode == 1 and "Traceback" not in err
    # invalid UTF-8 is read with replacement (issue 9); the output is then judged as any other
    assert err.startswith("Error: the output violates contract 'intent_ingestion' (schema):\n"), err


@pytest.mark.parametrize("variable", ["AGI_DEBUG", "AGI_RAISE_ERRORS"])
def test_debug_shows_the_traceback(tmp_path, variable) -> None:
    db = tmp_path / "a.db"
    db.write_bytes(b"garbage")
    done = agi_process("--db", str(db), "memory", "facts", env={variable: "1"})
    assert done.returncode == 1
    assert b"Traceback (most recent call last)" in done.stderr and b"StorageError" in done.stderr


def test_a_reader_that_goes_away_is_not_an_error_message(tmp_path) -> None:
    """``agi journal export | head -c 100``: exit 1, nothing on stderr (no traceback, no "Broken pipe")."""
    db = tmp_path / "a.db"
    made = agi_process("--db", str(db), "run", input="".join(f"{n}+1\n" for n in range(400)).encode())
    assert made.returncode == 0
    command = [sys.executable, "-m", "agi_core", "--db", str(db), "journal", "export"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.read(100).startswith(b'{"tick":1,')
        process.stdout.close()
        assert process.stderr.read() == b""
        assert process.wait(timeout=60) == 1
