"""Where a document new in a commit came from: a rename, a move, a JSON ⇄ TRON conversion.

git finds renames by similar bytes, which a conversion does not keep. Among the
files the commit removed, the source is git's rename if there is one; else a file
holding the same data; else the one sharing the most ids with the new document;
else one with the same name up to its format (``todo.vcontext.json`` →
``todo.vcontext.tron``) holding the same kind of container.
"""

from __future__ import annotations

from ..codecs import format_from_name
from ..document import describe
from ..values import same
from .parsed import Version
from .versions import Versions

MAX_CANDIDATES = 50
"""Removed files parsed at most, per commit (a commit that deletes a thousand files)."""


def source(
    new: Version, path: str, removed: list[tuple[str, str, bool]], versions: Versions
) -> tuple[str, str] | None:
    """``(old path, blob)`` of the document ``new`` (at ``path``) continues, or None."""
    for old_path, blob, renamed in removed:
        if renamed:
            return old_path, blob
    if new.data is None:
        return None
    best: tuple[float, str, str] | None = None
    for old_path, blob, _ in removed[:MAX_CANDIDATES]:
        if format_from_name(old_path) is None:
            continue
        old = versions.get(blob, old_path)
        if old.data is None:
            continue
        if same(old.data, new.data):
            return old_path, blob
        score = _score(old, new, old_path, path)
        if score > 0 and (best is None or score > best[0]):
            best = (score, old_path, blob)
    return None if best is None else (best[1], best[2])


def _score(old: Version, new: Version, old_path: str, path: str) -> float:
    shared = len(set(old.index.by_key) & set(new.index.by_key))
    if shared:
        return float(shared)
    same_kind = describe(old.data).containers == describe(new.data).containers
    return 0.5 if same_kind and stem(old_path) == stem(path) else 0.0


def stem(path: str) -> str:
    """A file name without the suffix that names its format."""
    for suffix in (".json", ".tron", ".jsonl", ".ndjson"):
        if path.lower().endswith(suffix):
            return path[: -len(suffix)]
    return path
