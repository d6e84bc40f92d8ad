"""``git_vcontext.workflow.conflicts.list_conflicts``: the README's old path, re-exported from
``git_vcontext.conflicts.listing``."""

from __future__ import annotations

from ..conflicts.listing import list_conflicts

__all__ = ["list_conflicts"]
