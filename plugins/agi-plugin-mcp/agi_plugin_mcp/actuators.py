"""MCP servers' tools as agent tools: ``server.tool``, effect from the tool's annotations.

When a kernel starts, each configured server is asked for its tools; every tool becomes an
``agi_core.Tool`` named ``<server>.<tool>`` whose effect the kernel's policy gates like a
built-in's (:func:`effect_of`). A call's arguments are checked against the tool's
``inputSchema`` (jsonschema) before the server sees them; the server answers within the
timeout or the call fails with one line. The kernel records the observation, so replay asks no
server.

The listing of each server is kept in the agent's database (the plugin's data ``listing:<server>``,
see :func:`agi_core.memory.settings_meta.put_data`) with the configuration it was listed under, so
it moves, exports and replays with the agent: a kernel that finds one for a server configured the
same way registers its tools from there and connects at the first call (``agi config``, ``agi
facts`` … start no server); ``agi mcp tools`` asks every server again. A server that cannot be
reached (or is no longer configured) keeps its tools registered from there, so old ticks replay
without it, and a live call to one fails with one line naming the server. A replay's scratch
agent (``KernelConfig.replaying``) registers the kept tools and asks no server; a kernel opened
for a command that only reads or configures the agent (``KernelConfig.offline``) asks none either:
a server not listed yet has no tools there. Starting and listing a new server take at most
``connect_timeout_s`` together. Listings an older
version kept in ``<db>.state/mcp/<server>.json`` are read too, and moved into the database.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from agi_core import Tool, ToolContext, ToolDefinition, ToolError
from agi_plugin_mcp.plugin import NAME

JSON_TYPES = ("string", "integer", "number", "boolean", "object", "array", "null")
TEXT_CHARS_MAX = 20_000  # of a tool's text content kept in the observation
_CONNECTIONS: dict[int, Connection] = {}  # id(kernel) -> its connection, while it is open


def effect_of(annotations: dict[str, Any] | None) -> str:
    """``read`` for readOnlyHint; ``write`` for destructiveHint, or a closed world (openWorldHint false);
    ``external`` otherwise, no annotations included (MCP's defaults: not read-only, open world)."""
    if not annotations:
        return "external"
    if annotations.get("readOnlyHint") is True:
        return "read"
    if annotations.get("destructiveHint") is True or annotations.get("openWorldHint") is False:
        return "write"
    return "external"


def agi_name(server: str, tool: str) -> str:
    """``server.tool`` with the tool's name folded into ``[a-z0-9_]`` (``Get-Time`` → ``get_time``)."""
    part = re.sub(r"[^a-z0-9_]", "_", tool.lower())[:64]
    return f"{server}.{part if part[:1].isalpha() else ('t' + part)[:64]}"


def parameters_of(schema: dict[str, Any]) -> dict[str, str]:
    """The declared parameters (name → JSON type) in the schema's order; a property without one
    simple type is declared a string (the full schema is checked on every call anyway)."""
    declared: dict[str, str] = {}
    for key, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type") if isinstance(prop, dict) else None
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        declared[key] = kind if kind in JSON_TYPES else "string"
    return declared


def listing_of(tool: Any) -> dict[str, Any]:
    """What the catalog keeps of an ``mcp_types.Tool``."""
    annotations = tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else None
    return {
        "name": tool.name,
        "description": tool.description or "",
        "input_schema": tool.input_schema,
        "annotations": annotations,
    }


def payload_of(server: str, tool: str, result: Any) -> dict[str, Any]:
    """An observation's payload from a ``CallToolResult``: its text, its structured content; an error raises."""
    texts, other = [], []
    for block in result.content:
        if getattr(block, "type", None) == "text":
            texts.append(block.text)
        else:
            other.append(f"[{getattr(block, 'type', '?')} {getattr(block, 'mime_type', '') or ''}]".replace(" ]", "]"))
    text = "\n".join(texts + other)
    if result.is_error:
        first = (text.strip().splitlines() or ["no message"])[0][:300]
        raise ToolError(f"{server}.{tool} reported an error: {first}")
    structured = result.structured_content
    if structured is not None:
        structured = json.loads(json.dumps(structured, default=str))
        if _same_json(text, structured):  # MCP servers repeat structured content as text: keep it once
            return {"structured": structured}
    payload: dict[str, Any] = {"text": text[:TEXT_CHARS_MAX]}
    if len(text) > TEXT_CHARS_MAX:
        payload["truncated_chars"] = len(text) - TEXT_CHARS_MAX
    if structured is not None:
        payload["structured"] = structured
    return payload


def _same_json(text: str, value: Any) -> bool:
    try:
        return bool(json.loads(text) == value)
    except ValueError:
        return False


LISTING = "listing:"  # the plugin data key of a server's listing: listing:<server>


class Catalog:
    """The last listing of each server and the configuration it was listed under, kept in the agent's
    database; ``<db>.state/mcp/<server>.json`` files (an older version's) are read as well."""

    def __init__(self, kernel: Any) -> None:
        from agi_core.memory.settings_meta import stored_data

        self.kernel = kernel
        self.folder: Path = kernel.state_dir / "mcp"
        kept = stored_data(kernel.store, NAME)
        self._kept: dict[str, dict[str, Any]] = {
            key[len(LISTING) :]: value
            for key, value in kept.items()
            if key.startswith(LISTING) and isinstance(value, dict)
        }
        self.only_in_files: set[str] = set()
        for path in sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []:
            if path.stem not in self._kept and isinstance(data := _read_json(path), dict):
                self._kept[path.stem] = data
                self.only_in_files.add(path.stem)

    def save(self, server: str, tools: list[dict[str, Any]], spec: dict[str, Any] | None = None) -> None:
        """Keep the listing in the database (one write transaction, then the seal)."""
        self.keep(server, {"server": server, "configuration": _fingerprint(spec), "tools": tools})

    def keep(self, server: str, data: dict[str, Any]) -> None:
        from agi_core.memory.settings_meta import put_data

        # keys in the schema's order, not sorted: /tool fills bare arguments in the parameters' order
        with self.kernel.write_lock():
            put_data(self.kernel.store, NAME, LISTING + server, data)
        self.kernel.seal()
        self._kept[server] = data
        self.only_in_files.discard(server)

    def kept(self, server: str) -> dict[str, Any]:
        return self._kept.get(server) or {}

    def load(self, server: str) -> list[dict[str, Any]]:
        return list(self.kept(server).get("tools") or [])

    def listed_under(self, server: str, spec: dict[str, Any]) -> bool:
        """Whether the kept listing of ``server`` was made with this configuration (and lists a tool)."""
        data = self.kept(server)
        return bool(data.get("tools")) and data.get("configuration") == _fingerprint(spec)

    def servers(self) -> list[str]:
        return sorted(self._kept)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _fingerprint(spec: dict[str, Any] | None) -> str | None:
    """A digest of a server's configuration (its ``env`` may hold secrets: the digest is kept, not it)."""
    if spec is None:
        return None
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()


class Connection:
    """The kernel's :class:`~agi_plugin_mcp.client.Hub`, started when a server is first asked."""

    def __init__(self, kernel: Any, connect_s: float) -> None:
        self.kernel, self.connect_s = kernel, connect_s
        self._hub: Any = None

    @property
    def hub(self) -> Any:
        if self._hub is None:
            from agi_plugin_mcp.client import Hub

            self._hub = Hub(self.kernel.state_dir / "mcp" / "logs", self.connect_s)
        return self._hub

    def call_tool(self, server: str, spec: dict[str, Any], tool: str, args: dict[str, Any], limit: float) -> Any:
        return self.hub.call_tool(server, spec, tool, args, limit)

    def close(self) -> None:
        """Close the hub if it started (stdio servers stop)."""
        if self._hub is not None:
            self._hub.close()


def make_tool(hub: Any, server: str, spec: dict[str, Any] | None, listed: dict[str, Any], limit: float) -> Tool:
    """The agent tool for one listed MCP tool (``hub``: a :class:`Connection`); ``spec`` None: the server
    is not reachable now."""
    import jsonschema

    name, mcp_name = agi_name(server, listed["name"]), listed["name"]
    schema = listed.get("input_schema") or {"type": "object"}
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    def run(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
        error = jsonschema.exceptions.best_match(validator.iter_errors(args))
        if error is not None:
            where = "$" + "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
            raise ToolError(f"{name}: invalid arguments: {error.message} @ {where}; see its schema: agi mcp tools")
        if spec is None or hub is None:
            raise ToolError(
                f"{name}: mcp server {server!r} is not connected (not configured, or it failed to start); "
                "configure it in the mcp setting servers and restart the agent"
            )
        return payload_of(server, mcp_name, hub.call_tool(server, spec, mcp_name, args, limit))

    description = (listed.get("description") or mcp_name).strip().splitlines()
    definition = ToolDefinition(
        name=name,
        description=f"{description[0][:300] if description else mcp_name} (MCP server {server})",
        parameters=parameters_of(schema),
        effect=effect_of(listed.get("annotations")),  # type: ignore[arg-type]
        # the call's limit, plus connect_timeout_s for a server not started yet: the plugin's limits fire first
        timeout_s=limit + hub.connect_s + 1 if hub is not None else limit,
    )
    return Tool(definition, run)


def start(kernel: Any) -> None:
    """Add the agent's own read tools (:mod:`.agent_tools`), then each configured server's tools, to
    ``kernel.tools``; a failing server is reported and the others go on. A server whose kept listing
    was made under its present configuration is not asked: it starts at its tools' first call."""
    from agi_plugin_mcp.agent_tools import agent_tools

    for tool in agent_tools(kernel):
        _add(kernel, tool)
    _serve(kernel, ask_all=False)


def relist(kernel: Any) -> None:
    """Ask every configured server for its tools again (``agi mcp tools``), keep the listings, and
    register the servers' tools anew."""
    for name in [n for n, plugin in kernel.tool_plugins.items() if plugin == NAME and "." in n]:
        del kernel.tools[name], kernel.tool_plugins[name]
    _serve(kernel, ask_all=True)


def _serve(kernel: Any, *, ask_all: bool) -> None:
    settings = kernel.settings(NAME)
    catalog = Catalog(kernel)
    replaying = bool(getattr(kernel.config, "replaying", False))
    servers: dict[str, dict[str, Any]] = {} if replaying else settings["servers"]  # replay asks no server
    hub = _CONNECTIONS.setdefault(id(kernel), Connection(kernel, float(settings["connect_timeout_s"])))
    offline = bool(getattr(kernel.config, "offline", False)) and not ask_all  # agi status, agi config …: ask none
    asked = {} if offline else {n: s for n, s in servers.items() if ask_all or not catalog.listed_under(n, s)}
    listings = hub.hub.list_tools(asked, hub.connect_s, settings["max_tools"]) if asked else {}
    for server in sorted(set(servers) | set(catalog.servers())):
        spec = servers.get(server)
        limit = float((spec or {}).get("timeout_s") or settings["timeout_s"])
        if kernel.config.timeout_s > 0:  # the agent's --timeout bounds a call too; connecting has its own bound
            limit = min(limit, float(kernel.config.timeout_s))
        listed = catalog.load(server)
        found = listings.get(server)
        if isinstance(found, BaseException):
            kernel.plugins.report_failure(NAME, f"server {server}", str(found))
            spec = None  # its calls fail at once; its last listing keeps old ticks replayable
        elif found is not None:
            listed = [listing_of(tool) for tool in found]
            _keep(kernel, catalog, server, lambda s=server, t=listed, c=spec: catalog.save(s, t, c))
        elif server in catalog.only_in_files and not replaying:  # an older version's file: into the database
            _keep(kernel, catalog, server, lambda s=server: catalog.keep(s, catalog.kept(s)))
        _register(kernel, hub if servers else None, server, spec, listed, limit)


def _keep(kernel: Any, catalog: Catalog, server: str, save: Any) -> None:
    """Keep a listing; one that cannot be written (the database locked) is reported, and its tools serve."""
    try:
        save()
    except Exception as exc:  # noqa: BLE001 - the tools serve this run; the listing is asked again next time
        kernel.plugins.report_failure(NAME, f"server {server}", f"its tool listing was not kept: {exc}")


def _register(kernel: Any, hub: Any, server: str, spec: Any, listed: list[dict[str, Any]], limit: float) -> None:
    for item in listed:
        try:
            _add(kernel, make_tool(hub, server, spec, item, limit))
        except Exception as exc:  # noqa: BLE001 - one bad tool never stops the others
            kernel.plugins.report_failure(NAME, f"server {server}", f"tool {item.get('name')!r} skipped: {exc}")


def _add(kernel: Any, tool: Tool) -> None:
    from agi_core.tools import validate_tool

    if tool.name in kernel.tools:
        raise ToolError(f"tool {tool.name!r} is already registered by plugin {kernel.tool_plugins[tool.name]!r}")
    kernel.tools[tool.name] = validate_tool(tool.name, tool)
    kernel.tool_plugins[tool.name] = NAME


def stop(kernel: Any) -> None:
    connection = _CONNECTIONS.pop(id(kernel), None)
    if connection is not None:
        connection.close()
