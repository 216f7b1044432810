"""``agi serve``: an inspector in the browser for an agi-core agent (docs/inspector.md)."""
