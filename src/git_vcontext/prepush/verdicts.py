"""Verdicts on pushed commits for the pre-push hook: each changed blob, each change per parent.

Which files: the vContext file set at the commit being checked (``gitio.fileset``: the
install patterns plus what that commit's .gitattributes sends to the driver), and what
the remote's routing (``Checker.floor``, a commit it has) sends there: the stricter of
the two. A file
removed by a commit whose events all appear in a file the same commit adds (a move git
did not pair, a JSON ⇄ TRON conversion) is checked as that file renamed, so it removes
nothing. Verdicts are cached by object id (``prepush/cache``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from ..branches.commits import says_drop
from ..document import checked_file, may_hold_fork
from ..filechange import FileChange
from ..gitio.cutwalk import parent_commits
from ..gitio.diffs import changes
from ..gitio.objects import blob_bytes, tree_blob, tree_entries
from ..validation.history import (
    by_content,
    check_change,
    check_merge_arrival,
    drop_allows,
    event_ids,
)
from ..validation.model import SYMLINK as SYMLINK_FINDING
from ..validation.model import Finding, case_collision, case_twins
from .cache import VerdictCache, blob_key, change_key, commit_key, tips_key

if TYPE_CHECKING:
    from collections.abc import Callable

    from pygit2 import Commit, Oid, Repository, Tree

    from ..gitio.fileset import FileSet

Found = dict[str, list[Finding]]

Check = Literal["history"]
"""The rules applied between two tips: the history rules (append-only logs, sequence, ...)."""

_PAIR_CODE = {"history": "h", "drift": "p", "merge": "g"}
_TIPS_CODE = {"history": "r", "merge": "m"}
"""Key prefixes of the verdict cache (``prepush/cache``): per pair of blobs (``g``: the
history rules for a merge commit's change against one parent), per two tips (``m``: the
fork arrival of one merge commit, against its parents)."""


class Checker:
    """Verdicts on commits: per changed blob, then per change against each parent."""

    def __init__(self, repo: Repository, cache: VerdictCache) -> None:
        self.repo = repo
        self.cache = cache
        self.commits = 0
        self.files = 0
        self._file_sets: Callable[[Commit | Oid | str], FileSet] | None = None
        self._event_ids: dict[str, frozenset[Any]] = {}
        self.floor: str | None = None  # a commit the remote has whose routing also counts
        self._floors: dict[tuple[str, str], bool] = {}  # (floor, commit): routings may differ

    def commit(self, commit: Commit) -> Found:
        """Findings (and ``SKIPPED`` notes) by file for one commit, against every parent."""
        self.commits += 1
        key = commit_key(self._routed(commit))
        cached = self.cache.get_files(key)
        if cached is not None:
            return cached
        found: Found = {}
        blobs: set[tuple[str, str]] = set()
        parents: list[Commit | None] = [*parent_commits(self.repo, commit)] or [None]  # empty tree
        changed: list[FileChange] = []
        outside: list[str] = []  # paths added outside the vContext files (case twins)
        for parent in parents:
            links: list[str] = []
            for change in self._changes(parent, commit, links, outside):
                self.files += 1
                changed.append(change)
                known = found.setdefault(change.path, [])
                if change.new_id is not None and (change.new_id, change.path) not in blobs:
                    blobs.add((change.new_id, change.path))
                    known.extend(self._blob(change.new_id, change.path))
                if change.old_id is not None:  # a new file has no past to break
                    history = self._pair("history", change, merge=len(parents) > 1)
                    known.extend(f for f in history if f not in known)
            for path in links:
                known = found.setdefault(path, [])
                if SYMLINK_FINDING not in known:
                    known.append(SYMLINK_FINDING)
        self._drift(commit.tree, list(found), found)
        _case_notes(commit.tree, changed, found)
        self._outside_twins(commit, outside, found)
        if says_drop(commit.message):  # a document deleted on purpose (a plan)
            for path, findings in found.items():
                found[path] = [f for f in findings if not drop_allows(f)]
        result = {path: findings for path, findings in found.items() if findings}
        self.cache.put_files(key, result)
        return result

    def between(self, check: Check, previous: Commit | None, tip: Commit) -> Found:
        """Findings between a branch's previous tip (None: a new branch) and its new tip:
        the history rules, for a forced update that leaves the remote's tip behind."""
        previous_id = None if previous is None else str(previous.id)
        key = tips_key(_TIPS_CODE[check], previous_id, self._routed(tip))
        cached = self.cache.get_files(key)
        if cached is not None:
            return cached
        found: Found = {}
        for change in self._changes(previous, tip):
            if change.old_id is None:
                continue  # a new file has no past to break
            # between two tips a merge may be among the commits: no per-commit creation rule
            findings = self._pair(check, change, merge=True)
            if findings:
                found[change.path] = findings
        self.cache.put_files(key, found)
        return found

    def tree(self, tree: Tree) -> Found:
        """Findings by file for a tree a ref points at (a tag of a tree): every vContext file
        in it, judged as a root commit's files are. A tree has no commit whose attributes
        git reads: install's patterns and the floor's routing (the repository's) decide."""
        wanted: Callable[[str], bool] = checked_file
        if self.floor is not None:
            if self._file_sets is None:
                # lazy: a cached pre-push needs no file sets
                from ..gitio.fileset import commit_files

                self._file_sets = commit_files(self.repo)
            from ..gitio.fileset import stricter

            wanted = stricter(checked_file, self._file_sets(self.floor))
        from ..gitio.diffs import tree_changes

        found: Found = {}
        links: list[str] = []
        held = tree_changes(None, tree, wanted=wanted, files_only=True, links=links)
        for change in held:
            if change.new_id is not None and change.new_path is not None:
                self.files += 1
                found[change.new_path] = list(self._blob(change.new_id, change.new_path))
        for path in links:
            found[path] = [SYMLINK_FINDING]
        self._drift(tree, list(found), found)
        _case_notes(tree, held, found)  # as a root commit's files get them, and validate
        return {path: findings for path, findings in found.items() if findings}

    def blob(self, blob_id: str) -> list[Finding] | None:
        """Findings for a blob a ref points at (a tag of a blob), judged as a document when
        it reads like one (an info key near its start, whatever its format); None when it
        does not (git tags keys and other files that way)."""
        from ..document import looks_like_vcontext

        if not looks_like_vcontext(blob_bytes(self.repo, blob_id)):
            return None
        self.files += 1
        return self._blob(blob_id, "")

    def merge_arrival(self, commit: Commit) -> Found:
        """``history-unmerged-fork`` for one merge commit on a branch outside the agent
        prefix: the unmerged fork blocks it brings in from another parent that had them,
        while its first parent (the branch's own) did not. Other commits: nothing."""
        parents = parent_commits(self.repo, commit)
        if len(parents) < 2:
            return {}
        key = tips_key(_TIPS_CODE["merge"], None, str(commit.id))
        cached = self.cache.get_files(key)
        if cached is not None:
            return cached
        found: Found = {}
        for change in self._changes(parents[0], commit):
            if change.new_id is None or change.new_path is None:
                continue  # nothing arrives in a removal
            old = None if change.old_id is None else blob_bytes(self.repo, change.old_id)
            new = blob_bytes(self.repo, change.new_id)
            if not may_hold_fork(new):
                continue
            others = [_blob_at(self.repo, p.tree, change.new_path) for p in parents[1:]]
            findings = check_merge_arrival(
                old, new, others, change.new_path, old_path=change.old_path
            )
            if findings:
                found[change.path] = findings
        self.cache.put_files(key, found)
        return found

    def _changes(
        self,
        old: Commit | None,
        new: Commit,
        links: list[str] | None = None,
        others: list[str] | None = None,
    ) -> list[FileChange]:
        """The changed vContext files (by ``new``'s attributes), removals paired with moves;
        a file moved out of the set is removed from it. ``links`` receives the vContext
        paths ``new`` makes (or keeps) a symbolic link, ``others`` the other paths it adds."""
        wanted = self._wanted(new)
        listed = changes(self.repo, old, new, wanted, links=links, others=others)
        found = [_left(c, wanted) for c in listed]
        found = [part for c in found for part in self._unpaired(c)]
        added = [c for c in found if c.old_id is None and c.new_id is not None]
        if not added:
            return found
        return [self._moved(c, added) if c.new_id is None else c for c in found]

    def _wanted(self, new: Commit) -> Callable[[str], bool]:
        """The vContext files of a commit: its routing, the files validation checks anyway
        (VerMAS assignments), and the routing of what the remote has (a push that un-routes
        a file is still checked)."""
        if self._file_sets is None:
            # lazy: a cached pre-push needs no file sets
            from ..gitio.fileset import commit_files

            self._file_sets = commit_files(self.repo)
        from ..gitio.fileset import stricter

        wanted: Callable[[str], bool] = stricter(self._file_sets(new), checked_file)
        if (floor := self._floor_for(new)) is not None:
            wanted = stricter(wanted, self._file_sets(floor))
        return wanted

    def _outside_twins(self, commit: Commit, added: list[str], found: Found) -> None:
        """A path the commit adds outside the vContext files (``TODO.VCONTEXT.JSON``, a
        link, a folder's other file: ``added``, from the diffs ``_changes`` made against
        each parent) that a vContext file of its tree differs from only in case: the note
        on that file, as ``validate`` gives it (a file's tracked twins, whatever they are):
        on a case-insensitive clone the two are one file."""
        wanted = self._wanted(commit)
        for path in dict.fromkeys(added):
            for twin in case_twins(path, commit.tree, tree_entries):
                if not wanted(twin):
                    continue
                note = case_collision(case_twins(twin, commit.tree, tree_entries))
                known = found.setdefault(twin, [])
                if note not in known:
                    known.append(note)

    def _routed(self, commit: Commit) -> str:
        """A commit's id in cache keys: with the floor whose routing counts too, if any."""
        floor = self._floor_for(commit)
        return str(commit.id) if floor is None else f"{commit.id}+{floor}"

    def _floor_for(self, commit: Commit) -> str | None:
        """The floor, when its routing may differ from ``commit``'s: some ``.gitattributes``
        differs between the two trees (else the commit's own routing is the same)."""
        floor = self.floor
        if floor is None or floor == str(commit.id):
            return None
        key = (floor, str(commit.id))
        if key not in self._floors:
            from ..gitio.diffs import tree_changes
            from ..gitio.objects import commit_named

            def attributes(path: str) -> bool:
                return path.rsplit("/", 1)[-1] == ".gitattributes"

            theirs = commit_named(self.repo, floor)
            differs = theirs is None or bool(
                tree_changes(theirs.tree, commit.tree, wanted=attributes)
            )
            self._floors[key] = differs
        return floor if self._floors[key] else None

    def _unpaired(self, change: FileChange) -> list[FileChange]:
        """A rename git found by similar bytes that is two documents by PRODUCT.md's rule
        (``branches.renames.continues``: another container ``uid``, or ``id``, or kind): a
        removal and an addition, judged as such (a plan deleted with a ``Vcontext-Drop:``
        line and another added in its layout is no edit of the first)."""
        if not change.renamed or change.old_path == change.new_path:
            return [change]
        assert change.old_id is not None and change.new_id is not None  # (a rename)
        assert change.old_path is not None and change.new_path is not None
        # lazy: only a commit that renames a document
        from ..branches.renames import continues

        old = blob_bytes(self.repo, change.old_id)
        new = blob_bytes(self.repo, change.new_id)
        if continues(old, new, change.old_path, change.new_path) is not False:
            return [change]
        return [
            FileChange(change.old_path, None, change.old_id, None),
            FileChange(None, change.new_path, None, change.new_id),
        ]

    def _moved(self, removal: FileChange, added: list[FileChange]) -> FileChange:
        """A removal whose records reappear in an added file, as a rename to it: the file
        holding them all, else the one holding most of its event ids (a document renamed
        and edited in one commit, which git does not pair: the events it lost are named
        there, one by one). ``changeLog`` entries, matched by content, pair a removal only
        with a file holding every one: an identical entry in another document is no move."""
        assert removal.old_id is not None and removal.old_path is not None
        records = self._events(removal.old_id, removal.old_path)
        if not records:
            return removal  # nothing append-only was removed
        events = frozenset(r for r in records if not by_content(r))
        best, most = None, 0
        for addition in added:
            assert addition.new_id is not None and addition.new_path is not None
            held = self._events(addition.new_id, addition.new_path)
            if records <= held:
                best = addition
                break
            if (shared := len(events & held)) > most:
                best, most = addition, shared
        if best is None:
            return removal
        return FileChange(
            removal.old_path, best.new_path, removal.old_id, best.new_id, renamed=True
        )

    def _events(self, blob_id: str, path: str) -> frozenset[Any]:
        if blob_id not in self._event_ids:
            self._event_ids[blob_id] = event_ids(blob_bytes(self.repo, blob_id), path)
        return self._event_ids[blob_id]

    def _drift(self, tree: Tree, changed: list[str], found: Found) -> None:
        """VerMAS projections beside a changed event log or projection: drift refuses too."""
        # lazy: a cached pre-push validates nothing
        from ..validation.files import check_bytes
        from ..validation.projections import EVENTS, drift_targets

        for path in drift_targets(changed):
            folder = path.rpartition("/")[0]
            events = tree_blob(tree, f"{folder}/{EVENTS}" if folder else EVENTS)
            projection = tree_blob(tree, path)
            if events is None or projection is None:
                continue
            key = change_key(_PAIR_CODE["drift"], str(events.id), str(projection.id), path)
            drift = self.cache.get(key)
            if drift is None:
                report = check_bytes(projection.data, path, sibling=_constant(events.data))
                drift = [f for f in report.findings if f.rule == "projection-drift"]
                self.cache.put(key, drift)
            known = found.setdefault(path, [])
            known.extend(f for f in drift if f not in known)

    def blob_findings(self, blob_id: str, path: str) -> list[Finding]:
        """The per-file checks of one blob (cached), as a pushed commit's blob gets them."""
        return self._blob(blob_id, path)

    def _blob(self, blob_id: str, path: str) -> list[Finding]:
        # lazy: a cached pre-push validates nothing
        from ..validation.files import check_bytes

        key = blob_key(blob_id, path)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        report = check_bytes(blob_bytes(self.repo, blob_id), path, covered=True)
        findings = report.as_findings()
        self.cache.put(key, findings)
        return findings

    def _pair(self, check: Check, change: FileChange, *, merge: bool = False) -> list[Finding]:
        """One pair of blobs; ``merge``: a merge commit's change against one of its parents
        (concurrent creations it brings together are no finding)."""
        code = _PAIR_CODE["merge" if merge and check == "history" else check]
        key = change_key(code, change.old_id, change.new_id, change.path)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        old = None if change.old_id is None else blob_bytes(self.repo, change.old_id)
        new = None if change.new_id is None else blob_bytes(self.repo, change.new_id)
        findings = check_change(old, new, change.path, old_path=change.old_path, merge=merge)
        self.cache.put(key, findings)
        return findings


def _case_notes(tree: Tree, changed: list[FileChange], found: Found) -> None:
    """A note on each path a commit adds that another path of its tree differs from only in
    case: one file for both on a case-insensitive file system (``case_twins``)."""
    added = {c.new_path for c in changed if c.new_path is not None and c.new_path != c.old_path}
    for path in sorted(added):
        if twins := case_twins(path, tree, tree_entries):
            found.setdefault(path, []).append(case_collision(twins))


def _left(change: FileChange, wanted: Callable[[str], bool]) -> FileChange:
    """A file git pairs as moved to a path outside the vContext files: removed from them
    (its events leave the checked history as a deletion's do: PRODUCT.md "Validation")."""
    if not change.renamed or change.new_path is None or wanted(change.new_path):
        return change
    return FileChange(change.old_path, None, change.old_id, None)


def _blob_at(repo: Repository, tree: Tree, path: str) -> bytes | None:
    blob = tree_blob(tree, path)
    return None if blob is None else blob_bytes(repo, str(blob.id))


def _constant(data: bytes) -> Any:
    """A sibling reader that always gives ``data`` (the event log beside a projection)."""
    return lambda _name: data
