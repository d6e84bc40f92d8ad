"""``git vcontext mcp``: the MCP server of seed 003 over a repository's documents.

Only ``app`` imports the ``mcp`` SDK; the rest (discovery, the parse cache, writes,
git commits, tool logic) is plain Python that the tests drive directly as well.
"""
