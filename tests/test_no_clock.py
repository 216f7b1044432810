"""Rule D1-D3: nothing under agi_core/ reads the wall clock or global randomness, except as a recorded external.

Two checks, each able to fail on its own:
- a scan of the source of every module under ``agi_core/`` for the calls that read the clock
  or global randomness, with an explicit allow-list, each entry with its reason;
- ticks, commands and replays run while those functions raise, including the names modules
  bound with ``from datetime import datetime`` before the test started.
"""

from __future__ import annotations

import ast
import datetime
import os
import random
import secrets
import sys
import time
import uuid
from pathlib import Path

import pytest

from agi_core.testing import open_kernel

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agi_core"

# Qualified names that read the wall clock or global randomness.
CLOCK = {
    "time.time",
    "time.time_ns",
    "time.monotonic",
    "time.monotonic_ns",
    "time.perf_counter",
    "time.perf_counter_ns",
    "time.process_time",
    "time.localtime",
    "time.gmtime",
    "time.ctime",
    "time.asctime",
    "time.strftime",
    "datetime.datetime.now",
    "datetime.datetime.utcnow",
    "datetime.datetime.today",
    "datetime.date.today",
}
RANDOM_MODULES = ("random", "secrets")
RANDOM = {"uuid.uuid1", "uuid.uuid4", "os.urandom", "os.getrandom"}
SQL_CLOCK = ("CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME", "'now'", "random()", "randomblob(")

# name -> (path prefixes where it may appear, why that is not a determinism leak)
ALLOWED = {
    "datetime.datetime.now": (
        ("agi_core/tools.py",),
        "the live-mode clock of ToolContext.now(): read only through externals.fetch, so the reading is "
        "journaled and replay serves it back",
    ),
    "secrets.token_hex": (
        ("agi_core/journal_key.py", "agi_core/agent_import.py"),
        "the journal's MAC key: a secret generated once when a database is created (or imported --unverified) "
        "and stored beside it; it never enters a tick or a journal record",
    ),
    "time.time_ns": (
        ("agi_core/scheduling/clock.py",),
        "WallClock, the clock of agi chat, agi run and agi schedule add: the kernel reads it once per tick "
        "through externals.fetch('tick_clock') (a kernel without a clock: scheduling.wall_time, once, as "
        "'wall_clock'), so the reading is journaled and replay serves it back",
    ),
    "time.perf_counter_ns": (
        ("agi_core/kernel/stopwatch.py",),
        "how long a tick ran: a measurement stored beside the journal (tick_timings), never in a journal record, "
        "never read by a tick and never compared by replay, so nothing the agent decides depends on it",
    ),
    "time.monotonic": (
        ("agi_core/effects/",),
        "timeouts measure elapsed time; a timeout's outcome is recorded (the observation, the F4 fallback), "
        "so replay never measures again",
    ),
}


def _qualified_names(tree: ast.AST) -> dict[str, str]:
    """Local name -> qualified name, from the module's imports (at any depth)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _reads(name: str) -> str | None:
    """What kind of forbidden read ``name`` is, if any."""
    if name in CLOCK:
        return "reads the wall clock"
    if name in RANDOM or (name.split(".")[0] in RANDOM_MODULES and "." in name):
        return "reads global randomness"
    return None


def scan(path: Path, source: str | None = None) -> list[tuple[int, str, str]]:
    """``(line, qualified name, what it reads)`` for every clock or randomness read in one file."""
    text = source if source is not None else path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    imported = _qualified_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute | ast.Name) and not isinstance(getattr(node, "ctx", None), ast.Store):
            dotted = _dotted(node)
            if dotted is None:
                continue
            head, _, rest = dotted.partition(".")
            if head not in imported:
                continue
            qualified = imported[head] + (f".{rest}" if rest else "")
            what = _reads(qualified)
            if what:
                found.append((node.lineno, qualified, what))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            hit = next((marker for marker in SQL_CLOCK if marker in node.value), None)
            if hit and any(word in node.value.upper() for word in ("SELECT", "INSERT", "UPDATE", "DEFAULT")):
                found.append((node.lineno, f"SQL {hit}", "reads the clock or randomness in SQL"))
    # ``datetime.now`` is seen as ``datetime.datetime.now`` and as its prefix ``datetime.datetime``: keep the longest.
    return sorted(hit for hit in found if not any(o[0] == hit[0] and o[1].startswith(hit[1] + ".") for o in found))


def violations(files: list[Path]) -> list[str]:
    problems = []
    for path in files:
        relative = path.relative_to(ROOT).as_posix()
        for line, name, what in scan(path):
            prefixes, _why = ALLOWED.get(name, ((), ""))
            if not relative.startswith(prefixes):
                problems.append(
                    f"{relative}:{line} {what} ({name}); fetch it through the tick's externals so it is "
                    f"journaled, or add it to ALLOWED in tests/test_no_clock.py with the reason"
                )
    return problems


def test_no_module_under_agi_core_reads_the_clock_or_randomness_outside_the_allow_list():
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 50
    assert violations(files) == []


def test_the_scan_finds_every_way_of_reading_the_clock(tmp_path):
    source = """
import time, uuid, random as rnd
import datetime as dt
from datetime import datetime, date
from os import urandom
from secrets import token_hex

def f(conn):
    a = datetime.now()
    b = dt.datetime.utcnow()
    c = date.today()
    d = time.monotonic()
    e = uuid.uuid4()
    g = rnd.random()
    h = urandom(4)
    i = token_hex(8)
    conn.execute("INSERT INTO t(at) VALUES (CURRENT_TIMESTAMP)")
    ok = datetime(2025, 1, 1) + dt.timedelta(seconds=1)
    time.sleep(0)
"""
    names = [(line, name) for line, name, _what in scan(tmp_path / "x.py", source)]
    assert names == [
        (9, "datetime.datetime.now"),
        (10, "datetime.datetime.utcnow"),
        (11, "datetime.date.today"),
        (12, "time.monotonic"),
        (13, "uuid.uuid4"),
        (14, "random.random"),
        (15, "os.urandom"),
        (16, "secrets.token_hex"),
        (17, "SQL CURRENT_TIMESTAMP"),
    ]


def test_an_allowed_name_is_refused_outside_its_files(tmp_path):
    stray = PACKAGE / "brain" / "x_not_a_module.py"  # never written: only its path is judged
    source = "from datetime import datetime\nnow = datetime.now()\n"
    (tmp_path / "x.py").write_text(source)
    relative = stray.relative_to(ROOT).as_posix()
    prefixes, _why = ALLOWED["datetime.datetime.now"]
    assert scan(tmp_path / "x.py") == [(2, "datetime.datetime.now", "reads the wall clock")]
    assert not relative.startswith(prefixes)


# -- at run time -------------------------------------------------------------------------
def _forbidden(*_args, **_kwargs):
    raise AssertionError("deterministic mode read the wall clock or global randomness")


class _FrozenDatetime(datetime.datetime):
    now = utcnow = today = classmethod(_forbidden)


class _FrozenDate(datetime.date):
    today = classmethod(_forbidden)


@pytest.fixture
def no_clock(monkeypatch):
    """Make every clock and randomness read raise: in its module, and wherever agi_core bound it by name."""
    replaced: dict[int, object] = {id(datetime.datetime): _FrozenDatetime, id(datetime.date): _FrozenDate}
    monkeypatch.setattr(datetime, "datetime", _FrozenDatetime)
    monkeypatch.setattr(datetime, "date", _FrozenDate)
    for module, names in [
        (time, ("time", "time_ns", "localtime", "gmtime", "ctime", "asctime")),
        (
            random,
            ("random", "randint", "randrange", "choice", "choices", "shuffle", "sample", "uniform", "getrandbits"),
        ),
        (uuid, ("uuid1", "uuid4")),
        (os, ("urandom",)),
        (secrets, ("token_bytes", "token_hex", "token_urlsafe", "choice", "randbelow", "randbits")),
    ]:
        for name in names:
            replaced[id(getattr(module, name))] = _forbidden
            monkeypatch.setattr(module, name, _forbidden)
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("agi_core") and module is not None:
            for attr, value in list(vars(module).items()):
                if id(value) in replaced and not attr.startswith("__"):
                    monkeypatch.setattr(module, attr, replaced[id(value)])
    with pytest.raises(AssertionError):
        datetime.datetime.now()
    yield
    monkeypatch.undo()


SCRIPT = [  # every Stage-0 agent, a tool, a fact written and read
    "3 * 7",
    "my name is Ada",
    "what is my name?",
    "the capital of Peru is Lima",
    "what is the capital of Peru?",
    "good morning",
    "/clock",
    "/file_list",
    "what is my favorite drink?",
]


def test_ticks_and_commands_never_read_the_clock_or_randomness(tmp_path, request):
    from agi_core.determinism import Determinism

    # creating a database (its schema, its journal key) is not a tick: done before reads are forbidden
    open_kernel(tmp_path / "a.db", seed="no-clock").close()
    request.getfixturevalue("no_clock")

    with open_kernel(tmp_path / "a.db", seed="no-clock") as kernel:
        records = [kernel.tick(SCRIPT[i % len(SCRIPT)]) for i in range(200)]
        kernel.put_fact("user/profile/me/name", "Ada")
        kernel.command("state", {"op": "create_state", "args": {"prompt": "p", "new_tree": True}})
    det = Determinism("s")
    assert (det.now(), det.new_id("x")) == (Determinism("s").now(), Determinism("s", counter=1).new_id("x"))
    assert [r.tick for r in records] == list(range(1, 201))
