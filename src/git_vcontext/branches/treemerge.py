"""Merging two commits' trees in process: libgit2 for ordinary files, our engine for documents.

``git merge`` calls a merge driver only for files both sides changed, so a
document only one side changed is copied verbatim, ``fork`` block included. Here
every vContext document that differs between the two sides goes through
``merge_files`` (M11 applies even when one side is unchanged), and a document
only theirs has is taken without theirs' ``fork`` block.
"""

from __future__ import annotations

from .. import document as doc
from ..codecs import format_from_content, format_from_name, parse
from ..errors import ParseError
from ..gitio.diffs import attribute, tree_changes
from ..gitio.objects import (
    drop_conflict,
    empty_tree,
    entry_data,
    index_conflicts,
    index_entry,
    is_blob,
    merged_trees,
    stage,
    tree_index,
    write_blob,
    write_tree,
)
from ..merging import merge3
from ..merging.files import merge_files
from ..merging.result import MISSING, MergeOptions
from ..record import record, replace
from ..validation.history import logged_entries
from ..validation.model import command_path, quoted_path
from ..values import canonical, same
from .forkstate import agent_document, mark_merged
from .projections import is_projection, reproject
from .renames import align, document_renames

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Mapping
    from typing import Any, Literal

    from pygit2 import Blob, Index, IndexEntry, Oid, Repository, Tree

    from ..merging.files import FileMerge

    Side = Literal["base", "ours", "theirs"]
    Marker = Callable[[str], tuple[str, dict[str, Any], bool] | None]
    """How ``carry_to_agent`` marks a document's forks merged: (when, by, refresh), or None."""

_SNIFFED_SUFFIXES = (".json", ".tron")


@record
class PathConflict:
    """A file the merge could not decide, described as ``merge`` reports it."""

    path: str
    kind: str  # "content" (our engine), "fallback" (merged by lines), or libgit2's kind
    conflicts: tuple[dict[str, Any], ...] = ()  # merge report conflicts: path (pointer), kind, …
    reasons: tuple[str, ...] = ()
    # (ours, theirs): the branches of the merge, once its caller names them (``named``)
    names: tuple[str, str] | None = None

    def named(self, ours: str, theirs: str) -> PathConflict:
        """The same conflict with the merge's branches named: a file one side deleted is
        then said by branch ("deleted on main, modified on agents/bo"), never "by us" or
        "by them", whose meaning flips with the direction of the merge (sync merges both
        ways; ``sync --checkout`` leaves the agent's side as ours)."""
        return replace(self, names=(ours, theirs))

    def sides(self) -> dict[str, str] | None:
        """For a file one side deleted or added, once named: the branch that did it
        (``deleted``, ``added``) and the other one (``modified``, or ``kept`` for a log
        the other side left alone)."""
        side = _ONE_SIDED.get(self.kind)
        if side is None or self.names is None:
            return None
        did, other = self.names if side[1] == "ours" else self.names[::-1]
        if side[0] == "added":
            return {"added": did}
        return {"deleted": did, "kept" if self.log_deleted else "modified": other}

    @property
    def log_deleted(self) -> bool:
        """A document holding an append-only log that one side deleted and the other left
        alone (``_log_deleted``): nothing to resolve in a merge, the deletion is undone."""
        return self.kind in _DELETED_KINDS and bool(self.reasons)

    def _what(self) -> str:
        said = self.sides()
        if said is None:
            return self.kind
        return ", ".join(f"{verb} on {branch}" for verb, branch in said.items())

    def describe(self) -> str:
        """One line: the path and what conflicts in it."""
        if self.conflicts:
            shown = self.conflicts[:10]
            listing = ", ".join(f"{c['path'] or '/'} ({c['kind']})" for c in shown)
            more = len(self.conflicts) - len(shown)
            extra = f" and {more} more" if more > 0 else ""
            return f"{quoted_path(self.path)}: {len(self.conflicts)} conflict(s): {listing}{extra}"
        if self.reasons:
            said = self.sides()
            how = self.reasons
            if said is not None and "kept" in said:  # an event log deleted by one branch
                how += (
                    f"restore it on {said['deleted']}: the pre-push hook refuses the commit "
                    f"that deleted it (git log --diff-filter=D {said['deleted']} -- "
                    f"{command_path(self.path)} names it) until it is rewritten (git rebase "
                    "-i COMMIT~1: drop or edit it)",
                )
            return f"{quoted_path(self.path)}: {self._what()}: {'; '.join(how)}"
        return f"{quoted_path(self.path)}: {self._what()}"

    def to_json(self) -> dict[str, Any]:
        said = self.sides()
        kind = self.kind if said is None else _JSON_KINDS[tuple(said)]
        return {
            "path": self.path,
            "kind": kind,
            **(said or {}),
            "conflicts": list(self.conflicts),
            "reasons": list(self.reasons),
        }


def named(conflicts: Iterable[PathConflict], ours: str, theirs: str) -> tuple[PathConflict, ...]:
    """``conflicts`` of a merge of ``theirs`` into ``ours``, with those branches named."""
    return tuple(c.named(ours, theirs) for c in conflicts)


_DELETED_KINDS = ("deleted by us", "deleted by them")
_JSON_KINDS = {
    ("deleted", "modified"): "delete/modify",
    ("deleted", "kept"): "delete",
    ("added",): "add",
}
_ONE_SIDED = {
    "deleted by us": ("deleted", "ours"),
    "deleted by them": ("deleted", "theirs"),
    "added by us": ("added", "ours"),
    "added by them": ("added", "theirs"),
}


@record
class TreeMerge:
    """Outcome of merging two trees: the merged tree, or the conflicts that stop it."""

    tree: Oid | None  # the merged tree; None when there are conflicts
    conflicts: tuple[PathConflict, ...]
    documents: tuple[str, ...]  # vContext paths whose merged content differs from ours
    notes: tuple[str, ...] = ()  # "path: note" for what was resolved automatically
    # (document, values.canonical of a Change): the M8 merge Changes the merge logged
    logged: tuple[tuple[str, str], ...] = ()

    @property
    def clean(self) -> bool:
        return not self.conflicts


SIDES: tuple[Side, ...] = ("base", "ours", "theirs")
"""The three sides of a merge, in git's stage order (1, 2, 3)."""


class DocumentSides:
    """Blob lookups in the three trees of one merge (ids and contents, cached), by side:
    ``base``, ``ours`` or ``theirs``."""

    def __init__(self, repo: Repository, base: Tree | None, ours: Tree, theirs: Tree) -> None:
        self.repo = repo
        self.trees: dict[Side, Tree | None] = {"base": base, "ours": ours, "theirs": theirs}
        self._data: dict[tuple[Side, str], bytes | None] = {}

    def entry(self, side: Side, path: str) -> Tree | Blob | None:
        tree = self.trees[side]
        if tree is None:
            return None
        try:
            return tree[path]
        except KeyError:
            return None

    def data(self, side: Side, path: str) -> bytes | None:
        key = (side, path)
        if key in self._data:
            return self._data[key]
        entry = self.entry(side, path)
        raw: bytes | None = None
        if is_blob(entry):
            raw = entry_data(entry)  # tree entries are Blob objects: no second lookup
        self._data[key] = raw
        return raw

    def holds_document(self, path: str) -> bool:
        """Whether our engine merges ``path`` (``is_document``, sniffing ours and theirs)."""
        return is_document(
            path, lambda: [self.data(s, path) for s in ("ours", "theirs")], self.repo
        )


def is_document(
    path: str, blobs: Callable[[], list[bytes | None]], repo: Repository | None = None
) -> bool:
    """A file our engine merges: by install's patterns, a .json/.tron file that looks like
    a vContext document, or (given ``repo``) one its attributes give ``merge=vcontext``,
    as ``git merge`` would."""
    if doc.matches_file_patterns(path):
        return True
    if path.endswith(_SNIFFED_SUFFIXES) and any(
        raw is not None and doc.looks_like_vcontext(raw) for raw in blobs()
    ):
        return True
    if repo is not None:
        return bool(attribute(repo, path, "merge") == "vcontext")
    return False


def merge_trees(
    repo: Repository,
    base: Tree | None,
    ours: Tree,
    theirs: Tree,
    *,
    now: str,
    favor: str | None = None,
    virtual: bool = False,
    integration: Mapping[str, Collection[str]] | None = None,
) -> TreeMerge:
    """Three-way merge of trees (pygit2 Tree objects; ``base`` None = no common ancestor).

    Writes blobs and the merged tree to the object store (as ``git merge-tree``
    does), never a commit or a ref. ``favor`` settles document conflicts on that side.
    ``virtual``: the inner merge of a virtual base (M16): every conflict takes the
    base's version, so it never stops. A document holding an append-only log that one
    side deleted is a conflict: sync never deletes a log (the pre-push hook would refuse
    that commit). ``integration``: per document, the M8 ``merge`` Changes earlier merges of
    the same integration logged (``MergeOptions.integration``; ``TreeMerge.logged``).
    """
    aligned = align(repo, base, ours, theirs, document_wanted(repo))  # renamed documents: one file
    base, ours, theirs = aligned.base, aligned.ours, aligned.theirs
    index = merged_trees(repo, base if base is not None else empty_tree(repo), ours, theirs)
    sides = DocumentSides(repo, base, ours, theirs)
    merging = _TreeMerging(
        repo, index, sides, now=now, favor=favor, virtual=virtual, integration=integration or {}
    )
    merging.conflicts += [_rename_clash(*clash) for clash in aligned.clashes]
    merging.documents += [r.new for r in aligned.renames if r.side == "theirs"]
    merging.take_conflicts()
    merging.merge_changed_documents(ours, theirs)
    return merging.finish()


class _TreeMerging:
    """One ``merge_trees`` under way: libgit2's index, and what our engine decides in it."""

    def __init__(
        self,
        repo: Repository,
        index: Index,
        sides: DocumentSides,
        *,
        now: str,
        favor: str | None,
        virtual: bool,
        integration: Mapping[str, Collection[str]],
    ) -> None:
        self.repo, self.index, self.sides = repo, index, sides
        self.now, self.favor, self.virtual = now, favor, virtual
        self.integration = integration  # see merge_trees
        self.conflicts: list[PathConflict] = []
        self.documents: list[str] = []
        self.notes: list[str] = []
        self.conflicted: set[str] = set()
        self.deferred: dict[str, tuple[FileMerge, int]] = {}  # VerMAS projections: see reproject
        self.decided: list[str] = []
        self.logged: list[tuple[str, str]] = []

    def take_conflicts(self) -> None:
        """libgit2's conflicts: documents both sides have go to our engine; the rest stay
        conflicts (a virtual base keeps the base's version)."""
        index = self.index
        for anc, our, their in index_conflicts(index):
            path = (our or their or anc).path
            self.conflicted.add(path)
            if our is not None and their is not None and self.sides.holds_document(path):
                drop_conflict(index, path)
                self.decide(path, our.mode)
            elif self.virtual:
                drop_conflict(index, path)
                _keep_base(index, anc, our, their)
            else:
                self.conflicts.append(PathConflict(path, _libgit2_kind(anc, our, their)))

    def merge_changed_documents(self, ours: Tree, theirs: Tree) -> None:
        """Every document that differs between the sides and libgit2 did not conflict on."""
        for change in tree_changes(ours, theirs):
            path = change.path
            if path in self.conflicted or not self.sides.holds_document(path):
                continue
            entry = index_entry(self.index, path)
            if entry is None:  # one side deleted a document the other left alone
                self._deleted(path)
            else:
                self.decide(path, entry.mode)

    def _deleted(self, path: str) -> None:
        """A side deleted the document: a conflict when it holds an append-only log."""
        if (kept := _log_deleted(self.sides, path)) is None:
            return
        if self.virtual:  # the base's version, as for any conflict of a virtual base
            base_entry = self.sides.entry("base", path)
            assert base_entry is not None  # the base holds the log
            stage(self.index, path, base_entry.id, base_entry.filemode)
        else:
            self.conflicts.append(kept)

    def decide(self, path: str, mode: int) -> None:
        """Run our engine on one document and put the result in the index (or a conflict)."""
        self.decided.append(path)
        result, outcome = document_result(
            self.sides,
            path,
            now=self.now,
            favor=self.favor,
            virtual=self.virtual,
            integration=frozenset(self.integration.get(path, ())),
        )
        if outcome is not None and not outcome.clean:
            if is_projection(path):
                self.deferred[path] = (outcome, mode)
            else:
                self.conflicts.append(_conflict_of(path, outcome))
            return
        if outcome is not None:
            self.notes.extend(f"{path}: {n.message}" for n in _notes(outcome))
            self.logged.extend((path, change) for change in _logged(outcome))
        if result is not None:
            self._stage(path, result, mode)

    def _stage(self, path: str, result: bytes, mode: int) -> None:
        """A merged document into the index (its blob written when it is not ours')."""
        if result != self.sides.data("ours", path):
            if path not in self.documents:
                self.documents.append(path)
            blob = write_blob(self.repo, result)
        else:
            ours_entry = self.sides.entry("ours", path)
            assert ours_entry is not None  # ours has the document: the result is ours' bytes
            blob = ours_entry.id
        # always set: libgit2 may have taken theirs (fork block included) where ours wins
        stage(self.index, path, blob, mode)

    def finish(self) -> TreeMerge:
        """The merged tree, or the conflicts (projections rebuilt from the merged documents)."""
        repo, index = self.repo, self.index
        rebuilt, unsettled = reproject(repo, index, self.sides, self.decided, self.deferred)
        documents, conflicts = self.documents, self.conflicts
        documents.extend(p for p in rebuilt if p not in documents)
        conflicts.extend(_conflict_of(p, outcome) for p, outcome in unsettled.items())
        if conflicts:
            return TreeMerge(None, tuple(conflicts), tuple(documents), tuple(self.notes))
        tree = write_tree(repo, index)
        return TreeMerge(tree, (), tuple(documents), tuple(self.notes), tuple(self.logged))


def document_wanted(repo: Repository) -> Callable[[str, bytes], bool]:
    """Whether a file is a document our engine merges (for ``renames.align``)."""
    return lambda path, raw: is_document(path, lambda: [raw], repo)


def _rename_clash(old: str, ours: str, theirs: str) -> PathConflict:
    why = (
        f"renamed to {ours} on one side and to {theirs} on the other: give it one name "
        "on one of the branches (git mv), commit, then sync again"
    )
    return PathConflict(old, "rename/rename", reasons=(why,))


def document_result(
    sides: DocumentSides,
    path: str,
    *,
    now: str,
    favor: str | None = None,
    virtual: bool = False,
    integration: frozenset[str] = frozenset(),
) -> tuple[bytes | None, FileMerge | None]:
    """What a document becomes: (its bytes, the engine's outcome when it ran).

    Bytes None: nothing to write (ours alone has it), or a conflict (see the outcome).
    ``integration``: see ``MergeOptions.integration``.
    """
    o, t, b = sides.data("ours", path), sides.data("theirs", path), sides.data("base", path)
    if o is not None and t is not None and b is not None and only_fork_changed(b, o, t, path):
        return o, None  # M11: theirs changed nothing but its fork block, which never wins
    if o is not None and t is not None:
        outcome = _merge_document(
            (b, o, t), path, now, integration=integration, favor=favor, virtual_base=virtual
        )
        return (outcome.output if outcome.clean else None), outcome
    if t is not None:  # only theirs has it (added there): never take theirs' fork (M11)
        return without_fork(t, path), None
    return None, None


def trial_conflicts(
    repo: Repository,
    base: Tree | None,
    ours: Tree,
    theirs: Tree,
    *,
    paths: Collection[str],
    now: str,
    favor: str | None = None,
) -> tuple[PathConflict, ...]:
    """The conflicts of a merge among ``paths`` (the caller's choice: those both sides
    changed, beyond their fork blocks), without making it: our engine's for documents
    both sides have (``favor`` settles them as merge.vcontext.favor does), libgit2's for
    the rest (run only when there is a rest)."""
    aligned = align(repo, base, ours, theirs, document_wanted(repo))  # renamed documents: one file
    base, ours, theirs = aligned.base, aligned.ours, aligned.theirs
    moved = {r.old: r.new for r in aligned.renames}
    paths = {moved.get(p, p) for p in paths}
    sides = DocumentSides(repo, base, ours, theirs)
    documents = sorted(p for p in paths if not _plain_or_deleted(sides, p))
    found = [_rename_clash(*clash) for clash in aligned.clashes]
    if len(documents) < len(paths):
        start = base if base is not None else empty_tree(repo)
        index = merged_trees(repo, start, ours, theirs)
        for anc, our, their in index_conflicts(index):
            path = (our or their or anc).path
            if path in paths and path not in documents:
                found.append(PathConflict(path, _libgit2_kind(anc, our, their)))
    for path in documents:
        o, t = sides.data("ours", path), sides.data("theirs", path)
        if o is not None and t is not None and o != t:
            conflict = _document_conflict(sides.data("base", path), o, t, path, now, favor)
            if conflict is not None:
                found.append(conflict)
    return tuple(found)


def _plain_or_deleted(sides: DocumentSides, path: str) -> bool:
    if sides.entry("ours", path) is None or sides.entry("theirs", path) is None:
        return True
    return not sides.holds_document(path)


def _document_conflict(
    base: bytes | None, ours: bytes, theirs: bytes, path: str, now: str, favor: str | None
) -> PathConflict | None:
    """The engine's conflicts for one document, from the merged data alone: a trial needs
    no rendered file (the whole file merge, with its line fallback, when a side does not
    parse or a favoured side settles the conflicts)."""
    fmt = format_from_name(path) or format_from_content(ours[:65536].decode("utf-8", "replace"))
    try:
        b, o, t = (
            parse(x, format=fmt).data if x and x.strip() else None for x in (base, ours, theirs)
        )
    except ParseError:
        o = t = None
    if o is None or t is None or favor is not None:
        outcome = _merge_document((base, ours, theirs), path, now, favor=favor)
        return None if outcome.clean else _conflict_of(path, outcome)
    result = merge3(MISSING if b is None else b, o, t, MergeOptions(now=now, path=path, format=fmt))
    if result.clean:
        return None
    return PathConflict(path, "content", tuple(c.to_json() for c in result.conflicts))


def _log_deleted(sides: DocumentSides, path: str) -> PathConflict | None:
    """A conflict when the document one side deleted holds an append-only log."""
    entries = logged_entries(sides.data("base", path), path)
    if not entries:
        return None
    kind = "deleted by us" if sides.data("ours", path) is None else "deleted by them"
    why = f"it holds an append-only log ({entries} entries): sync never deletes one"
    return PathConflict(path, kind, reasons=(why,))


def _keep_base(
    index: Index, anc: IndexEntry | None, our: IndexEntry | None, their: IndexEntry | None
) -> None:
    """A virtual base keeps the base's version of a file the inner merge conflicts on
    (ours' when there is none; a file both sides deleted stays deleted)."""
    entry = anc if anc is not None else our if our is not None else their
    assert entry is not None  # a conflict has at least one stage
    stage(index, entry.path, entry.id, entry.mode)


def _merge_document(
    sides: tuple[bytes | None, bytes, bytes],
    path: str,
    now: str,
    *,
    integration: frozenset[str] = frozenset(),
    **how: Any,
) -> FileMerge:
    """One document merged by the engine; ``how``: merge_files' favor and virtual_base."""
    options = MergeOptions(now=now, path=path, integration=integration)
    return merge_files(*sides, path=path, options=options, **how)


def _notes(outcome: FileMerge) -> tuple[Any, ...]:
    if outcome.result is None:
        return ()
    return tuple(n for n in outcome.result.notes if n.kind != "fork-parent-sequence")


def _logged(outcome: FileMerge) -> list[str]:
    """The M8 merge Changes the merge logged (values.canonical of each)."""
    details = [dict(n.details) for n in _notes(outcome) if n.kind == "sequence-conflict"]
    return [canonical(d["logged"]) for d in details if "logged" in d]


def _conflict_of(path: str, outcome: FileMerge) -> PathConflict:
    report = outcome.report()
    kind = "content" if outcome.status == "conflict" else outcome.status
    return PathConflict(path, kind, tuple(report["conflicts"]), tuple(outcome.reasons))


def _libgit2_kind(anc: IndexEntry | None, our: IndexEntry | None, their: IndexEntry | None) -> str:
    if our is None and their is not None:
        return "deleted by us" if anc is not None else "added by them"
    if their is None and our is not None:
        return "deleted by them" if anc is not None else "added by us"
    if anc is None:
        return "add/add"
    return "content"


def only_fork_changed(base: bytes, ours: bytes, theirs: bytes, path: str) -> bool:
    """Whether theirs differs from base in nothing but ``fork`` blocks while ours has none.

    The merge's result is then ours as it is (M11: a fork block never comes from
    theirs): sync of an agent that only forked a document costs no merge.
    """
    if doc.may_hold_fork(ours) or not doc.may_hold_fork(theirs):  # escaped keys too
        return False
    return same_but_fork(base, theirs, path)


def same_but_fork(old: bytes, new: bytes, path: str) -> bool:
    """Whether two versions of a document hold the same data once ``fork`` blocks are left
    out (False when either does not parse)."""
    try:
        o_data, n_data = parse(old, path=path).data, parse(new, path=path).data
    except ParseError:
        return False
    return same(_data_without_fork(o_data), _data_without_fork(n_data))


def changed_documents(
    repo: Repository, old: Tree, new: Tree, *, named_in: Tree | None = None
) -> tuple[str, ...]:
    """The documents whose data differs between two trees, ``fork`` blocks aside (what an
    agent's work changed since the base it last merged). ``named_in``: a tree the changes
    reached (the base now), each document named as it is there: one renamed or converted
    (JSON ⇄ TRON) there since ``old`` goes by its new name."""
    sides = DocumentSides(repo, old, old, new)
    changed = []
    for change in tree_changes(old, new):
        path = change.path
        if not sides.holds_document(path):
            continue
        before, after = sides.data("ours", path), sides.data("theirs", path)
        if before is None or after is None or not same_but_fork(before, after, path):
            changed.append(path)
    if named_in is not None and changed:
        renamed = document_renames(repo, old, named_in, document_wanted(repo))
        changed = list(dict.fromkeys(renamed.get(path, path) for path in changed))
    return tuple(sorted(changed))


def _data_without_fork(data: Any) -> Any:
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for key in doc.CONTAINER_KEYS:
        container = out.get(key)
        if isinstance(container, dict) and doc.FORK_FIELD in container:
            out[key] = {k: v for k, v in container.items() if k != doc.FORK_FIELD}
    return out


def without_fork(raw: bytes, path: str) -> bytes:
    """``raw`` without container ``fork`` blocks, in its own style (as is if none or unreadable)."""
    if not doc.may_hold_fork(raw):
        return raw
    try:
        parsed = parse(raw, path=path)
    except ParseError:
        return raw
    new = _data_without_fork(parsed.data)
    if new is parsed.data or new == parsed.data:
        return raw
    return parsed.render(new).encode("utf-8")


def carry_to_agent(
    repo: Repository,
    agent: Tree,
    merged: Tree,
    *,
    now: str,
    mark: Marker | None = None,
) -> TreeMerge:
    """Merge ``merged`` (the base after the agent's work reached it) into the ``agent`` tree.

    The agent's tree is the merge base here, so every file comes from ``merged``
    except the agent's own fork blocks, which stay (M11, see forkstate.carried_fork);
    ``mark(path)`` says whether and how to mark each document's forks merged.
    The same as ``merge_trees(agent, agent, merged)``, without a three-way merge (a
    document renamed or converted in ``merged`` is the agent's under its new name).
    """
    aligned = align(repo, agent, agent, merged, document_wanted(repo))
    agent = aligned.ours
    index = tree_index(merged)
    sides = DocumentSides(repo, agent, agent, merged)
    # a document renamed or converted in ``merged`` changes its name on the agent branch
    documents: list[str] = [r.new for r in aligned.renames if r.side == "theirs"]
    for change in tree_changes(agent, merged):
        path = change.path
        o, t = sides.data("ours", path), sides.data("theirs", path)
        if o is None or t is None or not doc.may_hold_fork(o) or not sides.holds_document(path):
            if t is not None and t != o and sides.holds_document(path) and path not in documents:
                documents.append(path)
            continue
        how = mark(path) if mark is not None else None
        result = agent_document(o, t, path, mark=how)
        if result is None:  # the general route: a three-way merge, then the marking
            outcome = _merge_document((o, o, t), path, now)
            if not outcome.clean:
                return TreeMerge(None, (_conflict_of(path, outcome),), ())
            result = outcome.output
            if how is not None:
                when, by, refresh = how
                result = mark_merged(result, path, when=when, by=by, refresh=refresh)
        if result != o and path not in documents:
            documents.append(path)
        if result != t:
            theirs_entry, ours_entry = sides.entry("theirs", path), sides.entry("ours", path)
            assert theirs_entry is not None and ours_entry is not None  # t, o: both have it
            blob = ours_entry.id if result == o else write_blob(repo, result)
            stage(index, path, blob, theirs_entry.filemode)
    return TreeMerge(write_tree(repo, index), (), tuple(documents))
