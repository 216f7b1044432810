"""The LLM brain (``--brain llm``): AgentOne's one-reasoning-call-per-tick design."""

from __future__ import annotations

from typing import Any

from agi_core.hookspecs import Register, hookimpl


def _llm_brain(kernel: Any) -> Any:
    from agi_core.brain.llm import LLMBrain

    return LLMBrain(kernel)


@hookimpl
def agi_register_brains(register: Register) -> None:
    register(_llm_brain, name="llm")
