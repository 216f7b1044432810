"""The ``agi`` command: a click group whose commands all come from plugins.

Errors derived from :class:`AgiError` print one line and exit 1; set ``AGI_RAISE_ERRORS=1``
to get the traceback instead.
"""

from __future__ import annotations

import copy
import os
import sys
from pathlib import Path
from typing import Any

import attrs
import click

from agi_core.errors import AgiError
from agi_core.plugins import Plugins, load_plugins


@attrs.define
class CliState:
    """Global options, and the kernel opened from them on first use."""

    db: Path
    seed: str
    brain: str
    plugins: Plugins
    kernel_options: dict[str, Any] = attrs.field(factory=dict)
    _kernel: Any = None

    def open_kernel(self, *, warn: bool = True, **options: Any) -> Any:
        from agi_core.kernel import Kernel

        if self._kernel is None:
            self._kernel = Kernel.open(
                self.db, seed=self.seed, plugins=self.plugins, brain=self.brain, **{**self.kernel_options, **options}
            )
            if warn:
                from agi_core.effects.cli import warn_pending

                warn_pending(self._kernel)
        return self._kernel

    def close(self) -> None:
        if self._kernel is not None:
            self._kernel.close()
            self._kernel = None


@click.group(name="agi")
@click.version_option(package_name="agi-core")
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("agent.db"),
    envvar="AGI_DB",
    show_default=True,
    help="The agent's SQLite database file.",
)
@click.option(
    "--seed",
    default="0",
    envvar="AGI_SEED",
    show_default=True,
    help="Seed of every id and timestamp (a database keeps the seed it was created with).",
)
@click.option(
    "--brain", default="stage0", envvar="AGI_BRAIN", show_default=True, help="Which registered brain reasons."
)
@click.pass_context
def cli(ctx: click.Context, db: Path, seed: str, brain: str) -> None:
    """agi-core: run a deterministic, plugin-built cognitive agent."""
    state = CliState(db=db, seed=seed, brain=brain, plugins=load_plugins())
    ctx.obj = state
    ctx.call_on_close(state.close)


def make_cli() -> click.Group:
    """The ``agi`` group with every command the loaded plugins register."""
    group = copy.copy(cli)
    group.commands = {}
    for _ in load_plugins().call_each("agi_register_commands", cli=group):
        pass
    return group


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    try:
        code = make_cli().main(args=argv, prog_name="agi", standalone_mode=False)
        if isinstance(code, int) and code:  # ctx.exit(n) returns n when not standalone
            sys.exit(code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except AgiError as exc:
        if os.environ.get("AGI_RAISE_ERRORS"):
            raise
        click.echo(f"Error: {exc}", err=True)
        sys.exit(1)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
