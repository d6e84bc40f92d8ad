"""The server's view of git: who the agent is, whether writes commit, conflicts, commits."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from ..branches.agents import agent_of_branch
from ..edits.stamp import Refused
from ..errors import OperationalError
from ..gitio import read_at, resolve_commit
from ..gitio.commits import Committed, commit_file, conflicted, current_branch
from ..gitio.commits import operation_in_progress as in_progress
from ..gitio.fileset import work_tree_files

if TYPE_CHECKING:
    from pygit2 import Repository

    from ..gitio.fileset import FileSet

DEFAULT_AGENT = "mcp"
T = TypeVar("T")


class GitSide:
    """One pygit2 repository used under a lock (tools run in worker threads)."""

    def __init__(self, repo: Repository, *, agent: str | None = None, commit: bool = False) -> None:
        self.repo = repo
        self._agent = agent
        self._commit = commit
        self._lock = threading.Lock()
        self._files: FileSet | None = None
        self.top = os.path.realpath(repo.workdir) if repo.workdir else None

    def branch(self) -> str | None:
        with self._lock:
            return current_branch(self.repo)

    def agent_branch(self) -> str | None:
        """The agent whose ``agents/NAME`` branch is checked out here, if any."""
        branch = self.branch()
        with self._lock:
            return agent_of_branch(self.repo, branch) if branch else None

    def agent(self) -> str:
        """``--agent``, else the agent of the branch checked out, else ``mcp``."""
        return self._agent or self.agent_branch() or DEFAULT_AGENT

    def commits(self) -> bool:
        """Whether writes are committed: ``--commit``, or an agent branch is checked out."""
        return self._commit or self.agent_branch() is not None

    def path_of(self, real: str) -> str | None:
        """The repo-relative path of a file (None when it is not in this work tree)."""
        if self.top is None:
            return None
        rel = os.path.relpath(real, self.top)
        return None if rel.startswith("..") else rel.replace(os.sep, "/")

    def finish_interrupted(self) -> None:
        """Finish a work-tree update an interrupted sync left (``sync/interrupted``) before
        a write reads a document: never an edit of the files it left behind."""
        from ..sync.interrupted import Unfinished, finish

        with self._lock:
            try:
                finish(self.repo)
            except Unfinished as exc:
                raise Refused("stale", exc.message) from None

    def refuse_if_conflicted(self, real: str, shown: str) -> None:
        """Refuse writing a document git left conflicted in a stopped merge."""
        path = self.path_of(real)
        with self._lock:
            busy = in_progress(self.repo)
            stuck = busy is not None and path is not None and conflicted(self.repo, path)
        if stuck:
            raise Refused(
                "conflicted",
                f"{shown} has unresolved conflicts from the stopped {busy}: resolve them "
                "(git vcontext conflicts / resolve, or git mergetool) before writing",
            )

    def commit(self, real: str, data: bytes, message: str) -> Committed:
        """Commit one written document on the current branch."""
        path = self.path_of(real)
        if path is None:
            return Committed(None, "not committed: the file is outside this work tree")
        with self._lock:
            try:
                return commit_file(self.repo, path, data, message)
            except OperationalError as exc:
                return Committed(None, f"not committed: {exc.message}")

    def locked(self, work: Callable[[Repository], T]) -> T:
        """Run ``work(repo)`` holding the repository lock (status, sync)."""
        with self._lock:
            return work(self.repo)

    def read_at(self, rev: str, path: str) -> bytes | None:
        """The content of ``path`` at ``rev`` (None when the revision does not have it)."""
        with self._lock:
            resolve_commit(self.repo, rev)  # an unknown revision is an error, not "absent"
            try:
                return read_at(self.repo, rev, path)
            except OperationalError:
                return None

    def ignored(self, full: str) -> bool:
        """Whether git ignores the folder or file at the absolute path ``full``."""
        path = self.path_of(full)
        if not path or path == ".":
            return False
        with self._lock:
            try:
                return bool(self.repo.path_is_ignored(path))
            except Exception:  # pygit2 raises various errors for odd paths
                return False

    def declared(self, full: str) -> bool:
        """Whether ``.gitattributes`` routes the file at ``full`` to the vcontext driver
        (the file set ``validate``, ``doctor`` and the hook use)."""
        path = self.path_of(full)
        if not path:
            return False
        with self._lock:
            if self._files is None:
                self._files = work_tree_files(self.repo)
            return bool(self._files.routed(path))
