"""The ``agi`` command: a click group whose commands all come from plugins.

Every error prints one line naming the problem and the fix, and exits non-zero (see
:mod:`agi_core.cli.failures`); ``AGI_DEBUG=1`` (or ``AGI_RAISE_ERRORS=1``) shows the traceback
instead. Commands are imported only when they run (:mod:`agi_core.cli.lazy`), and the plugins'
manifests are checked only before a command runs (:meth:`AgiGroup.invoke`), so ``agi --help``
loads nothing heavy.
"""

from __future__ import annotations

import contextlib
import copy
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from agi_core.cli.failures import explain, is_storage_failure
from agi_core.cli.lazy import LazyGroup
from agi_core.cli.params import Seconds
from agi_core.errors import AgiError, ConfigError, NoDatabaseError, StorageError, debug_enabled
from agi_core.plugins import Plugins, load_plugins

if TYPE_CHECKING:
    from pathlib import Path  # imported where a path is made or checked: agi --help does without pathlib


# dataclasses, not attrs: this module loads for agi --help, which must not import attrs (benchmarks/startup.py)
@dataclass(slots=True)
class CliState:
    """Global options, and the kernel opened from them on first use."""

    db: Path | str  # a file, or a backend URL (postgresql://…)
    seed: str | None  # None: the database's own (or "0" for a new one)
    brain: str
    plugins: Plugins
    kernel_options: dict[str, Any] = field(default_factory=dict)
    _kernel: Any = field(default=None, init=False, repr=False)

    def require_db(self) -> Path:
        """The database path, or a one-line error (creating nothing) when there is no database there.

        A backend URL is returned as it is once its backend says the agent exists (asking creates nothing).
        """
        if isinstance(self.db, str):
            from agi_core.opening import shown, url_agent_exists

            if url_agent_exists(self.db, plugins=self.plugins) is False:
                raise NoDatabaseError(f"no agent database at {shown(self.db)} (create one with agi run)")
            return self.db  # type: ignore[return-value]
        if self.db.is_dir():
            raise ConfigError(f"{self.db} is a directory, not an agent database; pass --db with a database file")
        if not self.db.exists():
            raise NoDatabaseError(f"no agent database at {self.db} (create one with agi run)")
        return self.db

    def open_kernel(
        self,
        *,
        existing: bool = False,
        warn: bool = True,
        new_folder: bool = False,
        offline: bool | None = None,
        **options: Any,
    ) -> Any:
        """The kernel on ``--db``; ``existing=True`` (read-only commands) refuses to create a database.

        A new database whose folder does not exist is refused too (a mistyped ``--db`` must not
        make a new agent and its folders), except for ``agi init`` (``new_folder=True``).
        ``offline`` (``KernelConfig.offline``; by default ``existing``): plugins reach no server as it
        opens, for a command that only reads or configures the agent.
        """
        from agi_core.kernel import Kernel

        if existing:
            self.require_db()
        elif not isinstance(self.db, str) and not new_folder and not self.db.exists() and not self.db.parent.is_dir():
            raise NoDatabaseError(
                f"no agent database at {self.db}, and its folder {self.db.parent} does not exist; check the --db "
                f"path, or create the agent there with 'agi --db {self.db} init --name NAME'"
            )
        if self._kernel is None:
            options = {"offline": existing if offline is None else offline, **self.kernel_options, **options}
            self._kernel = Kernel.open(self.db, seed=self.seed, plugins=self.plugins, brain=self.brain, **options)
            check_model = getattr(self._kernel.brain, "check_model", None)
            if check_model is not None:  # a brain whose model is missing says so now, not with a reply per line
                try:
                    check_model()
                except BaseException:
                    self.close()
                    raise
            if warn:
                from agi_core.effects.cli import warn_pending

                warn_pending(self._kernel)
        return self._kernel

    def close(self) -> None:
        if self._kernel is not None:
            self._kernel.close()
            self._kernel = None


class AgiGroup(LazyGroup):
    """The root group: turns every failure into one line on stderr and a non-zero exit."""

    def invoke(self, ctx: click.Context) -> Any:
        plugins = load_plugins()
        if plugins.check_manifests():  # a plugin refused for its manifest loses the commands --help listed
            self.commands, self.lazy_commands = {}, {}
            plugins.register_commands(cli=self)
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise
        except Exception as exc:
            if not is_storage_failure(exc) or debug_enabled():
                raise
            first = _first_agi_error(exc)
            if first is not None:  # cleaning up after a failure failed again: say the first failure
                raise first from None
            db = ctx.obj.db if isinstance(ctx.obj, CliState) else None
            raise StorageError(explain(exc, db)) from exc

    def main(self, args: Any = None, prog_name: str | None = None, *more: Any, **extra: Any) -> Any:
        if extra.get("standalone_mode", True) is False:
            return super().main(args, prog_name, *more, **extra)
        args = [_decoded(arg) for arg in (sys.argv[1:] if args is None else args)]
        try:
            code = super().main(args, prog_name, *more, **{**extra, "standalone_mode": False})
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except (click.exceptions.Abort, KeyboardInterrupt):
            click.echo("Aborted.", err=True)
            sys.exit(130)
        except click.ClickException as exc:
            click.echo(f"Error: {_click_problem(exc)}", err=True)
            sys.exit(exc.exit_code)
        except BrokenPipeError:  # the reader went away (agi … | head): nothing to say, nothing more to write
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        except Exception as exc:
            if debug_enabled():
                raise
            click.echo(f"Error: {explain(exc)}", err=True)
            sys.exit(1)
        if isinstance(code, int) and code:  # ctx.exit(n) returns n when not standalone
            sys.exit(code)
        return code


def _decoded(arg: str) -> str:
    """``arg`` with invalid UTF-8 bytes as U+FFFD, unless it names an existing file (kept byte for byte)."""
    try:
        arg.encode("utf-8")
        return arg
    except UnicodeEncodeError:
        pass
    if os.path.lexists(arg):
        return arg
    try:
        return arg.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return arg.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _first_agi_error(exc: BaseException) -> AgiError | None:
    """The AgiError that ``exc`` was raised while handling, if any."""
    seen: BaseException | None = exc.__context__
    while seen is not None and not isinstance(seen, AgiError):
        seen = seen.__context__
    return seen


def _click_problem(exc: click.ClickException) -> str:
    """A click error as one line, with where to read more for usage errors."""
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.exceptions.NoArgsIsHelpError) and ctx is not None:
        names = ", ".join(ctx.command.list_commands(ctx)) if isinstance(ctx.command, click.Group) else ""
        return f"'{ctx.command_path}' needs a command ({names}); see '{ctx.command_path} --help'"
    message = " ".join(line.strip() for line in exc.format_message().splitlines() if line.strip())
    if isinstance(exc, click.UsageError) and ctx is not None:
        return f"{message} (see '{ctx.command_path} --help')"
    return message


@click.group(name="agi", cls=AgiGroup)
@click.version_option(package_name="agi-core")
@click.option(
    "--db",
    default="agent.db",
    callback=lambda ctx, param, value: _db_option(value),
    envvar="AGI_DB",
    show_default=True,
    help="The agent's SQLite database file, or a backend URL: postgresql://HOST/DB?agent=NAME "
    "(needs agi-plugin-postgres; see docs/postgres.md).",
)
@click.option(
    "--seed",
    default=None,
    envvar="AGI_SEED",
    help="Seed of every id and timestamp for a new database (default 0); a database keeps the seed it "
    "was created with, and a different --seed is refused.",
)
@click.option(
    "--brain", default="stage0", envvar="AGI_BRAIN", show_default=True, help="Which registered brain reasons."
)
@click.option(
    "--lock-timeout",
    type=Seconds(),
    default=30.0,
    envvar="AGI_LOCK_TIMEOUT",
    show_default=True,
    help="Seconds a writer waits while another process writes to the database, then gives up.",
)
@click.option(
    "--contract-provider",
    default=None,
    envvar="AGI_CONTRACT_PROVIDER",
    help="LLM provider that answers the contracts kernel code calls (modules, planning); "
    "default: none, the contracts' heuristic fallbacks answer.",
)
@click.option(
    "--llm-timeout",
    type=Seconds(positive=True),
    default=None,
    envvar="AGI_LLM_TIMEOUT",
    metavar="SECONDS",
    help="Abandon a model request that runs longer: with --brain llm the reply is then F4; a contract call "
    "(--contract-provider) gets its heuristic. Default: the provider's own limit.",
)
@click.option(
    "--otel",
    is_flag=True,
    help="Send OpenTelemetry traces (a span per tick, phase, module call, tool and model request) to "
    "the OTLP/HTTP collector at OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318); "
    "the OTEL_* variables turn it on too. See docs/tracing.md.",
)
@click.pass_context
def cli(
    ctx: click.Context,
    db: Path | str,
    seed: str | None,
    brain: str,
    lock_timeout: float,
    contract_provider: str | None,
    llm_timeout: float | None,
    otel: bool,
) -> None:
    """agi-core: run a deterministic, plugin-built cognitive agent."""
    options: dict[str, Any] = {"lock_timeout_s": lock_timeout, "contract_provider": contract_provider or None}
    if llm_timeout is not None:
        options["llm_timeout_s"] = llm_timeout
    state = CliState(db=db, seed=seed, brain=brain, plugins=load_plugins(), kernel_options=options)
    ctx.obj = state
    from agi_core import tracing  # here, not for --help

    if tracing.wanted(otel):  # OpenTelemetry is imported only now
        _start_tracing(ctx, asked=otel)
    ctx.call_on_close(state.close)


def _start_tracing(ctx: click.Context, *, asked: bool) -> None:
    """Tracing on, its spans flushed after the kernel closed (close callbacks run last first).

    A tracing setup that cannot work is an error with ``--otel``; asked only by ``OTEL_*``
    variables (perhaps meant for another program), it is a one-line notice and the command runs untraced.
    """
    from agi_core import tracing

    try:
        tracing.start()
    except ConfigError as exc:
        if asked:
            raise
        click.echo(f"agi: tracing is off: {exc}", err=True)
        return
    ctx.call_on_close(tracing.stop)


def _db_option(value: str) -> Path | str:
    """A backend URL stays a string; anything else is a database file path.

    The URL test is ``agi_core.opening.is_url``'s, written here so that parsing the
    options (``agi memory --help``, shell completion) imports no memory module.
    """
    if "://" in value:
        return value
    from pathlib import Path

    return click.Path(dir_okay=False, path_type=Path).convert(value, None, None)


def make_cli() -> click.Group:
    """The ``agi`` group with every command the loaded plugins register."""
    group = copy.copy(cli)
    group.commands, group.lazy_commands = {}, {}
    load_plugins().register_commands(cli=group)
    return group


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    make_cli().main(args=argv, prog_name="agi")
