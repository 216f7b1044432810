"""Embedding agi-core in a host application: a tool of the host's, one kernel, a few ticks.

Run: python examples/embed_host.py /tmp/host-agent.db
"""

from __future__ import annotations

import sys
from pathlib import Path

from agi_core import Kernel, Plugins, Tool, ToolDefinition, hookimpl


class InventoryPlugin:
    """The host exposes its own data to the agent as a read tool."""

    def __init__(self) -> None:
        self.stock = {"apples": 12, "pears": 0}

    @hookimpl
    def agi_register_actuators(self, register):
        register(
            Tool(
                ToolDefinition("stock", "Units in stock of an item.", {"item": "string"}, "read"),
                lambda context, args: {"item": args["item"], "units": self.stock.get(args["item"], 0)},
            )
        )


def main(db: Path) -> list[str]:
    plugins = Plugins.from_environment()
    plugins.add_module(InventoryPlugin(), name="inventory")
    replies = []
    with Kernel.open(db, seed="host-app", plugins=plugins) as kernel:
        for text in ["the capital of Japan is Tokyo", "what is the capital of Japan?", "/stock apples", "6 * 7"]:
            record = kernel.tick(text)
            replies.append(record.final_output)
    return replies


if __name__ == "__main__":
    for reply in main(Path(sys.argv[1] if len(sys.argv) > 1 else "host-agent.db")):
        print(reply)
