"""The journal records which agi-core and plugin versions wrote it, and replay names them when they differ."""

from __future__ import annotations

import shutil

from agi_core.plugins import _agi_core_version

TALLY = """
from agi_core.hookspecs import hookimpl
from agi_core.modules import CognitiveModule


class Tally(CognitiveModule):
    name = "tally"

    def observe(self, ctx):
        return {"seen": ctx.tick * FACTOR}


FACTOR = 1


@hookimpl
def agi_register_modules(register):
    register(Tally())
"""


def _release(site, version: str, factor: int) -> None:
    """Install ``version`` of the tallying plugin in ``site`` (its module and its dist-info), as an upgrade does."""
    for info in site.glob("*.dist-info"):
        shutil.rmtree(info)
    (site / "agi_plugin_tallying.py").write_text(TALLY.replace("FACTOR = 1", f"FACTOR = {factor}"), encoding="utf-8")
    info = site / f"agi_plugin_tallying-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: agi-plugin-tallying\nVersion: {version}\n")
    (info / "entry_points.txt").write_text("[agi]\ntallying = agi_plugin_tallying\n")


def test_replay_after_a_plugin_upgrade_names_the_versions_that_wrote_the_journal(tmp_path, plugin_site, run_agi):
    core = _agi_core_version()
    site = plugin_site("tallying", TALLY, "1.0")
    db = tmp_path / "a.db"
    assert run_agi(db, "run", site=site, plugins="tallying", stdin="2+2\n3+3\n").returncode == 0
    _release(site, "2.0", 10)  # the upgrade changes what the module returns

    replayed = run_agi(db, "replay", site=site, plugins="tallying")
    assert (replayed.returncode, replayed.stdout.splitlines()[0]) == (1, "REPLAY_MISMATCH tick=1 field=modules")
    assert replayed.stdout.splitlines()[-1] == (
        f"tick 1 was written by agi-core {core} with plugins tallying 1.0; this is agi-core {core} with plugins "
        "tallying 2.0; replay with the versions that wrote the journal"
    )

    assert run_agi(db, "run", site=site, plugins="tallying", stdin="4+4\n").returncode == 0  # tick 3 by 2.0
    status = run_agi(db, "status", site=site, plugins="tallying")
    assert status.stdout.splitlines()[-2:] == [
        f"written by: ticks 1..2: agi-core {core} with plugins tallying 1.0",
        f"written by: ticks 3..3: agi-core {core} with plugins tallying 2.0",
    ]
    verified = run_agi(db, "journal", "verify", site=site, plugins="tallying")
    assert verified.returncode == 0, verified.stdout

    _release(site, "1.0", 1)  # back to 1.0: ticks 1 and 2 replay equal, tick 3 names 2.0
    again = run_agi(db, "replay", site=site, plugins="tallying")
    assert (again.returncode, again.stdout.splitlines()[0]) == (1, "REPLAY_MISMATCH tick=3 field=modules")
    assert again.stdout.splitlines()[-1].startswith(
        f"tick 3 was written by agi-core {core} with plugins tallying 2.0; this is agi-core {core} with plugins "
        "tallying 1.0;"
    )


def test_an_agent_from_before_the_version_history_replays_equal_and_shows_its_ticks_as_not_recorded(tmp_path, run_agi):
    """A database written before versions were recorded (its row deleted and the state sealed again, as
    that agi-core left it) still replays equal and verifies; status says which ticks have no record."""
    from agi_core.testing import open_kernel

    db = tmp_path / "a.db"
    with open_kernel(db) as kernel:
        kernel.tick("2 + 2")
        kernel.tick("my name is Ada")
        assert kernel.store.meta_delete("versions")
        kernel.store.meta_delete("state_seal")
        kernel.seal()
    assert run_agi(db, "replay").stdout == "replay equal: 2 ticks (1..2), 16 fields each\n"
    assert run_agi(db, "journal", "verify").returncode == 0
    assert run_agi(db, "run", stdin="3 + 3\n").returncode == 0
    core = _agi_core_version()
    assert run_agi(db, "status").stdout.splitlines()[-2:] == [
        "written by: ticks 1..2: not recorded",
        f"written by: ticks 3..3: agi-core {core} with no other plugins",
    ]
