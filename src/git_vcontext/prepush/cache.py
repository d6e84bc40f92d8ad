"""Verdicts of the pre-push hook, cached by object id so a second push of the same objects is
near-instant (disk I/O, so outside the pure ``validation`` package).

Under ``<git common dir>/vcontext/verdicts/<fingerprint>/``, each hook run that learnt
something writes one pack (a JSON object of verdicts by key) whole — temporary file,
then rename — so hooks running at the same time never see half a pack and never
write the same file. Reading loads every pack; past ``MAX_PACKS`` they are merged
into one that keeps at most ``MAX_ENTRIES`` verdicts, the newest packs' first (the cache
is bounded, so is what a run reads; the merged pack is written before the old ones are
removed, so a concurrent reader at worst misses a verdict and checks again). The fingerprint
covers the package version, the history rules' version and the validation code and
schemas themselves (sizes and times): upgrading, or editing a checkout, starts a
fresh cache and removes the old one. A cache that cannot be read or written only
costs time, never a verdict.

Keys: ``b-<suffix>-<blob>`` (one file's checks), ``h-``/``f-<suffix>-<old>-<new>`` (history
rules / fork arrival on one pair of blobs), ``c-<commit>`` (every finding of one commit
against its parents), ``a-``/``r-<previous tip>-<tip>`` (fork arrival / history rules
between a branch's two tips) — all immutable objects, so a verdict never goes stale.
"""

from __future__ import annotations

import os

from ..errors import OperationalError
from ..fsio import permitted, remove_stale_temporaries, write_atomic
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
PACK_SUFFIX = ".pack.json"
MAX_PACKS = 16
MAX_ENTRIES = 8_000
"""Verdicts a merge keeps, the newest packs' first (the rest are evicted): every run reads
every verdict kept, ~0.7 µs each (50,000 cost a guard run ~33 ms: issue 28), so the bound
keeps a run's reading under ~6 ms."""


def cache_root(common_dir: str | os.PathLike[str]) -> Path:
    """The folder of all verdict caches of a repository (``uninstall`` removes it)."""
    from pathlib import Path  # lazy: see the imports

    return Path(common_dir).joinpath(*CACHE_DIR)


def fingerprint() -> str:
    """What the verdicts depend on: package version, rules, validation code, schemas."""
    digest = _sha256(f"{__version__}\0{RULES_VERSION}".encode())
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
    """Verdicts by key for one run: loaded on first use, new ones saved by ``save``."""

    def __init__(self, folder: str | os.PathLike[str] | None) -> None:
        self.folder = None if folder is None else os.fspath(folder)
        self.hits = 0
        self.misses = 0
        self.warning: str | None = None
        self._known: dict[str, Any] | None = None
        self._packs: list[str] = []
        self._contents: list[tuple[int, dict[str, Any]]] = []  # (mtime, pack), for eviction
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
        known = self._load()
        value = known.get(key)
        if value is None:
            value = self._new.get(key)
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
        return value

    def _load(self) -> dict[str, Any]:
        if self._known is not None:
            return self._known
        self._known = {}
        if self.folder is None:
            return self._known
        try:
            names = sorted(e.name for e in os.scandir(self.folder))
        except OSError:
            return self._known
        for name in names:
            if name.startswith(".") or not name.endswith(PACK_SUFFIX):
                continue
            path = os.path.join(self.folder, name)
            try:
                with open(path, "rb") as fh:
                    when = os.fstat(fh.fileno()).st_mtime_ns
                    pack = loads(fh.read().decode("utf-8"))
            except (OSError, ValueError, RecursionError):
                continue  # removed by a concurrent merge, or not ours: check again
            if isinstance(pack, dict):
                self._known.update(pack)
                self._packs.append(path)
                self._contents.append((when, pack))
        return self._known

    def save(self) -> None:
        """Write what this run learnt as one new pack; merge the packs when there are many."""
        if self.folder is None or not self._new:
            return

        known = self._load()
        merge = len(self._packs) + 1 > MAX_PACKS
        if merge:
            content = _newest(self._new, self._contents, MAX_ENTRIES) if known else self._new
        else:
            content = self._new
        name = f"{os.getpid()}-{os.urandom(6).hex()}{PACK_SUFFIX}"
        try:
            os.makedirs(self.folder, exist_ok=True)
            text = dumps(content, separators=(",", ":"))
            write_atomic(os.path.join(self.folder, name), text.encode(), force=True)  # ours
        except (OSError, OperationalError) as exc:
            if _may_write(self.folder):  # else a repository this user may only read: no cache
                self.warning = f"verdict cache not written ({exc}); the checks ran anyway"
            return
        if merge:
            for old in self._packs:
                try:
                    os.unlink(old)
                except OSError:
                    pass
            # and what a killed run's write left (its temporary): at a merge, not every run
            remove_stale_temporaries(self.folder)


def _newest(
    new: dict[str, Any], packs: list[tuple[int, dict[str, Any]]], limit: int
) -> dict[str, Any]:
    """``new`` and the verdicts of the newest packs, up to ``limit`` (older ones evicted)."""
    kept = dict(new)
    for _, pack in sorted(packs, key=lambda p: p[0], reverse=True):
        if len(kept) + len(pack) > limit:
            break
        for key, value in pack.items():
            kept.setdefault(key, value)
    return kept


_DAMAGED = (TypeError, ValueError, AttributeError)
"""What reading a pack entry of the wrong shape raises."""


def _rows(findings: list[Finding]) -> Rows:
    return [[f.rule, f.pointer, f.message, f.line, f.column, f.where] for f in findings]


def _findings(rows: Rows) -> list[Finding]:
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
