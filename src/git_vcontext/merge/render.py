"""Writing a merge result: in ours' format and style, conflicts as markers or as data (M15)."""

from __future__ import annotations

import re

from .. import document as doc
from .result import MISSING, ConflictNode, MergeResult
from .textmerge import Markers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..codecs import Document


def render(
    ours: Document, result: MergeResult, *, structured: bool = False, markers: Markers | None = None
) -> str:
    """The merged text; conflicts become marker blocks, or ConflictResolution data."""
    if result.clean:
        return ours.render(result.data)
    if structured and doc.is_vcontext(result.data):
        return ours.render(with_conflict_resolution(result))
    return _with_markers(ours, result, markers or Markers())


def side_of(tree: Any, side: str) -> Any:
    """The tree with every conflict replaced by one side's value ("ours"/"theirs"/"base")."""
    if isinstance(tree, ConflictNode):
        return getattr(tree, side)
    if isinstance(tree, dict):
        out = {k: side_of(v, side) for k, v in tree.items()}
        return {k: v for k, v in out.items() if v is not MISSING}
    if isinstance(tree, list):
        return [v for v in (side_of(x, side) for x in tree) if v is not MISSING]
    return tree


def _with_markers(ours: Document, result: MergeResult, markers: Markers) -> str:
    """Render ours' and theirs' versions; where their lines differ, write conflict blocks."""
    text_o = ours.render(side_of(result.tree, "ours"))
    text_t = ours.render(side_of(result.tree, "theirs"))
    text_b = ours.render(side_of(result.tree, "base")) if markers.diff3 else ""
    newline = "\r\n" if "\r\n" in text_o else "\n"
    markers = Markers(
        markers.size,
        markers.ours_label,
        markers.base_label,
        markers.theirs_label,
        markers.diff3,
        newline,
    )
    o, t = text_o.splitlines(keepends=True), text_t.splitlines(keepends=True)
    b = text_b.splitlines(keepends=True)
    from difflib import SequenceMatcher

    to_base = _line_map(o, b) if markers.diff3 else []
    out: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, o, t, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(o[i1:i2])
            continue
        base_lines = _base_region(to_base, b, i1, i2) if markers.diff3 else []
        out.extend(markers.block(o[i1:i2], base_lines, t[j1:j2]))
    return "".join(out)


def _line_map(o: list[str], b: list[str]) -> list[int | None]:
    from difflib import SequenceMatcher

    out: list[int | None] = [None] * len(o)
    for x, y, size in SequenceMatcher(None, o, b, autojunk=False).get_matching_blocks():
        for k in range(size):
            out[x + k] = y + k
    return out


def _base_region(to_base: list[int | None], b: list[str], i1: int, i2: int) -> list[str]:
    """The base lines between the equal lines that surround ours' region [i1, i2)."""
    start = next((to_base[i] for i in range(i1 - 1, -1, -1) if to_base[i] is not None), -1)
    end = next((to_base[i] for i in range(i2, len(to_base)) if to_base[i] is not None), len(b))
    assert start is not None and end is not None
    return b[start + 1 : end]


# -- structured conflicts (M15) -----------------------------------------------------


def with_conflict_resolution(result: MergeResult) -> Any:
    """Ours' data plus a ConflictResolution (strategy threeWayMerge) listing the conflicts."""
    data = result.data
    resolution = {
        "strategy": "threeWayMerge",
        "conflicts": [_conflict_object(c.path, c.base, c.ours, c.theirs) for c in result.conflicts],
    }
    info = doc.describe(data)
    for key in info.containers:
        container = data[key]
        if isinstance(container.get(doc.FORK_FIELD), dict):
            fork = {
                **container[doc.FORK_FIELD],
                "mergeStatus": "conflict",
                "conflictResolution": resolution,
            }
            return {**data, key: {**container, doc.FORK_FIELD: fork}}
    assert info.info_key is not None
    meta = data[info.info_key].get("metadata")
    meta = {**meta} if isinstance(meta, dict) else {}
    meta["conflictResolution"] = resolution
    return {**data, info.info_key: {**data[info.info_key], "metadata": meta}}


def _conflict_object(pointer: str, base: Any, ours: Any, theirs: Any) -> dict[str, Any]:
    def value(v: Any) -> Any:
        return None if v is MISSING else v

    return {
        "path": jsonpath(pointer),
        "baseValue": value(base),
        "oursValue": value(ours),
        "theirsValue": value(theirs),
        "status": "unresolved",
    }


_NAME = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


def jsonpath(pointer: str) -> str:
    """The spec's JSONPath with index notation for an RFC 6901 pointer: ``$.a.items[2].b``."""
    from ..values import pointer_parts

    out = "$"
    for part in pointer_parts(pointer):
        if part.isdigit():
            out += f"[{part}]"
        elif _NAME.match(part):
            out += "." + part
        else:
            out += "['" + part.replace("\\", "\\\\").replace("'", "\\'") + "']"
    return out
