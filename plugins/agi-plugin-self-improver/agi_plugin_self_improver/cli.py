"""``agi improve``: proposals of configuration changes, shadow-replayed in a sandbox before promotion."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from agi_plugin_self_improver import improver
from agi_plugin_self_improver.proposals import code, find


@click.group(help="Propose, evaluate (shadow replay in a sandbox), promote and revert changes to the agent.")
def improve() -> None:
    """The self_improver's commands."""


def _line(proposal: dict[str, Any]) -> str:
    scores = proposal.get("scores") or {}
    verdict = scores.get("verdict") or ("contained: " + scores["contained"] if "contained" in scores else "-")
    return f"{proposal['id']}\t{proposal['status']}\t{verdict}\t{proposal['why']}"


@improve.command("propose")
@click.option("--repeats", default=2, show_default=True, help="Rephrasings needed before a phrasing is proposed.")
@click.option("--set", "setting", nargs=2, metavar="PLUGIN.KEY VALUE", help="Propose this setting instead.")
@click.option(
    "--plugin",
    "plugin_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Propose this plugin file (router agents) instead.",
)
@click.pass_obj
def propose(state: Any, repeats: int, setting: tuple[str, str] | None, plugin_file: Path | None) -> None:
    """Learn proposals from the journal (F3 inputs rephrased, then answered), or propose a setting or a plugin file."""
    if plugin_file is not None:
        proposal = code(plugin_file.read_text(encoding="utf-8"), "manual", f"plugin file {plugin_file.name}")
        click.echo(_line(improver.add(state.open_kernel(), proposal)))
        return
    if setting:
        click.echo(_line(improver.propose_setting(state.open_kernel(), *setting)))
        return
    made = improver.propose(state.open_kernel(), repeats=repeats)
    if not made:
        click.echo("no new proposal: no F3 input was rephrased and answered often enough")
    for proposal in made:
        click.echo(_line(proposal))


@improve.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def list_(state: Any, as_json: bool) -> None:
    """Every proposal: id, status, verdict, why."""
    proposals = improver.stored(state.open_kernel())
    if as_json:
        click.echo(json.dumps(list(proposals.values()), ensure_ascii=False))
        return
    for proposal in proposals.values():
        click.echo(_line(proposal))


@improve.command("show")
@click.argument("proposal_id")
@click.pass_obj
def show(state: Any, proposal_id: str) -> None:
    """A proposal's diff (setting: before -> after) and its shadow replay's scores."""
    proposal = find(improver.stored(state.open_kernel()), proposal_id)
    click.echo(f"{proposal['id']} ({proposal['status']}, {proposal['source']}): {proposal['why']}")
    if proposal["kind"] == "plugin":
        click.echo("".join(f"+ {line}\n" for line in proposal["changes"]["code"].splitlines()), nl=False)
    for plugin, values in proposal["changes"].items() if proposal["kind"] == "settings" else ():
        for key, value in values.items():
            before = proposal.get("before", {}).get(plugin, {}).get(key)
            click.echo(f"- {plugin}.{key} = {json.dumps(before, ensure_ascii=False)}")
            click.echo(f"+ {plugin}.{key} = {json.dumps(value, ensure_ascii=False)}")
    click.echo("scores: " + json.dumps(proposal.get("scores"), ensure_ascii=False))


@improve.command("evaluate")
@click.argument("proposal_id")
@click.pass_obj
def evaluate(state: Any, proposal_id: str) -> None:
    """Shadow-replay the journal with the proposal applied, in the bubblewrap sandbox; store the scores."""
    click.echo(_line(improver.evaluate(state.open_kernel(), proposal_id)))


@improve.command("promote")
@click.argument("proposal_id")
@click.pass_obj
def promote(state: Any, proposal_id: str) -> None:
    """Apply an accepted proposal after a checkpoint (evaluated first if it has no verdict)."""
    proposal = improver.promote(state.open_kernel(), proposal_id)
    click.echo(f"promoted {proposal['id']} (checkpoint {proposal['checkpoint']})")


@improve.command("revert")
@click.argument("proposal_id")
@click.pass_obj
def revert(state: Any, proposal_id: str) -> None:
    """Put back the settings a promoted proposal changed (a promoted plugin file is taken out)."""
    proposal = improver.revert(state.open_kernel(), proposal_id)
    click.echo(f"reverted {proposal['id']}")
