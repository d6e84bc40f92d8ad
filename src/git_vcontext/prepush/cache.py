"""Verdicts of the pre-push hook, cached by object id so a second push of the same objects is
near-instant (disk I/O, so outside the pure ``validation`` package).

Under ``<git common dir>/vcontext/verdicts/<fingerprint>/``, one file per verdict,
``<fan-out>/<key>`` (the fan-out: the key's last two characters, the end of an object
id), holding that verdict as JSON. A lookup opens one file, whatever the size of the
cache (one pack of every verdict, read whole on each run, cost a guard run ~33 ms at
50,000 verdicts: issue 28). Each file is written whole — a temporary file, then a
rename — so hooks running at the same time never see half a verdict; a file that does
not read is a miss (checked again). The cache is bounded: now and then (one save in
``PRUNE_EVERY``) a save looks at one fan-out folder and, past ``MAX_PER_FOLDER``
verdicts, removes the oldest half. The fingerprint covers the package version, the
history rules' version, the cache's layout and the validation code and schemas
themselves (sizes and times): upgrading, or editing a checkout, starts a fresh cache
and removes the old one. A cache that cannot be read or written only costs time, never
a verdict.

Keys: ``b-<suffix>-<blob>`` (one file's checks), ``h-``/``f-<suffix>-<old>-<new>`` (history
rules / fork arrival on one pair of blobs), ``c-<commit>`` (every finding of one commit
against its parents), ``a-``/``r-<previous tip>-<tip>`` (fork arrival / history rules
between a branch's two tips), ``p-<digest>`` (a whole push) — all immutable objects, so a
verdict never goes stale.
"""

from __future__ import annotations

import os

from ..fsio import permitted
from ..jsoncodec import dumps, loads
from ..shipped import folder as shipped_folder
from ..validation.history import RULES_VERSION
from ..validation.model import Finding
from ..version import __version__

# The guard's light path opens this cache on every push a server receives: no json
# package (re, enum), hashlib (OpenSSL), shutil or pathlib at import.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    Rows = list[list[Any]]

CACHE_DIR = ("vcontext", "verdicts")
"""Where the cache lives, under git's common directory (shared by worktrees)."""
LAYOUT = "2"
"""The cache's layout (2: one file per verdict): part of the fingerprint, so a cache of
another layout is removed, not misread."""
MAX_PER_FOLDER = 256
"""Verdicts a fan-out folder keeps: 256 folders, ~65,000 verdicts at most (a file each: a
few hundred MB at worst on a file system that gives each file a 4 KiB block)."""
PRUNE_EVERY = 64
"""One save in this many looks at a folder to prune (a few ms then, nothing otherwise)."""
KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-+")


def cache_root(common_dir: str | os.PathLike[str]) -> Path:
    """The folder of all verdict caches of a repository (``uninstall`` removes it)."""
    from pathlib import Path  # lazy: see the imports

    return Path(common_dir).joinpath(*CACHE_DIR)


def fingerprint() -> str:
    """What the verdicts depend on: package version, rules, validation code, schemas."""
    digest = _sha256(f"{__version__}\0{RULES_VERSION}\0{LAYOUT}".encode())
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    codecs = os.path.join(package, "codecs")
    folders = [
        os.path.join(package, "validation"),
        package,
        codecs,
        os.path.join(codecs, "tron"),
        os.path.join(codecs, "toml"),
    ]  # rules, paths, parsers
    schemas = shipped_folder("schemas")
    if schemas is not None:
        folders.append(schemas)
    for folder in folders:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        name = os.path.basename(folder)
        for entry in entries:
            if entry.name.endswith((".py", ".json", ".lark")) and entry.is_file():
                st = entry.stat()
                line = f"{name}/{entry.name}\0{st.st_size}\0{st.st_mtime_ns}\0"
                digest.update(line.encode())
    return str(digest.hexdigest()[:16])


def _sha256(data: bytes) -> Any:
    """A SHA-256 hash object: the interpreter's own module when it has one (hashlib loads
    OpenSSL first, a few milliseconds of every guard run), else hashlib's."""
    try:  # CPython 3.11 names it _sha256, 3.12 on _sha2
        from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:
            from hashlib import sha256  # type: ignore[assignment,unused-ignore]
    return sha256(data)


def _may_write(folder: str) -> bool:
    """Whether this user may write ``folder`` (or create it): not so in a repository the
    user may only read (another user's checkout trusted by ``safe.directory``, a read-only
    mount), where the cache is skipped without a word, as git skips refreshing its index."""
    place = folder
    while True:
        if os.path.exists(place):
            return permitted(place, os.W_OK)
        parent = os.path.dirname(place)
        if parent == place:
            return False
        place = parent


class VerdictCache:
    """Verdicts by key for one run: each read from its file on first use, new ones saved by
    ``save``."""

    def __init__(self, folder: str | os.PathLike[str] | None) -> None:
        self.folder = None if folder is None else os.fspath(folder)
        self.hits = 0
        self.misses = 0
        self.warning: str | None = None
        self._read: dict[str, Any] = {}
        self._new: dict[str, Any] = {}

    @classmethod
    def open(cls, common_dir: str | os.PathLike[str]) -> VerdictCache:
        """The cache of this repository for this version of the rules (old ones removed)."""
        root = os.path.join(common_dir, *CACHE_DIR)
        current = fingerprint()
        try:
            for old in os.scandir(root):
                if old.name != current and old.is_dir(follow_symlinks=False):
                    import shutil  # lazy: only when the rules changed

                    shutil.rmtree(old.path, ignore_errors=True)
        except OSError:
            pass
        return cls(os.path.join(root, current))

    # -- one file's findings, or findings by file ------------------------------------

    def get(self, key: str) -> list[Finding] | None:
        rows = self._lookup(key)
        try:
            return None if rows is None else _findings(rows)
        except _DAMAGED:
            return None  # a damaged entry (not written by us): check again

    def put(self, key: str, findings: list[Finding]) -> None:
        self._new[key] = _rows(findings)

    def get_files(self, key: str) -> dict[str, list[Finding]] | None:
        found = self._lookup(key)
        if found is None:
            return None
        try:
            return {path: _findings(rows) for path, rows in found.items()}
        except _DAMAGED:
            return None  # a damaged entry (not written by us): check again

    def put_files(self, key: str, found: dict[str, list[Finding]]) -> None:
        self._new[key] = {path: _rows(findings) for path, findings in found.items()}

    # -- storage ---------------------------------------------------------------------

    def _lookup(self, key: str) -> Any:
        value = self._new.get(key)
        if value is None:
            if key not in self._read:
                self._read[key] = self._load(key)
            value = self._read[key]
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
        return value

    def path_of(self, key: str) -> str | None:
        """The file of ``key``'s verdict (None: no cache here, or not a key of ours)."""
        if self.folder is None or len(key) < 3 or not KEY_CHARS.issuperset(key):
            return None
        return os.path.join(self.folder, key[-2:], key)

    def _load(self, key: str) -> Any:
        path = self.path_of(key)
        if path is None:
            return None
        try:
            with open(path, "rb") as fh:
                return loads(fh.read().decode("utf-8"))
        except (OSError, ValueError, RecursionError):
            return None  # absent, being written, or not ours: check again

    def save(self) -> None:
        """Write each verdict this run learnt to its own file; now and then prune."""
        if self.folder is None or not self._new:
            return
        folders: set[str] = set()
        try:
            for key, value in self._new.items():
                path = self.path_of(key)
                if path is None or self._read.get(key) == value:
                    continue
                _write(path, dumps(value, separators=(",", ":")).encode(), folders)
        except OSError as exc:
            if _may_write(self.folder):  # else a repository this user may only read: no cache
                self.warning = f"verdict cache not written ({exc}); the checks ran anyway"
            return
        if folders and os.urandom(1)[0] < 256 // PRUNE_EVERY:
            prune(min(folders))


def _write(path: str, data: bytes, folders: set[str]) -> None:
    """``data`` as the whole content of ``path``: a temporary file beside it, renamed."""
    folder = os.path.dirname(path)
    tmp = os.path.join(folder, f".{os.getpid()}-{os.urandom(6).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(tmp, flags, 0o644)
    except FileNotFoundError:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(tmp, flags, 0o644)
    try:
        try:
            os.write(fd, data)  # a verdict is small: one write
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    folders.add(folder)


def prune(folder: str, keep: int = MAX_PER_FOLDER) -> int:
    """Past ``keep`` verdicts in one fan-out folder, remove the oldest half (by the time
    each was written); how many were removed. Temporary files older than a minute (a
    writer that died) go too. Errors are ignored: another run may prune at the same time."""
    import time  # lazy: only when pruning

    try:
        entries = []
        for entry in os.scandir(folder):
            try:
                entries.append(
                    (entry.stat(follow_symlinks=False).st_mtime_ns, entry.path, entry.name)
                )
            except OSError:
                continue
    except OSError:
        return 0
    stale = time.time_ns() - 60 * 10**9
    doomed = [path for when, path, name in entries if name.startswith(".") and when < stale]
    verdicts = sorted((when, path) for when, path, name in entries if not name.startswith("."))
    if len(verdicts) > keep:
        doomed += [path for _, path in verdicts[: len(verdicts) - keep // 2]]
    removed = 0
    for path in doomed:
        try:
            os.unlink(path)
            removed += 1
        except OSError:
            pass
    return removed


_DAMAGED = (TypeError, ValueError, AttributeError)
"""What reading a pack entry of the wrong shape raises."""


def _rows(findings: list[Finding]) -> Rows:
    return [[f.rule, f.pointer, f.message, f.line, f.column, f.where] for f in findings]


def _findings(rows: Rows) -> list[Finding]:
    """The findings of rows as ``_rows`` writes them; ValueError for anything else (a
    verdict not written by us is checked again)."""
    if not isinstance(rows, list) or not all(isinstance(r, list) and len(r) == 6 for r in rows):
        raise ValueError("not a verdict")
    return [Finding(*row) for row in rows]


def blob_key(blob_id: str, path: str) -> str:
    """Key of the per-file verdict of one blob (the format depends on the name's suffix)."""
    return f"b-{_suffix(path)}-{blob_id}"


def change_key(kind: str, old_id: str | None, new_id: str | None, path: str) -> str:
    """Key of a verdict on one (old blob, new blob) pair; ``kind`` names the rules applied."""
    return f"{kind}-{_suffix(path)}-{old_id or 'none'}-{new_id or 'none'}"


def commit_key(commit_id: str) -> str:
    """Key of every finding of one commit against its parents."""
    return f"c-{commit_id}"


def tips_key(kind: str, previous_id: str | None, tip_id: str) -> str:
    """Key of the findings of ``kind`` between a branch's previous tip and its new tip."""
    return f"{kind}-{previous_id or 'none'}-{tip_id}"


def push_key(remote: str, text: str) -> str:
    """The cache key of a whole push: the remote's name and git's ref lines, in any order."""
    lines = sorted(" ".join(line.split()) for line in text.splitlines() if line.strip())
    digest = _sha256("\n".join([remote, *lines]).encode("utf-8", "surrogateescape"))
    return "p-" + str(digest.hexdigest())


def _suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    for suffix in (".tron", ".jsonl", ".json"):
        if name.endswith(suffix):
            return suffix[1:]
    return "other"
