"""Copying the objects some commits need from one repository on this machine into another: what a
fetch from a local remote transfers, without building (and delta-compressing) a pack.

Which commits: those reachable from the wanted tips and not from any ref of the
receiving repository (git's negotiation, with every ref as a "have"). Which trees and
blobs: per commit, those not at the same path in one of its parents (whose objects are
there already: a parent is either behind a ref or copied before its children). Every
object is written after the objects it names, so an interrupted copy never leaves an
object behind whose own objects are missing.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .places import common_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pygit2 import Commit, Oid, Repository, Signature, Tree

LIMIT = 500
"""More new commits than this (a first fetch of a long history): leave it to git's packs."""


EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""The empty tree (SHA-1): libgit2 and git answer for it without having it stored, but
``git fsck`` wants every tree a commit names in the object store (a lease commit names it)."""


def store_empty_tree(repo: Repository) -> Oid:
    """Write the empty tree into ``repo``'s object store (a no-op when it is there)."""
    from pygit2.enums import ObjectType

    return repo.odb.write(ObjectType.TREE, b"")


def no_change_commit(repo: Repository, message: str, signature: Signature, base: Oid | None) -> Oid:
    """A commit that changes no file (what a lease ref points to, ``remote.refs``): on
    ``base`` with its tree; a root commit of the empty tree when ``base`` is None or not
    a commit here."""
    from .objects import commit_named

    found = None if base is None else commit_named(repo, str(base))
    if found is None:
        tree = store_empty_tree(repo)  # stored, so that git fsck finds it
        return repo.create_commit(None, signature, signature, message, tree, [])
    return repo.create_commit(None, signature, signature, message, found.tree_id, [found.id])


def changes_nothing(commit: Commit) -> bool:
    """Whether ``commit`` changes no file as a lease commit (``remote.refs``): a root commit
    of the empty tree, or one parent and its tree (False when its parent is not here, a
    shallow clone: not certain)."""
    import pygit2

    from .loose import EMPTY_TREES

    parents = commit.parent_ids
    if not parents:
        return str(commit.tree_id) in EMPTY_TREES
    try:
        return len(parents) == 1 and commit.parents[0].tree_id == commit.tree_id
    except (KeyError, pygit2.GitError):
        return False


class TooMany(Exception):
    """More commits to copy than LIMIT."""


def copy_commits(src: Repository, dst: Repository, tips: list[Oid]) -> int:
    """Write into ``dst`` what the commits ``tips`` of ``src`` need and ``dst`` lacks; how many
    objects were written. TooMany before anything is written when there is much to copy."""
    import pygit2
    from pygit2.enums import SortMode

    wanted = [t for t in tips if t not in dst]
    if not wanted:
        return 0
    walk = src.walk(wanted[0], SortMode.TOPOLOGICAL | SortMode.REVERSE)
    for tip in wanted[1:]:
        walk.push(tip)
    for have in _tips(dst):
        if have in src:
            try:
                walk.hide(have)
            except (pygit2.GitError, ValueError):
                pass  # not a commit (a ref to a blob): nothing to hide
    commits: list[pygit2.Commit] = []
    for commit in walk:
        commits.append(commit)
        if len(commits) > LIMIT:
            raise TooMany(f"{len(commits)}+ commits")
    writer = _Writer(src, dst)
    for commit in commits:  # parents first
        parents = [src[p].peel(pygit2.Tree) for p in commit.parent_ids]
        writer.tree(commit.tree, parents)
        writer.put(commit.id)
    return writer.written


def _tips(repo: Repository) -> set[Oid]:
    """What every ref of ``repo`` points to (the commits whose history it has whole)."""
    import pygit2

    found = set()
    for name in repo.references:
        try:
            target = repo.references[name].resolve().target
        except (KeyError, pygit2.GitError):
            continue  # a dangling symbolic ref
        if isinstance(target, pygit2.Oid):
            found.add(target)
    return found


class _Writer:
    def __init__(self, src: Repository, dst: Repository) -> None:
        self.src, self.dst = src, dst
        self.written = 0
        self.loose_src = Path(common_dir(src)) / "objects"
        self.loose_dst = Path(common_dir(dst)) / "objects"

    def put(self, oid: Oid) -> None:
        """Copy one object (its own objects are in ``dst`` already)."""
        if oid in self.dst:
            if str(oid) == EMPTY_TREE and not self.dst.odb.exists(oid):
                store_empty_tree(self.dst)  # libgit2 knows it without storing it: git does not
            return
        if not self._link(str(oid)):
            kind, data = self.src.odb.read(oid)
            self.dst.odb.write(kind, data)
        self.written += 1

    def _link(self, hex_id: str) -> bool:
        """A loose object of ``src`` taken as it is (hard-linked, as ``git clone --local``
        does, else copied): no inflating and deflating again. False: it is packed."""
        name = f"{hex_id[:2]}/{hex_id[2:]}"
        source, target = self.loose_src / name, self.loose_dst / name
        for _ in range(2):
            try:
                os.link(source, target)
                return True
            except FileExistsError:
                return True
            except FileNotFoundError:
                if not source.is_file():
                    return False  # packed
                target.parent.mkdir(exist_ok=True)  # a new fan-out folder, then again
            except OSError:
                break  # another file system, or links not allowed
        temporary = target.with_name(f"tmp_obj_{os.getpid()}_{hex_id[2:12]}")
        try:
            target.parent.mkdir(exist_ok=True)
            shutil.copyfile(source, temporary)
            os.replace(temporary, target)
        except OSError:
            temporary.unlink(missing_ok=True)
            return False
        return True

    def tree(self, tree: Tree, before: list[Tree]) -> None:
        """Copy ``tree`` and what it holds that no parent tree holds at the same path."""
        import pygit2

        if any(p.id == tree.id for p in before):
            return
        for entry in tree:
            name, oid = entry.name, entry.id
            assert name is not None
            olds = [p[name] for p in before if name in p]
            if any(old.id == oid for old in olds):
                continue  # the parent has it, and everything under it
            if isinstance(entry, pygit2.Tree):
                self.tree(entry, [old for old in olds if isinstance(old, pygit2.Tree)])
            elif isinstance(entry, pygit2.Blob):
                self.put(oid)
            # a submodule's commit (gitlink) is not an object of this repository
        self.put(tree.id)
