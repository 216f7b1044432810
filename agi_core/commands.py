"""Kernel commands: changes made outside a conversation, each run as a journaled tick.

A handler takes ``(kernel, ctx, args)`` and returns ``(reply_text, result_json)``; it must
change the agent only through ``ctx`` and the kernel's stores, inside the tick, so replay
can run it again. Raise an :class:`~agi_core.errors.AgiError` to refuse: nothing is stored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agi_core.replies import F5_SEM_WRITE_FAILURE
from agi_core.serialization import dumps

if TYPE_CHECKING:
    from agi_core.kernel import Kernel
    from agi_core.reasoning import ReasonContext

Handler = Callable[["Kernel", "ReasonContext", dict[str, Any]], tuple[Any, ...]]  # (text, result[, action])


def put_fact(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    key, value = args["key"], args["value"]
    ok = ctx.sem_write(key, value, f"{key} = {dumps(value)}")
    text = f"stored {key}" if ok else F5_SEM_WRITE_FAILURE
    return text, {"stored": ok}


def forget_fact(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    """``agi memory forget KEY``: overwrite a stored fact with null (S5 keeps current state only), so it
    reads as a miss; a key with nothing stored is refused (nothing is journaled)."""
    from agi_core.errors import MemoryKeyError
    from agi_core.memory.keys import check_key

    key = check_key(args["key"])
    read = ctx.sem_read(key)
    if not read.exists or read.value is None:
        raise MemoryKeyError(f"nothing is stored under {key}; 'agi memory facts' lists the stored keys")
    ok = ctx.sem_write(key, None, f"{key} was forgotten")
    return (f"forgot {key}" if ok else F5_SEM_WRITE_FAILURE), {"forgotten": ok}


def state(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    from agi_core.scheduling.wall_time import ttl_clock
    from agi_core.state.commands import run_state_op

    return run_state_op(
        kernel.store,
        kernel.determinism,
        kernel.state_dir,
        args,
        on_complete=ctx.on_state_complete,
        wall_ms=ttl_clock(ctx.externals),  # TTLs count seconds of the tick's recorded wall clock
    )


def ingest(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    """Store a file's records as long-term memories; the records are an external (replay reads no file).

    Unusable records are skipped and named in ``problems``; with ``strict`` any of them
    refuses the whole file (nothing stored).
    """
    from pathlib import Path

    from agi_core.errors import ValidationError
    from agi_core.longterm.ingest import read_records, skipped_summary

    def read() -> dict[str, Any]:
        fmt, records, problems = read_records(Path(args["path"]), args.get("format"))
        return {"format": fmt, "records": records, "skipped": len(problems), "problems": problems}

    data = ctx.externals.fetch("ingested_file", read)
    problems = data.get("problems", [])
    if args.get("strict") and problems:
        raise ValidationError(
            f"{Path(args['path']).name}: {skipped_summary(problems)}; nothing was stored "
            "(fix those lines, or leave out --strict to store the others)"
        )
    records = [{**record, "tick": ctx.tick} for record in data["records"]]
    added, duplicates = kernel.long_term.add_many(records)
    result = {"format": data["format"], "added": added, "duplicates": duplicates, "skipped": data["skipped"]}
    if problems:
        result["problems"] = problems
    return f"ingested {added} memories from {Path(args['path']).name}", result


def receipt(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any, Any]:
    """The receipt of a write/external tool call run after its intent's tick (agi_core.effects.intents).

    For a goal's plan step (``goal``, ``step``), the tick's plan is that step: a failed call
    contradicts the step's assumption and replans (:func:`agi_core.scheduling.plans.observe`).
    """
    from agi_core.effects.intents import receipt_command

    done = receipt_command(kernel.store, ctx.tick, args)
    if args.get("goal") is not None:
        from agi_core.scheduling.plans import receipt_plan

        ctx.goal_plan = receipt_plan(ctx, str(args["goal"]), int(args["step"]))
    return done


def refuse_input(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    """The tick of an input over ``max_input_bytes``: a refusal reply; the input itself is not stored."""
    from agi_core.inputs import too_large_reply

    return too_large_reply(args["bytes"], args["limit"]), {"refused": "input_too_large", **args}


def schedule_add(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    from agi_core.scheduling.commands import schedule_add as add

    return add(kernel, ctx, args)


def schedule_remove(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    from agi_core.scheduling.commands import schedule_remove as remove

    return remove(kernel, ctx, args)


def schedule_realign(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    from agi_core.scheduling.commands import schedule_realign as realign

    return realign(kernel, ctx, args)


def maintain(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    from agi_core.modules.maintenance import maintain as run_maintenance

    return run_maintenance(kernel, ctx, args)


def config_set(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    from agi_core.settings.runtime import config_set as set_value

    return set_value(kernel.plugin_settings, args)


def config_unset(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    from agi_core.settings.runtime import config_unset as unset_value

    return unset_value(kernel.plugin_settings, args)


def set_name(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    from agi_core.messaging.address import name_command

    return name_command(kernel, ctx, args)


def send_message(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    from agi_core.messaging.outbox import send_command

    return send_command(kernel, ctx, args)


def _goal_command(name: str) -> Handler:
    """A goal command of :mod:`agi_core.scheduling.goal_commands`, imported when it first runs."""

    def handler(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[Any, ...]:
        from agi_core.scheduling import goal_commands

        return getattr(goal_commands, name)(kernel, ctx, args)  # type: ignore[no-any-return]

    handler.__name__ = name
    return handler


KERNEL_COMMANDS: dict[str, Handler] = {
    "put_fact": put_fact,
    "forget_fact": forget_fact,
    "state": state,
    "ingest": ingest,
    "refuse_input": refuse_input,
    "receipt": receipt,
    "schedule_add": schedule_add,
    "schedule_remove": schedule_remove,
    "schedule_realign": schedule_realign,
    "maintain": maintain,
    "config_set": config_set,
    "config_unset": config_unset,
    "set_name": set_name,
    "send_message": send_message,
    **{name: _goal_command(name) for name in ("goal_add", "goal_set", "goal_move", "goal_step")},
}
