"""``log``: the commits that changed some items of a document, newest first.

Each traced id carries the commits below which its comparison is still open: a
commit is compared with the next version down each line of history that parses
(its parent, or the one before a version that does not). At a merge, an id whose
item equals the item in one parent follows that parent only, as ``git log``
simplifies history for a path; one that differs from every parent is shown with
what each side brought, and all parents are followed. With ``full_history`` (``log
--full-history``) every parent of a merge is followed, as ``git log --full-history``
does: a change a merge dropped is shown, and the merge with what it dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..diffing.model import Change
from ..record import record
from ..values import same
from .changes import Differ, Key
from .parsed import Version
from .versions import Versions
from .walk import History, Link, Walk, first


@dataclass(frozen=True, eq=False)  # compared by identity: ``sig`` holds data
class Pending:
    """A commit whose version of an id waits to be compared with the version below."""

    commit: str
    path: str
    blob: str | None
    via: str | None  # the parent this line of history goes through (None: a root)
    sig: Any
    via_blob: str | None = None  # the document there: compared with whatever holds the same
    via_path: str | None = None


State = dict[Key, set[Pending]]


@record
class LogSide:
    """What a commit changed against one parent: ``base`` is the version compared with
    (the parent's, or an older one when the parent's does not parse; None: no file)."""

    parent: str | None
    base: str | None
    base_path: str | None
    changes: tuple[Change, ...]


@record
class LogEntry:
    """One commit's changes to one traced file."""

    commit: str
    path: str
    sides: tuple[LogSide, ...] = ()
    unreadable: str | None = None  # why this version does not parse
    renamed_from: str | None = None  # a rename (or conversion) that changed nothing else
    order: int = 0  # place in the walk: newest first


@dataclass
class _Found:
    pending: Pending
    base: str | None
    base_path: str | None
    base_blob: str | None
    keys: set[Key] = field(default_factory=set)


class LogWalk(Walk[State]):
    """Collects what changed the traced ids, commit by commit."""

    def __init__(
        self,
        history: History,
        versions: Versions,
        *,
        follow: bool,
        limit: int | None = None,
        full_history: bool = False,
    ) -> None:
        super().__init__(history, versions, follow=follow)
        self.limit = limit
        self.full_history = full_history
        self.differ = Differ()
        self.found: dict[tuple[str, str | None, str | None, str], _Found] = {}
        self.unreadable: dict[tuple[str, str], str] = {}
        self.renames: dict[tuple[str, str], str] = {}
        self.shown: set[tuple[str, str]] = set()  # (commit, path) with something to show
        self.present: set[Key] = set()  # ids found in some version
        self.known: dict[str, list[str]] = {}  # path -> the ids of its newest version met

    def join(self, a: State, b: State) -> State:
        for key, pendings in b.items():
            a.setdefault(key, set()).update(pendings)
        return a

    def step(self, commit: str, path: str, state: State) -> list[tuple[Link, State]]:
        blob = self.history.blob(commit, path)
        links = self.links(commit, path, blob)
        twin = first(links, lambda link: link.blob == blob)
        if twin is not None and self.full_history and len(links) > 1:
            twin = None  # every parent is walked, the one that holds the same file too
        if twin is not None:
            if twin.path != path and None in state:
                self.renames[(commit, path)] = twin.path
                self.shown.add((commit, path))
            return [(twin, state)]
        version = self.version(blob, path)
        if not version.readable:
            self.unreadable[(commit, path)] = version.error or ""
            self.shown.add((commit, path))
            if not links:  # nothing older that parses: compared with no version at all
                self._against_nothing(state)
            return [(link, state) for link in links]
        self._resolve(commit, path, version, state)
        if not links:
            self._origin(commit, path, version, state)
            return []
        return self._hand_down(commit, path, version, state, links)

    def boundary(self, commit: str, path: str, state: State) -> None:
        version = self.version(self.history.blob(commit, path), path)
        if version.readable:
            self._resolve(commit, path, version, state)

    def done(self) -> bool:
        """With a limit: once the newest ``limit`` commits to show can no longer change."""
        if self.limit is None or len({c for c, _ in self.shown}) < self.limit:
            return False
        cutoff = sorted(self.position[c] for c in {c for c, _ in self.shown})[self.limit - 1]
        return all(
            self.position[p.commit] > cutoff
            for at in self.pending.values()
            for state in at.values()
            for pendings in state.values()
            for p in pendings
        )

    # -- comparing ------------------------------------------------------------
    def sig(self, version: Version, key: Key) -> Any:
        if key is None:
            return version.data
        if version.present and version.path not in self.known:
            self.known[version.path] = version.index.keys()
        found = tuple(version.index.find(key))
        if found:
            self.present.add(key)
        return found

    def _resolve(self, commit: str, path: str, version: Version, state: State) -> None:
        for key, pendings in state.items():
            here = self.sig(version, key)
            for p in pendings:
                if not same_sig(p.sig, here, key):
                    self._found(p, key, commit, path, version)

    def _against_nothing(self, state: State) -> None:
        for key, pendings in state.items():
            for p in pendings:
                if p.sig or (key is None and p.blob is not None):
                    self._found(p, key, None, None, None)

    def _origin(self, commit: str, path: str, version: Version, state: State) -> None:
        """A root commit: whatever it holds of an id, it added."""
        for key in state:
            here = self.sig(version, key)
            if here or (key is None and version.present):
                self._found(Pending(commit, path, version.blob, None, here), key, None, None, None)

    def _found(
        self, p: Pending, key: Key, base: str | None, base_path: str | None, at: Version | None
    ) -> None:
        if at is not None and at.blob == p.via_blob and p.via is not None:
            base, base_path = p.via, p.via_path  # met below commits that left the file as it was
        slot = (p.commit, p.via, base, p.path)
        if slot not in self.found:
            self.found[slot] = _Found(p, base, base_path, None if at is None else at.blob)
        found = self.found[slot]
        found.keys.add(key)
        if self._side_changes(found) or _added(found):
            self.shown.add((p.commit, p.path))

    def _side_changes(self, found: _Found) -> tuple[Change, ...]:
        p = found.pending
        new = self.version(p.blob, p.path)
        old = self.version(found.base_blob, found.base_path or p.path)
        return self.differ.changes(old, new, found.keys)

    def _hand_down(
        self, commit: str, path: str, version: Version, state: State, links: list[Link]
    ) -> list[tuple[Link, State]]:
        out: dict[Link, State] = {link: {} for link in links}
        for key in state:
            here = self.sig(version, key)
            chosen = links
            if len(links) > 1 and not self.full_history:
                twin = next((lk for lk in links if self._same_in(lk, key, here)), None)
                chosen = links if twin is None else [twin]
            for link in chosen:
                pending = Pending(
                    commit, path, version.blob, link.parent, here, link.blob, link.path
                )
                out[link].setdefault(key, set()).add(pending)
        return [(link, st) for link, st in out.items() if st]

    def _same_in(self, link: Link, key: Key, here: Any) -> bool:
        before = self.version(link.blob, link.path)
        return before.readable and same_sig(self.sig(before, key), here, key)

    # -- the result -----------------------------------------------------------
    def entries(self) -> list[LogEntry]:
        """Commits with something to show, newest first (walk order)."""
        sides: dict[tuple[str, str], list[LogSide]] = {}
        for found in self.found.values():
            p = found.pending
            changes = self._side_changes(found)
            if changes or _added(found):
                side = LogSide(p.via, found.base, found.base_path, changes)
                sides.setdefault((p.commit, p.path), []).append(side)
        out = [
            LogEntry(
                commit,
                path,
                tuple(sorted(sides.get((commit, path), []), key=self._side_order(commit))),
                self.unreadable.get((commit, path)),
                self.renames.get((commit, path)),
                self.position.get(commit, -1),
            )
            for commit, path in self.shown
        ]
        out = [e for e in out if e.sides or e.unreadable is not None or e.renamed_from]
        out.sort(key=lambda e: (e.order, e.path))
        return out[: self.limit] if self.limit is not None else out

    def _side_order(self, commit: str) -> Any:
        parents = list(self.history.parents(commit))
        return lambda s: parents.index(s.parent) if s.parent in parents else len(parents)


def same_sig(a: Any, b: Any, key: Key) -> bool:
    """Whether an id is the same in two versions: same elements, same places, same values."""
    if key is None:
        return same(a, b)
    if len(a) != len(b):
        return False
    return all(x.same_place(y) and same(x.value, y.value) for x, y in zip(a, b, strict=True))


def _added(found: _Found) -> bool:
    """The whole document was added here: shown even when it holds nothing to list."""
    return None in found.keys and found.base_blob is None and found.pending.blob is not None
