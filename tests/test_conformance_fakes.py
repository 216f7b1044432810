"""Every check of the conformance suite can fail: each fake backend (tests/conformance_fakes.py) breaks
one rule, and the checks of that rule go red when the suite runs against it in a real pytest process.

A control run of the same checks against the real SQLite backend passes, so the failures are the fakes'.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

# fake backend -> the checks it must fail
EXPECTED = {
    "fake_commits_failed_ticks": [
        "test_a_failed_transaction_leaves_nothing_in_any_store",
        "test_an_interrupted_tick_stores_nothing",
        "test_a_tick_that_fails_while_storing_stores_nothing",
    ],
    "fake_savepoint_keeps_failed_step": [
        "test_a_savepoint_undoes_only_its_own_block",
        "test_a_failing_step_is_undone_alone_and_the_tick_is_stored",
    ],
    "fake_blind_data_version": [
        "test_data_version_changes_only_when_another_connection_commits",
        "test_two_processes_ticking_on_one_agent_lose_and_repeat_no_tick",
    ],
    "fake_first_write_wins": ["test_the_newest_write_wins_and_an_equal_time_overwrites"],
    "fake_unordered_facts": ["test_facts_come_in_key_order_under_a_prefix_up_to_a_limit"],
    "fake_jsonb_journal": [
        "test_journal_rows_come_back_byte_for_byte_in_tick_order",
        "test_tampering_outside_the_journal_is_detected",
    ],
    "fake_rollback_keeps_facts": ["test_rollback_restores_every_store_and_archives_the_undone_ticks"],
    "fake_working_in_memory": ["test_replay_of_the_stored_journal_is_equal"],
    "fake_remove_takes_the_newest": ["test_removing_a_checkpoint_leaves_the_agent_and_the_other_checkpoints_whole"],
    "fake_seal_blind": ["test_tampering_outside_the_journal_is_detected"],
    "fake_truncating_keys": ["test_a_key_at_the_length_limit_is_kept_and_one_past_it_refused"],
    "fake_lowercasing_keys": ["test_an_invalid_key_is_refused_and_nothing_stored[upper_case]"],
    "fake_nan_as_null": [
        "test_nan_and_infinity_are_refused_and_nothing_stored[nan]",
        "test_nan_and_infinity_are_refused_and_nothing_stored[nested_nan]",
    ],
    "fake_truncating_text": [
        "test_blobs_are_content_addressed_and_a_missing_one_is_named",
        "test_an_input_over_the_limit_is_refused_and_stored_as_its_head",
    ],
    "fake_raw_surrogates": [
        "test_lone_surrogates_are_stored_as_replacement_characters",
        "test_invalid_utf8_input_and_output_are_stored_with_replacement_characters",
    ],
}

EXPECTED.update(
    {
        "fake_forgets_meta_on_close": ["test_a_committed_transaction_is_read_back_after_reopening"],
        "fake_big_ints_as_floats": ["test_a_fact_reads_back_exactly[int64_max]"],
        "fake_miss_as_null": ["test_a_missing_fact_is_only_a_miss"],
        "fake_upsert_journal": ["test_a_journaled_tick_is_never_overwritten"],
        "fake_values_as_strings": ["test_a_value_that_is_not_json_is_refused"],
        "fake_episodes_by_timestamp": ["test_episodes_keep_their_insertion_order"],
        "fake_intents_by_insertion": ["test_intents_come_in_tick_order_and_lose_pending_with_a_receipt"],
        "fake_jobs_unordered": ["test_jobs_come_in_name_order_and_the_earliest_due_first"],
        "fake_goals_move_on_update": ["test_goals_keep_the_order_they_were_first_put_in"],
        "fake_goals_ranked_by_age": ["test_goals_are_read_by_id_parent_rank_and_ancestors"],
        "fake_meta_first_wins": ["test_meta_keeps_the_last_value_per_key"],
        "fake_module_state_shared": ["test_module_state_is_namespaced_last_write_wins_and_undone_with_its_savepoint"],
        "fake_no_module_state": [
            "test_module_state_is_namespaced_last_write_wins_and_undone_with_its_savepoint",
            "test_module_state_changed_outside_the_journal_is_named",
        ],
        "fake_seal_skips_module_state": ["test_module_state_changed_outside_the_journal_is_named"],
        "fake_working_merges": ["test_working_memory_is_replaced_whole"],
        "fake_timings_first_win": ["test_tick_timings_are_kept_per_tick_last_write_wins_and_read_by_range"],
        "fake_no_tick_timings": [
            "test_tick_timings_are_kept_per_tick_last_write_wins_and_read_by_range",
            "test_each_tick_stores_how_long_it_took_beside_its_record",
        ],
        "fake_rollback_keeps_timings": ["test_rollback_restores_every_store_and_archives_the_undone_ticks"],
        "fake_nul_as_replacement": [
            "test_a_nul_in_any_text_is_stored_and_found_again",
            "test_a_nul_in_any_stored_text_never_fails_a_tick",
        ],
        "fake_seal_skips_versions": ["test_the_versions_that_wrote_the_ticks_are_stored_once_per_change_and_sealed"],
    }
)
EXPECTED["fake_jsonb_journal"].append("test_a_forged_journal_record_is_detected_at_its_tick")
EXPECTED.update(
    {
        "fake_transfer_reads_live": ["test_a_checkpoint_read_as_rows_and_loaded_again_is_the_same_checkpoint"],
        "fake_transfer_any_tick": ["test_rows_that_do_not_hold_the_checkpoints_tick_or_a_taken_name_are_refused"],
        "fake_transfer_commits_alone": ["test_a_loaded_checkpoint_commits_with_the_callers_transaction_or_not_at_all"],
    }
)

HEADER = "from agi_core.testing import BackendConformance\n"
CLASS = """

class Test_{name}(BackendConformance):
    backend_name = {name!r}
    plugin_modules = ("conformance_fakes",)
"""


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    """One real pytest process runs, against each fake and against SQLite, the checks the fakes must fail:
    ``{(backend, check): PASSED | FAILED | ERROR}``."""
    folder = tmp_path_factory.mktemp("conformance")
    every = sorted({check for checks in EXPECTED.values() for check in checks})
    plan = {**EXPECTED, "sqlite": every}
    (folder / "test_suite.py").write_text(HEADER + "".join(CLASS.format(name=n) for n in plan), encoding="utf-8")
    ids = [f"test_suite.py::Test_{name}::{check}" for name, checks in plan.items() for check in checks]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", *ids],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    found = {
        (match[2], match[3]): match[1]
        for match in re.finditer(r"^(PASSED|FAILED|ERROR) \S+::Test_(\w+)::(\S+)", done.stdout, re.M)
    }
    assert len(found) == len(ids), done.stdout[-3000:] + done.stderr[-3000:]
    return found


@pytest.mark.parametrize("fake", sorted(EXPECTED))
def test_the_checks_of_a_broken_rule_fail_on_a_fake_that_breaks_it(
    outcomes: dict[tuple[str, str], str], fake: str
) -> None:
    assert {check: outcomes[fake, check] for check in EXPECTED[fake]} == dict.fromkeys(EXPECTED[fake], "FAILED")


def test_the_same_checks_pass_on_the_real_sqlite_backend(outcomes: dict[tuple[str, str], str]) -> None:
    on_sqlite = {check: outcome for (name, check), outcome in outcomes.items() if name == "sqlite"}
    assert on_sqlite == dict.fromkeys(on_sqlite, "PASSED") and len(on_sqlite) >= len(EXPECTED)


def test_every_check_of_the_suite_has_a_fake_that_fails_it() -> None:
    from agi_core.testing import BackendConformance

    covered = {check.split("[")[0] for checks in EXPECTED.values() for check in checks}
    suite = {name for name in dir(BackendConformance) if name.startswith("test_")}
    assert sorted(suite - covered) == []


def _pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_pytest_agi_backend_runs_the_suite_against_the_backend_of_that_name(tmp_path: Path) -> None:
    done = _pytest_in(tmp_path, "--agi-backend=sqlite", "-k", "byte_for_byte or rollback_restores")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^2 passed, \d+ deselected", done.stdout, re.M), done.stdout


def test_pytest_agi_backend_with_an_unknown_name_lists_the_installed_ones(tmp_path: Path) -> None:
    done = _pytest_in(tmp_path, "--agi-backend=nosuch", "-k", "byte_for_byte")
    assert done.returncode == 1
    assert "no memory backend named 'nosuch'; installed: sqlite" in done.stdout


PARTIAL = """
import pytest
from agi_core.testing import BackendConformance


class TestDeclared(BackendConformance):
    backend_name = "fake_no_module_state"
    plugin_modules = ("conformance_fakes",)
    lacks = frozenset({"module state"})


class TestOwnSkip(BackendConformance):
    backend_name = "sqlite"

    def test_goals_keep_the_order_they_were_first_put_in(self, open_store):
        pytest.skip("not today")
"""


def test_a_check_skips_only_for_a_part_the_backend_declares_it_lacks(tmp_path: Path) -> None:
    """Declared in ``lacks``: the module-state checks skip. Any other skip of a suite check is a failure."""
    (tmp_path / "test_partial.py").write_text(PARTIAL, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
    checks = "module_state or goal"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", "test_partial.py", "-k", checks],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    found = re.findall(r"^test_partial.py::(\w+)::(\w+) (PASSED|FAILED|SKIPPED)", done.stdout, re.M)
    assert sorted(found) == [
        ("TestDeclared", "test_goals_are_read_by_id_parent_rank_and_ancestors", "PASSED"),
        ("TestDeclared", "test_goals_keep_the_order_they_were_first_put_in", "PASSED"),
        ("TestDeclared", "test_module_state_changed_outside_the_journal_is_named", "SKIPPED"),
        ("TestDeclared", "test_module_state_is_namespaced_last_write_wins_and_undone_with_its_savepoint", "SKIPPED"),
        ("TestOwnSkip", "test_goals_are_read_by_id_parent_rank_and_ancestors", "PASSED"),
        ("TestOwnSkip", "test_goals_keep_the_order_they_were_first_put_in", "FAILED"),
        ("TestOwnSkip", "test_module_state_changed_outside_the_journal_is_named", "PASSED"),
        ("TestOwnSkip", "test_module_state_is_namespaced_last_write_wins_and_undone_with_its_savepoint", "PASSED"),
    ], done.stdout
    assert "skipped (Skipped: not today); a conformance check may skip only a part in lacks" in done.stdout
