"""Which files changed between two states of a repository (pygit2): the one tree-diff walker."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import OperationalError, UsageError
from ..filechange import FileChange
from ..fsio import read_regular
from ..record import replace
from . import resolve_commit, revision_range, workdir
from .objects import blob_data, commit_at, empty_tree, merge_base

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pygit2 import Commit, Diff, DiffDelta, DiffFile, IndexEntry, Repository, Tree

LINK_MODE = 0o120000
NO_DOCUMENT_MODES = (LINK_MODE, 0o160000)  # symlinks and submodules hold no document


def tree_changes(
    old: Tree | None,
    new: Tree,
    *,
    wanted: Callable[[str], bool] | None = None,
    renames: bool = False,
    files_only: bool = False,
    links: list[str] | None = None,
) -> list[FileChange]:
    """The files that differ between two trees (``old`` None: the empty tree), blob ids
    on each side (``links``: see ``diff_changes``).

    ``wanted(path)`` filters by path before anything is read. ``renames``: git's rename
    detection (it reads contents), run only when a wanted file was added or deleted.
    ``files_only``: a change to or from a symlink or submodule is left out (neither holds
    a document).
    """
    diff = new.diff_to_tree(swap=True) if old is None else old.diff_to_tree(new)
    return diff_changes(diff, wanted=wanted, renames=renames, files_only=files_only, links=links)


def diff_changes(
    diff: Diff,
    *,
    wanted: Callable[[str], bool] | None = None,
    renames: bool = False,
    files_only: bool = False,
    links: list[str] | None = None,
    others: list[str] | None = None,
) -> list[FileChange]:
    """The changed files of a pygit2 diff (see ``tree_changes``); ``links`` (with
    ``files_only``) receives the wanted paths that became or stay a symbolic link;
    ``others`` the paths the diff adds that ``wanted`` leaves out (whatever they are: a
    file, a link), from the same diff."""
    if others is not None and wanted is not None:
        others.extend(
            d.new_file.path
            for d in diff.deltas
            if _absent(d.old_file) and not _absent(d.new_file) and not wanted(d.new_file.path)
        )
    deltas = [d for d in diff.deltas if _wanted(d, wanted)]
    if renames and any(_absent(d.old_file) or _absent(d.new_file) for d in deltas):
        diff.find_similar()
        deltas = [d for d in diff.deltas if _wanted(d, wanted)]
    out = []
    for delta in deltas:
        old, new = delta.old_file, delta.new_file
        if files_only and (old.mode in NO_DOCUMENT_MODES or new.mode in NO_DOCUMENT_MODES):
            if links is not None and new.mode == LINK_MODE and _wanted_side(new, wanted):
                links.append(new.path)
            continue
        old_path = None if _absent(old) else old.path
        new_path = None if _absent(new) else new.path
        old_id = None if old_path is None else str(old.id)
        new_id = None if new_path is None else str(new.id)
        renamed = old_path is not None and new_path is not None and old_path != new_path
        out.append(FileChange(old_path, new_path, old_id, new_id, renamed=renamed))
    return out


def _wanted_side(file: DiffFile, wanted: Callable[[str], bool] | None) -> bool:
    return not _absent(file) and (wanted is None or wanted(file.path))


def _wanted(delta: DiffDelta, wanted: Callable[[str], bool] | None) -> bool:
    files = (delta.old_file, delta.new_file)
    return wanted is None or any(not _absent(f) and wanted(f.path) for f in files)


def changed_files(
    repo: Repository, revs: Sequence[str], *, cached: bool, wanted: Callable[[str], bool]
) -> list[FileChange]:
    """Files that differ, with both contents, as ``git diff [--cached] [REV [REV]]`` sees
    them (renames found).

    ``wanted(path)`` filters by path before any content is read. While a merge is
    stopped, a conflicted file is its work-tree content once, against REV (or, without
    one, against ours: stage 2); ``--cached`` leaves it out (see ``unmerged_paths``).
    """
    diff, new_side, base = _diff(repo, list(revs), cached)
    diff.find_similar()
    unmerged = set(unmerged_paths(repo)) if base is not _TREES else set()
    found = []
    work_tree = base is not _TREES and base is not _INDEX  # the new side has no blob id
    for change in diff_changes(diff, wanted=wanted, files_only=True):
        if {change.old_path, change.new_path} & unmerged:
            continue
        old = blob_data(repo, change.old_id) if change.old_id is not None else None
        new = new_side(change.new_id, change.new_path) if change.new_path else None
        if old != new or change.renamed:
            new_id = None if work_tree else change.new_id
            found.append(replace(change, new_id=new_id, old=old, new=new))
    if unmerged and base is not _INDEX:
        found += _unmerged_changes(repo, base, unmerged, wanted)
    return sorted(found, key=lambda change: change.path)


def unmerged_paths(repo: Repository) -> list[str]:
    """Paths in conflict stages in the index (a stopped merge, rebase or cherry-pick)."""
    repo.index.read()
    conflicts = repo.index.conflicts
    if conflicts is None:
        return []
    return sorted({_path(entry) for entry in conflicts})


def _unmerged_changes(
    repo: Repository, rev: str | None, paths: set[str], wanted: Callable[[str], bool]
) -> list[FileChange]:
    """Conflicted files: the work tree's content against ``rev`` (None: ours, stage 2)."""
    found = []
    stages = {_path(entry): entry for entry in repo.index.conflicts or ()}
    tree = _commit(repo, rev).tree if rev is not None else None
    for path in sorted(p for p in paths if wanted(p)):
        if tree is not None:
            old = bytes(blob_data(repo, tree[path].id)) if path in tree else None
        else:
            ours = stages[path][1]
            old = bytes(blob_data(repo, ours.id)) if ours is not None else None
        file = workdir(repo) / path
        new = file.read_bytes() if file.is_file() and not file.is_symlink() else None
        if old != new:
            found.append(FileChange.at(path, old, new))
    return found


def _path(entry: tuple[IndexEntry | None, IndexEntry | None, IndexEntry | None]) -> str:
    return str(next(e.path for e in entry if e is not None))


def _absent(diff_file: DiffFile) -> bool:
    return bool(diff_file.mode == 0)


_TREES = "trees"  # two revisions: no index, no work tree
_INDEX = "index"  # --cached: the index is the new side


def _diff(
    repo: Repository, revs: list[str], cached: bool
) -> tuple[Diff, Callable[[str | None, str], bytes], str | None]:
    """The pygit2 diff for the requested states, a reader for its new side, and what the
    new side is: ``_TREES``, ``_INDEX``, or the work tree against a revision (None: the
    index, so a conflicted file is compared with ours)."""
    commits = _range(repo, revs[0]) if len(revs) == 1 else None
    if len(revs) > 2:
        raise UsageError("at most two revisions")
    if commits is not None or len(revs) == 2:
        if cached:
            raise UsageError("--cached takes at most one revision")
        a, b = commits or (_commit(repo, r) for r in revs)
        return a.tree.diff_to_tree(b.tree), _blob_reader(repo), _TREES
    if cached:
        return _index_vs_tree(repo, revs[0] if revs else "HEAD"), _blob_reader(repo), _INDEX
    if revs:  # like git: the tree against the work tree *through the index* (sees new files)
        diff = _index_vs_tree(repo, revs[0])
        diff.merge(repo.index.diff_to_workdir())
        return diff, _file_reader(repo), revs[0]
    repo.index.read()
    return repo.index.diff_to_workdir(), _file_reader(repo), None


def _range(repo: Repository, spec: str) -> tuple[Commit, Commit] | None:
    """The two commits ``A..B`` compares; for ``A...B``, their merge base and B."""
    found = revision_range(repo, spec)
    if found is None:
        return None
    left, right, symmetric = found
    if symmetric:
        base = merge_base(repo, left.id, right.id)
        if base is None:
            raise OperationalError(f"{spec}: no merge base{_shallow_advice(repo)}")
        left = commit_at(repo, base)
    return left, right


def _shallow_advice(repo: Repository) -> str:
    """Why a shallow clone may see no merge base, and the fetch that would find one."""
    from .places import is_shallow

    if not is_shallow(repo):
        return ""
    return (
        " in the history this shallow clone has: git fetch --deepen=100 fetches more of it "
        "(git fetch --unshallow: all of it), then run this again"
    )


def _index_vs_tree(repo: Repository, rev: str) -> Diff:
    """Old side: the tree of ``rev`` (the empty tree before the first commit); new: the index."""
    repo.index.read()
    unborn = rev == "HEAD" and repo.head_is_unborn
    tree = empty_tree(repo) if unborn else _commit(repo, rev).tree
    diff: Diff = repo.index.diff_to_tree(tree)  # (pygit2 leaves Repository.index untyped)
    return diff


def _commit(repo: Repository, rev: str) -> Commit:
    return resolve_commit(repo, rev)


def _blob_reader(repo: Repository) -> Callable[[str | None, str], bytes]:
    return lambda blob_id, _path: bytes(blob_data(repo, blob_id or ""))


def _file_reader(repo: Repository) -> Callable[[str | None, str], bytes]:
    top = workdir(repo)

    def read(_blob_id: str | None, path: str) -> bytes:
        return read_regular(str(top / Path(path)))  # never a FIFO: it would block

    return read


def attribute(repo: Repository, path: str, name: str) -> str | bool | None:
    """A git attribute of a path (``diff``, ``merge``), from the work tree's .gitattributes."""
    try:
        return repo.get_attr(path, name)
    except Exception:  # pygit2 raises various errors for odd paths; treat as unset
        return None


def changes(
    repo: Repository,
    parent: Commit | None,
    commit: Commit,
    wanted: Callable[[str], bool],
    *,
    links: list[str] | None = None,
    others: list[str] | None = None,
) -> list[FileChange]:
    """The ``wanted`` files that differ between ``parent`` (None: empty tree) and ``commit``
    (blob ids, no contents); ``links`` receives the wanted paths the change makes (or
    keeps) a symbolic link, ``others`` the paths it adds that are not wanted.

    Renames are found (so a moved document keeps its past), but only when a wanted
    file was added or deleted: rename detection reads contents.
    """
    old = None if parent is None else parent.tree
    diff = commit.tree.diff_to_tree(swap=True) if old is None else old.diff_to_tree(commit.tree)
    found = diff_changes(
        diff, wanted=wanted, renames=True, files_only=True, links=links, others=others
    )
    return [c for c in found if c.old_id != c.new_id or c.renamed]
