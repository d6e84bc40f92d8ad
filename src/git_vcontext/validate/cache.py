"""Verdicts of the pre-push hook, cached by blob id so a second push of the same objects is
near-instant.

One small JSON file per verdict under ``<git common dir>/vcontext/verdicts/<fingerprint>/``;
each is written whole (temporary file + rename), so hooks running at the same time
never read half a verdict. The fingerprint covers the package version, the history
rules' version and the validation code and schemas themselves (sizes and times), so
upgrading — or editing a checkout — starts a fresh cache; older folders are removed.
A cache that cannot be written is skipped: it only costs time, never a verdict.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from .model import Finding

CACHE_DIR = ("vcontext", "verdicts")
"""Where the cache lives, under git's common directory (shared by worktrees)."""


def cache_root(common_dir: str | os.PathLike[str]) -> Path:
    """The folder of all verdict caches of a repository (``uninstall`` removes it)."""
    return Path(common_dir).joinpath(*CACHE_DIR)


def fingerprint() -> str:
    """What the verdicts depend on: package version, rules, validation code, schemas."""
    from .. import __version__
    from ..resources import schemas_dir
    from .history import RULES_VERSION

    digest = hashlib.sha256(f"{__version__}\0{RULES_VERSION}".encode())
    folders = [Path(__file__).parent, Path(__file__).parent.parent / "codecs"]
    schemas = schemas_dir()
    if isinstance(schemas, Path):
        folders.append(schemas)
    for folder in folders:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith((".py", ".json", ".lark")) and entry.is_file():
                st = entry.stat()
                digest.update(
                    f"{folder.name}/{entry.name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode()
                )
    return digest.hexdigest()[:16]


class VerdictCache:
    """Findings by key; ``None`` from ``get`` means not cached yet."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.hits = 0
        self.misses = 0
        self.warning: str | None = None

    @classmethod
    def open(cls, common_dir: str | os.PathLike[str]) -> VerdictCache:
        """The cache of this repository for this version of the rules (old ones removed)."""
        root = cache_root(common_dir)
        current = fingerprint()
        try:
            for old in os.scandir(root):
                if old.name != current and old.is_dir(follow_symlinks=False):
                    shutil.rmtree(old.path, ignore_errors=True)
        except OSError:
            pass
        return cls(root / current)

    def get(self, key: str) -> list[Finding] | None:
        if self.folder is None:
            return None
        try:
            with open(self.folder / key, "rb") as fh:
                rows = json.loads(fh.read())
            found = [Finding(*row) for row in rows]
        except (OSError, ValueError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        return found

    def put(self, key: str, findings: list[Finding]) -> None:
        if self.folder is None:
            return
        from ..errors import OperationalError
        from ..fsio import write_atomic

        rows = [[f.rule, f.pointer, f.message, f.line, f.column, f.where] for f in findings]
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomic(self.folder / key, json.dumps(rows).encode())
        except (OSError, OperationalError) as exc:
            self.warning = f"verdict cache not written ({exc}); checks still ran"
            self.folder = None


def blob_key(blob_id: str, path: str) -> str:
    """Key of the per-file verdict of one blob (the format depends on the name's suffix)."""
    return f"b-{_suffix(path)}-{blob_id}"


def change_key(kind: str, old_id: str | None, new_id: str | None, path: str) -> str:
    """Key of a verdict on one (old blob, new blob) pair; ``kind`` names the rules applied."""
    return f"{kind}-{_suffix(path)}-{old_id or 'none'}-{new_id or 'none'}"


def _suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    for suffix in (".tron", ".jsonl", ".json"):
        if name.endswith(suffix):
            return suffix[1:]
    return "other"
