"""``episodes(user_inputs=True)`` on PostgreSQL (real server): the user's inputs past the bookkeeping."""

from __future__ import annotations

from agi_core.kernel import Kernel
from agi_core.plugins import Plugins

LINES = ['say "source":"user" and "kind":"input"', "my name is Ada", "2+2"]


def test_the_users_inputs_are_read_past_clock_and_command_ticks(agent_url):
    url = agent_url("inputs")
    with Kernel.open(url, seed="u", plugins=Plugins.builtins("agi_plugin_postgres.plugin")) as kernel:
        for n, line in enumerate(LINES):
            kernel.tick(line)
            kernel.command("put_fact", {"key": f"user/note/n{n}/text", "value": '"source":"user"'})
            for _ in range(30):
                kernel.tick("clock 2026-11-23T13:00:00.000Z", source="clock")
        newest = kernel.store.episodes(2, newest_first=True, user_inputs=True)
        assert [e.event for e in newest] == ["2+2", "my name is Ada"]
        assert [e.event for e in kernel.store.episodes(None, user_inputs=True)] == LINES
        assert not any(e.context.get("source") == "user" for e in kernel.store.episodes(40, newest_first=True))
