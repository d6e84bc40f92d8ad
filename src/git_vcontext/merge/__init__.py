"""Three-way merge of vContext (and any JSON) data: rules M1-M17 of PRODUCT.md."""

from __future__ import annotations

import sys
import types

from .result import MISSING, Conflict, MergeOptions, MergeResult, Note

__all__ = ["MISSING", "Conflict", "MergeOptions", "MergeResult", "Note", "merge", "merge3"]


def merge3(
    base: object, ours: object, theirs: object, options: MergeOptions | None = None
) -> MergeResult:
    """Merge parsed data (``MISSING`` for an absent base); conflicts stay data."""
    from .core import merge_values

    return merge_values(base, ours, theirs, options or MergeOptions())


merge = merge3


class _CallableModule(types.ModuleType):
    """Importing ``git_vcontext.merge`` binds the package attribute ``merge`` to this module;
    a callable module keeps the library call ``git_vcontext.merge(base, ours, theirs)`` working."""

    def __call__(
        self, base: object, ours: object, theirs: object, options: MergeOptions | None = None
    ) -> MergeResult:
        return merge3(base, ours, theirs, options)


sys.modules[__name__].__class__ = _CallableModule
