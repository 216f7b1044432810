"""Declared plugin settings: the schema a plugin's ``agi_manifest["settings"]`` gives, parsing and checking values.

A plugin declares its settings as a JSON Schema object whose ``properties`` are the keys,
each with a ``default``. A value comes from, in order of precedence: the environment
(``AGI_PLUGIN_<PLUGIN>_<KEY>``), the agent's database (``agi config set``), the default.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from agi_core.errors import RegistrationError, ValidationError
from agi_core.schemas import remote_problem, remote_reference

KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def check_declaration(settings: Any) -> None:
    """Refuse a settings declaration that is not a JSON Schema object with a default for every key.

    jsonschema-rs checks a valid declaration (every plugin load, agi --help included: it imports no
    attrs); jsonschema runs only to name the problem of an invalid one."""
    import jsonschema_rs

    remote = remote_reference(settings)  # first: the meta-schema check would fetch a remote "$schema"
    if remote is not None:
        fix = "write that schema into the setting's own schema"
        raise RegistrationError(f"agi_manifest settings {remote_problem(remote[1], remote[0], fix)}")
    if not jsonschema_rs.meta.is_valid(settings):
        import jsonschema

        try:
            jsonschema.Draft202012Validator.check_schema(settings)
        except jsonschema.SchemaError as exc:
            raise RegistrationError(f"agi_manifest settings is not a valid JSON Schema: {exc.message}") from None
    properties = settings.get("properties") if isinstance(settings, dict) else None
    if settings.get("type") != "object" or not isinstance(properties, dict):
        raise RegistrationError('agi_manifest settings must be {"type": "object", "properties": {...}}')
    for key, schema in properties.items():
        if not key or not set(key) <= KEY_CHARS or not key[0].isalpha():
            raise RegistrationError(f"setting {key!r}: use lower-case letters, digits and _ (it is also an env name)")
        if not isinstance(schema, dict) or "default" not in schema:
            raise RegistrationError(f'setting {key!r} declares no default; add a "default" to its schema')
        check_value("?", key, schema, schema["default"])


def declared(plugins: Any) -> dict[str, dict[str, Any]]:
    """``{plugin: {key: property schema}}`` for every loaded plugin that declares settings, by name."""
    found: dict[str, dict[str, Any]] = {}
    for name, plugin in sorted(plugins.pm.list_name_plugin(), key=lambda pair: pair[0]):
        manifest = getattr(plugin, "agi_manifest", None)
        if isinstance(manifest, dict) and isinstance(manifest.get("settings"), dict):
            found[name] = dict(manifest["settings"]["properties"])
    return found


def env_name(plugin: str, key: str) -> str:
    """``AGI_PLUGIN_<PLUGIN>_<KEY>``, upper case, any character but letters and digits as ``_``."""
    return "".join(c if c.isalnum() else "_" for c in f"AGI_PLUGIN_{plugin}_{key}".upper())


def schema_for(settings: dict[str, dict[str, Any]], plugin: str, key: str) -> dict[str, Any]:
    """The schema of ``plugin.key``; a one-line error naming what exists when there is no such setting."""
    if plugin not in settings:
        known = ", ".join(settings) or "none"
        raise ValidationError(f"no plugin named {plugin!r} declares settings; plugins with settings: {known}")
    if key not in settings[plugin]:
        raise ValidationError(f"plugin {plugin!r} has no setting {key!r}; its settings: {', '.join(settings[plugin])}")
    return settings[plugin][key]


def _takes_text(schema: dict[str, Any]) -> bool:
    """A string setting, or a choice among strings (``{"enum": ["plain", "warm"]}``): text is its value as is."""
    choices = schema.get("enum")
    return schema.get("type") == "string" or (
        isinstance(choices, list) and bool(choices) and all(isinstance(choice, str) for choice in choices)
    )


def parse(plugin: str, key: str, schema: dict[str, Any], text: str) -> Any:
    """A value given as text (command line, environment): as is for a string setting or a choice among strings
    (JSON quotes around it are taken off), else JSON."""
    if _takes_text(schema):
        if schema.get("type") != "string" and len(text) >= 2 and text[0] == text[-1] == '"':
            try:
                return orjson.loads(text)  # '"plain"', as an earlier agi wanted it
            except orjson.JSONDecodeError:
                return text
        return text
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        choices = schema.get("enum")
        fix = f"one of {orjson.dumps(choices).decode()}" if isinstance(choices, list) else "a value of type "
        fix += "" if isinstance(choices, list) else str(schema.get("type", "any"))
        raise ValidationError(f"{plugin}.{key}: {text!r} is not a JSON value; give {fix}") from None


def check_value(plugin: str, key: str, schema: dict[str, Any], value: Any) -> Any:
    """``value`` if it matches the setting's schema; a one-line error naming plugin, key and the fix otherwise."""
    import jsonschema_rs

    if jsonschema_rs.validator_for(schema, offline=True).is_valid(value):
        return value
    import jsonschema

    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(value))
    if error is not None:
        wanted = orjson.dumps({k: v for k, v in schema.items() if k not in ("description", "default")}).decode()
        raise ValidationError(f"invalid value for {plugin}.{key}: {error.message}; give a value matching {wanted}")
    return value


def from_environment(settings: dict[str, dict[str, Any]], report: Any) -> dict[str, dict[str, Any]]:
    """``{plugin: {key: value}}`` set by ``AGI_PLUGIN_*`` variables; an invalid one is reported and ignored."""
    found: dict[str, dict[str, Any]] = {}
    for plugin, keys in settings.items():
        for key, schema in keys.items():
            text = os.environ.get(env_name(plugin, key))
            if text is None:
                continue
            try:
                found.setdefault(plugin, {})[key] = check_value(plugin, key, schema, parse(plugin, key, schema, text))
            except ValidationError as exc:
                report(plugin, "settings", f"{env_name(plugin, key)} ignored: {exc}")
    return found
