"""A document holding a structured ``ConflictResolution`` (M15): its open conflicts, settled."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import document as doc
from ..merging.conflict_record import jsonpath_parts
from ..merging.result import MISSING
from ..record import replace
from ..values import pointer
from .model import Choice, FileConflict, Settled, conflict_id

if TYPE_CHECKING:
    from typing import Any

    from ..codecs import Document

    Parts = list[str | int]


def resolution_of(data: Any) -> tuple[Parts, dict[str, Any]] | None:
    """Where the document's ConflictResolution is (a fork's, else the info's metadata)."""
    info = doc.describe(data)
    for key in info.containers:
        fork = data[key].get(doc.FORK_FIELD)
        if isinstance(fork, dict) and isinstance(fork.get("conflictResolution"), dict):
            return [key, doc.FORK_FIELD, "conflictResolution"], fork["conflictResolution"]
    if info.info_key is not None:
        meta = data[info.info_key].get("metadata")
        if isinstance(meta, dict) and isinstance(meta.get("conflictResolution"), dict):
            return [info.info_key, "metadata", "conflictResolution"], meta["conflictResolution"]
    return None


def has_unresolved(data: Any) -> bool:
    found = resolution_of(data)
    return found is not None and any(_open(e) for e in _entries(found[1]))


class StructuredFile:
    """The unresolved ``Conflict`` objects of a document, settled in place (values and status)."""

    base_known = True  # each Conflict records its base

    def __init__(self, document: Document) -> None:
        self.ours = document
        found = resolution_of(document.data)
        self.at, record = found if found else ([], {})
        self.listed: list[tuple[int, Parts, FileConflict]] = []
        for index, entry in enumerate(_entries(record)):
            parts = jsonpath_parts(entry.get("path")) if _open(entry) else None
            if parts is not None:
                self.listed.append((index, parts, self._conflict(parts, entry)))
        # status fields recorded beside their status conflict go with it (M13)
        self.followers: dict[str, list[tuple[int, Parts]]] = {}
        self.listed = self._bind(self.listed)

    def _bind(
        self, listed: list[tuple[int, Parts, FileConflict]]
    ) -> list[tuple[int, Parts, FileConflict]]:
        statuses = {
            tuple(parts): i
            for i, (_, parts, c) in enumerate(listed)
            if parts and parts[-1] == doc.STATUS_FIELD and c.kind == "status"
        }
        if not statuses:
            return listed
        kept: list[tuple[int, Parts, FileConflict]] = []
        bound: dict[int, list[tuple[str, Any, Any, Any]]] = {}
        follow: dict[int, list[tuple[int, Parts]]] = {}
        for index, parts, c in listed:
            name = parts[-1] if parts else None
            owner = statuses.get((*parts[:-1], doc.STATUS_FIELD)) if parts else None
            if owner is not None and isinstance(name, str) and doc.is_status_bound(name):
                bound.setdefault(owner, []).append((name, c.base, c.ours, c.theirs))
                follow.setdefault(owner, []).append((index, parts))
            else:
                kept.append((index, parts, c))
        out = []
        for index, parts, c in kept:
            owner = statuses.get(tuple(parts))
            if owner is not None and owner in bound:
                c = replace(c, bound=tuple(bound[owner]))
                self.followers[c.id] = follow[owner]
            out.append((index, parts, c))
        return out

    def _conflict(self, parts: Parts, entry: dict[str, Any]) -> FileConflict:
        data = self.ours.data
        where = doc.anchored_path(data, parts)
        ours = _at(data, parts)  # the document holds ours' value; none there: ours is absent
        # the record writes null for a side that has no value there (M15): read it back as
        # absent, unless ours' document holds null at that very place (then null is data)
        null_is_data = ours is None
        base, theirs = (_recorded(entry, key, null_is_data) for key in ("baseValue", "theirsValue"))
        kind = "status" if parts and parts[-1] == doc.STATUS_FIELD else "modify/modify"
        if ours is MISSING or theirs is MISSING:
            kind = "delete/modify"
        elif base is MISSING and kind != "status":
            kind = "add/add"
        return FileConflict(
            conflict_id(where, kind, base, ours, theirs),
            pointer(parts),
            where,
            kind,
            base,
            ours,
            theirs,
        )

    @property
    def conflicts(self) -> list[FileConflict]:
        return [c for _, _, c in self.listed]

    def remaining(self, choices: dict[str, Choice]) -> list[FileConflict]:
        return [c for c in self.conflicts if c.id not in choices]

    def settle(
        self,
        choices: dict[str, Choice],
        style: object = None,
        *,
        resolved_by: dict[str, Any] | None = None,
        now: str | None = None,
        text: bool = True,
    ) -> Settled:
        """Values set at each chosen conflict's place, its Conflict marked resolved."""
        data = self.ours.data
        record = _at(data, self.at)
        entries = [dict(e) if isinstance(e, dict) else e for e in _entries(record)]
        for index, parts, c in self.listed:
            if c.id in choices:
                value = choices[c.id].value_for(c)
                data = set_at(data, parts, value)
                entries[index]["status"] = "resolved"
                if value is not MISSING:
                    entries[index]["resolution"] = value
                bound = c.bound_for(choices[c.id]) or {}
                for at, where in self.followers.get(c.id, ()):
                    field = bound.get(str(where[-1]), _at(data, where))
                    data = set_at(data, where, field)
                    entries[at]["status"] = "resolved"
                    if field is not MISSING:
                        entries[at]["resolution"] = field
        record = {**record, "conflicts": entries}
        remaining = tuple(self.remaining(choices))
        if not remaining:
            record.update(
                {k: v for k, v in (("resolvedAt", now), ("resolvedBy", resolved_by)) if v}
            )
        data = set_at(data, self.at, record)
        if not remaining:
            data = _merge_pending(data, self.at)
        return Settled(self.ours.render(data) if text else None, data, remaining)


def _merge_pending(data: Any, at: Parts) -> Any:
    """A fork whose conflicts are all resolved is no longer ``mergeStatus: "conflict"``."""
    if len(at) == 3 and at[1] == doc.FORK_FIELD:
        fork = _at(data, at[:2])
        if isinstance(fork, dict) and fork.get("mergeStatus") == "conflict":
            return set_at(data, [*at[:2], "mergeStatus"], "mergePending")
    return data


def _recorded(entry: dict[str, Any], key: str, null_is_data: bool) -> Any:
    """A side's value as the record holds it; MISSING for none, or for null (how the record
    writes a side without a value) unless null is data at that place."""
    value = entry.get(key, MISSING)
    return MISSING if value is None and not null_is_data else value


def _entries(record: Any) -> list[Any]:
    entries = record.get("conflicts") if isinstance(record, dict) else None
    return entries if isinstance(entries, list) else []


def _open(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("status") == "unresolved"


def _at(data: Any, parts: Parts) -> Any:
    node = data
    for part in parts:
        if not _has(node, part):
            return MISSING
        node = node[part]
    return node


def _has(node: Any, part: str | int) -> bool:
    if isinstance(node, dict):
        return isinstance(part, str) and part in node
    return isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)


def set_at(data: Any, parts: Parts, value: Any) -> Any:
    """A copy of ``data`` with ``value`` at ``parts`` (MISSING: removed there)."""
    if not parts:
        return value
    head, rest = parts[0], parts[1:]
    if isinstance(data, dict) and isinstance(head, str):
        child = set_at(data.get(head, MISSING), rest, value) if rest else value
        out = dict(data)
        if child is MISSING:
            out.pop(head, None)
        else:
            out[head] = child
        return out
    if isinstance(data, list) and isinstance(head, int) and 0 <= head <= len(data):
        items = list(data)
        child = set_at(items[head], rest, value) if rest and head < len(items) else value
        if child is MISSING:
            del items[head : head + 1]
        elif head == len(items):
            items.append(child)
        else:
            items[head] = child
        return items
    return data
