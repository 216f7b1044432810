"""What long-term memory leaves out: the kernel's bookkeeping, which is no memory of the user.

Every tick stores two episodes, its input and its action, and long-term memory mirrors
them. Two kinds of episode are bookkeeping and are never mirrored:

- **command ticks**: ``agi memory put``, ``agi ingest``, ``agi state …``, ``agi goals step``
  run kernel commands as ticks of their own (a goal step of ``agi run --follow --step-every``
  too, from source ``goal:ID``). Their input is the command record (``put_fact {"key": …}``,
  source ``event``) and their action the kernel's receipt (``stored user/…``, ``ingested 12
  memories from notes.txt``). What they change lives elsewhere: facts in semantic memory,
  ingested lines as memories of their own, variables in RLM state. A maintenance tick
  (:meth:`agi_core.Kernel.maintain`, input ``maintain`` from source ``maintain``, reply
  ``maintenance: 5 module(s) ran``) is one too.
- **empty replies**: the rulebook's failure sentences (F1, F3, F4, F5) and Stage-0's "I noted this
  as an episode, but I have no rule to store it as a fact yet.", which say nothing
  about the user and would otherwise match every query about "information" or "modules";
  and a reply that says F1 or F3 with a module's words around it ("Hello! I currently don’t
  have a module … What does Maya do for a living?"): the agent did not answer, and what a
  module added around it was drawn from memories that are already stored.
- **clock ticks**: the clock sensor's percept (``clock 2026-11-23T13:00:00.000Z``, source
  ``clock``) and its reply (``Time noted: …``). Under ``agi run --follow`` one comes every 30 s:
  mirrored, an idle day made 5,760 memories that said only the time, and the first question after
  it embedded them all inside its tick (58 s, holding the write lock). Each episode keeps its
  tick's wall clock, which is what "when did we last talk?" reads.

The user's inputs and the agent's other replies are the conversation, and are kept.
"""

from __future__ import annotations

from collections.abc import Iterable

from agi_core.replies import F1_SEM_MISS, F3_NO_AGENT, F3_NOTED_NOT_STORED, F4_AGENT_FAILURE, F5_SEM_WRITE_FAILURE

#: Replies that carry no memory.
EMPTY_REPLIES = frozenset({F1_SEM_MISS, F3_NO_AGENT, F3_NOTED_NOT_STORED, F4_AGENT_FAILURE, F5_SEM_WRITE_FAILURE})
#: Replies that carry no memory even with a module's words around them: nothing answered (F3, and a statement
#: noted as an episode only), nothing stored (F1). F4 and F5 precede a partial answer, which is kept.
UNANSWERED = (F1_SEM_MISS, F3_NO_AGENT, F3_NOTED_NOT_STORED)
#: The input source of kernel commands (:meth:`agi_core.Kernel.command`).
COMMAND_SOURCE = "event"
#: The input source of the clock sensor's percepts (:class:`agi_core.scheduling.sensors.ClockSensor`).
CLOCK_SOURCE = "clock"
#: The input source prefix of a goal step the follow loop runs (``goal:ID``, ``agi run --follow --step-every``).
GOAL_SOURCE_PREFIX = "goal:"
#: The input source, and the input, of a maintenance tick (:meth:`agi_core.Kernel.maintain`).
MAINTAIN_SOURCE = "maintain"
#: The kernel commands' names: the keys of :data:`agi_core.commands.KERNEL_COMMANDS`, which a test
#: checks equal (that table, with its handlers, sits floors above memory).
COMMAND_NAMES = frozenset(
    {
        "put_fact",
        "forget_fact",
        "state",
        "ingest",
        "refuse_input",
        "receipt",
        "schedule_add",
        "schedule_remove",
        "schedule_realign",
        "maintain",
        "config_set",
        "config_unset",
        "set_name",
        "send_message",
        "goal_add",
        "goal_set",
        "goal_move",
        "goal_step",
    }
)


def is_command_record(text: str, source: str | None) -> bool:
    """True for the input of a command tick: ``<command> {json}`` from source ``event``, ``goal_step
    {json}`` from source ``goal:ID`` (the follow loop's step, which ``agi goals step`` runs from
    ``event``), or ``maintain`` from source ``maintain``."""
    if source == MAINTAIN_SOURCE:
        return text == MAINTAIN_SOURCE
    if source is not None and source.startswith(GOAL_SOURCE_PREFIX):
        return text.startswith("goal_step {")
    if source != COMMAND_SOURCE:
        return False
    name, _, rest = text.partition(" ")
    return name in COMMAND_NAMES and rest.startswith("{")


def is_bookkeeping_input(text: str, source: str | None) -> bool:
    """True for an input long-term memory leaves out, with its tick's reply: a command tick's
    (:func:`is_command_record`) or a clock tick's."""
    return source == CLOCK_SOURCE or is_command_record(text, source)


def is_empty_reply(text: str) -> bool:
    """True for a reply that is one of the rulebook's failure sentences, or says F1 or F3 among a module's words."""
    return text in EMPTY_REPLIES or any(sentence in text for sentence in UNANSWERED)


#: The speakers of the mirrored inputs that may be bookkeeping: a mirrored input's speaker is its source.
BOOKKEEPING_SPEAKERS = (COMMAND_SOURCE, MAINTAIN_SOURCE, CLOCK_SOURCE)


def mirrored_bookkeeping(
    inputs: Iterable[tuple[int, int, str, str | None]], replies: Iterable[tuple[int, int, str]]
) -> list[int]:
    """The seqs of the memories older versions mirrored that are bookkeeping now, for the backends'
    migrations to delete: ``inputs`` ``(seq, tick, text, speaker)`` of mirrored inputs whose speaker is one
    of :data:`BOOKKEEPING_SPEAKERS` (a clock percept only as the sensor words it, ``clock <time>``), then
    ``replies`` ``(seq, tick, text)`` of mirrored replies: those of their ticks, and the empty ones."""
    ticks, doomed = set(), []
    for seq, tick, text, speaker in inputs:
        if is_bookkeeping_input(text, speaker) and (speaker != CLOCK_SOURCE or text.startswith("clock ")):
            ticks.add(tick)
            doomed.append(seq)
    for seq, tick, text in replies:
        if tick in ticks or is_empty_reply(text):
            doomed.append(seq)
    return doomed
