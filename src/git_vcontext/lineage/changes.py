"""An item's changes between two versions: the structural diff, kept to what is under it."""

from __future__ import annotations

from typing import Any

from ..diffing.core import diff
from ..diffing.files import skeleton
from ..diffing.model import ABSENT, Change
from .items import key_of
from .parsed import Version
from .slots import ENTRY

Key = str | None
"""An id as ``FILE#ID`` names it; None stands for the whole document."""


class Differ:
    """Structural diffs of version pairs, each computed once (several ids share them)."""

    def __init__(self) -> None:
        self._done: dict[tuple[Any, ...], tuple[Change, ...]] = {}

    def changes(self, old: Version, new: Version, keys: set[Key]) -> tuple[Change, ...]:
        """What changed from ``old`` to ``new`` under the items ``keys`` names (all of it
        for None), in diff order."""
        every = self._diff(old, new)
        if None in keys:
            return every
        spots = [_Spots(old, new, key) for key in keys if key is not None]
        return tuple(c for c in every if any(s.holds(c) for s in spots))

    def _diff(self, old: Version, new: Version) -> tuple[Change, ...]:
        key = (old.blob, old.path, new.blob, new.path)
        found = self._done.get(key)
        if found is None:
            before, after = old.data, new.data
            if before is None and after is None:
                found = ()
            else:
                before = skeleton(after) if before is None else before
                after = skeleton(before) if after is None else after
                found = diff(before, after).changes
            self._done[key] = found
        return found


class _Spots:
    """Where one id's elements are, before and after (JSON Pointers)."""

    def __init__(self, old: Version, new: Version, key: str) -> None:
        self.key = key
        self.before = _pointers(old, key)
        self.after = _pointers(new, key)

    def holds(self, change: Change) -> bool:
        if change.view:  # a playbook entry's view: named by its targetId
            return change.id is not ABSENT and key_of(change.id) == self.key
        if change.op == "remove":
            return _under(change.path, self.before)
        if change.op == "move" and change.from_path is not None:
            return _under(change.path, self.after) or _under(change.from_path, self.before)
        return _under(change.path, self.after)


def _pointers(version: Version, key: str) -> list[str]:
    if version.data is None:
        return []
    return [s.pointer for s in version.index.find(key) if s.kind != ENTRY]


def _under(path: str, pointers: list[str]) -> bool:
    return any(path == p or path.startswith(p + "/") for p in pointers)
