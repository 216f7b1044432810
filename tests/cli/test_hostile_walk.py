"""Every registered command, subcommands included, under hostile arguments: never a traceback.

The walk enumerates the ``agi`` group itself, so a command added later is walked too. For
each command it tries every parameter with hostile values (missing files, directories,
non-UTF-8 bytes, huge numbers, empty strings …), and the command's plain form on a
database that does not exist and on a corrupt one. A failure must be exactly one line on
stderr, ``Error: …``, that is not the internal-error fallback, and a non-zero exit.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from agi_core.cli.main import make_cli
from tests.cli.conftest import agi_process

HUGE = "9" * 40
TEXTS = ["", "\udcff\udcfe bytes that are not UTF-8", "x" * 20000, "../../../etc/passwd", "-"]
NUMBERS = [HUGE, f"-{HUGE}", "", "nan", "1e309"]


def leaf_commands() -> list[tuple[str, ...]]:
    """Every command path of ``agi`` (``("memory", "get")`` …), found by walking the group."""
    found: list[tuple[str, ...]] = []

    def walk(group: click.Group, path: tuple[str, ...]) -> None:
        for name in group.list_commands(None):  # type: ignore[arg-type]
            command = group.get_command(None, name)  # type: ignore[arg-type]
            if isinstance(command, click.Group):
                walk(command, (*path, name))
            elif command is not None:
                found.append((*path, name))

    walk(make_cli(), ())
    return found


def command_at(path: tuple[str, ...]) -> click.Command:
    command: click.Command | None = make_cli()
    for name in path:
        assert isinstance(command, click.Group)
        command = command.get_command(None, name)  # type: ignore[arg-type]
    assert command is not None
    return command


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hostile")
    template = root / "template.db"
    done = agi_process("--db", str(template), "run", input=b"my name is Ann\n2+2\n")
    assert done.returncode == 0, done.stderr
    (root / "non_utf8.jsonl").write_bytes(b'{"text": "\xff\xfe"}\n\xff\n{oops\n')
    (root / "empty.json").write_bytes(b"")
    (root / "a_dir").mkdir()
    (root / "corrupt.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    return {
        "template": template,
        "non_utf8": root / "non_utf8.jsonl",
        "empty": root / "empty.json",
        "dir": root / "a_dir",
        "missing": root / "missing" / "file.jsonl",
        "corrupt": root / "corrupt.db",
    }


def hostile_values(param: click.Parameter, files: dict[str, Path]) -> list[str]:
    kind = param.type
    if isinstance(kind, click.Path | click.File):
        return [str(files[name]) for name in ("missing", "dir", "non_utf8", "empty")]
    if isinstance(kind, click.Choice):
        return ["nope", ""]
    if isinstance(kind, click.types.IntParamType | click.types.FloatParamType):
        return NUMBERS
    return TEXTS


def plain_value(param: click.Parameter, files: dict[str, Path]) -> str:
    if isinstance(param.type, click.Path | click.File):
        return str(files["non_utf8"])
    if isinstance(param.type, click.Choice):
        return str(param.type.choices[0])
    return "user/person/self/name"


def cases(command: click.Command, files: dict[str, Path]) -> list[list[str]]:
    """Argument lists: the plain form, then each parameter in turn given each hostile value."""
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    options = [p for p in command.params if isinstance(p, click.Option) and not p.is_flag and p.name != "help"]
    plain = [plain_value(p, files) for p in arguments]
    found = [plain]
    for index, argument in enumerate(arguments):
        found += [[*plain[:index], value, *plain[index + 1 :]] for value in hostile_values(argument, files)]
    for option in options:
        found += [[*plain, option.opts[0], value] for value in hostile_values(option, files)]
    return found


def assert_clean(result, what: str) -> None:
    shown = f"{what}\nstdout: {result.stdout!r}\nstderr: {result.stderr!r}"
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{shown}\n{type(result.exception).__name__}: {result.exception}"
    )
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr, shown
    if result.exit_code != 0:
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: "), shown
        assert "internal error" not in result.stderr, shown


COMMANDS = leaf_commands()


def test_the_walk_finds_the_commands() -> None:
    assert {" ".join(path) for path in COMMANDS} >= {
        "run",
        "chat",
        "ingest",
        "replay",
        "rollback",
        "memory get",
        "memory search",
        "journal export",
        "checkpoint create",
        "state set",
        "contracts validate",
    }


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_hostile_arguments(path: tuple[str, ...], files: dict[str, Path], tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("AGI_DEBUG", raising=False)
    monkeypatch.delenv("AGI_RAISE_ERRORS", raising=False)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    db = tmp_path / "a.db"
    shutil.copyfile(files["template"], db)
    for args in cases(command_at(path), files):
        full = ["--db", str(db), *path, *args]
        result = runner.invoke(make_cli(), full, input=b"\xff\xfe not UTF-8\n2+2\n")
        assert_clean(result, f"agi {' '.join(full)}"[:300])
    plain = cases(command_at(path), files)[0]
    for where in (tmp_path / "nowhere" / "a.db", files["corrupt"]):
        result = runner.invoke(make_cli(), ["--db", str(where), *path, *plain], input="")
        assert_clean(result, f"agi --db {where} {' '.join(path)}")
    assert files["corrupt"].read_bytes().startswith(b"SQLite format 3\x00\xff")
