"""A remote that is a repository on this machine (a path or a ``file://`` URL): ``sync --push``
reads its refs and copies its objects in process instead of starting ``git ls-remote`` /
``git fetch`` and their ``upload-pack`` for every look, and takes its lease with a
compare-and-swap of the ref where nothing watches ref updates.

Agents that share one machine usually share one bare repository; a waiting agent looks
at it many times, and each ``git`` look costs processes (fetch + upload-pack + rev-list
+ pack-objects, ~60 ms of CPU and more as documents grow) where reading a ref costs well
under a millisecond and copying a round's objects a few. Pushes of content still go
through ``git push`` (the pre-push hook, the remote's receive hooks, permissions).

Only plain cases take this path: an absolute path or ``file://`` URL (after git's
``insteadOf``), no ``uploadpack`` of the remote's own, neither repository shallow, and
``vcontext.inProcessFetch`` not false. Anything else (and any remote pygit2 cannot
open) uses git.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..errors import OperationalError
from . import config_value
from .objectcopy import TooMany, copy_commits
from .refs import RefMoved, RefUpdate, move_refs, oid_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pygit2 import Oid, Repository, Signature

SETTING = "vcontext.inProcessFetch"
WATCHERS = ("pre-receive", "update", "post-receive", "post-update", "reference-transaction")
"""Hooks of a remote that see ref updates: with any of them, every write goes through git."""


class LocalRemote:
    """A remote repository on this machine, read directly."""

    def __init__(self, repo: Repository, name: str, path: Path) -> None:
        self.repo, self.name, self.path = repo, name, path
        self._theirs: Repository | None = None
        self._writable: bool | None = None

    @classmethod
    def find(cls, repo: Repository, remote: str) -> LocalRemote | None:
        """``remote`` (a remote's name, or a path) when it is a local repository sync may
        read directly; None: talk to it with git."""
        if not _enabled(repo) or repo.is_shallow:
            return None
        configured = remote in repo.remotes.names()
        if configured and config_value(repo, f"remote.{remote}.uploadpack") is not None:
            return None
        url = repo.remotes[remote].url if configured else remote
        path = None if url is None else _local_path(url)
        if path is None or not path.is_dir():
            return None
        found = cls(repo, remote, path)
        try:
            shallow = found.theirs().is_shallow
        except OperationalError:
            return None
        return None if shallow else found

    def theirs(self) -> Repository:
        """The remote repository (opened once)."""
        if self._theirs is None:
            import pygit2

            try:
                self._theirs = pygit2.Repository(str(self.path))
            except (pygit2.GitError, KeyError) as exc:
                raise OperationalError(f"cannot open {self.name} ({self.path}): {exc}") from None
        return self._theirs

    def may_write_refs(self) -> bool:
        """Whether sync may write its own coordination refs (a lease) into the remote directly:
        we may write there, its files are not shared between users (core.sharedRepository,
        whose modes only git keeps), and no hook of its watches ref updates (looked at once)."""
        if self._writable is None:
            self._writable = self._may_write()
        return self._writable

    def _may_write(self) -> bool:
        theirs = self.theirs()
        shared = config_value(theirs, "core.sharedRepository")
        if shared not in (None, "false", "umask", "0") or not os.access(theirs.path, os.W_OK):
            return False
        configured = config_value(theirs, "core.hooksPath")
        folder = Path(os.path.expanduser(configured)) if configured else Path(theirs.path) / "hooks"
        if configured and not folder.is_absolute():
            folder = Path(theirs.path) / folder
        return not any(os.access(folder / hook, os.X_OK) for hook in WATCHERS)

    def swap(self, name: str, expect: str | None, message: str, signature: Signature) -> Oid | None:
        """Point the remote's ``name`` at a new empty commit whose message is ``message`` if it
        still holds ``expect`` (None: it must not exist), all under the ref's lock; the
        commit, or None when the ref held something else (someone was quicker)."""
        import pygit2

        theirs = self.theirs()
        try:
            tree = theirs.TreeBuilder().write()
            commit = theirs.create_commit(None, signature, signature, message, tree, [])
            old = None if expect is None else pygit2.Oid(hex=expect)
            move_refs(theirs, [RefUpdate(name, old, commit)], message=message.split("\n")[0])
        except RefMoved:
            return None
        except (pygit2.GitError, OSError) as exc:
            raise OperationalError(f"writing {name} in {self.name} ({self.path}): {exc}") from None
        return commit

    def list_refs(self, names: list[str]) -> dict[str, str]:
        """``{ref: object id}`` of the exact ``names`` the remote has now."""
        import pygit2

        theirs, found = self.theirs(), {}
        try:
            for name in names:
                ref = theirs.references.get(name)
                if ref is not None:
                    found[name] = str(ref.resolve().target)
        except (pygit2.GitError, KeyError) as exc:  # being rewritten, a dangling symref, …
            raise OperationalError(f"reading the refs of {self.name}: {exc}") from None
        return found

    def fetch(self, refspecs: list[str], *, prune: bool = False) -> list[str] | None:
        """Fetch ``refspecs`` (``+SRC:DST``, one ``*`` at most), as ``gitio.remote.fetch``
        does: returns the exact SRCs the remote lacks; with ``prune`` DSTs whose SRC is gone
        are deleted. The objects are copied (``objectcopy``), FETCH_HEAD is left alone.
        None: leave it to git (a ref to a tree, a long history to bring over)."""
        import pygit2

        theirs = self.theirs()
        try:
            names = list(theirs.references)
            wanted: dict[str, tuple[str, Oid]] = {}  # DST -> (SRC, the object it names there)
            for spec in refspecs:
                for src, dst in _expand(spec, names):
                    wanted[dst] = (src, oid_of(theirs.references[src].resolve()))
            if not self._copy([oid for _, oid in wanted.values()]):
                return None
        except (pygit2.GitError, KeyError, OSError) as exc:  # e.g. a ref deleted as we read
            raise OperationalError(f"fetching from {self.name} ({self.path}): {exc}") from None
        for dst, (_, oid) in wanted.items():
            ref = self.repo.references.get(dst)
            if ref is None or ref.target != oid:
                self.repo.references.create(dst, oid, force=True)
        if prune:
            self._prune(refspecs, set(wanted))
        exact = [_split(s) for s in refspecs if "*" not in s]
        present = {src for src, _ in wanted.values()}
        return [src for src, _ in exact if src not in present]

    def _copy(self, targets: list[Oid]) -> bool:
        """Bring the objects behind ``targets`` (commits, tags of commits, blobs) over; False
        when git should (anything else, or too many commits)."""
        import pygit2

        theirs = self.theirs()
        commits: list[Oid] = []
        last: list[Oid] = []  # written after the commits: tags, blobs
        for oid in targets:
            obj = theirs[oid]
            if isinstance(obj, pygit2.Tag):
                last.append(oid)
                try:
                    commits.append(obj.peel(pygit2.Commit).id)
                except (ValueError, pygit2.GitError, pygit2.InvalidSpecError):
                    return False  # a tag of a tree or a blob
            elif isinstance(obj, pygit2.Commit):
                commits.append(obj.id)
            elif isinstance(obj, pygit2.Blob):
                last.append(oid)
            else:
                return False
        try:
            copy_commits(theirs, self.repo, commits)
        except TooMany:
            return False
        for oid in last:
            if oid not in self.repo:
                kind, data = theirs.odb.read(oid)
                self.repo.odb.write(kind, data)
        return True

    def _prune(self, refspecs: list[str], kept: set[str]) -> None:
        """Delete the DSTs of ``refspecs`` that the remote no longer has a SRC for."""
        targets = [_split(s)[1] for s in refspecs]
        for name in list(self.repo.references):
            if name not in kept and any(_matches(t, name) is not None for t in targets):
                self.repo.references.delete(name)


def _enabled(repo: Repository) -> bool:
    try:
        return bool(repo.config.get_bool(SETTING))
    except (KeyError, ValueError):
        return True


def _local_path(url: str) -> Path | None:
    """The directory a remote URL names on this machine (absolute paths, ``file://``)."""
    if url.startswith("file://"):
        parts = urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            return None
        return Path(unquote(parts.path))
    path = Path(url)
    return path if path.is_absolute() else None


def _expand(refspec: str, names: list[str]) -> list[tuple[str, str]]:
    """(SRC, DST) of every ref among ``names`` that ``refspec`` fetches."""
    src, dst = _split(refspec)
    if "*" not in src:
        return [(src, dst)] if src in names else []
    found = []
    for name in names:
        middle = _matches(src, name)
        if middle is not None:
            found.append((name, dst.replace("*", middle, 1)))
    return found


def _matches(pattern: str, name: str) -> str | None:
    """What ``*`` stands for when ``name`` matches ``pattern`` (the name itself: "")."""
    if "*" not in pattern:
        return "" if name == pattern else None
    before, _, after = pattern.partition("*")
    if len(name) < len(before) + len(after) or not (
        name.startswith(before) and name.endswith(after)
    ):
        return None
    return name[len(before) : len(name) - len(after)]


def _split(refspec: str) -> tuple[str, str]:
    src, _, dst = refspec.lstrip("+").partition(":")
    return src, dst
