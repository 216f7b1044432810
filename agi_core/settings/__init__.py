"""Per-plugin settings: declared in ``agi_manifest["settings"]`` (JSON Schema), read with ``kernel.settings(name)``.

Values come from ``AGI_PLUGIN_<PLUGIN>_<KEY>`` (wins), then the agent's database
(``agi config set``, a journaled kernel command), then the schema's default. See docs/plugin-tutorial.md.
"""
