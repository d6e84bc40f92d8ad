"""Three-way merge of vContext (and any JSON) data: rules M1-M19 of PRODUCT.md.

The library function is ``git_vcontext.merge`` (this package's ``merge``).
"""

from __future__ import annotations

from .result import MISSING, Conflict, MergeOptions, MergeResult, Note

__all__ = ["MISSING", "Conflict", "MergeOptions", "MergeResult", "Note", "merge", "merge3"]


def merge3(
    base: object, ours: object, theirs: object, options: MergeOptions | None = None
) -> MergeResult:
    """Merge parsed data (``MISSING`` for an absent base); conflicts stay data."""
    # lazy: `git_vcontext.merging` is imported for its records too
    from .core import merge_values

    return merge_values(base, ours, theirs, options or MergeOptions())


merge = merge3
