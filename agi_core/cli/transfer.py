"""``agi export`` / ``agi import``: a whole agent moved between databases and backends."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from agi_core.errors import AgiError, StorageError, os_problem
from agi_core.opening import shown


@click.command("export")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="File (default stdout).")
@click.pass_obj
def export_command(state: Any, output: Path | None) -> None:
    """Write the whole agent (every table) as versioned JSON Lines, for agi import on any backend."""
    from agi_core.memory.transfer import write_export

    kernel = state.open_kernel(existing=True, warn=False)
    try:
        if output is None:
            count = write_export(kernel.store, sys.stdout)
        else:
            with output.open("w", encoding="utf-8") as out:
                count = write_export(kernel.store, out)
    except OSError as exc:
        raise StorageError(os_problem(exc, output or Path("stdout"))) from None
    click.echo(f"exported {count} rows of {kernel.store.name} agent {shown(state.db)}", err=True)


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--key-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The exported agent's journal key (<db>.key); default: AGI_JOURNAL_KEY.",
)
@click.pass_obj
def import_command(state: Any, file: Path, key_file: Path | None) -> None:
    """Create the agent in --db (a new database or agent name) from an agi export file."""
    from agi_core.journal_key import KEY_ENV, key_path
    from agi_core.memory.transfer import import_rows, read_export
    from agi_core.opening import open_store

    if key_file is None and not os.environ.get(KEY_ENV):
        raise AgiError(f"pass --key-file with the journal key of the exported agent (its <db>.key), or set {KEY_ENV}")
    store = open_store(state.db, plugins=state.plugins)
    try:
        with file.open(encoding="utf-8") as lines:
            count = import_rows(store, read_export(lines))
        if key_file is not None:
            target = key_path(Path(store.path))
            key = key_file.read_text(encoding="ascii")
            if target.exists() and target.read_text(encoding="ascii") != key:
                raise AgiError(f"{target} holds another journal key; import into a new database or agent name")
            if not target.exists():
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w", encoding="ascii") as out:
                    out.write(key)
    finally:
        store.close()
    kernel = state.open_kernel()  # checks the key against the imported agent, and seals it anew
    kernel.seal()
    click.echo(f"imported {count} rows into {shown(state.db)} (tick {kernel.tick_count})")
