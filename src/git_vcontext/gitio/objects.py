"""Objects the workflow builds in memory: trees from an in-memory index, signatures, commit
walks (pygit2; the rest of the package reaches pygit2 only through gitio)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import OperationalError

# pygit2 is imported inside the functions that use it (lazy): it is slow to import,
# and commands that never read a repository import this module too.
if TYPE_CHECKING:
    from collections.abc import Iterator
    from os import PathLike
    from typing import TypeGuard

    from pygit2 import Blob, Commit, Index, Object, Oid, Repository, Signature, Tree

FILEMODE_TREE = 0o040000
FILEMODE_BLOB = 0o100644
FILEMODE_BLOB_EXECUTABLE = 0o100755
"""git's modes of a folder, a file and an executable file in a tree (fixed by git)."""


def tree_index(tree: Tree | None = None) -> Index:
    """An in-memory index (not the repository's) holding ``tree``'s files, to edit and
    write as a new tree with ``Index.write_tree(repo)``."""
    import pygit2

    index = pygit2.Index()
    if tree is not None:
        index.read_tree(tree)
    return index


def stage(index: Index, path: str | PathLike[str], blob: Oid, mode: int) -> None:
    """Put ``blob`` at ``path`` in ``index`` with ``mode`` (replacing what was there)."""
    import pygit2

    index.add(pygit2.IndexEntry(path, blob, pygit2.enums.FileMode(mode)))


def is_blob(entry: Object | None) -> TypeGuard[Blob]:
    """Whether a tree entry is a file's content (a blob: not a folder, not a submodule)."""
    return entry is not None and entry.type_str == "blob"


def empty_tree(repo: Repository) -> Tree:
    """The empty tree (written to the object store)."""
    return tree_at(repo, repo.TreeBuilder().write())


def tree_at(repo: Repository, oid: Oid) -> Tree:
    """The tree with id ``oid`` (TypeError for another kind of object)."""
    import pygit2

    found = repo[oid]
    if not isinstance(found, pygit2.Tree):
        raise TypeError(f"{oid} is a {found.type_str}, not a tree")
    return found


def blob_at(repo: Repository, oid: Oid | str) -> Blob:
    """The blob with id ``oid`` (TypeError for another kind of object)."""
    import pygit2

    found = repo[oid]
    if not isinstance(found, pygit2.Blob):
        raise TypeError(f"{oid} is a {found.type_str}, not a blob")
    return found


def commit_at(repo: Repository, oid: Oid | str) -> Commit:
    """The commit with id ``oid`` (TypeError for another kind of object)."""
    import pygit2

    found = repo[oid]
    if not isinstance(found, pygit2.Commit):
        raise TypeError(f"{oid} is a {found.type_str}, not a commit")
    return found


def blob_data(repo: Repository, oid: Oid | str) -> bytes:
    """The content of the blob with id ``oid`` (TypeError for another kind of object)."""
    return blob_at(repo, oid).data


def signature(name: str, email: str, *, time: int | None = None, offset: int = 0) -> Signature:
    """Who made a commit; ``time`` (seconds since the epoch) None: now."""
    import pygit2

    if time is None:
        return pygit2.Signature(name, email)
    return pygit2.Signature(name, email, time, offset)


def user_identity(repo: Repository) -> tuple[str | None, str | None]:
    """(name, email) of ``user.name``/``user.email`` as git reads them, (None, None) unset."""
    import pygit2

    try:
        default = repo.default_signature
    except (KeyError, pygit2.GitError):
        return None, None
    return default.name, default.email


def new_commits(repo: Repository, tip: Oid, hidden: Oid | None = None) -> Iterator[Commit]:
    """Commits reachable from ``tip`` and not from ``hidden``, in no particular order."""
    import pygit2

    walker = repo.walk(tip, pygit2.enums.SortMode.NONE)
    if hidden is not None:
        walker.hide(hidden)
    return iter(walker)


def newest_commits(repo: Repository, tip: Oid, hidden: Oid | None, limit: int) -> list[Commit]:
    """At most ``limit`` commits reachable from ``tip`` and not from ``hidden``, newest
    first (children before their parents)."""
    import pygit2

    walker = repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL)
    if hidden is not None:
        walker.hide(hidden)
    found = []
    for commit in walker:
        found.append(commit)
        if len(found) >= limit:
            break
    return found


def commit_named(repo: Repository, name: str) -> Commit | None:
    """The commit a ref (resolved, peeled) or an object id names; None when there is none
    here (absent, dangling, not a commit)."""
    import pygit2

    try:
        ref = repo.references.get(name) if name.startswith("refs/") else None
        found = ref.resolve().peel(pygit2.Commit) if ref is not None else None
        if found is None and not name.startswith("refs/"):
            obj = repo.get(name)
            found = None if obj is None else obj.peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        return None
    return found


def blob_bytes(repo: Repository, blob_id: str) -> bytes:
    """The content of a blob; OperationalError when the object cannot be read."""
    try:
        return blob_data(repo, blob_id)
    except (KeyError, ValueError, TypeError) as exc:
        raise OperationalError(f"cannot read object {blob_id}: {exc}") from None


def tree_blob(tree: Tree, path: str) -> Blob | None:
    """The blob at ``path`` in a tree (``.id``, ``.data``), or None (absent, or not a file)."""
    try:
        entry = tree[path]
    except KeyError:
        return None
    return entry if is_blob(entry) else None
