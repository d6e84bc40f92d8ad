"""Which files the server serves: vContext documents under the root, never anything outside it.

One rule decides what a served document is, for reading and for creating (PRODUCT.md,
"Where agents' platforms run it"): a JSON or TRON file under the served root whose real
path stays inside it, not below a nested repository (a boundary, as for git), not in a
folder git ignores (the root's own ``.vcontext/`` excepted: agents' memory a person
keeps out of git is still theirs), that the install patterns or ``.gitattributes``
route to the driver (outside a repository: whose content says vContext); a path the
person pinned (``--todo`` ...) is served whatever its name. Served "alone" (a folder
that is no repository, started without ``--root``), only the folder's own files and
its ``.vcontext/`` are looked at: never a walk of the disk below.

The tree is looked at again cheaply: folders holding documents (and the root and
``.vcontext/``) each time, the others a bounded number per look, all of them when the
caller says something moved (git's index or HEAD changed: a checkout, a merge).
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from ..document import matches_file_patterns
from ..errors import OperationalError
from ..fsio import read_regular, sniffed_vcontext
from ..record import record

SERVED_SUFFIXES = (".json", ".tron")
"""Todo lists, plans and playbooks are JSON or TRON (JSONL logs and TOML are not served)."""

PRUNED = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache"})
"""Folders never walked (besides the ones git ignores and nested repositories)."""

MEMORY = ".vcontext"
"""The root's folder of agents' memory: served even when git ignores it."""

CONVENTIONAL = {
    kind: (f"{MEMORY}/{name}.json", f"{MEMORY}/{name}.tron")
    for kind, name in (("todoList", "todo"), ("plan", "plan"), ("playbook", "playbook"))
}
"""Where each kind's current document is when nothing is configured (JSON first)."""

CONVENTIONAL_NAMES = frozenset(rel for paths in CONVENTIONAL.values() for rel in paths)
"""The current documents' conventional paths: served by their name (a playbook written before
the family's info key had its present name says vContext only by its container)."""

NOT_ROUTED = "no install pattern or .gitattributes line routes it to the vcontext driver"
"""Why a path in a repository is not served (nor merged, nor validated by git's routing)."""

_PLAIN_PATTERN = re.compile(r"[A-Za-z0-9._/*-]+")
"""A path a ``.gitattributes`` pattern names as it is (no space, quote, glob or escape)."""

COLD_LOOKS = 256
"""Folders without documents looked at per look (the rest on the next looks, in turn)."""


RACY_NS = 2_000_000_000
"""A file whose mtime is this close to the moment it was read may have been written again
in the same timestamp tick (with the same size, on the same inode: the same stat), as
git's "racily clean" index entries: its bytes are compared again until the tick has
surely passed. Two seconds: the coarsest timestamps of common filesystems (FAT; ext3 and
HFS+ have one second, ext4 and tmpfs the kernel's tick)."""


class Stat(NamedTuple):
    """What tells a file's content apart cheaply, as git's index does: replaced (inode,
    ctime), resized or touched (mtime). Equal stats still may hide a rewrite made within
    the timestamps' tick: see ``racy``. (A tuple: made and compared on every call for every
    served file.)"""

    mtime_ns: int
    size: int
    ino: int
    ctime_ns: int = 0

    @classmethod
    def of(cls, path: str) -> Stat | None:
        """The file's stat (through symlinks), None when it is gone or not a regular file."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        if not _is_regular(st.st_mode):
            return None
        return cls.of_result(st)

    @classmethod
    def of_result(cls, st: os.stat_result) -> Stat:
        return cls(st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)

    def racy(self, seen_ns: int) -> bool:
        """Whether a write after ``seen_ns`` (the clock when the bytes were last read or
        compared, taken before this stat) could have left this same stat: its mtime or
        ctime within ``RACY_NS`` of that moment (or after it)."""
        return max(self.mtime_ns, self.ctime_ns) + RACY_NS > seen_ns


def _is_regular(mode: int) -> bool:
    return stat.S_ISREG(mode)


def inside(root_real: str, path: str) -> str | None:
    """The real path of ``path`` when it lies inside ``root_real``, else None."""
    real = os.path.realpath(path)
    if real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep):
        return real
    return None


def is_repository(folder: str) -> bool:
    """Whether ``folder`` is the top of a work tree of its own (``.git``: a folder or a file,
    as in submodules and linked work trees)."""
    return os.path.lexists(os.path.join(folder, ".git"))


@record
class Found:
    """A served document: its path under the root ('/'-separated) and its real path."""

    rel: str
    real: str


@record
class Rule:
    """What is served under ``root``: see the module's docstring."""

    root: str  # real path
    ignored: Callable[[str], bool]  # rel folder or file -> git ignores it
    declared: Callable[[str], bool]  # rel file -> .gitattributes routes it to the driver
    sniff: bool  # outside a repository: a file whose content says vContext
    alone: bool  # the root's own files and .vcontext/ only
    prefix: str = ""  # the root as the repository names it, with "/" ("" at its top)

    def patterned(self, rel: str) -> bool:
        """Whether install's patterns name the file at ``rel``: matched against its path in
        the repository, as ``validate``, ``doctor`` and the hook match them (below the top,
        ``.work/processes/x.json`` is a VerMAS process by its place, whatever the root)."""
        return matches_file_patterns(self.prefix + rel)

    def enters(self, rel_dir: str) -> bool:
        """Whether the walk goes into the folder ``rel_dir`` unless it is a repository of its
        own (a boundary: left out, and looked at for its ``.git`` going, ``Tree.look``)."""
        name = rel_dir.rsplit("/", 1)[-1]
        if name in PRUNED:
            return False
        if self.alone:
            return rel_dir == MEMORY
        return rel_dir == MEMORY or not self.ignored(rel_dir)

    def takes(self, rel: str, real: str) -> bool:
        """Whether a file found by the walk is a served document (read only to sniff)."""
        if self.patterned(rel) or self.declared(rel):
            return True
        if not self.sniff:  # in a repository: what git routes to the driver, nothing else
            return False
        if rel in CONVENTIONAL_NAMES:  # by name (the catalog reads its container)
            return True
        return sniffed_vcontext(real)

    def refuses(self, rel: str) -> str | None:
        """Why a document at ``rel`` (perhaps not there yet) would not be served: the reason
        in a few words, None when it would be (the name is checked, not the content)."""
        if not rel.endswith(SERVED_SUFFIXES):
            return "only .json and .tron files are served"
        parts = rel.split("/")
        full = self.root
        for n, part in enumerate(parts[:-1]):
            full = os.path.join(full, part)
            rel_dir = "/".join(parts[: n + 1])
            if is_repository(full):
                return f"{rel_dir}/ is a repository of its own (a boundary)"
            if part in PRUNED:
                return f"{rel_dir}/ is never served"
            if self.alone and rel_dir != MEMORY:
                return f"only {MEMORY}/ is served below {self.root} (no --root)"
            if rel_dir != MEMORY and self.ignored(rel_dir):
                return f"git ignores {rel_dir}/"
        if not (self.patterned(rel) or self.declared(rel) or self.sniff):
            return NOT_ROUTED
        return None

    def route_line(self, rel: str) -> str | None:
        """The ``.gitattributes`` line at the repository's top that routes a document at
        ``rel`` (the served path) and its siblings of that format to the driver, as
        install's lines route ``.vcontext/`` at the top (None: a path such a line cannot
        name plainly)."""
        folder, _, name = (self.prefix + rel).rpartition("/")
        pattern = f"{folder}/*{name[name.rfind('.') :]}"  # (a "/" inside: from the top)
        if not folder or not _PLAIN_PATTERN.fullmatch(pattern):
            return None  # (never "*.json": every JSON file of the repository)
        return f"{pattern} merge=vcontext diff=vcontext"


@dataclass
class _Folder:
    """One walked folder: its mtime, the documents right in it, its walked subfolders. A
    folder listed within the timestamps' tick of its mtime is listed again on each look
    until the tick has surely passed (a file made in that tick leaves the mtime as it was)."""

    mtime: int
    seen: int  # the clock before its mtime was read: racy (see ``Stat.racy``) until RACY_NS on
    documents: tuple[Found, ...]
    subfolders: tuple[str, ...]  # full paths
    outside: tuple[str, ...]  # documents' names whose real path leads outside the root
    rules: tuple[str, ...] = ()  # the names of RULE_FILES right in it
    boundaries: tuple[str, ...] = ()  # full paths: subfolders left out as repositories


class _Kept(NamedTuple):
    """What ``Tree.look`` needs of every folder, kept between looks (``Tree._kept``)."""

    hot: list[str]
    others: list[str]
    rules: list[str]
    boundaries: list[tuple[str, str]]  # (nested repository, the folder holding it)


class Tree:
    """The served documents of a root, kept current by cheap looks (see the docstring)."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.folders: dict[str, _Folder] = {}
        self._cursor = 0
        # What an idle look needs of every folder (hot ones, cold ones in order, rule
        # files, nested repositories with the folder holding each), kept until a folder
        # comes or goes or its documents, rule files or nested repositories do (``_put``,
        # ``_drop``: every change of ``folders`` goes through them): an idle
        # server's look costs its few folders, not a pass over every folder known (15,000
        # took 10 ms of CPU a look, four looks a second).
        self._kept: _Kept | None = None

    def _put(self, path: str, listed: _Folder) -> None:
        """``path`` listed as ``listed``; the kept lists go only when what they hold of it
        changed (a racy folder listed again as it was keeps them)."""
        old = self.folders.get(path)
        self.folders[path] = listed
        if old is None or (bool(old.documents), old.rules, old.boundaries) != (
            bool(listed.documents),
            listed.rules,
            listed.boundaries,
        ):
            self._kept = None

    def _drop(self, path: str) -> None:
        del self.folders[path]
        self._kept = None

    def _sorted(self) -> _Kept:
        """The folders holding documents (and the root, ``.vcontext/``), the others in walk
        order, the rule files of them all (full paths), and the nested repositories left
        out, each with the folder holding it."""
        if self._kept is None:
            root = self.rule.root
            memory = os.path.join(root, MEMORY)
            hot: list[str] = []
            others: list[str] = []
            for p, f in self.folders.items():
                (hot if f.documents or p in (root, memory) else others).append(p)
            rules: list[str] = []
            boundaries: list[tuple[str, str]] = []
            for p, f in self.folders.items():
                rules.extend(os.path.join(p, name) for name in f.rules)
                boundaries.extend((b, p) for b in f.boundaries)
            self._kept = _Kept(hot, others, rules, boundaries)
        return self._kept

    def scan(self) -> None:
        """Walk everything again."""
        self.folders = {}
        self._kept = None
        self._walk(self.rule.root)

    def documents(self) -> list[Found]:
        found: dict[str, Found] = {}
        for folder in self.folders.values():
            for f in folder.documents:
                if f.real not in found or not os.path.islink(os.path.join(self.rule.root, f.rel)):
                    found[f.real] = f
        return sorted(found.values(), key=lambda f: f.rel)

    def outside(self) -> list[str]:
        return sorted(rel for folder in self.folders.values() for rel in folder.outside)

    def rule_files(self) -> list[str]:
        """The ``.gitattributes`` and ``.gitignore`` files of the walked folders (full
        paths): what decides which files are served."""
        return list(self._sorted().rules)

    def look(self, *, everything: bool = False, cold: int = COLD_LOOKS) -> bool:
        """Look at the folders again (those holding documents, the root and ``.vcontext/``
        always; ``cold`` others in turn, or all with ``everything``); re-list each that
        changed, and the folder holding a nested repository whose ``.git`` went (it moves
        the repository's mtime, not its parent's: the boundary gone, its documents are
        served as a fresh walk would have them; one ``lstat`` each). Whether anything did."""
        root = self.rule.root
        memory = os.path.join(root, MEMORY)
        kept = self._sorted()
        hot = list(kept.hot)
        others = kept.others
        for boundary, parent in kept.boundaries:
            if not is_repository(boundary):
                self._unsettle(parent)
                if parent not in hot:
                    hot.append(parent)
        if not everything and len(others) > cold:
            start = self._cursor % len(others)
            self._cursor = start + cold
            others = (others[start:] + others[:start])[:cold]
        if root not in self.folders:
            hot.append(root)
        if memory not in self.folders and os.path.isdir(memory):
            hot.append(memory)
        return self._looked([*hot, *others])

    def _looked(self, paths: list[str]) -> bool:
        moved = False
        for path in paths:
            known = self.folders.get(path)
            settled = known.mtime if known and known.mtime + RACY_NS <= known.seen else None
            if settled is not None and _mtime(path) == settled:  # racy: listed again (_Folder)
                continue
            moved = True
            self.relist(path)
        return moved

    def _unsettle(self, path: str) -> None:
        """Have the next look list ``path`` again whatever its mtime says."""
        known = self.folders.get(path)
        if known is not None:
            known.seen = known.mtime

    def relist(self, path: str) -> None:
        """List one folder again (and walk its new subfolders; forget gone ones). A folder
        made a repository of its own since (``git init`` there moves its mtime, not its
        parent's) is a boundary now: forgotten, as a fresh walk would not enter it, and its
        parent listed again, which keeps it among its boundaries (``Tree.look`` then sees
        its ``.git`` go)."""
        old = self.folders.get(path)
        boundary = path != self.rule.root and is_repository(path)
        listed = self._list(path) if os.path.isdir(path) and not boundary else None
        if listed is None:
            self._forget(path)
            parent = os.path.dirname(path)
            if boundary and parent in self.folders:
                self.relist(parent)
            return
        for sub in old.subfolders if old is not None else ():
            if sub not in listed.subfolders:
                self._forget(sub)
        self._put(path, listed)
        for sub in listed.subfolders:  # the known ones are looked at on their own
            if sub not in self.folders:
                self._walk(sub)

    def relist_for(self, rel: str) -> None:
        """After a file was written at ``rel``: list its folder (known or new) again."""
        full = os.path.join(self.rule.root, *rel.split("/")[:-1])
        while full not in self.folders and len(full) > len(self.rule.root):
            full = os.path.dirname(full)
        self.relist(full)

    def _forget(self, path: str) -> None:
        folder = self.folders.get(path)
        if folder is None:
            return
        for sub in folder.subfolders:
            self._forget(sub)
        self._drop(path)

    def _walk(self, top: str) -> None:
        stack = [top]
        while stack:
            full = stack.pop()
            listed = self._list(full)
            if listed is None:
                continue
            self._put(full, listed)
            stack.extend(reversed(listed.subfolders))

    def _list(self, full: str) -> _Folder | None:
        root = self.rule.root
        try:
            seen = time.time_ns()
            mtime = os.stat(full).st_mtime_ns
            entries = sorted(os.scandir(full), key=lambda e: e.name)
        except OSError:
            return None
        rel_folder = os.path.relpath(full, root).replace(os.sep, "/")
        prefix = "" if rel_folder == "." else rel_folder + "/"
        documents: list[Found] = []
        subfolders: list[str] = []
        boundaries: list[str] = []
        outside: list[str] = []
        rules = tuple(e.name for e in entries if e.name in RULE_FILES)
        for entry in entries:
            rel = prefix + entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if self.rule.enters(rel):
                    repository = is_repository(entry.path)
                    (boundaries if repository else subfolders).append(entry.path)
                continue
            if not rel.endswith(SERVED_SUFFIXES):
                continue
            real = inside(root, entry.path)
            if real is None:  # never read: not even sniffed
                if self.rule.patterned(rel) or self.rule.declared(rel):
                    outside.append(rel)
            elif self.rule.takes(rel, real):
                documents.append(Found(rel, real))
        return _Folder(
            mtime,
            seen,
            tuple(documents),
            tuple(subfolders),
            tuple(outside),
            rules,
            tuple(boundaries),
        )


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


RULE_FILES = (".gitattributes", ".gitignore")
"""The files in a folder that decide which files are served: which ones ``.gitattributes``
routes to the driver, which folders ``.gitignore`` keeps out."""


class Watched:
    """Files whose bytes decide what is served (``RULE_FILES``: which files are documents,
    which folders git ignores), looked at as the served files are: a changed stat (mtime,
    ctime, size, inode), or one within ``RACY_NS`` of the last read (a rewrite in the same
    tick leaves the same stat), has the bytes read again and compared."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[Stat | None, int, bytes | None]] | None = None

    def changed(self, paths: list[str]) -> bool:
        """Whether any of ``paths`` (or the set of them) changed since the previous call (the
        first call learns what is there: False)."""
        known = self._known or {}
        now: dict[str, tuple[Stat | None, int, bytes | None]] = {}
        moved = self._known is not None and not set(known) <= set(paths)
        for path in paths:
            seen = time.time_ns()
            st = Stat.of(path)
            was = known.get(path)
            if was is not None and was[0] == st and (st is None or not st.racy(was[1])):
                now[path] = was
                continue
            data = contents(path) if st is not None else None
            moved = moved or (self._known is not None and (was[2] if was else None) != data)
            now[path] = (st, seen, data)
        self._known = now
        return moved


def contents(path: str) -> bytes | None:
    """A regular file's bytes (None: gone, unreadable, or no regular file: a FIFO is never
    opened to wait on, ``fsio.read_regular``)."""
    try:
        return read_regular(path)
    except OperationalError:
        return None


class Moved:
    """Files whose change means "look at everything" (git's index and HEAD: a checkout, a
    merge, a reset moves documents anywhere in the tree at once)."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self._seen = [_stamp(p) for p in paths]

    def __call__(self) -> bool:
        now = [_stamp(p) for p in self.paths]
        moved, self._seen = now != self._seen, now
        return moved


def _stamp(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino
