"""The MCP tools: their specs, argument checks, and one module per family of tools."""
