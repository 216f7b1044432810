"""agi plugin ``self_improver``: the code-evolver contract, learned phrasings, and ``agi improve``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agi_core.hookspecs import hookimpl
from agi_core.plugins import contract_folder_hook
from agi_plugin_self_improver import CONTRACTS

if TYPE_CHECKING:
    import click

    from agi_core.kernel import Kernel
    from agi_core.model import TickState

agi_register_contracts = contract_folder_hook(CONTRACTS)

agi_manifest = {
    "settings": {
        "type": "object",
        "properties": {
            "phrasings": {
                "type": "object",
                "additionalProperties": {"type": "string", "minLength": 1},
                "default": {},
                "description": "promoted phrasings: an input's phrase -> the phrasing a rule understands",
            },
            "code": {
                "type": "object",
                "additionalProperties": {"type": "string", "minLength": 1},
                "default": {},
                "description": "promoted plugin files: a proposal id -> the file's source (written by agi improve)",
            },
            "proposals": {
                "type": "object",
                "default": {},
                "description": "the proposals of `agi improve`, by id (written by its commands)",
            },
            "sandbox_timeout_s": {
                "type": "number",
                "minimum": 1,
                "default": 60,
                "description": "wall-clock limit of one shadow replay in the sandbox",
            },
            "sandbox_memory_mb": {
                "type": "integer",
                "minimum": 64,
                "default": 4096,
                "description": "address-space limit of the shadow replay's process",
            },
        },
    }
}


#: self_improver settings that win over the stored ones for the whole process: set only by the
#: shadow replay's sandboxed process, so a ``config_set`` replayed from the journal cannot undo the change
SHADOW: dict[str, Any] = {}


@hookimpl
def agi_register_router_agents(register: Any) -> None:
    from agi_plugin_self_improver.promoted import NAME as PROMOTED
    from agi_plugin_self_improver.promoted import ImprovementAgent
    from agi_plugin_self_improver.rephrase import NAME, RephraseAgent  # on use: agi --help imports every plugin

    register(RephraseAgent(), name=NAME)
    register(ImprovementAgent(), name=PROMOTED)


@hookimpl
def agi_register_modules(register: Any) -> None:
    from agi_plugin_self_improver.module import SelfImprover

    register(SelfImprover())


@hookimpl
def agi_start_plugin(kernel: Kernel) -> None:
    _refresh(kernel)  # the promoted plugin files load when the agent opens (a failing one is reported there)


@hookimpl
def agi_before_tick(kernel: Kernel, state: TickState) -> None:
    _refresh(kernel)


def _refresh(kernel: Kernel) -> None:
    """The learned phrasings and the promoted plugin files of the agent's settings, read before each tick."""
    from agi_plugin_self_improver.promoted import NAME as PROMOTED
    from agi_plugin_self_improver.promoted import ImprovementAgent
    from agi_plugin_self_improver.proposals import PLUGIN
    from agi_plugin_self_improver.rephrase import NAME, RephraseAgent

    stored = kernel.plugin_settings.values(PLUGIN)
    host = kernel.router_agents.get(PROMOTED)
    agent = kernel.router_agents.get(NAME)
    if isinstance(agent, RephraseAgent):
        rules = [rule for rule in kernel.router_agents.values() if rule is not host]
        agent.refresh(SHADOW.get("phrasings", stored.get("phrasings", {})), rules)
    if isinstance(host, ImprovementAgent):
        code = {**stored.get("code", {}), **SHADOW.get("code", {})}
        host.refresh(code, kernel.router_agents.values(), kernel.config.timeout_s)


@hookimpl
def agi_register_commands(cli: click.Group) -> None:
    cli.add_lazy_command(  # type: ignore[attr-defined]
        "improve",
        "agi_plugin_self_improver.cli:improve",
        "Propose, evaluate (shadow replay in a sandbox), promote and revert changes to the agent.",
    )
