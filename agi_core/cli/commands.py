"""The core commands: run, chat, plugins, memory get/put/facts/forget (added by ``default_plugins/commands.py``)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from agi_core.cli.params import Seconds
from agi_core.inputs import MAX_INPUT_BYTES, Oversized, read_lines, reply_line
from agi_core.memory.backend import MAX_STATE_VALUE_BYTES
from agi_core.model import ToolDefinition
from agi_core.serialization import dumps, to_data
from agi_core.tools import ToolPolicy

_allow_tool = click.option(
    "--allow-tool",
    "allow_tools",
    multiple=True,
    metavar="NAME",
    help="Let this write/external tool run without asking (repeatable).",
)


_timeout = click.option(
    "--timeout",
    "timeout_s",
    type=Seconds(),
    default=2.0,
    show_default=True,
    metavar="SECONDS",
    help="Abandon a tool or router agent that runs longer than this (0: no limit); for model requests "
    "see --llm-timeout.",
)


_max_input = click.option(
    "--max-input",
    type=click.IntRange(min=1),
    default=None,
    metavar="BYTES",
    help=f"Largest input line in bytes (default {MAX_INPUT_BYTES:,}); a longer line gets a refusal reply.",
)


_module_timeout = click.option(
    "--module-timeout",
    "module_timeout_s",
    type=Seconds(),
    default=2.0,
    show_default=True,
    metavar="SECONDS",
    help="Abandon a module's phase call that runs longer than this, unless the module sets its own (0: no limit).",
)

_module_state_max = click.option(
    "--module-state-max",
    "module_state_max_bytes",
    type=click.IntRange(min=1),
    default=MAX_STATE_VALUE_BYTES,
    show_default=True,
    metavar="BYTES",
    help="Largest value (bytes of JSON) a module may store under one key; a larger write is refused.",
)


_speaker = click.option(
    "--speaker",
    metavar="NAME",
    default=None,
    help="Who says the lines read (journaled as the input's speaker; modules see it as ctx.input.speaker).",
)


def _kernel_options(
    allow_tools: tuple[str, ...], max_input: int | None, confirm: Any = None, speaker: str | None = None
) -> dict[str, Any]:
    import os

    options: dict[str, Any] = {"policy": _policy(allow_tools, confirm)}
    if os.environ.get("AGI_MESSAGING_URL"):  # the message box: messages from other agents (docs/messaging.md)
        options["messaging"] = os.environ["AGI_MESSAGING_URL"]
    if max_input is not None:
        options["max_input_bytes"] = max_input
    if speaker is not None:
        from agi_core.labels import input_labels

        options["speaker"] = input_labels(speaker=speaker)["speaker"]  # a bad name: one line, before any tick
    return options


def _wall() -> Any:
    """The wall clock, read once per tick and recorded (``tick_clock``): every episode gets its time."""
    from agi_core.scheduling.clock import wall_clock

    return wall_clock()


def _policy(allow_tools: tuple[str, ...], confirm: Any = None) -> ToolPolicy:
    return ToolPolicy(allow_tools=frozenset(allow_tools), confirm=confirm)


@click.command()
@click.option("--jsonl", is_flag=True, help="Print each tick's journal record as one JSON line.")
@click.option("--follow", is_flag=True, help="Stay alive until SIGINT/SIGTERM: run due jobs, sensors, stdin lines.")
@click.option(
    "--clock-every",
    metavar="DURATION",
    default=None,
    help="With --follow: a clock tick this often (source clock); 0 turns it off. "
    "Default: setting sensors.clock_every_s (30 s).",
)
@click.option(
    "--maintain-every",
    metavar="DURATION",
    default="60s",
    show_default=True,
    help="With --follow: a maintenance tick (source maintain) at most this often; other ticks delay it a turn; 0: off.",
)
@click.option(
    "--step-every",
    metavar="DURATION",
    default="0",
    show_default=True,
    help="With --follow: run the active goal's next plan step (source goal:ID) at most this often, when idle; 0: off.",
)
@_allow_tool
@_timeout
@_module_timeout
@_module_state_max
@_max_input
@_speaker
@click.pass_obj
def run(
    state: Any,
    jsonl: bool,
    follow: bool,
    clock_every: str | None,
    maintain_every: str,
    step_every: str,
    allow_tools: tuple[str, ...],
    timeout_s: float,
    module_timeout_s: float,
    module_state_max_bytes: int,
    max_input: int | None,
    speaker: str | None,
) -> None:
    """Run one tick per line of standard input, then per sensor percept, and print the replies.

    Any bytes are accepted (invalid UTF-8 becomes U+FFFD); a line over --max-input is not
    stored: its tick replies with a refusal and the next line goes on. With --follow the
    agent keeps running (docs/autonomy.md): scheduled jobs, the clock sensor, stdin lines,
    and maintenance ticks when idle (docs/modules.md); with --step-every, the active goal's plan
    advances one step per tick when idle.
    """
    from agi_core.scheduling.cli import show_tick
    from agi_core.scheduling.sensors import drain

    if follow:
        from agi_core.scheduling.cli import run_follow
        from agi_core.scheduling.when import parse_duration_ms

        every_ms = None if clock_every is None else parse_duration_ms(clock_every) if clock_every.strip() != "0" else 0
        maintain_ms = parse_duration_ms(maintain_every) if maintain_every.strip() != "0" else None
        step_ms = parse_duration_ms(step_every) if step_every.strip() != "0" else None
        options = {
            "timeout_s": timeout_s,
            "module_timeout_s": module_timeout_s,
            "module_state_max_bytes": module_state_max_bytes,
            **_kernel_options(allow_tools, max_input, speaker=speaker),
        }
        return run_follow(state, options, every_ms, jsonl, maintain_ms, step_ms)
    options = _kernel_options(allow_tools, max_input, speaker=speaker)
    kernel = state.open_kernel(
        timeout_s=timeout_s,
        module_timeout_s=module_timeout_s,
        module_state_max_bytes=module_state_max_bytes,
        clock=_wall(),
        **options,
    )
    stream = getattr(sys.stdin, "buffer", None)
    lines = read_lines(stream, kernel.config.max_input_bytes) if stream is not None else iter(sys.stdin)
    for line in lines:
        if isinstance(line, Oversized):
            record = kernel.refuse_input(line)
        elif line.strip():
            record = kernel.tick(line.rstrip("\n"))
        else:
            continue
        if record is not None:
            click.echo(dumps(to_data(record)) if jsonl else reply_line(record.final_output))
        for record in drain(kernel):  # other sensors' percepts become ticks too
            show_tick(record, jsonl)
    for record in drain(kernel):  # and once more when standard input ends (or was empty)
        show_tick(record, jsonl)


@click.command()
@_allow_tool
@_timeout
@_module_timeout
@_module_state_max
@_max_input
@_speaker
@click.pass_obj
def chat(
    state: Any,
    allow_tools: tuple[str, ...],
    timeout_s: float,
    module_timeout_s: float,
    module_state_max_bytes: int,
    max_input: int | None,
    speaker: str | None,
) -> None:
    """Talk to the agent; write/external tools ask for confirmation. Ctrl-D or 'exit' quits.

    /help lists the chat's commands (/facts, /goals, /why) and phrasings; on a terminal,
    lines can be edited and the history is kept in <db>.history.
    """

    from agi_core.cli.chat import enable_history, forget_last_line, slash_command
    from agi_core.messaging.inbox import heard
    from agi_core.scheduling.commands import due_jobs
    from agi_core.scheduling.sensors import drain

    def confirm(tool: ToolDefinition, args: dict[str, Any]) -> bool:
        allowed = click.confirm(f"Allow {tool.effect} tool {tool.name} with {dumps(args)}?", default=False)
        forget_last_line()
        return allowed

    options = _kernel_options(allow_tools, max_input, confirm, speaker)
    kernel = state.open_kernel(
        timeout_s=timeout_s,
        module_timeout_s=module_timeout_s,
        module_state_max_bytes=module_state_max_bytes,
        clock=_wall(),
        **options,
    )
    click.echo(f"agi chat ({state.db}, seed {kernel.config.seed}); /help lists the commands, 'exit' quits.")
    save_history = enable_history(state.db)
    if save_history:
        click.get_current_context().call_on_close(save_history)
    while True:
        try:  # input() gives readline editing on a terminal; click.prompt serves pipes and tests
            line = (
                input("you> ")
                if save_history
                else click.prompt("you", prompt_suffix="> ", default="", show_default=False)
            )
        except (EOFError, KeyboardInterrupt, click.exceptions.Abort):
            click.echo()
            return
        if line.strip() in {"exit", "quit"}:
            return
        if (shown := slash_command(kernel, line)) is not None:
            click.echo("\n".join(shown))
        elif line.strip():
            record = kernel.tick(line)
            click.echo(f"agent> {reply_line(record.final_output)}")
        for record in [*due_jobs(kernel), *drain(kernel)]:  # due reminders and jobs, other sensors' percepts
            if (said := heard(record)) is not None:  # another agent's message: what it said, then the reply
                click.echo(said)
            click.echo(f"agent> [{record.input.source}] {reply_line(record.final_output)}")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON (name, version, hooks, registered, errors).")
@click.pass_obj
def plugins(state: Any, as_json: bool) -> None:
    """List the plugins, what each registers (runs every registration hook) and their errors."""
    from agi_core.inventory import inventory, render_text

    reports = inventory(state.plugins)
    if as_json:
        failures = [to_data(failure) for failure in dict.fromkeys(state.plugins.failures)]
        click.echo(json.dumps({"plugins": [to_data(r) for r in reports], "failures": failures}, indent=2))
        return
    for line in render_text(reports):
        click.echo(line)


@click.command("get")
@click.argument("key")
@click.pass_obj
def memory_get(state: Any, key: str) -> None:
    """Print the read contract {exists, value, last_updated} of KEY."""
    read = to_data(state.open_kernel(existing=True).get_fact(key))
    if read.get("source") is None:
        read.pop("source", None)  # only shared (world/) facts written by another agent name their source
    click.echo(dumps(read))


@click.command("put")
@click.argument("key")
@click.argument("value")
@click.pass_obj
def memory_put(state: Any, key: str, value: str) -> None:
    """Store VALUE (JSON, or a plain string) under the canonical KEY."""
    try:
        parsed: Any = json.loads(value, parse_constant=_not_json)
    except ValueError:  # not JSON (JSONDecodeError is a ValueError)
        parsed = value  # NaN and Infinity are not JSON: they stay the plain strings they were
    click.echo(state.open_kernel().put_fact(key, parsed).final_output)


@click.command("forget")
@click.argument("key")
@click.pass_obj
def memory_forget(state: Any, key: str) -> None:
    """Forget the fact under KEY (a journaled tick that overwrites it with null; it reads as a miss)."""
    click.echo(state.open_kernel(existing=True).command("forget_fact", {"key": key}).final_output)


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


@click.command("facts")
@click.option("--prefix", default="", help="Only keys starting with this.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.pass_obj
def memory_facts(state: Any, prefix: str, as_json: bool) -> None:
    """List stored facts."""
    facts = state.open_kernel(existing=True).store.facts(prefix)
    if as_json:
        click.echo(json.dumps([to_data(fact) for fact in facts], indent=2, ensure_ascii=False))
        return
    for fact in facts:
        click.echo(f"{fact.key} = {dumps(fact.value)}  ({fact.updated_at})")
