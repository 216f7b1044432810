"""The benchmarks still run against the current kernel (tiny sizes; their figures are not asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_benchmark(script: str, *args: str, plugins: tuple[str, ...] = (), timeout: int = 300) -> Any:
    """The ``--json`` output of ``benchmarks/SCRIPT ARGS``, run with this checkout and ``plugins``' folders first."""
    path = os.pathsep.join([str(ROOT), *(str(ROOT / "plugins" / f"agi-plugin-{name}") for name in plugins)])
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_concurrency_benchmark_runs_and_loses_nothing():
    rows = run_benchmark("concurrency.py", "--writers", "1", "2", "--ticks", "5")
    assert [(r["journaled"], r["lost"], r["duplicated"], r["chain_ok"], r["replay_ok"]) for r in rows] == [
        (5, 0, 0, True, True),
        (10, 0, 0, True, True),
    ], rows


def test_tick_throughput_modules_option_runs_with_and_without_modules():
    assert sorted(run_benchmark("tick_throughput.py", "--modules", "2", "--module-ticks", "3")) == [
        "0",
        "2",
        "2 inline",
    ]


def test_tick_throughput_phase_overhead_option_prints_a_cost_per_phase_call():
    rows = run_benchmark("tick_throughput.py", "--phase-overhead", "2", "--module-ticks", "3")
    assert sorted(rows) == ["0", "2 no-op", "2 no-op inline"]
    assert rows["0"]["us_per_phase_call"] == 0.0 and "us_per_phase_call" in rows["2 no-op"]


def test_tick_throughput_contract_call_option_prints_us_per_call_against_the_bare_heuristic():
    row = run_benchmark("tick_throughput.py", "--contract-call", "--calls", "12")
    assert sorted(row) == ["bare_heuristic_us", "calls", "contract_call_us", "overhead_us"]
    assert row["contract_call_us"] > 0 and row["bare_heuristic_us"] > 0


def test_goals_scale_benchmark_runs_and_the_reply_stays_short():
    figures = run_benchmark("goals_scale.py", "--goals", "60", "--depth", "20", "--repeat", "1")
    assert sorted(figures["ops"]) == ["add", "done", "list", "move", "reply", "seal"]
    assert figures["reply_bytes"]["large"] < 1000  # a summary, not every goal


def test_startup_benchmark_runs_and_prints_medians_and_the_ratio():
    result = run_benchmark("startup.py", "--runs", "1")
    assert (result["runs"], result["bytecode"]) == (1, "cached")
    for kind in ("wall", "cpu"):
        assert result[f"agi_help_{kind}_median_s"] > 0 and result[f"import_click_{kind}_median_s"] > 0
        assert result[f"{kind}_ratio_median"] > 0


def test_tick_throughput_conversation_modules_option_runs_with_and_without_them():
    plugins = ("beliefs", "social", "retrieval", "autonomy", "learning")
    rows = run_benchmark("tick_throughput.py", "--conversation-modules", "--module-ticks", "3", plugins=plugins)
    assert sorted(rows) == ["+ autonomy, learning", "0", "beliefs + social", "beliefs + social + retrieval"]


def test_locomo_answers_benchmark_runs_on_a_few_questions():
    data = Path(os.environ.get("AGI_LOCOMO_DIR", ROOT.parent / "shared" / "data" / "locomo"))
    if not (data / "conv-26.json").exists():
        pytest.skip(f"LoCoMo data not found at {data} (shared/data/locomo beside the repository, or AGI_LOCOMO_DIR)")
    args = ("--data", str(data), "--conversations", "conv-26", "--limit", "5")
    result = run_benchmark("locomo_answers.py", *args, plugins=("retrieval",), timeout=600)
    assert result["questions"] == 5
    assert {"cites_evidence", "f1", "R@10", "any@3"} <= set(result)


def test_tracing_overhead_benchmark_runs_and_traces_every_tick():
    figures = run_benchmark("tracing_overhead.py", "--ticks", "8", "--rounds", "1")
    assert figures["spans_per_tick"] >= 7  # invoke_agent and its six phases, a tool call now and then
    assert figures["p50_off_us"] > 0 and figures["p50_on_us"] > 0 and figures["noop_span_ns"] > 0


def test_messaging_benchmark_runs_on_memory_and_nats_through_a_broker_restart():
    pytest.importorskip("nats", reason="pip install -e plugins/agi-plugin-nats (requirements-test.txt)")
    args = ("--messages", "20", "--round-trips", "5", "--restart", "--kill-bob", "1")
    result = run_benchmark("messaging.py", *args, plugins=("nats",))
    rows = result["rows"]
    assert [row["transport"] for row in rows] == ["memory", "nats"] and len(result["load_average"]["before"]) == 3
    killed = rows[1]["agents_killed"]  # bob a real process, SIGKILLed once, the broker restarted too
    assert (killed["delivered"], killed["lost"], killed["duplicated"], killed["bob_killed"]) == (20, 0, 0, 1), killed
    for row in rows:
        for agents in (row["agents"], row["agents_no_fsync"]):
            assert (agents["delivered"], agents["lost"], agents["duplicated"]) == (20, 0, 0), row
        assert row["throughput_ratio"] > 0 and row["round_trip_ratio"] > 0 and row["raw"]["p99_ms"] > 0


def test_questions_benchmark_runs_on_a_few_phrasings():
    result = run_benchmark("questions.py", "--limit", "12")
    assert (
        result["cases"] == 12 and 0 <= result["correct"] <= 12 and result["share"] == round(result["correct"] / 12, 4)
    )


def test_first_recall_benchmark_runs_and_leaves_the_rest_to_the_background():
    row = run_benchmark("first_recall.py", "--ticks", "100", plugins=("retrieval",))
    assert row["before"]["pending_after_tick"] <= 2 < row["after"]["pending_after_tick"]
    assert row["after"]["ticks_until_all_stored"] >= 1


def test_recall_floor_benchmark_measures_a_query_encode_without_langgraph():
    rows = run_benchmark("recall_floor.py", "--encodes", "3", "--rounds", "1")
    assert len(rows) == 1 and sorted(rows[0]) == ["encode_min_ms", "encode_p50_ms"]
    assert 0 < rows[0]["encode_min_ms"] <= rows[0]["encode_p50_ms"]


def test_journal_growth_benchmark_runs_and_measures_both_idle_kinds():
    six = ("autonomy", "beliefs", "learning", "retrieval", "self-improver", "social")
    figures = run_benchmark("journal_growth.py", "--minutes", "2", plugins=six)
    assert sorted(figures) == ["blob_bytes", "clock", "maintain", "mb_per_day"] and figures["clock"] > 0


def test_user_input_episodes_benchmark_reads_the_same_lines_with_and_without_the_index():
    row = run_benchmark("user_input_episodes.py", "--episodes", "400", "--runs", "3")
    assert sorted(row["sqlite"]) == ["ratio", "with_ms", "without_ms"]


def test_isolation_cost_benchmark_runs_every_row_and_counts_switches():
    rows = run_benchmark("isolation_cost.py", "--ticks", "3")
    assert list(rows) == ["0", "1 isolated", "1 inline", "6 isolated", "6 inline", "12 isolated", "12 inline"]
    assert all(row["cpu_us_p50"] > 0 and row["voluntary_switches"] >= 0 for row in rows.values())


def test_mirror_backlog_benchmark_reads_each_episode_once_with_keyset_pages():
    row = run_benchmark("mirror_backlog.py", "--episodes", "3000", "--rounds", "1")
    assert row["keyset"]["mirrored"] == row["rescan"]["mirrored"] == 3000
    assert row["keyset"]["rows_read"] < 3100 < row["rescan"]["rows_read"]
