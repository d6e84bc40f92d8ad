"""Merging two commits' trees in process: libgit2 for ordinary files, our engine for documents.

``git merge`` calls a merge driver only for files both sides changed, so a
document only one side changed is copied verbatim, ``fork`` block included. Here
every vContext document that differs between the two sides goes through
``merge_files`` (M11 applies even when one side is unchanged), and a document
only theirs has is taken without theirs' ``fork`` block.
"""

from __future__ import annotations

from .. import document as doc
from ..record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..merge.files import FileMerge

_SNIFFED_SUFFIXES = (".json", ".tron")


@record
class PathConflict:
    """A file the merge could not decide, described as ``merge`` reports it."""

    path: str
    kind: str  # "content" (our engine), "fallback" (merged by lines), or libgit2's kind
    conflicts: tuple[dict[str, Any], ...] = ()  # merge report conflicts: path (pointer), kind, …
    reasons: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line: the path and what conflicts in it."""
        if self.conflicts:
            shown = self.conflicts[:10]
            listing = ", ".join(f"{c['path'] or '/'} ({c['kind']})" for c in shown)
            more = len(self.conflicts) - len(shown)
            extra = f" and {more} more" if more > 0 else ""
            return f"{self.path}: {len(self.conflicts)} conflict(s): {listing}{extra}"
        if self.reasons:
            return f"{self.path}: {self.kind}: {'; '.join(self.reasons)}"
        return f"{self.path}: {self.kind}"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "conflicts": list(self.conflicts),
            "reasons": list(self.reasons),
        }


@record
class TreeMerge:
    """Outcome of merging two trees: the merged tree, or the conflicts that stop it."""

    tree: Any  # Oid of the merged tree; None when there are conflicts
    conflicts: tuple[PathConflict, ...]
    documents: tuple[str, ...]  # vContext paths whose merged content differs from ours
    notes: tuple[str, ...] = ()  # "path: note" for what was resolved automatically

    @property
    def clean(self) -> bool:
        return not self.conflicts


class DocumentSides:
    """Blob lookups in the three trees of one merge (ids and contents, cached)."""

    def __init__(self, repo: Any, base: Any, ours: Any, theirs: Any) -> None:
        self.repo = repo
        self.trees = (base, ours, theirs)

    def entry(self, side: int, path: str) -> Any:
        tree = self.trees[side]
        if tree is None:
            return None
        try:
            return tree[path]
        except KeyError:
            return None

    def data(self, side: int, path: str) -> bytes | None:
        entry = self.entry(side, path)
        if entry is None or entry.type_str != "blob":
            return None
        raw: bytes = self.repo[entry.id].data
        return raw


def is_document(path: str, blobs: Callable[[], list[bytes | None]]) -> bool:
    """A vContext document: by install's patterns, else a .json/.tron file that looks like one."""
    from ..installer import matches_install_patterns

    if matches_install_patterns(path):
        return True
    if path.endswith(_SNIFFED_SUFFIXES):
        return any(raw is not None and doc.looks_like_vcontext(raw) for raw in blobs())
    return False


def merge_trees(
    repo: Any,
    base: Any,
    ours: Any,
    theirs: Any,
    *,
    now: str,
    finish: Callable[[str, bytes], bytes] | None = None,
) -> TreeMerge:
    """Three-way merge of trees (pygit2 Tree objects; ``base`` None = no common ancestor).

    ``finish(path, merged)`` may rewrite each merged document before it is
    stored (sync marks forks merged this way: one blob written per document).

    Writes blobs and the merged tree to the object store (as ``git merge-tree``
    does), never a commit or a ref.
    """
    import pygit2

    empty = repo[repo.TreeBuilder().write()] if base is None else None
    index = repo.merge_trees(base if base is not None else empty, ours, theirs)
    sides = DocumentSides(repo, base, ours, theirs)
    conflicts: list[PathConflict] = []
    documents: list[str] = []
    notes: list[str] = []
    conflicted: set[str] = set()

    def decide(path: str, mode: Any) -> None:
        """Run our engine on one document and put the result in the index (or a conflict)."""
        o, t = sides.data(1, path), sides.data(2, path)
        if o is not None and t is not None:
            outcome = _merge_document(sides.data(0, path), o, t, path, now)
            if not outcome.clean:
                conflicts.append(_conflict_of(path, outcome))
                return
            notes.extend(f"{path}: {n.message}" for n in _notes(outcome))
            result = outcome.output
        elif t is not None:  # only theirs has it (added there): never take theirs' fork (M11)
            result = without_fork(t, path)
        else:
            return
        if finish is not None:
            result = finish(path, result)
        if result != o:
            documents.append(path)
            blob = repo.create_blob(result)
        else:
            blob = sides.entry(1, path).id
        # always set: libgit2 may have taken theirs (fork block included) where ours wins
        index.add(pygit2.IndexEntry(path, blob, mode))

    if index.conflicts is not None:
        for anc, our, their in list(index.conflicts):
            path = (our or their or anc).path
            conflicted.add(path)
            if our is not None and their is not None and _is_doc(sides, path):
                del index.conflicts[path]
                decide(path, our.mode)
            else:
                conflicts.append(PathConflict(path, _libgit2_kind(anc, our, their)))

    for delta in ours.diff_to_tree(theirs).deltas:
        path = delta.new_file.path if delta.status_char() != "D" else delta.old_file.path
        if path in conflicted or not _is_doc(sides, path):
            continue
        entry = _index_entry(index, path)
        if entry is None:
            continue  # deleted by the merge (theirs deleted a document ours left alone)
        decide(path, entry.mode)

    if conflicts:
        return TreeMerge(None, tuple(conflicts), tuple(documents), tuple(notes))
    return TreeMerge(index.write_tree(repo), (), tuple(documents), tuple(notes))


def _is_doc(sides: DocumentSides, path: str) -> bool:
    return is_document(path, lambda: [sides.data(i, path) for i in (1, 2)])


def _index_entry(index: Any, path: str) -> Any:
    try:
        return index[path]
    except KeyError:
        return None


def _merge_document(
    base: bytes | None, ours: bytes, theirs: bytes, path: str, now: str
) -> FileMerge:
    from ..merge.files import merge_files
    from ..merge.result import MergeOptions

    return merge_files(base, ours, theirs, path=path, options=MergeOptions(now=now, path=path))


def _notes(outcome: FileMerge) -> tuple[Any, ...]:
    if outcome.result is None:
        return ()
    return tuple(n for n in outcome.result.notes if n.kind != "fork-parent-sequence")


def _conflict_of(path: str, outcome: FileMerge) -> PathConflict:
    report = outcome.report()
    kind = "content" if outcome.status == "conflict" else outcome.status
    return PathConflict(path, kind, tuple(report["conflicts"]), tuple(outcome.reasons))


def _libgit2_kind(anc: Any, our: Any, their: Any) -> str:
    if our is None and their is not None:
        return "deleted by us" if anc is not None else "added by them"
    if their is None and our is not None:
        return "deleted by them" if anc is not None else "added by us"
    if anc is None:
        return "add/add"
    return "content"


def without_fork(raw: bytes, path: str) -> bytes:
    """``raw`` without container ``fork`` blocks, in its own style (as is if none or unreadable)."""
    from ..codecs import parse
    from ..errors import ParseError

    if b"fork" not in raw:
        return raw
    try:
        parsed = parse(raw, path=path)
    except ParseError:
        return raw
    data = parsed.data
    if not isinstance(data, dict):
        return raw
    new = dict(data)
    changed = False
    for key in doc.CONTAINER_KEYS:
        container = new.get(key)
        if isinstance(container, dict) and doc.FORK_FIELD in container:
            new[key] = {k: v for k, v in container.items() if k != doc.FORK_FIELD}
            changed = True
    if not changed:
        return raw
    return parsed.render(new).encode("utf-8")
