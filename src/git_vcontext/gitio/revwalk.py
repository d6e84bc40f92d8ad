"""A revision range walked in one process (pygit2): commits, their files' blobs, who and when."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from ..errors import OperationalError
from ..lineage.meta import CommitMeta
from . import resolve_commit, revision_range
from .cutwalk import cut, missing_object, parent_ids, walk, walked
from .diffs import NO_DOCUMENT_MODES, tree_changes
from .objects import commit_at, merge_base

# pygit2 is imported inside the functions that use it (lazy): it is slow to import,
# and commands that never read a repository import this module too.
if TYPE_CHECKING:
    from pygit2 import Commit, Repository


class GitHistory:
    """The commits of a revision range, children before parents, read with pygit2.

    ``revs`` as ``git log`` takes them: ``REV``, ``^REV``, ``A..B``, ``A...B``;
    none means ``HEAD``. Commit ids are full hex strings.
    """

    def __init__(self, repo: Repository, revs: Sequence[str] = ()) -> None:
        import pygit2

        self.repo = repo
        self._odb = repo.odb
        self._commits: dict[str, Commit] = {}
        order = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME
        self._walker = walk(repo, None, order)
        self.tips: list[str] = []
        self._cut: frozenset[str] | None = None
        for rev in revs or ["HEAD"]:
            self._add(rev)
        if not self.tips:
            raise OperationalError("the revision range holds no commit to start from")

    def _add(self, rev: str) -> None:
        if rev.startswith("^") and len(rev) > 1:
            self._walker.hide(resolve_commit(self.repo, rev[1:]).id)
            return
        found = revision_range(self.repo, rev)
        if found is None:
            self._push(resolve_commit(self.repo, rev))
            return
        left, right, symmetric = found
        if symmetric:  # A...B: what either has that their merge base has not
            base = merge_base(self.repo, left.id, right.id)
            self._push(left)
            self._push(right)
            if base is not None:
                self._walker.hide(base)
        else:
            self._walker.hide(left.id)
            self._push(right)

    def _push(self, commit: Commit) -> None:
        self._walker.push(commit.id)
        self.tips.append(str(commit.id))

    def commits(self) -> Iterator[str]:
        """Every commit of the range, newest first, never a parent before its children."""
        for commit in walked(self._walker):
            key = str(commit.id)
            self._commits[key] = commit
            yield key

    def _commit(self, commit_id: str) -> Commit:
        found = self._commits.get(commit_id)
        if found is None:
            found = self._commits[commit_id] = commit_at(self.repo, commit_id)
        return found

    def parents(self, commit_id: str) -> tuple[str, ...]:
        """The parents' ids, first parent first."""
        commit = self._commit(commit_id)
        return tuple(str(p) for p in parent_ids(self.repo, commit, self.shallow_boundary()))

    def blob(self, commit_id: str, path: str) -> str | None:
        """The blob id of the regular file ``path`` at a commit (None: absent, a directory,
        a symlink or a submodule, none of which holds a document)."""
        import pygit2

        try:
            obj = self._commit(commit_id).tree[path]
        except (KeyError, ValueError):
            return None
        except pygit2.GitError as exc:  # a tree the history needs is missing (corrupt)
            raise missing_object(exc) from None
        if obj.type_str != "blob" or obj.filemode in NO_DOCUMENT_MODES:
            return None
        return str(obj.id)

    def read(self, blob_id: str) -> bytes:
        """The content of a blob (a missing one: ``missing_object``'s line, as the walk's)."""
        import pygit2

        try:
            data: bytes = self._odb.read(blob_id)[1]
        except (pygit2.GitError, KeyError) as exc:
            raise missing_object(exc) from None
        return data

    def moved_from(self, commit_id: str, parent_id: str, path: str) -> list[tuple[str, str, bool]]:
        """Files the commit removed that ``path`` (new in it) may come from, as
        ``(old path, blob id, git calls it a rename)``: git's renames first."""
        import pygit2

        old, new = self._commit(parent_id).tree, self._commit(commit_id).tree
        found: list[tuple[str, str, bool]] = []
        try:
            changes = list(tree_changes(old, new, renames=True, files_only=True))
        except (pygit2.GitError, KeyError) as exc:  # a tree or blob the history needs
            raise missing_object(exc) from None
        for change in changes:
            if change.old_path is None or change.old_id is None:
                continue
            renamed = change.renamed and change.new_path == path
            if renamed or change.new_path is None:
                found.append((change.old_path, change.old_id, renamed))
        return sorted(found, key=lambda f: not f[2])

    def meta(self, commit_id: str) -> CommitMeta:
        """Author, author date, subject and parents of a commit."""
        commit = self._commit(commit_id)
        author = commit.author
        zone = dt.timezone(dt.timedelta(minutes=author.offset))
        when = dt.datetime.fromtimestamp(author.time, zone)
        message = commit.message or ""
        subject = message.strip().split("\n", 1)[0].strip() if message.strip() else ""
        return CommitMeta(
            commit_id,
            author.name,
            author.email,
            when,
            subject,
            self.parents(commit_id),
            boundary=commit_id in self.shallow_boundary(),
        )

    def shallow_boundary(self) -> frozenset[str]:
        """The commits whose parents this shallow clone has not fetched (git marks them
        ``^`` in blame, ``grafted`` in log): their history starts there, here only."""
        if self._cut is None:
            # lazy: only to mark a commit
            self._cut = cut(self.repo)
        return self._cut
