"""Objects the workflow builds in memory: trees from an in-memory index, signatures, commit
walks (pygit2; the rest of the package reaches pygit2 only through gitio)."""

from __future__ import annotations

import os

from ..errors import OperationalError

# pygit2 is imported inside the functions that use it (lazy): it is slow to import,
# and commands that never read a repository import this module too.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from os import PathLike
    from typing import Any, TypeGuard

    from pygit2 import (
        Blob,
        Commit,
        Index,
        IndexEntry,
        Object,
        Oid,
        Repository,
        Signature,
        Tree,
    )

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


def index_entry(index: Index, path: str) -> IndexEntry | None:
    """The entry at ``path`` in an index (stage 0), None when there is none."""
    try:
        return index[path]
    except KeyError:
        return None


def index_conflicts(index: Index) -> list[tuple[Any, Any, Any]]:
    """The conflicts an index holds, each as its (base, ours, theirs) entries (an
    ``IndexEntry``, None where that side has none)."""
    return list(index.conflicts or ())


def drop_conflict(index: Index, path: str) -> None:
    """Take ``path``'s conflict stages out of the index (an entry staged after replaces them)."""
    del index.conflicts[path]


def edited_tree(
    repo: Repository, tree: Tree, edits: Mapping[str, tuple[bytes, int] | None]
) -> Tree:
    """``tree`` with files removed (None) or written (content, mode)."""
    if not edits:
        return tree
    index = tree_index(tree)
    for path, content in edits.items():
        if content is None:
            if path in index:
                index.remove(path)
        else:
            stage(index, path, write_blob(repo, content[0]), content[1])
    return tree_at(repo, write_tree(repo, index))


def replaced_blobs(repo: Repository, tree: Tree, blobs: Mapping[str, tuple[Oid, int]]) -> Tree:
    """``tree`` with the files at ``blobs``' paths holding those (blob id, mode) instead:
    only the folders on their paths are written anew."""
    if not blobs:
        return tree
    nested: dict[str, Any] = {}
    for path, entry in blobs.items():
        *folders, name = path.split("/")
        level = nested
        for folder in folders:
            level = level.setdefault(folder, {})
        level[name] = entry
    return tree_at(repo, _replaced(repo, tree, nested))


def _replaced(repo: Repository, tree: Tree, nested: Mapping[str, Any]) -> Oid:
    builder = repo.TreeBuilder(tree)
    for name, entry in nested.items():
        if isinstance(entry, dict):
            sub = tree[name]
            builder.insert(name, _replaced(repo, tree_at(repo, sub.id), entry), FILEMODE_TREE)
        else:
            builder.insert(name, entry[0], entry[1])
    oid: Oid = builder.write()
    return oid


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


class _Contents:
    """Blob contents read or written lately, by id (an id names one content, in every
    repository): a sync reads each base document once for all its agents, and a merged
    document it wrote where the next merge and the checks read it. Up to ``limit`` bytes,
    emptied when full; a blob larger than an eighth of it is not kept (a large playbook
    would empty it at once)."""

    def __init__(self, limit: int) -> None:
        self.limit, self.size = limit, 0
        self.found: dict[str, bytes] = {}

    def keep(self, key: str, data: bytes) -> bytes:
        if len(data) <= self.limit // 8:
            if self.size + len(data) > self.limit:
                self.found.clear()
                self.size = 0
            self.found[key] = data
            self.size += len(data)
        return data


_CONTENTS = _Contents(32 << 20)


def blob_data(repo: Repository, oid: Oid | str) -> bytes:
    """The content of the blob with id ``oid`` (TypeError for another kind of object)."""
    key = str(oid)
    found = _CONTENTS.found.get(key)
    return found if found is not None else _CONTENTS.keep(key, blob_at(repo, oid).data)


def entry_data(entry: Blob) -> bytes:
    """The content of a blob a tree holds (its entry), as ``blob_data`` reads it."""
    key = str(entry.id)
    found = _CONTENTS.found.get(key)
    return found if found is not None else _CONTENTS.keep(key, entry.data)


def write_blob(repo: Repository, data: bytes) -> Oid:
    """Store ``data`` as a blob; its id."""
    oid = repo.create_blob(data)
    _CONTENTS.keep(str(oid), data)
    return oid


def write_tree(repo: Repository, index: Index) -> Oid:
    """Store the tree an in-memory index describes; its id."""
    return index.write_tree(repo)


def make_commit(
    repo: Repository,
    tree: Oid,
    parents: list[Oid],
    message: str,
    author: Signature,
    committer: Signature,
) -> Oid:
    """Store a commit (no ref moves: see ``refs``); its id."""
    return repo.create_commit(None, author, committer, message, tree, parents)


def merged_trees(repo: Repository, base: Tree, ours: Tree, theirs: Tree) -> Index:
    """libgit2's three-way merge of trees: an in-memory index, conflicts as stages."""
    return repo.merge_trees(base, ours, theirs)


def descends(repo: Repository, commit: Oid, ancestor: Oid) -> bool:
    """Whether ``ancestor`` is in ``commit``'s history (not ``commit`` itself)."""
    from .cutwalk import descends as found

    return found(repo, commit, ancestor)


def merge_base(repo: Repository, a: Oid, b: Oid) -> Oid | None:
    """One best common ancestor of two commits (``bases.merge_bases`` has them all)."""
    from .cutwalk import merge_base as found

    return found(repo, a, b)


def object_at(repo: Repository, oid: Oid | str) -> Object | None:
    """The object ``oid`` names, None when the repository does not have it."""
    found: Object | None = repo.get(oid)
    return found


def raw_object(repo: Repository, oid: Oid | str) -> bytes:
    """An object's content as stored (a blob's bytes)."""
    return bytes(repo[oid].read_raw())


def signature(
    name: str, email: str, *, time: int | None = None, offset: int = 0, role: str = "COMMITTER"
) -> Signature:
    """Who made a commit, and when: ``time`` (seconds since the epoch), else the time
    every commit the tool writes takes (``clock.commit_time`` for ``role``, "AUTHOR" or
    "COMMITTER": git's ``GIT_<ROLE>_DATE``, else ``SOURCE_DATE_EPOCH``), else now."""
    import pygit2

    if time is None:
        from ..clock import commit_time

        when = commit_time(role)
        if not when:
            return pygit2.Signature(name, email)
        time, offset = when["time"], when["offset"]
    return pygit2.Signature(name, email, time, offset)


def user_identity(repo: Repository) -> tuple[str | None, str | None]:
    """(name, email) of ``user.name``/``user.email`` as git reads them, (None, None) unset."""
    import pygit2

    try:
        default = repo.default_signature
    except (KeyError, pygit2.GitError):
        return None, None
    return default.name, default.email


def signatures(repo: Repository) -> tuple[Signature, Signature]:
    """(author, committer) for commits the workflow makes: the user's git identity.

    As git does, ``GIT_AUTHOR_NAME``/``EMAIL`` and ``GIT_COMMITTER_NAME``/``EMAIL``
    override ``user.name``/``user.email``; with neither, an OperationalError with a hint.
    """
    name, email = user_identity(repo)

    def make(role: str) -> Signature:
        who = os.environ.get(f"GIT_{role}_NAME") or name
        mail = os.environ.get(f"GIT_{role}_EMAIL") or email
        if not who or not mail:
            raise OperationalError(
                "no git identity to commit with: set it with "
                "git config user.name 'Your Name' and git config user.email you@example.com"
            )
        return signature(who, mail, role=role)

    return make("AUTHOR"), make("COMMITTER")


def new_commits(repo: Repository, tip: Oid, hidden: Oid | None = None) -> Iterator[Commit]:
    """Commits reachable from ``tip`` and not from ``hidden``, in no particular order."""
    import pygit2

    from .cutwalk import walk

    walker = walk(repo, tip, pygit2.enums.SortMode.NONE)
    if hidden is not None:
        walker.hide(hidden)
    return iter(walker)


def newest_commits(repo: Repository, tip: Oid, hidden: Oid | None, limit: int) -> list[Commit]:
    """At most ``limit`` commits reachable from ``tip`` and not from ``hidden``, newest
    first (children before their parents)."""
    import pygit2

    from .cutwalk import walk

    walker = walk(repo, tip, pygit2.enums.SortMode.TOPOLOGICAL)
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


def peeled(repo: Repository, oid: str) -> Tree | Blob | Commit | None:
    """What an object id names once its tags are peeled (a tag of a tag of a tree: the
    tree); None when it is absent here or of no such kind."""
    import pygit2

    try:
        found = repo.get(oid)
        while isinstance(found, pygit2.Tag):
            found = found.get_object()
    except (KeyError, ValueError, pygit2.GitError):
        return None
    if isinstance(found, pygit2.Tree | pygit2.Blob | pygit2.Commit):
        return found
    return None


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


def tree_entries(tree: Tree) -> list[tuple[str, Tree | None]]:
    """Each entry of a tree: its name, and its subtree (None: a file, a link, a submodule)."""
    import pygit2

    return [(entry.name or "", entry if isinstance(entry, pygit2.Tree) else None) for entry in tree]


def first_parent_chain(repo: Repository, tip: Oid) -> Iterator[Commit]:
    """``tip`` and its first parents back to the root, as ``git log --first-parent``."""
    import pygit2

    from .cutwalk import walk

    walker = walk(repo, tip, pygit2.enums.SortMode.NONE)
    walker.simplify_first_parent()
    return iter(walker)
