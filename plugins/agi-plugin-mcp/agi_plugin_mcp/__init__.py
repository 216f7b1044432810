"""MCP for agi-core: MCP servers' tools as agent tools, and the agent as an MCP server (``agi mcp serve``)."""
