"""Edits agents make through the MCP server, correct by construction (pure: no I/O, no git)."""
