"""OpenTelemetry traces of ticks (docs/tracing.md), read back from the SDK's in-memory exporter.

One trace per tick (``invoke_agent``), a child span per phase, per module phase call (run on a
worker thread, so the tracing context must travel) and per tool; tracing never changes what is
journaled; a failing exporter never stops a tick; while off nothing of OpenTelemetry is imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from agi_core import tracing
from agi_core.errors import ConfigError
from agi_core.hookspecs import hookimpl
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "modules"))
import notebook_plugin  # noqa: E402 - a real module plugin using every phase

PHASES = ["perceive", "recall", "reason", "plan", "act", "store"]
LINES = ["hello", "remember my cat is Tom", "/clock", "what is my cat"]


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    tracing.start(exporter, batch=False)
    yield exporter
    tracing.stop()


def _run(db: Path, lines: list[str]) -> list[str]:
    with open_kernel(db, notebook_plugin) as kernel:
        return [record.id for record in kernel.run(lines)]


def _trees(exporter: InMemorySpanExporter) -> dict[int, list]:
    """The finished spans by trace id."""
    traces: dict[int, list] = {}
    for span in exporter.get_finished_spans():
        traces.setdefault(span.context.trace_id, []).append(span)
    return traces


def test_one_trace_per_tick_with_a_span_per_phase_module_call_and_tool(tmp_path: Path, spans) -> None:
    ids = _run(tmp_path / "a.db", LINES)
    traces = list(_trees(spans).values())
    assert len(traces) == len(LINES)
    for tick, (trace, journal_id) in enumerate(zip(traces, ids, strict=True), start=1):
        (root,) = [span for span in trace if span.parent is None]
        assert root.name == "invoke_agent a"
        assert root.attributes["gen_ai.operation.name"] == "invoke_agent"
        assert root.attributes["gen_ai.agent.name"] == "a"
        assert (root.attributes["agi.tick"], root.attributes["agi.journal.id"]) == (tick, journal_id)
        assert root.attributes["agi.db"] == str(tmp_path / "a.db")
        children = [span for span in trace if span.parent is not None and span.parent.span_id == root.context.span_id]
        assert [span.name for span in sorted(children, key=lambda s: s.start_time)] == PHASES
        by_id = {span.context.span_id: span for span in trace}
        modules = {span.name: by_id[span.parent.span_id].name for span in trace if span.name.startswith("module ")}
        assert modules == {  # each module call under the phase that runs it, across the worker thread
            "module notebook.perceive": "reason",
            "module notebook.recall": "reason",
            "module notebook.deliberate": "reason",
            "module notebook.observe": "act",
        }
        assert all(span.attributes["agi.tick"] == tick for span in trace if span.name.startswith("module "))
    tools = [span for trace in traces for span in trace if span.name.startswith("execute_tool")]
    assert [(span.name, span.attributes["gen_ai.tool.name"]) for span in tools] == [("execute_tool clock", "clock")]
    assert tools[0].attributes["gen_ai.operation.name"] == "execute_tool"
    assert tools[0].parent.span_id == next(s for s in traces[2] if s.name == "act").context.span_id


def test_tracing_changes_nothing_journaled_and_replays_equal(tmp_path: Path, spans) -> None:
    _run(tmp_path / "traced.db", LINES)
    tracing.stop()
    _run(tmp_path / "plain.db", LINES)
    journals = []
    for name in ("traced.db", "plain.db"):
        with open_kernel(tmp_path / name, notebook_plugin) as kernel:
            journals.append([text for _tick, _id, text, _chain in kernel.store.journal_rows()])
    assert journals[0] == journals[1]
    again = InMemorySpanExporter()
    tracing.start(again, batch=False)
    report = replay(tmp_path / "traced.db", plugins=builtin_plugins(notebook_plugin))
    assert report.ok and report.ticks == len(LINES), report.summary()
    replayed = [s for s in again.get_finished_spans() if s.name.startswith("invoke_agent")]
    assert [s.attributes["agi.replaying"] for s in replayed] == [True] * len(LINES)


def test_a_replays_traces_name_the_replayed_agent_and_its_database(tmp_path: Path) -> None:
    db = tmp_path / "traced.db"
    _run(db, LINES[:2])
    again = InMemorySpanExporter()
    tracing.start(again, batch=False)
    try:
        report = replay(db, plugins=builtin_plugins(notebook_plugin))
        with open_kernel(db, notebook_plugin) as kernel:
            report_again = kernel.replay()  # the Python API's replay (agi_core.timeline) too
    finally:
        tracing.stop()
    assert report.ok and report_again.ok
    roots = [s for s in again.get_finished_spans() if s.parent is None]
    assert [(s.name, s.attributes["gen_ai.agent.name"], s.attributes["agi.db"]) for s in roots] == [
        ("invoke_agent traced", "traced", str(db))
    ] * 4
    assert all(s.attributes["agi.replaying"] is True for s in roots)


class FailingExporter(SpanExporter):
    """A fake, for a fault a real exporter gives only by chance: every export raises."""

    def __init__(self) -> None:
        self.calls = 0

    def export(self, spans) -> SpanExportResult:
        self.calls += 1
        raise ConnectionError("the collector hung up")


def test_an_exporter_that_raises_never_stops_a_tick(tmp_path: Path, capsys) -> None:
    failing = FailingExporter()
    tracing.start(failing, batch=False)
    try:
        ids = _run(tmp_path / "a.db", LINES)
    finally:
        tracing.stop()
    assert len(ids) == len(LINES) and failing.calls > len(LINES)
    err = capsys.readouterr().err
    assert "agi: tracing: Exception while exporting Span. (ConnectionError: the collector hung up)" in err
    assert "Traceback" not in err


def test_off_a_span_is_one_shared_object_and_carry_returns_the_function() -> None:
    assert not tracing.enabled()
    assert tracing.span("x", {"a": 1}) is tracing.NO_SPAN
    assert tracing.carry(len) is len


@pytest.mark.parametrize(
    ("flag", "environ", "on"),
    [
        (False, {}, False),
        (True, {}, True),
        (False, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, True),
        (False, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, True),
        (False, {"OTEL_TRACES_EXPORTER": "otlp"}, True),
        (True, {"OTEL_TRACES_EXPORTER": "none"}, False),
        (True, {"OTEL_SDK_DISABLED": "true"}, False),
    ],
)
def test_when_tracing_is_on(flag: bool, environ: dict[str, str], on: bool) -> None:
    assert tracing.wanted(flag, environ) is on


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"OTEL_TRACES_EXPORTER": "jaeger"}, "OTEL_TRACES_EXPORTER='jaeger' is not supported here; use otlp"),
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTEL_EXPORTER_OTLP_PROTOCOL='grpc' is not supported; use http"),
    ],
)
def test_an_exporter_we_cannot_build_is_a_one_line_error(environ: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        tracing.start(environ=environ)
    assert not tracing.enabled()


PROBE = """
import sys
from agi_core.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(sorted(m for m in sys.modules if m.split(".")[0] == "opentelemetry"), file=sys.stderr)
"""


def _agi(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    environment.update(PYTHONPATH=str(ROOT), AGI_LOAD_PLUGINS="", **env)
    return subprocess.run(
        [sys.executable, "-c", PROBE, "--db", str(tmp_path / "a.db"), *args],
        input="hello\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )


def test_a_run_without_tracing_imports_no_opentelemetry(tmp_path: Path) -> None:
    done = _agi(tmp_path, "run")
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr
    traced = _agi(tmp_path, "--otel", "run", OTEL_TRACES_EXPORTER="console")
    assert "opentelemetry.sdk.trace" in traced.stderr.strip().splitlines()[-1]
    assert json.loads(traced.stderr[: traced.stderr.index("\n}\n") + 2])["name"] == "perceive"


class Patient:
    """A real module whose recall phase is ``async def`` and waits 50 ms."""

    name = "patient"

    async def recall(self, ctx):
        import asyncio

        await asyncio.sleep(0.05)
        return {"waited": True}


class PatientPlugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Patient())


def test_an_async_module_phase_is_awaited_inside_its_span(tmp_path: Path, spans) -> None:
    with open_kernel(tmp_path / "a.db", PatientPlugin()) as kernel:
        record = kernel.tick("hello")
    assert record.modules["calls"] == [{"module": "patient", "phase": "recall", "output": {"waited": True}}]
    (span,) = [s for s in spans.get_finished_spans() if s.name == "module patient.recall"]
    assert span.end_time - span.start_time >= 50_000_000


def test_a_write_tool_runs_after_its_tick_in_a_trace_naming_the_intents_tick(tmp_path: Path, spans) -> None:
    from agi_core.tools import ToolPolicy

    policy = ToolPolicy(allow_tools=frozenset({"file_write"}))
    with open_kernel(tmp_path / "a.db", policy=policy, workspace=tmp_path / "ws") as kernel:
        kernel.tick("/file_write a.txt one")
    assert (tmp_path / "ws" / "a.txt").read_text() == "one"
    roots = sorted((s for s in spans.get_finished_spans() if s.parent is None), key=lambda s: s.start_time)
    assert [(s.name, s.attributes["agi.tick"]) for s in roots] == [
        ("invoke_agent a", 1),  # the intent
        ("execute_intent file_write", 1),  # run once tick 1 committed
        ("invoke_agent a", 2),  # the receipt
    ]
    (tool,) = [s for s in spans.get_finished_spans() if s.name == "execute_tool file_write"]
    assert tool.parent.span_id == roots[1].context.span_id and tool.attributes["agi.tool.effect"] == "write"


class Slowpoke:
    """A real module whose observe overruns its 0.3 s timeout (it sleeps 1 s), then opens a span."""

    name = "slowpoke"
    timeout_s = 0.3

    def observe(self, ctx):
        import time

        time.sleep(1.0)
        with tracing.span("after the tick"):  # the abandoned thread, once its tick's trace has ended
            return {"late": True}


class SlowpokePlugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Slowpoke())


def test_a_module_call_past_its_timeout_ends_its_span_failed_inside_the_ticks_trace(tmp_path: Path, spans) -> None:
    import time

    with open_kernel(tmp_path / "a.db", SlowpokePlugin()) as kernel:
        record = kernel.tick("hello")
    assert record.modules["calls"][0]["skipped"] == "TimedOut: slowpoke ran past 0.3 s and was abandoned"
    time.sleep(1.2)  # the abandoned thread returns meanwhile
    finished = spans.get_finished_spans()
    (root,) = [s for s in finished if s.parent is None]
    (call,) = [s for s in finished if s.name == "module slowpoke.observe"]
    assert call.context.trace_id == root.context.trace_id
    assert call.attributes["error.type"] == "TimedOut"
    assert call.status.status_code == StatusCode.ERROR
    assert call.status.description == "TimedOut: slowpoke ran past 0.3 s and was abandoned"
    assert 0.3e9 <= call.end_time - call.start_time < 0.9e9
    assert call.end_time <= root.end_time
    assert [s.name for s in finished if s.name == "after the tick"] == []


def test_a_model_request_past_the_llm_timeout_has_its_span_failed_inside_the_ticks_trace(
    tmp_path: Path, spans, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agi_core.llm.testing import SilentServer

    with SilentServer() as silent:  # accepts the request and never answers
        monkeypatch.setenv("AGI_LLM_PROVIDER", "openai")
        monkeypatch.setenv("AGI_OPENAI_BASE_URL", silent.url)
        monkeypatch.setenv("AGI_OPENAI_MODEL", "silent")  # no /models listing first: the request itself hangs
        with open_kernel(tmp_path / "a.db", brain="llm", llm_timeout_s=0.3) as kernel:
            kernel.tick("Say hello.")
        finished = spans.get_finished_spans()
    (root,) = [s for s in finished if s.parent is None]
    chats = [s for s in finished if s.name.startswith("chat ")]
    assert chats, [s.name for s in finished]
    for chat in chats:
        assert chat.context.trace_id == root.context.trace_id
        assert chat.attributes["error.type"] == "TimedOut"
        assert chat.status.status_code == StatusCode.ERROR
        assert chat.status.description == "timed out after 0.3 s and was abandoned"
        assert chat.end_time <= root.end_time


def test_every_root_names_the_agent_and_its_database_by_absolute_path(
    tmp_path: Path, spans, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agi_core.tools import ToolPolicy

    monkeypatch.chdir(tmp_path)
    policy = ToolPolicy(allow_tools=frozenset({"file_write"}))
    with open_kernel(Path("rel.db"), policy=policy, workspace=tmp_path / "ws") as kernel:  # as typed: relative
        kernel.tick("/file_write a.txt one")
        intent_id, receipt_id = [journal_id for _tick, journal_id, _text, _chain in kernel.store.journal_rows()]
    roots = sorted((s for s in spans.get_finished_spans() if s.parent is None), key=lambda s: s.start_time)
    assert [s.name for s in roots] == ["invoke_agent rel", "execute_intent file_write", "invoke_agent rel"]
    for root in roots:
        assert root.attributes["gen_ai.agent.name"] == "rel"
        assert root.attributes["agi.db"] == str(tmp_path.resolve() / "rel.db")
    assert roots[1].attributes["agi.journal.id"] == intent_id  # the intent's record
    assert [roots[0].attributes["agi.journal.id"], roots[2].attributes["agi.journal.id"]] == [intent_id, receipt_id]
