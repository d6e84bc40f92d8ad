"""Conflicts settled without a person, each kept as a note: favor, and virtual bases (M16)."""

from __future__ import annotations

from .render import side_of
from .result import MergeResult, Note

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def favored(result: MergeResult, side: str) -> MergeResult:
    """Every conflict settled on ``side`` (``merge.vcontext.favor``), each one kept as a note."""
    why = f"resolved to {side} (merge.vcontext.favor)"
    return settled_on(result, side, "favored", why, (("favored", side),))


def settled_on(
    result: MergeResult,
    side: str,
    kind: str,
    why: str,
    details: tuple[tuple[str, Any], ...] = (),
) -> MergeResult:
    """Every conflict settled on ``side`` ("ours", "theirs", "base"), each one a note
    (``kind``) that keeps the conflict's values."""
    data = side_of(result.tree, side)
    notes = tuple(
        Note(kind, c.path, f"{c.kind} conflict: {why}", (*details, ("conflict", _values(c))))
        for c in result.conflicts
    )
    return MergeResult(data, (), (*result.notes, *notes), data)


def _values(conflict: Any) -> dict[str, Any]:
    return {k: v for k, v in conflict.to_json().items() if k != "path"}
