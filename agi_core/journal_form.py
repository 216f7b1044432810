"""The stored form of a journal record: what an idle tick repeats is not journaled twice.

An idle follower (``agi run --follow``: a clock tick every 30 s, a maintenance tick every 60 s)
wrote records that repeated, tick after tick, what had not changed. A record is stored
:func:`compact` (``"form": 2``):

- ``brainstate_after`` has no ``working`` when the tick left working memory as
  ``brainstate_before`` holds it (restored by :func:`expand`);
- working memory is written ``"agi:json:<canonical JSON>"``, a string the store keeps once as a
  blob (``agi_core.memory.blobs``): the record holds its reference, and a working memory that
  stays the same tick after tick is stored once (restored once the references are resolved);
- ``goal`` is left out when it is ``brainstate_after``'s active goal (restored);
- a contract call with no model attempt keeps only what is not its default (``attempts: []``,
  ``value: null``, ``errors: []``; the "no provider configured and 'X' has no fallback" error is
  ``errors: "no_provider"``) (restored);
- ``modules.calls`` leaves out the calls that did nothing: no output (or an empty proposal from
  ``deliberate``), no state written, not skipped; ``modules.plugins`` leaves out the modules
  whose plugin has their own name. These two are not restored: replay tests both sides in this
  form (:func:`by_reference`, working memory by its blob reference) and shows them expanded
  (:func:`comparable`), so a call that did nothing live and something in replay (or the
  reverse) is still a difference, and the module order is still recorded whole.

Records written before (no ``form``) are read as they are: :func:`expand` returns them
unchanged and :func:`comparable` gives them the same form, so they replay and verify as they
did. The chain covers the stored text, whichever form it has.
"""

from __future__ import annotations

from typing import Any

import orjson

from agi_core.memory import blobs
from agi_core.serialization import dumps

FORM = 2
NO_PROVIDER = "no_provider"  # a contract call's errors: the one below, for its contract
_QUIET_KEYS = frozenset({"module", "phase", "timeout_s", "output"})


def no_provider_error(contract: str) -> str:
    """The error a contract call records when no provider is configured and the contract has no heuristic
    (``agi_core.contracts.caller``)."""
    return f"no provider configured and {contract!r} has no fallback"


def compact(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` (plain data, a tick's full record) in its stored form; ``record`` is not changed."""
    out = dict(record)
    before, after = out.get("brainstate_before"), out.get("brainstate_after")
    working = after.get("working") if isinstance(after, dict) else None
    if isinstance(working, dict) and "goal" in out and out["goal"] == working.get("active_goal"):
        del out["goal"]
    if isinstance(before, dict) and isinstance(working, dict) and working == before.get("working"):
        out["brainstate_after"] = {key: value for key, value in after.items() if key != "working"}  # type: ignore[union-attr]
    for field in ("brainstate_before", "brainstate_after"):  # each working memory once, as a blob
        state = out.get(field)
        if isinstance(state, dict) and isinstance(state.get("working"), dict):
            out[field] = {**state, "working": blobs.JSON_MARKER + dumps(state["working"])}
    modules = out.get("modules")
    if isinstance(modules, dict) and modules:
        out["modules"] = _compact_modules(modules)
    externals = out.get("externals")
    if isinstance(externals, dict) and externals.get("contract_call"):
        out["externals"] = {**externals, "contract_call": [_compact_call(c) for c in externals["contract_call"]]}
    out["form"] = FORM
    return out


def expand(record: dict[str, Any]) -> dict[str, Any]:
    """A stored record with what :func:`compact` left out and can restore put back (records of the older
    form are returned as they are); ``record`` is not changed."""
    if record.get("form") != FORM:
        return record
    out = {key: value for key, value in record.items() if key != "form"}
    for field in ("brainstate_before", "brainstate_after"):
        state = out.get(field)
        if isinstance(state, dict) and isinstance(state.get("working"), str):
            out[field] = {**state, "working": _json_value(state["working"])}
    before, after = out.get("brainstate_before"), out.get("brainstate_after")
    if isinstance(before, dict) and isinstance(after, dict) and "working" not in after and "working" in before:
        out["brainstate_after"] = {**after, "working": before["working"]}
    after = out.get("brainstate_after")
    if "goal" not in out and isinstance(after, dict) and isinstance(after.get("working"), dict):
        out["goal"] = after["working"].get("active_goal")
    externals = out.get("externals")
    if isinstance(externals, dict) and externals.get("contract_call"):
        out["externals"] = {**externals, "contract_call": [_expand_call(c) for c in externals["contract_call"]]}
    return out


def _json_value(text: str) -> Any:
    """A value :func:`compact` wrote as a string (blob references already resolved)."""
    if not text.startswith(blobs.JSON_MARKER):
        return text  # a blob reference nobody resolved: left as it is
    return orjson.loads(text[len(blobs.JSON_MARKER) :])


def comparable(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` (either form, or a replayed tick's full record) as replay compares it: the stored form,
    then expanded, so both sides leave out the same calls and show working memory and the goal whole."""
    return expand(compact(expand(record)))


def by_reference(record: dict[str, Any]) -> dict[str, Any]:
    """The stored form (a goal equal to working memory's active goal left out) with each working memory as its
    blob reference, whether the record's references were resolved or not: what replay tests for equality."""
    out = compact(expand(record))
    for field in ("brainstate_before", "brainstate_after"):
        state = out.get(field)
        if isinstance(state, dict) and "working" in state:
            out[field] = {**state, "working": _reference(state["working"])}
    before, after = out.get("brainstate_before"), out.get("brainstate_after")
    if isinstance(before, dict) and isinstance(after, dict) and "working" in after:
        if after["working"] == before.get("working"):  # unchanged, told by references: as compact() leaves it
            out["brainstate_after"] = {key: value for key, value in after.items() if key != "working"}
    return out


def _reference(working: Any) -> Any:
    if isinstance(working, str) and working.startswith(blobs.MARKER):
        return working
    text = working if isinstance(working, str) else blobs.JSON_MARKER + dumps(working)
    return blobs.MARKER + blobs.digest(text)


def quiet(call: dict[str, Any]) -> bool:
    """Whether a module's phase call did nothing worth a line: no output (``deliberate``: an empty
    proposal), no state written, not skipped nor passed over after a veto."""
    if not call.keys() <= _QUIET_KEYS:
        return False
    output = call.get("output")
    if output is None:
        return True
    return call.get("phase") == "deliberate" and isinstance(output, dict) and all(v == [] for v in output.values())


def _compact_modules(modules: dict[str, Any]) -> dict[str, Any]:
    out = dict(modules)
    if isinstance(out.get("calls"), list):
        out["calls"] = [call for call in out["calls"] if not (isinstance(call, dict) and quiet(call))]
    plugins = out.get("plugins")
    if isinstance(plugins, dict):
        named = {module: plugin for module, plugin in plugins.items() if plugin != module}
        if named:
            out["plugins"] = named
        else:
            del out["plugins"]
    return out


def _compact_call(call: Any) -> Any:
    if not isinstance(call, dict) or call.get("attempts") != [] or "contract" not in call:
        return call  # a model was asked: its attempts are the record of it
    out = {key: value for key, value in call.items() if key != "attempts"}
    if out.get("value", 0) is None:
        del out["value"]
    errors = out.get("errors")
    if errors == []:
        del out["errors"]
    elif errors == [no_provider_error(str(out["contract"]))]:
        out["errors"] = NO_PROVIDER
    return out


def _expand_call(call: Any) -> Any:
    if not isinstance(call, dict) or "attempts" in call or "contract" not in call:
        return call
    errors = call.get("errors", [])
    return {
        "contract": call["contract"],
        "value": call.get("value"),
        "source": call.get("source"),
        "errors": [no_provider_error(str(call["contract"]))] if errors == NO_PROVIDER else errors,
        "attempts": [],
        **{key: value for key, value in call.items() if key not in ("contract", "value", "source", "errors")},
    }


def plugin_of(record: dict[str, Any], module: str) -> str | None:
    """The plugin that registered ``module`` in ``record``'s tick, when the record names it (a record in the
    stored form leaves out a plugin with the module's own name)."""
    modules = record.get("modules") or {}
    named = (modules.get("plugins") or {}).get(module)
    if named is None and record.get("form") == FORM and module in modules.get("order", ()):
        return module
    return named
