"""Every regular expression (and the Stage-0 parsers) applied to user text, on adversarial lines.

For each pattern and each adversarial shape (long runs of spaces, repeated punctuation,
repeated keywords, near-misses that almost match), times the pattern on lines of 16,000,
32,000 and 64,000 characters and prints the times and the growth per doubling
(the square root of 64k time / 16k time, steadier than one doubling alone): about 2 for
a linear pattern, 4 for a quadratic one, 8 for a cubic one. The baseline is the same
pattern on the shorter lines, measured in the same run; each time is the best of 3
rounds (6 when the first 3 grow past the limit) of this process's CPU time, so other
work on a shared machine does not count.
``--check`` also runs whole Stage-0 ticks on each shape (the real router, agents and
store); the table leaves them out, since a tick's storage cost depends on the ticks before.

    python benchmarks/regex_linear.py            # the table (under a minute)
    python benchmarks/regex_linear.py --check    # each shape once at 64,000 characters (used by a test)
    python benchmarks/regex_linear.py --json

Exit status 1 when a shape grows more than 3x per doubling (``--max-ratio``; quadratic is 4x).
"""

from __future__ import annotations

import argparse
import atexit
import gc
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agi_core import inputs, plugin_entry_points
from agi_core.brain import answer
from agi_core.brain.stage0 import facts, phrases
from agi_core.brain.stage0.habits import HABIT_AGENTS, file_request
from agi_core.brain.stage0.mathparse import expression_in
from agi_core.checkpoints import _NAME as CHECKPOINT_NAME
from agi_core.contracts import conversation_fallbacks, fallbacks, frozen, memory_fallbacks, validate
from agi_core.contracts.paths import _IDENT, _SEGMENT
from agi_core.contracts.repair import parse_output
from agi_core.errors import AgiError
from agi_core.longterm.dates import parse_timestamp, query_window
from agi_core.longterm.importance import score_importance
from agi_core.longterm.ingest import text_records
from agi_core.longterm.query import analyze
from agi_core.memory import blobs
from agi_core.memory.keys import check_key, words
from agi_core.messaging import address
from agi_core.modules import revision
from agi_core.scheduling.goal_phrases import goal_request
from agi_core.scheduling.jobs import JOB_NAME
from agi_core.scheduling.when import parse_duration_ms
from agi_core.state.paths import _DRIVE
from agi_core.state.service import TREE_ID
from agi_core.state.values import NAME_RE

SIZES = (16_000, 32_000, 64_000)


def _refused(parse: Callable[[str], object], text: str) -> object:
    """``parse(text)``, or the error it refused the text with (the time until refusal is what counts)."""
    try:
        return parse(text)
    except AgiError as exc:
        return exc


def fill(head: str, unit: str, tail: str) -> Callable[[int], str]:
    """A shape: ``head`` + ``unit`` repeated to ``n`` characters + ``tail``."""
    return lambda n: head + unit * max(1, (n - len(head) - len(tail)) // len(unit)) + tail


GENERIC = {
    "spaces": fill("a", " ", "x"),
    "punctuation": fill("a", ".!?", "x"),
    "newlines": fill("a", "\n \n", "x"),
    "word chars": fill("", "a", ""),
}
STAGE0_SHAPES = {
    "my a is b<spaces>x": fill("my a is b", " ", "x"),
    "my a is b<.!? >x": fill("my a is b", " .!?", "x"),
    "remember my ... is": fill("please remember that my ", "a is ", "\n"),
    "what is my a<spaces>x": fill("what is my a", " ", "x"),
    "the a of a of ...": fill("the ", "a of ", ","),
    "a of b is c<spaces>x": fill("the a of b is c", " ", "!x"),
    "what is the a of b<. >x": fill("what is the a of b", " .", "?x"),
    "what is the a of ... (no end)": fill("what is the ", "a of ", "/"),
    "of is are was ...": fill("", " of is are was", "\n"),
    "1+1+...": fill("what is ", "1+", "x"),
    "read file <spaces>": fill("read file ", " ", "?x"),
    "my goal is to a then a then ...": fill("my goal is to ", "a then ", "x"),
    "I finished a a a ...": fill("I finished ", "a ", "?"),
    "remind me to x in x in ...": fill("remind me to ", "x in ", "5 minutes"),
}
#: spoken arithmetic (the math_words change): many roots, percents and powers in one line
SPOKEN_SHAPES = {
    "square root of square root of ...": fill("what is ", "square root of ", "2"),
    "sqrt(sqrt(...": fill("", "sqrt(", "2"),
    "1% of 1% of ...": fill("what is ", "1% of ", "80?"),
    "2 squared squared ...": fill("2", " squared", "x"),
}
DATE_SHAPES = {
    "1 pm on <spaces>": fill("1 pm on ", " ", "x"),
    "digits and spaces": fill("", "1 ", "may"),
    "month names": fill("in ", "may ", "x"),
    "8 may, <spaces>": fill("8 may,", " ", "x"),
    "iso near-miss": fill("", "2023-05-", "x"),
}
TEXT_SHAPES = {
    "apostrophes": fill("haven", "'", "t"),
    "greeting near-miss": fill("", "hello", "x"),
    "minutes minutes": fill("", "minutes ", "x"),
}
JSON_SHAPES = {
    "escaped quotes": fill('{"a": "', '\\"', ""),
    "commas and spaces": fill("{", ",  ", "x"),
    "open braces": fill("", "{", ""),
    "fences": fill("", "```", "x"),
    "quote backslash": fill("{", '"\\', ""),
}


def _route_all(text: str) -> object:
    from agi_core.brain.stage0.agents import STAGE0_AGENTS

    return [agent.matches(text) for agent in STAGE0_AGENTS]


class _Kernel:
    """One Stage-0 kernel in a temporary folder: the real tick (router, handle, store)."""

    kernel = None

    @classmethod
    def tick(cls, text: str) -> object:
        if cls.kernel is None:
            from agi_core.kernel import Kernel

            folder = tempfile.TemporaryDirectory(prefix="agi-regex-")
            cls.kernel = Kernel.open(Path(folder.name) / "a.db", synchronous="OFF")
            atexit.register(folder.cleanup)
            atexit.register(cls.kernel.close)
        return cls.kernel.tick(text)


def _ingest(text: str) -> object:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "notes.txt"
        path.write_text(text, encoding="utf-8")
        return list(text_records(path))


def _key_check(text: str) -> object:
    try:
        return check_key(text)
    except Exception:  # noqa: BLE001 - a refused key is the expected answer
        return None


#: agent_import's pattern for a killed import's leftovers, built there per database name ("a.db" here)
IMPORT_LEFTOVER = re.compile(r"^\.a\.db(?:\.key)?\.import-(\d+)(?:-wal|-shm|-journal)?$")

CASES: dict[str, tuple[Callable[[str], object], dict[str, Callable[[int], str]]]] = {
    "stage0 profile_read": (phrases.profile_read, STAGE0_SHAPES),
    "stage0 profile_write": (phrases.profile_write, STAGE0_SHAPES),
    "stage0 world_read": (phrases.world_read, STAGE0_SHAPES),
    "stage0 world_write": (phrases.world_write, STAGE0_SHAPES),
    "stage0 math expression_in": (expression_in, STAGE0_SHAPES),
    "stage0 math expression_in (spoken words)": (
        lambda t: expression_in(t, words=True),
        {**STAGE0_SHAPES, **SPOKEN_SHAPES},
    ),
    "stage0 file_request": (file_request, STAGE0_SHAPES),
    "stage0 goal_request": (goal_request, STAGE0_SHAPES),
    "stage0 habits matches": (lambda t: [a.matches(t) for a in HABIT_AGENTS], STAGE0_SHAPES),
    "stage0 router (every agent's matches)": (_route_all, STAGE0_SHAPES),
    "stage0 whole tick (route + handle + store)": (_Kernel.tick, STAGE0_SHAPES),
    "memory.keys words (_NON_WORD)": (lambda t: words(t, {}), {**GENERIC, **STAGE0_SHAPES}),
    "memory.keys check_key (KEY_RE)": (_key_check, {**GENERIC, "segments": fill("a/", "a/", "A")}),
    "longterm.dates parse_timestamp": (parse_timestamp, {**GENERIC, **DATE_SHAPES}),
    "longterm.dates query_window": (query_window, {**GENERIC, **DATE_SHAPES}),
    "longterm.query analyze (TOKEN)": (analyze, {**GENERIC, **DATE_SHAPES}),
    "longterm.importance score_importance": (score_importance, {**GENERIC, **TEXT_SHAPES}),
    "longterm.ingest text blocks": (_ingest, GENERIC),
    "contracts.repair parse_output": (parse_output, {**GENERIC, **JSON_SHAPES}),
    "contracts.fallbacks greeting/request": (
        lambda t: (fallbacks._GREETING.match(t), fallbacks._REQUEST.match(t)),
        {**GENERIC, **TEXT_SHAPES},
    ),
    "contracts.memory_fallbacks (words, preference, personal)": (
        lambda t: (
            memory_fallbacks._WORD.findall(t),
            memory_fallbacks._PREFERENCE.search(t),
            memory_fallbacks._PERSONAL.search(t),
        ),
        {**GENERIC, **TEXT_SHAPES, "apostrophes": fill("", "a'’-", "")},
    ),
    "contracts.conversation_fallbacks said_back (my TOPIC)": (
        lambda t: conversation_fallbacks.said_back("sister", [t]),
        {**GENERIC, **TEXT_SHAPES, "my my": fill("", "my ", "sister"), "my spaces": fill("my", " ", "siste")},
    ),
    "contracts.validate/frozen suspect text": (
        lambda t: (validate._SUSPECT_TEXT.search(t), validate._LONG_DIGITS.search(t), frozen.SURROGATE.search(t)),
        {**GENERIC, "backslash u": fill("", "\\u", "d"), "digits": fill("", "1" * 18 + " ", "")},
    ),
    "brain.answer (words, question, person, negations, sentences)": (
        lambda t: (
            answer.content_words(t),
            answer.is_question(t),
            answer.second_person(t),
            answer._negations(t),
            answer.first_sentences(t),
        ),
        {**GENERIC, **TEXT_SHAPES, "n't words": fill("", "a" * 50 + "n't ", ""), "dots": fill("", ". ", "x")},
    ),
    "autonomy (job names, durations)": (
        lambda t: (JOB_NAME.match(t), _refused(parse_duration_ms, t)),
        {**GENERIC, "units": fill("", "1s", "x"), "digits": fill("", "1", "q")},
    ),
    "stage0 facts parse (a question after other words)": (
        lambda t: (facts._ASKED_INSIDE.search(t), facts.parse(t + "?")),
        {
            **GENERIC,
            **STAGE0_SHAPES,
            "separators, no question word": fill("you bot", ", wha", "?"),
            "question words, no separator": fill("x", "whatwho", "?"),
        },
    ),
    "modules.revision numbers of a rewrite": (
        lambda t: revision.changed_facts(t, t[::-1], [{"value": t[:40]}]),
        {**GENERIC, "digits and dots": fill("", "1.2,", "x"), "digits": fill("", "1", " ")},
    ),
    "inputs/blobs (surrogates, blob references)": (
        lambda t: (inputs._SURROGATES.sub("\ufffd", t), blobs.REF_RE.findall(t), inputs.reply_line(t)),
        {**GENERIC, "near-ref": fill("", "agi:blob:sha256:" + "a" * 63 + " ", "")},
    ),
    "names (agent name, entry-point value, import leftover)": (
        lambda t: (
            address._NAME.match(t),
            plugin_entry_points._VALUE.match(t),
            IMPORT_LEFTOVER.match(t),
        ),
        {**GENERIC, "dots": fill(".a", ".", "b"), "words": fill("a", " a", ":")},
    ),
    "names (variable, checkpoint, tree id, path, contract path)": (
        lambda t: (
            NAME_RE.fullmatch(t),
            CHECKPOINT_NAME.match(t),
            TREE_ID.fullmatch(t),
            _DRIVE.match(t),
            _SEGMENT.match(t),
            _IDENT.match(t),
        ),
        {**GENERIC, "dotted": fill("", ".a", "!"), "tree-": fill("tree-", "a", "")},
    ),
}

#: every module of agi_core that uses ``re``, and the case above that times its patterns
#: (tests/test_input_linear.py fails when a module with a regex is missing here)
AUDITED_MODULES = {
    "agi_core/agent_import.py": "names (agent name, entry-point value, import leftover)",
    "agi_core/messaging/address.py": "names (agent name, entry-point value, import leftover)",
    "agi_core/plugin_entry_points.py": "names (agent name, entry-point value, import leftover)",
    "agi_core/scheduling/jobs.py": "autonomy (job names, durations)",
    "agi_core/scheduling/when.py": "autonomy (job names, durations)",
    "agi_core/brain/answer.py": "brain.answer (words, question, person, negations, sentences)",
    "agi_core/checkpoints.py": "names (variable, checkpoint, tree id, path, contract path)",
    "agi_core/contracts/conversation_fallbacks.py": "contracts.conversation_fallbacks said_back (my TOPIC)",
    "agi_core/contracts/fallbacks.py": "contracts.fallbacks greeting/request",
    "agi_core/contracts/frozen.py": "contracts.validate/frozen suspect text",
    "agi_core/contracts/memory_fallbacks.py": "contracts.memory_fallbacks (words, preference, personal)",
    "agi_core/contracts/paths.py": "names (variable, checkpoint, tree id, path, contract path)",
    "agi_core/contracts/repair.py": "contracts.repair parse_output",
    "agi_core/contracts/validate.py": "contracts.validate/frozen suspect text",
    "agi_core/inputs.py": "inputs/blobs (surrogates, blob references)",
    "agi_core/brain/stage0/facts.py": "stage0 facts parse (a question after other words)",
    "agi_core/modules/revision.py": "modules.revision numbers of a rewrite",
    "agi_core/memory/blobs.py": "inputs/blobs (surrogates, blob references)",
    "agi_core/longterm/dates.py": "longterm.dates query_window",
    "agi_core/longterm/importance.py": "longterm.importance score_importance",
    "agi_core/longterm/ingest.py": "longterm.ingest text blocks",
    "agi_core/longterm/query.py": "longterm.query analyze (TOKEN)",
    "agi_core/memory/keys.py": "memory.keys words (_NON_WORD)",
    "agi_core/state/paths.py": "names (variable, checkpoint, tree id, path, contract path)",
    "agi_core/state/service.py": "names (variable, checkpoint, tree id, path, contract path)",
    "agi_core/state/values.py": "names (variable, checkpoint, tree id, path, contract path)",
}


#: run by --check only: a tick also stores the line, and its cost depends on earlier ticks
CHECK_ONLY = frozenset({"stage0 whole tick (route + handle + store)"})


def _per_call(fn: Callable[[str], object], text: str) -> float:
    """CPU seconds per call, over a batch of calls lasting at least 2 ms."""
    calls, start = 0, time.process_time()
    while True:
        fn(text)
        calls += 1
        elapsed = time.process_time() - start
        if elapsed >= 0.002:
            return elapsed / calls


def timed(fn: Callable[[str], object], texts: list[str], rounds: int = 3) -> list[float]:
    """Best seconds per call for each text; the sizes take turns, so a busy moment of
    the machine hits them all alike. No garbage-collector pauses."""
    best = [float("inf")] * len(texts)
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            for index, text in enumerate(texts):
                best[index] = min(best[index], _per_call(fn, text))
    finally:
        gc.enable()
    return best


def growth(times: list[float]) -> float:
    """Growth per doubling from the smallest to the largest size (sizes double)."""
    return (times[-1] / times[0]) ** (1 / (len(times) - 1)) if times[0] > 0 else 0.0


def check() -> None:
    """Each shape once at the largest size, naming it first (a hang names its pattern)."""
    for name, (fn, shapes) in CASES.items():
        for shape, build in shapes.items():
            print(f"{name} / {shape}", flush=True)
            fn(build(SIZES[-1]))
    print("all patterns done", flush=True)


def table(max_ratio: float) -> list[dict[str, object]]:
    rows = []
    for name, (fn, shapes) in CASES.items():
        if name in CHECK_ONLY:
            continue
        worst: dict[str, object] = {}
        for shape, build in shapes.items():
            texts = [build(size) for size in SIZES]
            times = timed(fn, texts)
            if growth(times) > max_ratio:  # measure once more before calling it super-linear
                times = [min(a, b) for a, b in zip(times, timed(fn, texts), strict=True)]
            ratio = growth(times)
            if not worst or ratio > float(worst["ratio"]):  # type: ignore[arg-type]
                worst = {"pattern": name, "shape": shape, "ms": [round(t * 1000, 3) for t in times], "ratio": ratio}
        rows.append(worst)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="run each shape once at 64,000 characters")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--max-ratio", type=float, default=3.0, help="fail above this growth per doubling")
    args = parser.parse_args()
    if args.check:
        check()
        return 0
    start = time.perf_counter()
    rows = table(args.max_ratio)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"{'pattern (worst shape)':60} {'16k ms':>9} {'32k ms':>9} {'64k ms':>9} {'growth':>8}")
        for row in rows:
            ms = row["ms"]
            label = f"{row['pattern']} [{row['shape']}]"
            print(f"{label:60.60} {ms[0]:9.3f} {ms[1]:9.3f} {ms[2]:9.3f} {row['ratio']:8.2f}")  # type: ignore[index]
        print(f"{len(rows)} patterns, worst shape of each shown; {time.perf_counter() - start:.1f} s in all")
    bad = [row for row in rows if float(row["ratio"]) > args.max_ratio]  # type: ignore[arg-type]
    for row in bad:
        print(f"SUPER-LINEAR: {row['pattern']} [{row['shape']}] grows {row['ratio']:.2f}x per doubling")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
