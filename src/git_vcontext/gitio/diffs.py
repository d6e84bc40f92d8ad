"""Which files changed between two states of a repository, with both contents (pygit2)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import OperationalError, UsageError
from . import resolve_commit, workdir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pygit2 import Commit, Diff, DiffFile, IndexEntry, Repository

NO_DOCUMENT_MODES = (0o120000, 0o160000)  # symlinks and submodules hold no document


@dataclass(frozen=True)
class FilePair:
    """One changed file: paths and contents on each side (None where the file is absent)."""

    old_path: str | None
    new_path: str | None
    old: bytes | None
    new: bytes | None

    @property
    def path(self) -> str:
        """The name to show: the new path, or the old one for a deletion."""
        return self.new_path or self.old_path or ""

    @property
    def status(self) -> str:
        """``added``, ``deleted``, ``renamed`` or ``modified``."""
        if self.old_path is None:
            return "added"
        if self.new_path is None:
            return "deleted"
        return "renamed" if self.old_path != self.new_path else "modified"


def changed_files(
    repo: Repository, revs: Sequence[str], *, cached: bool, wanted: Callable[[str], bool]
) -> list[FilePair]:
    """Files that differ, as ``git diff [--cached] [REV [REV]]`` sees them (renames found).

    ``wanted(path)`` filters by path before any content is read. While a merge is
    stopped, a conflicted file is its work-tree content once, against REV (or, without
    one, against ours: stage 2); ``--cached`` leaves it out (see ``unmerged_paths``).
    """
    from .objects import blob_data  # (the pre-push hook imports this module for its modes)

    diff, new_side, base = _diff(repo, list(revs), cached)
    diff.find_similar()
    unmerged = set(unmerged_paths(repo)) if base is not _TREES else set()
    pairs = []
    for delta in diff.deltas:
        old_path = None if _absent(delta.old_file) else delta.old_file.path
        new_path = None if _absent(delta.new_file) else delta.new_file.path
        if not (old_path and wanted(old_path)) and not (new_path and wanted(new_path)):
            continue
        if {old_path, new_path} & unmerged or any(
            f.mode in NO_DOCUMENT_MODES for f in (delta.old_file, delta.new_file)
        ):
            continue
        old = blob_data(repo, delta.old_file.id) if old_path else None
        new = new_side(delta.new_file) if new_path else None
        if old != new or old_path != new_path:
            pairs.append(FilePair(old_path, new_path, old, new))
    if unmerged and base is not _INDEX:
        pairs += _unmerged_pairs(repo, base, unmerged, wanted)
    return sorted(pairs, key=lambda pair: pair.path)


def unmerged_paths(repo: Repository) -> list[str]:
    """Paths in conflict stages in the index (a stopped merge, rebase or cherry-pick)."""
    repo.index.read()
    conflicts = repo.index.conflicts
    if conflicts is None:
        return []
    return sorted({_path(entry) for entry in conflicts})


def _unmerged_pairs(
    repo: Repository, rev: str | None, paths: set[str], wanted: Callable[[str], bool]
) -> list[FilePair]:
    """Conflicted files: the work tree's content against ``rev`` (None: ours, stage 2)."""
    from .objects import blob_data

    pairs = []
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
            old_path, new_path = (path if side is not None else None for side in (old, new))
            pairs.append(FilePair(old_path, new_path, old, new))
    return pairs


def _path(entry: tuple[IndexEntry | None, IndexEntry | None, IndexEntry | None]) -> str:
    return str(next(e.path for e in entry if e is not None))


def _absent(diff_file: DiffFile) -> bool:
    return bool(diff_file.mode == 0)


_TREES = "trees"  # two revisions: no index, no work tree
_INDEX = "index"  # --cached: the index is the new side


def _diff(
    repo: Repository, revs: list[str], cached: bool
) -> tuple[Diff, Callable[[DiffFile], bytes], str | None]:
    """The pygit2 diff for the requested states, a reader for its new side, and what the
    new side is: ``_TREES``, ``_INDEX``, or the work tree against a revision (None: the
    index, so a conflicted file is compared with ours)."""
    if len(revs) == 1 and "..." in revs[0]:
        left, right = revs[0].split("...", 1)
        base = repo.merge_base(_commit(repo, left or "HEAD").id, _commit(repo, right or "HEAD").id)
        if base is None:
            raise OperationalError(f"{revs[0]}: no merge base")
        revs = [str(base), right or "HEAD"]
    elif len(revs) == 1 and ".." in revs[0]:
        left, right = revs[0].split("..", 1)
        revs = [left or "HEAD", right or "HEAD"]
    if len(revs) > 2:
        raise UsageError("at most two revisions")
    if len(revs) == 2:
        if cached:
            raise UsageError("--cached takes at most one revision")
        a, b = (_commit(repo, r).tree for r in revs)
        return a.diff_to_tree(b), _blob_reader(repo), _TREES
    if cached:
        return _index_vs_tree(repo, revs[0] if revs else "HEAD"), _blob_reader(repo), _INDEX
    if revs:  # like git: the tree against the work tree *through the index* (sees new files)
        diff = _index_vs_tree(repo, revs[0])
        diff.merge(repo.index.diff_to_workdir())
        return diff, _file_reader(repo), revs[0]
    repo.index.read()
    return repo.index.diff_to_workdir(), _file_reader(repo), None


def _index_vs_tree(repo: Repository, rev: str) -> Diff:
    """Old side: the tree of ``rev`` (the empty tree before the first commit); new: the index."""
    from .objects import empty_tree

    repo.index.read()
    unborn = rev == "HEAD" and repo.head_is_unborn
    tree = empty_tree(repo) if unborn else _commit(repo, rev).tree
    diff: Diff = repo.index.diff_to_tree(tree)  # (pygit2 leaves Repository.index untyped)
    return diff


def _commit(repo: Repository, rev: str) -> Commit:
    return resolve_commit(repo, rev)


def _blob_reader(repo: Repository) -> Callable[[DiffFile], bytes]:
    from .objects import blob_data

    return lambda diff_file: bytes(blob_data(repo, diff_file.id))


def _file_reader(repo: Repository) -> Callable[[DiffFile], bytes]:
    top = workdir(repo)

    def read(diff_file: DiffFile) -> bytes:
        try:
            return (top / Path(diff_file.path)).read_bytes()
        except OSError as exc:
            raise OperationalError(f"{diff_file.path}: cannot read ({exc.strerror})") from None

    return read


def attribute(repo: Repository, path: str, name: str) -> str | bool | None:
    """A git attribute of a path (``diff``, ``merge``), from the work tree's .gitattributes."""
    try:
        return repo.get_attr(path, name)
    except Exception:  # pygit2 raises various errors for odd paths; treat as unset
        return None
