"""Conflicts in a repository: listed, resolved by choices, and where a sync conflict is left."""
