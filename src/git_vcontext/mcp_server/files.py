"""Which files the server serves: vContext documents under the root, never anything outside it."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..document import matches_file_patterns
from ..fsio import sniffed_vcontext

SERVED_SUFFIXES = (".json", ".tron")
"""Todo lists, plans and playbooks are JSON or TRON (JSONL logs and TOML are not served)."""

PRUNED = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache"})
"""Folders never walked (besides the ones git ignores)."""


@dataclass(frozen=True)
class Stat:
    """What tells a file's content apart cheaply: replaced (inode), resized or touched."""

    mtime_ns: int
    size: int
    ino: int

    @classmethod
    def of(cls, path: str) -> Stat | None:
        """The file's stat (through symlinks), None when it is gone or not a regular file."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        if not _is_regular(st.st_mode):
            return None
        return cls(st.st_mtime_ns, st.st_size, st.st_ino)


def _is_regular(mode: int) -> bool:
    return stat.S_ISREG(mode)


def inside(root_real: str, path: str) -> str | None:
    """The real path of ``path`` when it lies inside ``root_real``, else None."""
    real = os.path.realpath(path)
    if real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep):
        return real
    return None


@dataclass(frozen=True)
class Found:
    """A served document: its path under the root ('/'-separated) and its real path."""

    rel: str
    real: str


def find_documents(
    root: str,
    *,
    ignored: Callable[[str], bool],
    declared: Callable[[str], bool],
    sniff: bool = True,
) -> tuple[list[Found], dict[str, int], list[str]]:
    """The documents under ``root``, the folders walked (with their mtimes, to notice new
    files), and the files left out because their real path is outside the root.

    ``ignored(rel_dir)`` prunes folders git ignores; ``declared(rel)`` says whether
    ``.gitattributes`` routes a file to the vcontext driver; ``sniff`` also takes files
    whose root key says vContext (outside a repository, as ``validate`` does).
    """
    root_real = os.path.realpath(root)
    found: dict[str, Found] = {}
    folders: dict[str, int] = {}
    outside: list[str] = []
    for folder, names in _walk(root_real, ignored, folders):
        for name in names:
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, root_real).replace(os.sep, "/")
            if not rel.endswith(SERVED_SUFFIXES):
                continue
            real = inside(root_real, full)
            if real is None:  # never read: not even sniffed
                if matches_file_patterns(rel) or declared(rel):
                    outside.append(rel)
            elif _candidate(rel, real, declared, sniff) and (
                real not in found or not os.path.islink(full)
            ):
                found[real] = Found(rel, real)
    return sorted(found.values(), key=lambda f: f.rel), folders, outside


def _walk(
    root: str, ignored: Callable[[str], bool], folders: dict[str, int]
) -> Iterator[tuple[str, list[str]]]:
    for folder, dirs, files in os.walk(root):
        try:
            folders[folder] = os.stat(folder).st_mtime_ns
        except OSError:
            continue
        rel_folder = os.path.relpath(folder, root).replace(os.sep, "/")
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in PRUNED and not ignored(d if rel_folder == "." else f"{rel_folder}/{d}")
        )
        yield folder, sorted(files)


def _candidate(rel: str, full: str, declared: Callable[[str], bool], sniff: bool) -> bool:
    return matches_file_patterns(rel) or declared(rel) or (sniff and sniffed_vcontext(full))


def folders_changed(folders: dict[str, int]) -> bool:
    """Whether any walked folder gained, lost or renamed an entry since the walk."""
    for folder, mtime in folders.items():
        try:
            if os.stat(folder).st_mtime_ns != mtime:
                return True
        except OSError:
            return True
    return False
