"""Every hook agi-core calls. Specs only: the manager lives in :mod:`agi_core.plugins`.

The docstrings are written in Markdown: ``python -m agi_core.hooksdoc > docs/hooks.md``
renders them (a test keeps that file fresh, and runs its examples in order, as one module).

Registration hooks receive a ``register(obj, *, name=None)`` callback, so the callback can
gain keyword arguments later without breaking plugins. Registering a name twice is an
error that names both plugins. Hooks evolve only by adding arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import click

    from agi_core.kernel import Kernel
    from agi_core.model import JournalRecord, TickState
    from agi_core.tickparts import TickParts

hookspec = pluggy.HookspecMarker("agi")
hookimpl = pluggy.HookimplMarker("agi")

Register = Callable[..., None]


@hookspec
def agi_register_sensors(register: Register) -> None:
    """Register sensors: objects with `name` and `poll(kernel) -> Input | Percept | None`. When `Kernel.tick()`
    is called without text, sensors are polled in registration order and the first percept
    becomes the tick's input. The built-in `input_queue` sensor serves `Kernel.submit(text)`.

    ```python
    class Beacon:
        name = "beacon"

        def poll(self, kernel):
            return Input(raw="2*21", normalized="2*21", source="env") if kernel.tick_count == 0 else None


    @hookimpl
    def agi_register_sensors(register):
        register(Beacon())
    ```

    ### How sensors are polled
    - `Kernel.tick()` called **without text** polls each registered sensor in registration
      order (built-ins first) until one returns an `Input`; that one becomes the tick's input
      and the others are not asked. No percept: no tick (`tick()` returns `None`). A sensor
      that raises is reported and skipped.
    - `agi run` and `agi chat` tick on every line they read, and after each line they drain
      the sensors: one tick per percept, at most 100 per drain, so a sensor that never runs dry
      cannot hold the agent.
    - `agi run --follow` keeps the agent alive: each turn it runs a due scheduled job, else a
      line of standard input, else a sensor's percept, and sleeps briefly when there is none;
      the built-in clock sensor (source `clock`, every `--clock-every`, else the `sensors`
      plugin's setting `clock_every_s`, 30 s by default) ticks only there. See [autonomy.md](autonomy.md).
    - A percept is recorded in the tick's journal record (its `input`), so `agi replay`
      never polls a sensor. A sensor that reads the clock or the outside world is therefore
      replay-safe as long as everything it read ends up in the `Input` it returns.
    - `poll` runs outside the tick's transaction and should return quickly.
    - A sensor that keeps a position (the last file, message or row it reported) returns a
      `Percept(input, cursor)` (`agi_core.model.Percept`, `cursor` any JSON value) instead of the
      `Input`, and reads the position back with `kernel.sensor_cursor(name)`. The kernel stores the
      cursor in the tick that takes the percept (recorded, so replay stores it too): a tick that
      fails leaves it where it was, and a restarted agent goes on from there. The built-in file
      sensor (`files`, the `sensors` plugin's setting `watch_dir`) works this way: a file that
      appeared while the agent was down is reported when it runs again, once.
    - A periodic sensor (a clock, a mailbox) is one whose `poll` returns a percept when its
      period has elapsed and `None` otherwise.

    ```python
    class EveryThirdTick:
        # a periodic sensor: a percept on ticks 0, 3, 6 … of the agent's life

        name = "every_third_tick"

        def poll(self, kernel):
            return Input(raw="5+5", normalized="5+5", source="env") if kernel.tick_count % 3 == 0 else None


    class PeriodicPlugin:
        @hookimpl
        def agi_register_sensors(self, register):
            register(EveryThirdTick())


    with open_kernel("sensors.db", PeriodicPlugin()) as kernel:
        first, second = kernel.tick(), kernel.tick()
    assert (first.final_output, first.input.source, second) == ("5+5 = 10", "env", None)
    ```

    :param register: call ``register(sensor, name=None)`` once per sensor.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_actuators(register: Register) -> None:
    """Register tools: `agi_core.Tool(definition, run)`. The definition
    (`ToolDefinition(name, description, parameters, effect, timeout_s, idempotency_key)`) is validated against
    `schemas/tool_definition.json`; an invalid one is refused at load.

    - `name`: `^[a-z][a-z0-9_]{0,63}$`, or `server.tool` (two such parts joined by a dot) for a tool
      another program serves, as agi-plugin-mcp registers the tools of MCP servers.
    - `parameters`: parameter name → JSON type (`string`, `integer`, `number`, `boolean`,
      `object`, `array`, `null`), in the order `/tool` fills bare arguments. Arguments are
      checked against these types before the tool runs; a call naming a parameter the tool
      does not declare, or with a value of the wrong type, fails with a one-line error.
    - `effect`: `read` (the default) may run automatically; `write`/`external` run only under
      an explicit policy (`--allow-tool NAME`, `ToolPolicy(allow_tools=…)`) or after a
      confirmation in `agi chat`. A refused call is a failed observation and never runs. A
      `write`/`external` call runs after its intent is committed and before its receipt is
      (intent → execute → receipt). Another agent's message runs a tool, whatever its effect, only
      where `messaging.allow_tools` allows its sender that tool (docs/messaging.md).
    - `timeout_s` (optional) overrides the kernel's timeout (2 s); `idempotency_key` names the
      parameter that makes a repeated call harmless.

    `run(context, args) -> dict` (or `async def`, awaited) returns the observation's payload, a
    JSON object of JSON values. To fail, raise `agi_core.ToolError("one line naming the problem
    and the fix")`: the tick completes with a failed observation, and the reply is
    `<tool> failed: <message>`; any other exception is a failed observation too, reported
    against your plugin. More, with a tested example of each: [Writing a tool](plugin-tutorial.md#writing-a-tool)
    and `docs/reliability.md`.

    `context` is an `agi_core.ToolContext`:

    - `context.workspace`: the folder the agent's file tools are confined to (`--db`'s folder
      `/workspace` by default); `agi_core.tools.confined_path(context.workspace, relative)`
      refuses paths that leave it.
    - `context.now()`: the time: deterministic, or in live mode the wall clock, recorded in the journal.
    - `context.determinism`: `new_id(namespace, payload)` gives seeded ids; the draws are
      recorded so replay stays equal.
    - `context.live`: whether the kernel runs in live mode.

    A tool's observation is recorded in the journal: replay serves it back and never runs the
    tool again, whatever its effect.

    ```python
    def count_r(context, args):
        word = args.get("word")
        if not isinstance(word, str):
            raise ToolError("count_r needs a word: /count_r strawberry")
        return {"count": word.lower().count("r")}


    @hookimpl
    def agi_register_actuators(register):
        register(Tool(ToolDefinition("count_r", "Count letter r", {"word": "string"}), count_r))
    ```

    ### Calling a tool
    A tick has exactly one action. A router agent asks for a tool by returning
    `AgentReply(text, action=Action(type="tool", name=..., args={...}))`; the kernel then
    runs the tool (if its effect is allowed) and the reply becomes `<tool>: <payload as JSON>`.
    The user can call one directly with `/tool`: the line is split like a shell line
    (`shlex`), `name=value` sets a parameter and bare words fill the parameters in declared
    order, so a value with spaces is quoted: `/count_r strawberry`, `/count_r word=strawberry`,
    `/file_write notes.txt "two words"`, `/file_write path=notes.txt 'text=it is'`. Arguments
    arrive as text, read as JSON for parameters that are not strings (`times=3`).

    ```python
    class CountRPlugin:
        @hookimpl
        def agi_register_actuators(self, register):
            register(Tool(ToolDefinition("count_r", "Count letter r", {"word": "string"}), count_r))

        @hookimpl
        def agi_register_router_agents(self, register):
            register(HowManyRs())


    class HowManyRs:
        name, rule, priority = "how_many_rs_agent", "matched_how_many_rs", 2

        def matches(self, text):
            return text.startswith("how many r in ")

        def handle(self, ctx):
            word = ctx.text.removeprefix("how many r in ").strip("?")
            return AgentReply("counting", action=Action(type="tool", name="count_r", args={"word": word}))


    with open_kernel("tools.db", CountRPlugin()) as kernel:
        assert kernel.tick("how many r in strawberry?").final_output == 'count_r: {"count":3}'
        assert kernel.tick("/count_r 'red rover'").final_output == 'count_r: {"count":3}'
        assert kernel.tick("/count_r colour=red").final_output == (
            "count_r failed: tool 'count_r' has no parameter 'colour'; its parameters are: word"
        )

    with open_kernel("files.db", policy=ToolPolicy(allow_tools=frozenset({"file_write"}))) as kernel:
        kernel.tick('/file_write notes.txt "two words"')
        kernel.tick("/file_write path=other.txt 'text=it is'")
        assert '"text":"two words"' in kernel.tick("/file_read notes.txt").final_output
        assert '"text":"it is"' in kernel.tick("/file_read path=other.txt").final_output
    ```

    :param register: call ``register(tool, name=None)`` once per tool.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_router_agents(register: Register) -> None:
    """Register Stage-0 router agents: objects with `name`, `rule` (the `why` code journaled in
    `router_decision`), `priority` (lower is tried first; built-ins use 5–1000),
    `matches(text) -> bool` and `handle(ctx) -> AgentReply`. `ctx` is a
    `agi_core.reasoning.ReasonContext`: `ctx.text` is the normalized input; read and write
    facts through `ctx.sem_read(key)` and `ctx.sem_write(key, value, fact)` so the reads,
    writes and evidence are journaled. `AgentReply(text, claims=[], action=None, focus=None)`:
    without an action the tick's action is the response `text`; with
    `Action(type="tool", …)` the tool's result becomes the reply (see above).

    ```python
    class Echo:
        name, rule, priority = "echo_agent", "matched_echo", 1

        def matches(self, text):
            return text.startswith("echo ")

        def handle(self, ctx):
            return AgentReply(ctx.text[5:])
    ```

    :param register: call ``register(agent, name=None)`` once per agent.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_brains(register: Register) -> None:
    """Register brain factories: `factory(kernel) -> brain`, where a brain has `name` and
    `reason(ctx) -> Decision`. The kernel uses the brain named by `--brain` / `brain=` (default
    `stage0`). An unknown name is a one-line `ConfigError` listing the installed brains.

    :param register: call ``register(brain, name=None)`` once per brain.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_contracts(register: Register) -> None:
    """Register LLM output contracts: a path to a contract file, or a contract object with
    `name=`. Contract files are validated against `schemas/contract.json` when they load; a
    malformed one is refused with its path and the JSON path of the problem.
    A plugin whose contracts are the `*.json` files of a folder needs no function of its own:
    `agi_register_contracts = agi_core.plugins.contract_folder_hook(folder)` registers each file
    under its name (what the contract plugins in `plugins/` do).

    :param register: call ``register(path_or_contract, name=None)`` once per contract.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_memory_backends(register: Register) -> None:
    """Register memory backend factories `(path, *, synchronous, lock_timeout_s) -> store`. `sqlite` (the embedded
    `SqliteStore`) is built in; `Kernel.open(..., backend="name")` picks another one, and an
    unknown name is a one-line `ConfigError` listing the installed backends.

    The protocol is :class:`agi_core.memory.backend.MemoryBackend`; options are ``synchronous``
    and ``lock_timeout_s``. Check a backend with ``pytest --agi-backend=NAME`` (the conformance
    suite, docs/backends.md).

    :param register: call ``register(factory, name=...)``; ``sqlite`` is built in.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_llm_providers(register: Register) -> None:
    """Register LLM provider factories `(**options) -> Provider`, the provider exposing
    `complete(messages, *, schema, tools, max_tokens, temperature, seed) -> Completion`.

    :param register: call ``register(factory, name=...)``.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_embedders(register: Register) -> None:
    """Register text-embedder factories `(**options) -> Embedder`. An embedder imports its heavy
    dependencies (torch, sentence-transformers) lazily, on first `encode`, so `agi --help` and
    rule-only ticks never pay for them.

    :param register: call ``register(factory, name=...)``.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_transports(register: Register) -> None:
    """Register messaging transport factories `(url, *, agent) -> Transport` under their URL scheme.
    `memory` (several kernels in one process) is built in; agi-plugin-nats registers `nats`. A kernel
    opened with `messaging="SCHEME://…"` (`AGI_MESSAGING_URL`) subscribes through the factory of
    that scheme. A factory that also takes `holder` (a string: the agent's database) claims the name
    for it and raises :class:`agi_core.messaging.transport.NameInUse` while another holder has it.
    The protocol (publish in order, fetch, ack after commit, close): :mod:`agi_core.messaging.transport`.

    :param register: call ``register(factory, name=SCHEME)``.

    .. versionadded:: 0.3
    """


@hookspec
def agi_register_synonyms(register: Register) -> None:
    """Register canonical-key synonym tables (rule S4): `register({"favourite": "favorite"}, name=…)`.
    Words are mapped before keys are built, so synonyms land on one key. A word mapped to two
    different spellings by two plugins is an error naming both.

    :param register: call ``register(mapping, name=None)``.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_modules(register: Register) -> None:
    """Register cognitive modules: `agi_core.modules.CognitiveModule` subclasses (or plain objects)
    with a `name` and any of the phase methods `perceive`, `recall`, `deliberate`, `revise`,
    `observe`, `maintain` (each called with a `ModuleContext`; `revise` also with the draft),
    plus optional `priority` (lower runs first; ties by name), `before` / `after` (module
    names), `timeout_s` / `phase_timeouts`, `state_schema` (JSON Schema of the module's state
    object), `contracts` (the contracts it calls), `inline` and `vote(claims, evidence_items)`
    (a seat on the council). They run in every tick in the order (priority, name) within
    `before` / `after`, isolated and under a timeout, and what each returns is in the journal
    record's `modules` field. The protocol, with a complete module: docs/modules.md.

    :param register: call `register(module, name=None)` once per module.

    .. versionadded:: 0.2
    """


@hookspec
def agi_tick_parts() -> TickParts | None:
    """Return the parts of a tick the kernel conducts but does not own: the cognitive modules'
    runner, goals and plans, scheduled jobs and the kernel commands (`agi_core.tickparts.TickParts`).
    The built-in plugin `tick_parts` returns agi-core's; the kernel takes the first non-None
    result, called once per kernel. This is how the kernel, a floor below `modules/`,
    `scheduling/` and `commands`, runs them without importing them (docs/architecture.md);
    a plugin rarely implements it (returning its own parts replaces them whole).

    .. versionadded:: 0.2
    """


@hookspec
def agi_register_commands(cli: click.Group) -> None:
    """Add commands to the `agi` click group. Every built-in command (`run`, `chat`, `plugins`,
    `memory`) is added through this hook too. A command gets the agent of the global options
    (`--db`, `--seed`, `--brain`) from the CLI state: `@click.pass_obj`, then
    `state.open_kernel()`, which opens the kernel once and closes it when the command ends.
    Raise an `agi_core.AgiError` subclass for a one-line error (exit 1, no traceback).

    ```python
    @hookimpl
    def agi_register_commands(cli):
        @cli.command(help="Say hello.")
        def hello():
            click.echo("hello from a plugin")

        @cli.command("tick-count", help="Print how many ticks the agent has run.")
        @click.pass_obj
        def tick_count(state):
            click.echo(state.open_kernel().tick_count)
    ```

    `cli` is a `agi_core.cli.lazy.LazyGroup`: `cli.add_lazy_command(name, "package.module:command",
    "One-line summary.")` names a command without importing it, so `agi --help` and shell
    completion stay fast; the module is imported when the command runs. Keep the plugin module
    itself light (import heavy libraries inside the hooks and commands): `agi --help` loads
    every plugin module.

    :param cli: the root :class:`click.Group`; use ``@cli.command()``.

    .. versionadded:: 0.1
    """


@hookspec
def agi_before_tick(kernel: Kernel, state: TickState) -> None:
    """Called inside the tick's transaction, after perceive and before recall, with the
    `TickState` whose `input` is set. Return value ignored.

    :param kernel: the running kernel.
    :param state: the tick state, with ``input`` filled in.

    .. versionadded:: 0.1
    """


@hookspec
def agi_after_tick(kernel: Kernel, record: JournalRecord, replaying: bool) -> None:
    """Called after the tick's transaction committed, with the stored `JournalRecord`. Return value
    ignored; an exception is reported and the tick stays stored. It is also called for every
    tick that `agi replay` (or `agi journal import`) re-runs, with `replaying=True`: a plugin
    that does something outside the agent after a tick (sends a message, writes a file) skips
    it then, because the tick already happened once. Implementations written before
    `replaying` existed may leave the argument out.

    ```python
    sent = []


    class Notifier:
        @hookimpl
        def agi_after_tick(self, record, replaying):
            if not replaying:
                sent.append(record.final_output)


    with open_kernel("notify.db", Notifier()) as kernel:
        kernel.tick("2+2")
    assert sent == ["2+2 = 4"]
    ```

    :param kernel: the running kernel.
    :param record: the journal record that was stored.
    :param replaying: true when the tick is re-run from its journal record (``agi replay``,
        ``agi journal import``), false for a live tick. Implementations may leave it out.

    .. versionadded:: 0.1
    """


@hookspec
def agi_restore_checkpoint(kernel: Kernel, tick: int) -> None:
    """Called when the agent is rolled back to the state after `tick`. Derived state a plugin
    keeps outside SQLite (a vector index, a cache) must be brought back to that tick here.

    :param kernel: the kernel, whose stores already hold the restored state.
    :param tick: the tick whose end state was restored.

    .. versionadded:: 0.1
    """


@hookspec
def agi_state_completed(kernel: Kernel, event: Any, replaying: bool) -> None:
    """Called when an RLM state completes (its `Final` goes from null to a value) inside a tick:
    a goal's task, a plan step's task, or `agi state set Final VALUE` from the CLI. `event` is
    an `agi_core.state.CompletionEvent` (`state_id`, `value`, `parent_state_id`,
    `result_name`); the child's value is already in its parent. An exception is reported and
    the completion stands. Replay calls it again with `replaying=True`: skip outside effects then.

    ```python
    done = []


    class Watcher:
        @hookimpl
        def agi_state_completed(self, event, replaying):
            if not replaying:
                done.append((event.state_id, event.value))


    with open_kernel("tasks.db", Watcher()) as kernel:
        root = kernel.command("state", {"op": "create_state", "args": {"prompt": "sum"}}).final_output
        kernel.command("state", {"op": "set", "args": {"name": "Final", "value": 3}})
    assert done == [(root, 3)]
    ```

    :param kernel: the running kernel (inside the tick: do not tick it again).
    :param event: the completion.
    :param replaying: true when `agi replay` re-runs the tick.

    .. versionadded:: 0.1
    """


@hookspec
def agi_start_plugin(kernel: Kernel) -> None:
    """Called once per kernel, when it opens, after its stores and registries are ready. Return value ignored.

    Read your settings (`kernel.settings(name)`), open connections, warm caches. Do not
    change the agent's stored state here: ticks and kernel commands do that, journaled.
    A start that raises is reported (`failed in agi_start_plugin`) and the plugin takes no
    further part in that kernel: its `agi_before_tick`, `agi_after_tick`,
    `agi_restore_checkpoint` and `agi_stop_plugin` are skipped and its tools and sensors are
    dropped (`kernel.disabled_plugins` names it); the other plugins go on.

    The built-in `sensors` plugin is the model: it declares the setting `clock_every_s` in
    its `agi_manifest` and gives the clock sensor that period here. Settings are described in
    [the tutorial](plugin-tutorial.md#settings).

    ```python
    class Counter:
        agi_manifest = {
            "settings": {"type": "object", "properties": {"step": {"type": "integer", "minimum": 1, "default": 1}}}
        }
        events = []

        @hookimpl
        def agi_start_plugin(self, kernel):
            self.events.append(f"start, step {kernel.settings('Counter')['step']}")

        @hookimpl
        def agi_stop_plugin(self, kernel):
            self.events.append(f"stop after tick {kernel.tick_count}")


    with open_kernel("lifecycle.db", Counter()) as kernel:
        kernel.command("config_set", {"plugin": "Counter", "key": "step", "value": 2})
    with open_kernel("lifecycle.db", Counter()) as kernel:
        kernel.tick("1+1")
    assert Counter.events == ["start, step 1", "stop after tick 1", "start, step 2", "stop after tick 2"]
    ```

    :param kernel: the kernel that opened.

    .. versionadded:: 0.2
    """


@hookspec
def agi_stop_plugin(kernel: Kernel) -> None:
    """Called once when the kernel closes, for every plugin that started. Return value ignored.

    It runs even when a tick failed or the kernel closes because of an exception, before the
    stores close (the kernel can still be read). Release what `agi_start_plugin` acquired. A
    stop that raises is reported; the other plugins still stop and `Kernel.close()` never
    raises because of a plugin. Example: under `agi_start_plugin` above.

    :param kernel: the kernel that is closing; its stores are still open.

    .. versionadded:: 0.2
    """


HOOK_NAMES: tuple[str, ...] = tuple(
    name for name, value in dict(globals()).items() if name.startswith("agi_") and callable(value)
)

__all__ = ["HOOK_NAMES", "Register", "hookimpl", "hookspec"]
