"""Other agents are interlocutors: a message from agent X is said by X (``Input.speaker``), so the
social module keeps X's profile apart from the user's, and the reply to X goes back to X."""

from __future__ import annotations

import agi_plugin_social.plugin as social

from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel


def test_messages_from_another_agent_are_attributed_to_that_agent(tmp_path):
    hub = "memory://social-speakers"
    with (
        open_kernel(tmp_path / "bob.db", social, messaging=hub) as bob,
        open_kernel(tmp_path / "alice.db", messaging=hub) as alice,
    ):
        bob.command("set_name", {"name": "bob"})
        alice.command("set_name", {"name": "alice"})
        bob.tick("hello there")  # the user
        alice.command("send_message", {"to": "bob", "text": "hey yo lol what is 2+2"})
        received = bob.tick()
        state = dump_state(bob.store, "social")
        answered = alice.tick()
    assert (received.input.speaker, received.input.source) == ("alice", "message:alice")
    assert state["profile/alice"]["turns"] == 1 and state["profile/alice"]["register"] == "informal"
    assert state["profile/user"]["turns"] == 1  # the user's profile did not count alice's line
    assert answered.input.speaker == "bob" and answered.input.raw == received.final_output
    report = replay(tmp_path / "bob.db", plugins=builtin_plugins(social))
    assert report.ok, report.summary()
