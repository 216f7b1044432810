"""``agi modules`` and ``agi modules show NAME --json`` on a real installed module plugin."""

from __future__ import annotations

import json
from pathlib import Path

PLUGIN_FILE = Path(__file__).with_name("notebook_plugin.py")


def test_agi_modules_lists_order_phases_contracts_and_state_size_and_show_dumps_the_state(
    tmp_path, plugin_site, run_agi
):
    site = plugin_site("notebook", PLUGIN_FILE.read_text(encoding="utf-8"))
    db = tmp_path / "agent.db"
    ran = run_agi(db, "run", site=site, plugins="notebook", stdin="hello\nnotebook?\n")
    assert ran.stdout.splitlines()[-1] == "I have seen 2 inputs."
    listed = run_agi(db, "modules", site=site, plugins="notebook")
    last = '"I have seen 2 inputs."'
    assert listed.stdout.splitlines() == [
        "sem_council  plugin=stage0  priority=0  phases=vote  contracts=-  state=0 keys, 0 bytes",
        "notebook  plugin=notebook  priority=50  phases=perceive,recall,deliberate,observe,maintain  "
        f"contracts=dialogue_state  state=2 keys, {1 + len(last)} bytes",
    ]
    as_json = json.loads(run_agi(db, "modules", "--json", site=site, plugins="notebook").stdout)
    assert [row["name"] for row in as_json] == ["sem_council", "notebook"]
    shown = run_agi(db, "modules", "show", "notebook", "--json", site=site, plugins="notebook")
    assert json.loads(shown.stdout) == {"seen": 2, "last": "I have seen 2 inputs."}
    missing = run_agi(db, "modules", "show", "nope", site=site, plugins="notebook")
    assert missing.returncode != 0
    assert missing.stderr.strip().splitlines()[-1] == (
        "Error: no module named 'nope'; installed: sem_council, notebook (see agi modules)"
    )
