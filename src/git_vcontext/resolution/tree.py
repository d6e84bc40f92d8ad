"""Conflicts in a merge tree (data with ConflictNode placeholders): listed, replaced, built."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import document as doc
from ..merging.render import conflicted
from ..merging.result import MISSING, ConflictNode
from ..values import pointer, same
from .model import FileConflict, conflict_id

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Parts = list[str | int]


def listed(tree: Any) -> list[tuple[ConflictNode, FileConflict]]:
    """Every conflict in document order, with its pointer (into ours' data), place and id."""
    view = _labelled(tree)
    found: list[tuple[ConflictNode, FileConflict]] = []
    _walk(tree, [], [], view, found)
    seen: dict[str, int] = {}
    out = []
    for node, c in found:  # two conflicts alike in every way still get two ids
        n = seen[c.id] = seen.get(c.id, 0) + 1
        out.append((node, c if n == 1 else _renamed(c, f"{c.id}-{n}")))
    return out


def _renamed(c: FileConflict, new_id: str) -> FileConflict:
    return FileConflict(new_id, c.pointer, c.where, c.kind, c.base, c.ours, c.theirs, c.bound)


def _walk(node: Any, tree_parts: Parts, data_parts: Parts, view: Any, found: list[Any]) -> None:
    if isinstance(node, ConflictNode):
        where = doc.anchored_path(view, tree_parts)
        ident = conflict_id(where, node.kind, node.base, node.ours, node.theirs)
        bound = tuple((name, *values) for name, values in node.bound.items())
        conflict = FileConflict(
            ident, pointer(data_parts), where, node.kind, node.base, node.ours, node.theirs, bound
        )
        found.append((node, conflict))
    elif isinstance(node, dict):
        for key, value in node.items():
            _walk(value, [*tree_parts, key], [*data_parts, key], view, found)
    elif isinstance(node, list):
        kept = 0
        for i, value in enumerate(node):
            _walk(value, [*tree_parts, i], [*data_parts, kept], view, found)
            if not (isinstance(value, ConflictNode) and value.ours is MISSING):
                kept += 1


def _labelled(tree: Any) -> Any:
    """The tree with each conflict replaced by a value that names it (ours', else theirs',
    else base's), keeping every list position, so that elements are named by their ids."""
    if isinstance(tree, ConflictNode):
        for value in (tree.ours, tree.theirs, tree.base):
            if value is not MISSING:
                return value
        return None
    if isinstance(tree, dict):
        return {k: _labelled(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_labelled(v) for v in tree]
    return tree


def replaced(
    tree: Any,
    decide: Callable[[ConflictNode], Any],
    bound: Callable[[ConflictNode], dict[str, Any] | None] | None = None,
) -> Any:
    """The tree with each conflict replaced by ``decide(node)`` (the node itself: left as it
    is; MISSING: removed from its object or list). Parts without a conflict are kept as
    they are (the same objects), which keeps rendering them cheap. ``bound(node)``: the
    values a decided status conflict gives its status fields (M13; None: leave them)."""
    return _replaced(tree, decide, conflicted(tree), bound or _no_bound)


def _no_bound(node: ConflictNode) -> None:
    return None


def _replaced(
    tree: Any,
    decide: Callable[[ConflictNode], Any],
    dirty: set[int],
    bound: Callable[[ConflictNode], dict[str, Any] | None],
) -> Any:
    if isinstance(tree, ConflictNode):
        return decide(tree)
    if id(tree) not in dirty:
        return tree
    if isinstance(tree, dict):
        out = {k: _replaced(v, decide, dirty, bound) for k, v in tree.items()}
        for v in tree.values():  # a decided status conflict's status fields (M13)
            values = bound(v) if isinstance(v, ConflictNode) and v.bound else None
            if values is not None:
                out.update(values)
        return {k: v for k, v in out.items() if v is not MISSING}
    if isinstance(tree, list):
        items = (_replaced(x, decide, dirty, bound) for x in tree)
        return [v for v in items if v is not MISSING]
    return tree


def difference_tree(ours: Any, theirs: Any, key: Any = None) -> Any:
    """Ours with a conflict wherever theirs differs (no base known: every difference is one).

    Objects key by key; arrays whose elements all carry an identity key (``id``…)
    element by element, other arrays of equal length position by position; anything
    else that differs is one conflict.
    """
    if same(ours, theirs):
        return ours
    if isinstance(ours, dict) and isinstance(theirs, dict):
        keys = list(ours) + [k for k in theirs if k not in ours]
        return {k: difference_tree(ours.get(k, MISSING), theirs.get(k, MISSING), k) for k in keys}
    if isinstance(ours, list) and isinstance(theirs, list):
        return _difference_list(ours, theirs)
    return ConflictNode(_kind(key, ours, theirs), MISSING, ours, theirs)


def _kind(key: Any, ours: Any, theirs: Any) -> str:
    if ours is MISSING or theirs is MISSING:
        return "delete/modify"
    return "status" if key == doc.STATUS_FIELD else "modify/modify"


def _difference_list(ours: list[Any], theirs: list[Any]) -> Any:
    key = doc.identity_key([ours, theirs])
    if key is None or any(doc.element_id(e, key) is None for e in (*ours, *theirs)):
        if len(ours) != len(theirs):
            return ConflictNode("modify/modify", MISSING, ours, theirs)
        return [difference_tree(o, t) for o, t in zip(ours, theirs, strict=True)]
    by_id = {doc.element_id(e, key): e for e in theirs}
    out: list[Any] = []
    at: dict[Any, int] = {}  # id -> position in out
    for e in ours:
        ident = doc.element_id(e, key)
        match = by_id.pop(ident, MISSING)
        at[ident] = len(out)
        out.append(difference_tree(e, match) if match is not MISSING else _alone(e, MISSING))
    previous = None
    for e in theirs:  # theirs' own elements go after their predecessor in theirs
        ident = doc.element_id(e, key)
        if ident in by_id:
            spot = at[previous] + 1 if previous in at else 0
            out.insert(spot, _alone(MISSING, e))
            at = {k: (i + 1 if i >= spot else i) for k, i in at.items()}
            at[ident] = spot
        previous = ident
    return out


def _alone(ours: Any, theirs: Any) -> ConflictNode:
    return ConflictNode("delete/modify", MISSING, ours, theirs)
