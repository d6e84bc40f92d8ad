"""Committing one file on the current branch without touching anything else (pygit2).

Like ``git commit --only PATH``: the commit is HEAD's tree with that one file
replaced; the branch moves only if it still points where it did (compare-and-swap);
the index entry of that path follows the commit when the user had not staged another
version of it, and no other index entry, staged change or file is touched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import OperationalError, RefMoved
from ..record import record
from .objects import FILEMODE_BLOB, signatures, stage, tree_index
from .refs import RefUpdate, move_refs

# pygit2 is imported inside the functions that use it (lazy): it is slow to import,
# and commands that never read a repository import this module too.
if TYPE_CHECKING:
    from pygit2 import Oid, Repository, Signature, Tree


@record
class Committed:
    """What became of a write's commit: its id, or why there is none (a note for the agent)."""

    commit: str | None
    note: str | None = None


def operation_in_progress(repo: Repository) -> str | None:
    """``merge``, ``rebase``, ... when git stopped in the middle of one, else None."""
    import pygit2

    state = repo.state()
    if state == pygit2.enums.RepositoryState.NONE:
        return None
    return str(pygit2.enums.RepositoryState(state).name).lower().replace("_", " ")


def conflicted(repo: Repository, path: str) -> bool:
    """Whether the index holds unresolved conflict stages for ``path`` (repo-relative)."""
    index = repo.index
    index.read()
    conflicts = index.conflicts
    return conflicts is not None and path in conflicts


def head_commit(repo: Repository) -> str | None:
    """The id of the commit HEAD points to; None on an unborn branch."""
    return None if repo.head_is_unborn else str(repo.head.target)


def head_is_unborn(repo: Repository) -> bool:
    """Whether HEAD names a branch with no commit yet (a fresh repository)."""
    return bool(repo.head_is_unborn)


def current_branch(repo: Repository) -> str | None:
    """The short name of the branch checked out, None when HEAD is detached or unborn."""
    if repo.head_is_detached or repo.head_is_unborn:
        return None
    return str(repo.head.shorthand)


def commit_file(repo: Repository, path: str, data: bytes, message: str) -> Committed:
    """Commit ``data`` as ``path`` (repo-relative) on the current branch, on its own."""
    why = cannot_commit(repo)
    if why is not None:
        return Committed(None, why)
    old_blob, _ = head_entry(repo, path)
    try:
        author, committer = signatures(repo)
    except OperationalError as exc:
        return Committed(None, f"not committed: {exc.message}")
    done = commit_path(repo, path, data, message, author, committer)
    if done.commit is None:
        return done
    return Committed(done.commit, follow_index(repo, path, old_blob, data))


def cannot_commit(repo: Repository) -> str | None:
    """Why a commit on the current branch cannot be made now (None: it can)."""
    if repo.head_is_unborn:
        return "not committed: the branch has no commit yet"
    if repo.head_is_detached:
        return "not committed: HEAD is detached (no branch to commit on)"
    busy = operation_in_progress(repo)
    if busy is not None:
        return f"not committed: a {busy} is in progress (commit it, then writes commit again)"
    return None


def head_entry(repo: Repository, path: str) -> tuple[Oid | None, int]:
    """The blob id and mode of ``path`` at HEAD (None and a plain file's mode if absent)."""
    if repo.head_is_unborn:
        return None, FILEMODE_BLOB
    return _entry(repo.head.peel().tree, path)


def staged_entry(repo: Repository, path: str) -> Oid | None:
    """The blob id the index holds for ``path`` (stage 0), None when it holds none."""
    index = repo.index
    index.read()
    try:
        return index[path].id  # type: ignore[no-any-return]
    except KeyError:
        return None


def blob_id(data: bytes) -> Oid:
    """The id git gives a file holding ``data`` (nothing written)."""
    import pygit2

    return pygit2.hash(data)


def blob_data(repo: Repository, oid: Oid) -> bytes:
    """The content of the blob ``oid``."""
    return bytes(repo[oid].data)  # type: ignore[attr-defined]


def commit_path(
    repo: Repository,
    path: str,
    data: bytes | None,
    message: str,
    author: Signature,
    committer: Signature,
) -> Committed:
    """Commit HEAD's tree with ``path`` set to ``data`` (None: removed) on the current
    branch, which moves only if it still points where it did; nothing else is touched."""
    why = cannot_commit(repo)
    if why is not None:
        return Committed(None, why)
    head = repo.head.peel()
    branch = repo.head.name
    old_blob, mode = _entry(head.tree, path)
    index = tree_index(head.tree)
    if data is None:
        if old_blob is None:
            return Committed(None, "not in the last commit: nothing to commit")
        index.remove(path)
    else:
        new_blob = repo.create_blob(data)
        if old_blob == new_blob:
            return Committed(None, "unchanged since the last commit: nothing to commit")
        stage(index, path, new_blob, mode)
    tree = index.write_tree(repo)
    commit = repo.create_commit(None, author, committer, message, tree, [head.id])
    try:
        move_refs(repo, [RefUpdate(branch, head.id, commit)], message=message.split("\n")[0])
    except RefMoved as exc:
        return Committed(None, f"not committed: {exc.message}")
    return Committed(str(commit))


def set_staged(repo: Repository, path: str, data: bytes | None) -> str | None:
    """Put ``data`` in the index as ``path`` (stage 0; None: remove the entry); a note when
    the index could not be written."""
    import pygit2

    index = repo.index
    try:
        index.read()
        if data is None:
            try:
                index.remove(path)
            except (KeyError, OSError, pygit2.GitError):
                return None
        else:
            _, mode = head_entry(repo, path)
            try:
                mode = index[path].mode
            except KeyError:
                pass
            index.add(pygit2.IndexEntry(path, repo.create_blob(data), pygit2.enums.FileMode(mode)))
        index.write()
    except (pygit2.GitError, OSError) as exc:
        return f"the index could not be updated ({exc}): run 'git reset -- {path}'"
    return None


def _entry(tree: Tree, path: str) -> tuple[Oid | None, int]:
    """The blob id and mode of ``path`` in ``tree`` (None and a plain file's mode if absent)."""
    try:
        entry = tree[path]
    except KeyError:
        return None, FILEMODE_BLOB
    return entry.id, entry.filemode


def follow_index(repo: Repository, path: str, old_blob: Oid | None, data: bytes) -> str | None:
    """Stage the committed content of ``path`` when the index held HEAD's (or nothing)."""
    staged = staged_entry(repo, path)
    if staged != old_blob:
        return f"committed; {path} has other staged changes, so the index was left alone"
    return set_staged(repo, path, data)
