"""Render docs/hooks.md from the hookspecs' docstrings: ``python -m agi_core.hooksdoc > docs/hooks.md``.

One section per hook, in :data:`agi_core.hookspecs.HOOK_NAMES` order: the heading
``name(args)``, the docstring's Markdown, its parameters, whether the first result wins
(``firstresult``) and the version that added it. ``tests/test_hooks.py`` checks the file is fresh.
"""

from __future__ import annotations

import inspect
from typing import Any

from agi_core import hookspecs

REGENERATE = "python -m agi_core.hooksdoc > docs/hooks.md"

INTRO = f"""# Hooks reference

<!-- Generated from agi_core/hookspecs.py by `{REGENERATE}`; edit the docstrings, not this file. -->

Every hook agi-core calls. Specs live in `agi_core/hookspecs.py`; implement them with
`from agi_core import hookimpl`. The examples on this page run, in order, as one module
(`tests/test_docs.py` runs them); the first block holds the imports they share.

```python
import click

from agi_core import Action, Input, Tool, ToolContext, ToolDefinition, ToolError, ToolPolicy, hookimpl
from agi_core.reasoning import AgentReply
from agi_core.testing import open_kernel
```

Core code calls every hook through pluggy (`pm.hook.<name>(...)`, keyword arguments, behind
one typed method per hook of `agi_core.plugins.Plugins`: `agi_register_sensors` is
`Plugins.register_sensors`), so `tryfirst`, `trylast`, `wrapper=True` and `hookwrapper=True`
mean exactly what [pluggy](https://pluggy.readthedocs.io/) says. Implementations may take any
subset of the arguments; one that asks for an argument its hook lacks is reported and left out.

**Call order.** pluggy calls the most recently registered implementation first and has no
ordering API (pluggy#250), so agi-core registers the plugins once, by name, after loading
them: every hook calls its implementations by priority (wrappers, then `tryfirst`, then plain,
then `trylast`), then by plugin name, whatever order the plugins were loaded in. `Plugins.call_order(hook)` shows it.
Each tick's journal record lists, in `hook_order`, every hook with at least one
implementation that ran in that tick and its plugins in call order (`agi_after_tick`: the
plugins it calls once the tick is stored; registration hooks aside: what they register is
collected once per kernel); `agi replay` compares it.

**Registration hooks** receive a `register(obj, *, name=None)` callback. `name` defaults to
the object's `name` attribute (or `__name__`). Registering a name another plugin already took
is an error that names both plugins; the second registration is skipped, the first kept.
Built-in plugins' registrations count first, whatever `tryfirst`/`trylast` say, and a name a
built-in registered is refused to every other plugin (the error names the plugin that tried).

**Failures.** A hook implementation that raises anything (`SystemExit` included; only
`KeyboardInterrupt` passes) is reported (`agi: warning: plugin 'x' failed in <hook>: …`) and
skipped while the others still run; a wrapper that raises steps aside and the result passes
through. `agi plugins` lists the plugin as `FAILED` with the error (it runs every
registration hook to find out). A function named like a hook but not marked with
`@hookimpl` would never be called: it is reported (`decorate it with @agi_core.hookimpl`).
A function named `agi_*` that is no hook refuses the plugin, and so does an implementation
pluggy's `check_pending()` finds for an unknown hook.

**Lifecycle.** For each kernel: registration hooks (when it opens) → `agi_start_plugin` →
per tick `agi_before_tick` … `agi_after_tick` (and `agi_restore_checkpoint` on a rollback)
→ `agi_stop_plugin` (when it closes).

A plugin module may also declare `agi_manifest`, a dict validated against
`schemas/plugin_manifest.json` when the plugin loads: `description`, `requires_agi_core`
(a version specifier such as `">=0.1,<1"`; a plugin that needs another agi-core is refused
with a one-line reason), `homepage`, `tags`, and `settings` (a JSON Schema of the plugin's
settings, see [the tutorial](plugin-tutorial.md#settings)). For the installed plugins of the
`agi` command and of a kernel opened without a plugin set, "when it loads" is before the
first hook other than `agi_register_commands` runs: `agi --help` lists a plugin's commands
without checking its manifest, and a command does not run until every manifest is checked
(a plugin refused then loses its commands).
"""

OUTRO = """## Testing a plugin
The fixtures and helpers of `agi_core.testing` ([testing.md](testing.md)) come with
agi-core; running them needs its `test` extra (`pip install 'agi-core[test]'`, or a `test`
extra of your own that requires it, as in [the tutorial](plugin-tutorial.md)).
"""


def inline(text: str) -> str:
    """reStructuredText inline markup as Markdown, outside code blocks: ``x`` and :role:`~a.b` become `x`, `a.b`."""
    lines, code = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            code = not code
        elif not code:
            line = line.replace("``", "`")
            for role in (":class:`", ":meth:`", ":func:`", ":mod:`", ":attr:`", ":data:`"):
                line = line.replace(role + "~", "`").replace(role, "`")
        lines.append(line)
    return "\n".join(lines)


def split_fields(doc: str) -> tuple[str, list[tuple[str, str]], str]:
    """``(body, [(param, text)], versionadded)`` of a hookspec docstring."""
    body: list[str] = []
    params: list[tuple[str, str]] = []
    version = ""
    field = False
    for line in doc.splitlines():
        if line.startswith(":param "):
            name, _, text = line[len(":param ") :].partition(":")
            params.append((name.strip(), text.strip()))
            field = True
        elif line.startswith(".. versionadded::"):
            version = line.partition("::")[2].strip()
            field = True
        elif field and line.startswith(" ") and params:
            params[-1] = (params[-1][0], f"{params[-1][1]} {line.strip()}")
        elif not line.strip() and field:
            continue
        else:
            field = False
            body.append(line)
    return "\n".join(body).strip(), params, version


def section(name: str) -> str:
    """The Markdown section of hook ``name``."""
    function: Any = getattr(hookspecs, name)
    args = ", ".join(inspect.signature(function).parameters)
    body, params, version = split_fields(inspect.getdoc(function) or "")
    firstresult = bool(getattr(function, "agi_spec", {}).get("firstresult"))
    lines = [f"## `{name}({args})`", inline(body), "", "**Parameters**", ""]
    lines += [f"- `{param}`: {inline(text)}" for param, text in params] or ["- none"]
    lines += [
        "",
        "**firstresult**: "
        + (
            "yes: the first implementation that returns a value wins."
            if firstresult
            else "no: every implementation runs."
        ),
    ]
    if version:
        lines += ["", f"*Added in {version}.*"]
    return "\n".join(lines) + "\n"


def render() -> str:
    """The whole of docs/hooks.md."""
    return "\n".join([INTRO, *(section(name) for name in hookspecs.HOOK_NAMES), OUTRO])


def main() -> None:
    print(render(), end="")


if __name__ == "__main__":
    main()
