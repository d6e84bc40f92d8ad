"""The use cases every front end runs alike (the command line, the MCP server, a script):
``sync`` as a whole; and, at the paths the README documents as library API, the conflicts
listing and the resolve session (re-exported from ``conflicts``)."""
