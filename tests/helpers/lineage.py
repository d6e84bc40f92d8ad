"""An in-memory history for the log and blame walks: commits, parents, files (no git)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from git_vcontext.lineage.blame import BlameWalk, units
from git_vcontext.lineage.log import LogEntry, LogWalk
from git_vcontext.lineage.parsed import Version
from git_vcontext.lineage.versions import Versions


def todo(**statuses: str) -> bytes:
    """A todo list whose items are the keyword names, with these statuses."""
    items = [{"id": k, "title": k.upper(), "status": v} for k, v in statuses.items()]
    doc = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}
    return (json.dumps(doc, indent=2) + "\n").encode()


class FakeHistory:
    """Commits added oldest first; ``commits()`` yields them newest first, children before
    parents, as ``GitHistory`` does."""

    def __init__(self) -> None:
        self.parent_ids: dict[str, tuple[str, ...]] = {}
        self.trees: dict[str, dict[str, str]] = {}
        self.blobs: dict[str, bytes] = {}
        self.order: list[str] = []
        self.reads = 0

    def commit(self, name: str, files: dict[str, bytes], parents: tuple[str, ...] = ()) -> str:
        tree = {}
        for path, raw in files.items():
            blob = hashlib.sha1(raw).hexdigest()
            self.blobs[blob] = raw
            tree[path] = blob
        self.parent_ids[name] = parents
        self.trees[name] = tree
        self.order.append(name)
        return name

    def commits(self) -> Iterator[str]:
        yield from reversed(self.order)

    def parents(self, commit: str) -> tuple[str, ...]:
        return self.parent_ids[commit]

    def blob(self, commit: str, path: str) -> str | None:
        return self.trees[commit].get(path)

    def moved_from(self, commit: str, parent: str, path: str) -> list[tuple[str, str, bool]]:
        before, after = self.trees[parent], self.trees[commit]
        return [(p, b, False) for p, b in before.items() if p not in after]

    def read(self, blob: str) -> bytes:
        self.reads += 1
        return self.blobs[blob]


def log(
    history: FakeHistory,
    tip: str,
    path: str,
    keys: list[str | None],
    *,
    follow: bool = False,
    limit: int | None = None,
) -> tuple[list[LogEntry], LogWalk]:
    """Run the log walk from ``tip``; its entries and the walk (for what it met)."""
    walk = LogWalk(history, Versions(history.read), follow=follow, limit=limit)
    walk.start(tip, path, {key: set() for key in keys})
    walk.run()
    return walk.entries(), walk


def shown(entries: list[LogEntry]) -> list[tuple[str, list[str]]]:
    """``(commit, [anchor: op ...])`` per entry, for comparing with what a test made."""
    out = []
    for entry in entries:
        lines = [f"{c.anchor} {c.op}" for side in entry.sides for c in side.changes]
        if entry.unreadable is not None:
            lines.append("unreadable")
        out.append((entry.commit, lines))
    return out


def blame(history: FakeHistory, tip: str, path: str, *, fields: bool = False) -> dict[str, Any]:
    """``anchor[.field] -> commit`` for every blame line of ``path`` at ``tip``."""
    from git_vcontext.diffing.files import load

    raw = history.blobs[history.trees[tip][path]]
    doc = load(raw, path)
    tip_units = units(Version(None, path, None if doc is None else doc.data), fields=fields)
    walk = BlameWalk(history, Versions(history.read), tip_units)
    walk.start(tip, path, dict.fromkeys(range(len(tip_units))))
    walk.run()
    return {
        u.anchor + (f".{u.field}" if u.field else ""): walk.blamed.get(i)
        for i, u in enumerate(tip_units)
    }
