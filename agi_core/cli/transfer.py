"""``agi export`` / ``agi import``: a whole agent moved between databases and backends."""

from __future__ import annotations

import glob
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import click

from agi_core.errors import ConfigError, StorageError, ValidationError, os_problem
from agi_core.opening import shown

OWN_SUFFIXES = {"": "database", "-wal": "write-ahead log", "-shm": "shared memory", "-journal": "rollback journal"}
OWN_FOLDERS = {".checkpoints": "checkpoints", ".ltm": "long-term memory index"}


def refuse_own_file(output: Path, store: Any) -> None:
    """A :class:`ConfigError` when ``output`` is one of the agent's own files (its database and the files
    beside it, its journal key, its checkpoints or its long-term memory index): an export renamed over it
    would destroy the agent it exports."""
    from agi_core.journal_key import key_file

    target = Path(os.path.realpath(output))
    db = Path(os.path.realpath(store.path))
    owned = {db.with_name(db.name + suffix): what for suffix, what in OWN_SUFFIXES.items()}
    owned[Path(os.path.realpath(key_file(store)))] = "journal key"
    what = owned.get(target)
    if what is None:
        inside = (w for end, w in OWN_FOLDERS.items() if db.with_name(db.name + end) in target.parents)
        what = next((f"{w} folder" for w in inside), None)
        where = "inside"
    else:
        where = ""
    if what is not None:
        raise ConfigError(
            f"-o {output} is {where + ' ' if where else ''}the agent's own {what}; "
            "writing the export there would destroy it: choose another file"
        )


@click.command("export")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="File (default stdout).")
@click.pass_obj
def export_command(state: Any, output: Path | None) -> None:
    """Write the whole agent (every table) as versioned JSON Lines, for agi import on any backend.

    Each row carries its MAC with the journal key (only an agent that verifies is exported), so an
    edited file is refused by agi import. A file is replaced only once the new export is complete.
    Checkpoints are not exported (it says so), except the journal's archive point's (agi journal
    archive), which replay of the moved agent starts from."""
    from agi_core import journal
    from agi_core.memory.transfer import write_export

    kernel = state.open_kernel(existing=True, warn=False)
    store, key = kernel.store, kernel.journal_key
    carried = _archive_point(store, key)

    def write(out: IO[str]) -> int:
        with store.read_snapshot():  # what is verified is what is written
            chain = journal.verify(store, key)
            problems = [str(chain)] if not chain.ok else store.seal_problems(key, int(store.meta_get("tick") or 0))
            if carried is not None:
                name = carried[0]
                problems += [f"checkpoint {name!r}: {found}" for found in store.checkpoint_problems(name, key)]
            if problems:
                raise ValidationError(
                    f"{shown(state.db)} does not verify ({problems[0]}); agi export proves only an intact agent: "
                    "run agi journal verify"
                )
            return write_export(store, out, key, checkpoint=carried)

    if output is not None:
        refuse_own_file(output, store)
    try:
        count = write(sys.stdout) if output is None else write_atomically(output, write)
    except OSError as exc:
        raise StorageError(os_problem(exc, output or Path("stdout"))) from None
    click.echo(f"exported {count} rows of {store.name} agent {shown(state.db)}", err=True)
    kept = [info.name for info in store.checkpoint_list() if carried is None or info.name != carried[0]]
    if carried is not None:
        click.echo(
            f"agi: its journal's archive point's checkpoint {carried[0]!r} is in the export (replay starts there)",
            err=True,
        )
    if kept:  # an imported agent has none: say so now, not at its first rollback
        names = ", ".join(kept[:5]) + (", …" if len(kept) > 5 else "")
        click.echo(
            f"agi: its {len(kept)} {'other ' if carried else ''}checkpoint(s) ({names}) are not in the export; "
            f"the imported agent starts with {'only the archive point' if carried else 'none'} "
            "(agi checkpoint create there)",
            err=True,
        )


def _archive_point(store: Any, key: Any) -> tuple[str, int] | None:
    """The checkpoint an export carries: the journal's archive point's (agi journal archive), whose state replay
    starts from, where the backend can read it (:class:`~agi_core.memory.backend.CheckpointTransfer`)."""
    from agi_core import journal
    from agi_core.memory.backend import CheckpointTransfer

    base = journal.read_base(store, key)
    ticks = {info.name: info.tick for info in store.checkpoint_list()}
    if base is None or base.checkpoint not in ticks or not isinstance(store, CheckpointTransfer):
        return None
    return base.checkpoint, ticks[base.checkpoint]


def write_atomically(path: Path, write: Callable[[IO[str]], int]) -> int:
    """``write`` into a temporary file beside ``path``, fsync it, rename it over ``path``, fsync the folder:
    a kill at any moment leaves the previous file whole. A path that is not a regular file (a pipe,
    /dev/stdout) is written directly."""
    from agi_core.journal_key import fsync_folder

    if path.exists() and not path.is_file():
        with path.open("w", encoding="utf-8") as out:
            return write(out)
    from agi_core.memory.sqlite.checkpoints import process_alive

    target = Path(os.path.realpath(path))
    for stale in target.parent.glob(f".{glob.escape(target.name)}.export-*"):  # left by killed exports
        pid = stale.name.rsplit("-", 1)[1]
        if pid.isdigit() and not process_alive(int(pid)):
            stale.unlink(missing_ok=True)
    temp = target.with_name(f".{target.name}.export-{os.getpid()}")
    mode = target.stat().st_mode & 0o7777 if target.exists() else None
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    except OSError as exc:  # name the folder the user gave, not the temporary file's hidden name
        raise OSError(exc.errno, exc.strerror, str(target.parent)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            count = write(out)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_folder(target.parent)
    return count


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--key-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The exported agent's journal key (<db>.key); default: AGI_JOURNAL_KEY.",
)
@click.option(
    "--unverified",
    is_flag=True,
    help="Import without proof (no key, or a file from an older agi); agi journal verify then says so.",
)
@click.pass_obj
def import_command(state: Any, file: Path, key_file: Path | None, unverified: bool) -> None:
    """Create the agent in --db (a new database or agent name) from an agi export file.

    Every row is checked against the file's proof (MACs with the journal key) before anything is
    committed; an edited file is refused, naming the first edited table and key. The agent appears
    whole or not at all."""
    from agi_core.agent_import import import_agent

    count, _source, notes = import_agent(
        state.db, file, key_file=key_file, unverified=unverified, plugins=state.plugins
    )
    given, state.seed = state.seed, None  # the imported agent brings its own seed: --seed cannot change it
    kernel = state.open_kernel()  # checks the key against the imported agent
    click.echo(f"imported {count} rows into {shown(state.db)} (tick {kernel.tick_count})")
    for note in notes:
        click.echo(f"agi: {note}", err=True)
    if given is not None and given != kernel.config.seed:  # the import stands; say how to open it
        click.echo(
            f"agi: {shown(state.db)} keeps the seed it was exported with ({kernel.config.seed!r}), not --seed "
            f"{given}; open it without --seed, or with --seed {kernel.config.seed}",
            err=True,
        )
