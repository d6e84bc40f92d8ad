"""Walking history for documents: a state travels from each commit to its parents.

Commits come newest first and never before their children, so a commit has
every state its children handed down before it is looked at. A walk says what one
commit does to a state (``step``) and may end early (``done``); a state handed to a
commit the range leaves out (``A..B``) ends there (``boundary``). With ``follow``,
a document new in a commit is looked for under another name in the parent: a
rename or a JSON ⇄ TRON conversion (``follow.source``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, Protocol, TypeVar

from ..record import record
from .follow import source
from .parsed import Version
from .versions import Versions

S = TypeVar("S")


class History(Protocol):
    """What a walk needs from git (``gitio.revwalk.GitHistory``; tests use a fake)."""

    def commits(self) -> Iterable[str]: ...

    def parents(self, commit: str) -> tuple[str, ...]: ...

    def blob(self, commit: str, path: str) -> str | None: ...

    def moved_from(self, commit: str, parent: str, path: str) -> list[tuple[str, str, bool]]: ...

    def read(self, blob: str) -> bytes: ...


@record
class Link:
    """A parent of a commit and the document's name and blob there."""

    parent: str
    path: str
    blob: str | None


class Walk(Generic[S]):
    """The commit loop; subclasses give ``step`` and ``join``."""

    def __init__(self, history: History, versions: Versions, *, follow: bool) -> None:
        self.history = history
        self.versions = versions
        self.follow = follow
        self.pending: dict[str, dict[str, S]] = {}
        self.position: dict[str, int] = {}  # walk order of the commits looked at
        self.stopped = False

    def start(self, commit: str, path: str, state: S) -> None:
        """Trace ``path`` from ``commit`` with ``state``."""
        self._hand(commit, path, state)

    def run(self) -> None:
        """Walk until no state is left (or ``done``); then end states at boundaries."""
        for n, commit in enumerate(self.history.commits()):
            if not self.pending:
                break
            here = self.pending.pop(commit, None)
            if here is None:
                continue
            self.position[commit] = n
            for path, state in here.items():
                for link, handed in self.step(commit, path, state):
                    self._hand(link.parent, link.path, handed)
            if self.done():
                self.stopped = True
                return
        for commit, here in self.pending.items():
            for path, state in here.items():
                self.boundary(commit, path, state)

    def _hand(self, commit: str, path: str, state: S) -> None:
        at = self.pending.setdefault(commit, {})
        at[path] = self.join(at[path], state) if path in at else state

    def links(self, commit: str, path: str, blob: str | None) -> list[Link]:
        """Each parent with the document's name and blob there (renames followed)."""
        out = []
        for parent in self.history.parents(commit):
            before = self.history.blob(parent, path)
            if before is None and blob is not None and self.follow:
                found = self._moved(commit, parent, path, blob)
                if found is not None:
                    out.append(Link(parent, *found))
                    continue
            out.append(Link(parent, path, before))
        return out

    def _moved(self, commit: str, parent: str, path: str, blob: str) -> tuple[str, str] | None:
        candidates = self.history.moved_from(commit, parent, path)
        if not candidates:
            return None
        return source(self.versions.get(blob, path), path, candidates, self.versions)

    def version(self, blob: str | None, path: str) -> Version:
        return self.versions.get(blob, path)

    # -- what a walk does ------------------------------------------------------
    def step(self, commit: str, path: str, state: S) -> list[tuple[Link, S]]:
        """What ``commit`` does to ``state``; the states handed to parents."""
        raise NotImplementedError

    def join(self, a: S, b: S) -> S:
        """Two states handed to the same commit and path."""
        raise NotImplementedError

    def done(self) -> bool:
        """Whether the walk can stop now."""
        return False

    def boundary(self, commit: str, path: str, state: S) -> None:
        """A state handed to a commit outside the range."""


def first(links: list[Link], good: Callable[[Link], bool]) -> Link | None:
    """The first parent link that passes ``good``."""
    return next((link for link in links if good(link)), None)
