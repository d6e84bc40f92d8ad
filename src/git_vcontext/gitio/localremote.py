"""A remote that is a repository on this machine (a path or a ``file://`` URL): ``sync --push``
reads its refs and fetches from it in process (libgit2's local transport) instead of
starting ``git ls-remote`` / ``git fetch`` and their ``upload-pack`` for every look.

Agents that share one machine usually share one bare repository; a waiting agent looks
at it many times, and each ``git`` look costs processes (fetch + upload-pack + rev-list,
~60 ms of CPU) where reading a ref costs well under a millisecond. Pushes still go
through ``git push`` (the pre-push hook, the remote's receive hooks, permissions).

Only plain cases take this path: an absolute path or ``file://`` URL (after git's
``insteadOf``), no ``uploadpack`` of the remote's own, not a shallow clone, and
``vcontext.inProcessFetch`` not false. Anything else (and any remote libgit2 cannot
open) uses git.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..errors import OperationalError
from . import config_value
from .refs import RefMoved, RefUpdate, move_refs

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
            found.theirs()
        except OperationalError:
            return None
        return found

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
        are deleted. FETCH_HEAD is left alone. None: a ref names an object libgit2's local
        transport cannot send (a blob, a tree) or libgit2 failed: fetch with git instead."""
        import pygit2
        from pygit2.enums import ObjectType

        theirs = self.theirs()
        try:
            names = list(theirs.references)
            wanted = {}  # DST -> (SRC, the object it names there)
            for spec in refspecs:
                for src, dst in _expand(spec, names):
                    wanted[dst] = (src, theirs.references[src].resolve().target)
            kinds = {dst: theirs[oid].type for dst, (_, oid) in wanted.items()}
        except (pygit2.GitError, KeyError) as exc:  # a ref deleted while we read
            raise OperationalError(f"reading the refs of {self.name}: {exc}") from None
        if any(k not in (ObjectType.COMMIT, ObjectType.TAG) for k in kinds.values()):
            return None
        if not self._transfer([f"+{src}:{dst}" for dst, (src, _) in wanted.items()]):
            return None
        if prune:
            self._prune(refspecs, set(wanted))
        exact = [_split(s) for s in refspecs if "*" not in s]
        present = {src for src, _ in wanted.values()}
        return [src for src, _ in exact if src not in present]

    def _transfer(self, refspecs: list[str]) -> bool:
        """libgit2's fetch of exact ``refspecs`` (objects and DSTs), FETCH_HEAD kept; False
        when libgit2 could not (e.g. a local ref to a blob stops its negotiation)."""
        if not refspecs:
            return True
        import pygit2
        from pygit2.enums import FetchPrune

        fetch_head = Path(self.repo.path) / "FETCH_HEAD"
        kept = fetch_head.read_bytes() if fetch_head.exists() else None
        try:
            anonymous = self.repo.remotes.create_anonymous(str(self.path))
            anonymous.fetch(refspecs, prune=FetchPrune.NO_PRUNE)
        except pygit2.GitError:
            return False  # git says why, if it fails too
        finally:
            _restore(fetch_head, kept)
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


def _restore(path: Path, content: bytes | None) -> None:
    """Put FETCH_HEAD back as it was (libgit2 rewrites it on every fetch)."""
    try:
        if content is None:
            path.unlink(missing_ok=True)
        elif not path.exists() or path.read_bytes() != content:
            path.write_bytes(content)
    except OSError:
        pass
