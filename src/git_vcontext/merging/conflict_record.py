"""The spec's ``ConflictResolution`` in a document (M15): written, and its JSONPaths read back."""

from __future__ import annotations

import re

from .. import document as doc
from ..values import pointer_parts
from .result import MISSING, MergeResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def with_conflict_resolution(result: MergeResult) -> Any:
    """Ours' data plus a ConflictResolution (strategy threeWayMerge) listing the conflicts."""
    conflicts = []
    for c in result.conflicts:
        conflicts.append(conflict_object(c.path, c.base, c.ours, c.theirs))
        for name, base, ours, theirs in c.bound:  # a status conflict's status fields (M13)
            where = c.path.rpartition("/")[0] + "/" + escape_key(name)
            conflicts.append(conflict_object(where, base, ours, theirs))
    resolution = {"strategy": "threeWayMerge", "conflicts": conflicts}
    return attach_resolution(result.data, resolution, conflict=True)


def attach_resolution(data: Any, resolution: dict[str, Any], *, conflict: bool) -> Any:
    """``data`` carrying ``resolution``: in the ``fork`` of a forked container (whose
    ``mergeStatus`` becomes "conflict" when ``conflict``), else in the info's metadata."""
    info = doc.describe(data)
    for key in info.containers:
        container = data[key]
        if isinstance(container.get(doc.FORK_FIELD), dict):
            fork = dict(container[doc.FORK_FIELD])
            if conflict:
                fork["mergeStatus"] = "conflict"
            fork["conflictResolution"] = resolution
            return {**data, key: {**container, doc.FORK_FIELD: fork}}
    assert info.info_key is not None
    meta = data[info.info_key].get("metadata")
    meta = {**meta} if isinstance(meta, dict) else {}
    meta["conflictResolution"] = resolution
    return {**data, info.info_key: {**data[info.info_key], "metadata": meta}}


def escape_key(name: str) -> str:
    """One RFC 6901 reference token."""
    return name.replace("~", "~0").replace("/", "~1")


def conflict_object(pointer: str, base: Any, ours: Any, theirs: Any) -> dict[str, Any]:
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
    out = "$"
    for part in pointer_parts(pointer):
        if part.isdigit():
            out += f"[{part}]"
        elif _NAME.match(part):
            out += "." + part
        else:
            out += "['" + part.replace("\\", "\\\\").replace("'", "\\'") + "']"
    return out


_STEP = re.compile(r"\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]")


def jsonpath_parts(path: Any) -> list[str | int] | None:
    """The keys and indexes of the spec's JSONPath (``$.a.items[2]['odd key']``), or None."""
    if not isinstance(path, str) or not path.startswith("$"):
        return None
    parts: list[str | int] = []
    pos = 1
    while pos < len(path):
        step = _STEP.match(path, pos)
        if step is None:
            return None
        name, index, quoted = step.groups()
        if index is not None:
            parts.append(int(index))
        else:
            parts.append(name if name is not None else re.sub(r"\\(.)", r"\1", quoted))
        pos = step.end()
    return parts
