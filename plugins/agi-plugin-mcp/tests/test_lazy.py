"""``agi --help`` with this plugin loaded lists ``agi mcp`` and imports neither mcp nor jsonschema."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

PROBE = """
import json, sys
from agi_core.cli.main import main
try:
    main(["--help"])
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("mcp", "mcp_types", "jsonschema", "anyio")
                        or m.startswith("agi_plugin_mcp."))), file=sys.stderr)
"""


def test_agi_help_lists_mcp_and_imports_no_mcp_library(mcp: Any) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=mcp.child_env(), capture_output=True, text=True, timeout=120, check=True
    )
    assert "  mcp " in done.stdout
    assert json.loads(done.stderr.strip().splitlines()[-1]) == ["agi_plugin_mcp.plugin"]
