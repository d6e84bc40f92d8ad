"""``git_vcontext.workflow.resolve.open_file``: the README's old path, re-exported from
``git_vcontext.conflicts.session``."""

from __future__ import annotations

from ..conflicts.session import open_file

__all__ = ["open_file"]
