"""`agi checkpoint remove` and `prune` on PostgreSQL (real server): the snapshot schema goes, the rest stays."""

from __future__ import annotations

import psycopg
import pytest

from agi_core import checkpoints
from agi_core.checkpoints import CheckpointError
from agi_core.kernel import Kernel
from agi_core.plugins import Plugins
from agi_core.replay import replay


def _schemas(dsn: str, prefix: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s ORDER BY 1", (prefix + "%",))
        return [row[0] for row in rows]


def test_removing_a_checkpoint_drops_its_schema_only(agent_url, postgres_dsn):
    url = agent_url("keeper")
    plugins = Plugins.builtins("agi_plugin_postgres.plugin")
    with Kernel.open(url, seed="test", plugins=plugins) as kernel:
        for name, text in [("a", "my favorite color is red"), ("b", "my favorite color is blue"), ("c", "2+2")]:
            kernel.tick(text)
            checkpoints.create(kernel, name)
        snaps = [info.file for info in checkpoints.list_checkpoints(kernel.store)]
        schema = snaps[0].rpartition("__ck")[0]
        assert checkpoints.remove(kernel.store, "b").tick == 2
        assert [info.name for info in checkpoints.list_checkpoints(kernel.store)] == ["a", "c"]
        assert _schemas(postgres_dsn, schema + "__ck") == sorted([snaps[0], snaps[2]])
        with pytest.raises(CheckpointError, match=r"^no checkpoint named 'b'; existing checkpoints: a, c$"):
            checkpoints.remove(kernel.store, "b")
        assert checkpoints.prune(kernel.store, 1) == ["a"]
        assert kernel.store.checkpoint_problems("c", kernel.journal_key) == []
        kernel.tick("my favorite color is green")
        assert checkpoints.rollback(kernel, "c").tick == 3
        assert kernel.tick("what is my favorite color?").final_output == "Your favorite color is blue."
    assert replay(url, seed="test", plugins=Plugins.builtins("agi_plugin_postgres.plugin")).ok
