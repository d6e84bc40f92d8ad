"""Conflicts as data and choices applied to them: the pure core of ``conflicts`` and ``resolve``.

A conflicted file is re-merged from its three versions (or read from its markers or
its structured ``ConflictResolution``); each conflict gets a stable id, a JSON Pointer
and an id-anchored path; choices (a side, or a value) give the new text in ours'
style. No git, no files: ``conflicts.session`` does the I/O, and the ``conflicts`` and
``resolve`` commands and the MCP tools call it.
"""

from __future__ import annotations

from .model import Choice, FileConflict, Settled, Style

__all__ = ["Choice", "FileConflict", "Settled", "Style"]
