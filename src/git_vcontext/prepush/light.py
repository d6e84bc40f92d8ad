"""The guard's light path: a push found clean without pygit2, or left to the full check.

pygit2's import is most of what the server's guard costs on an ordinary push (every
``sync --push`` makes two: its round, then the base it lands on). This path reads the
push through git's plumbing (``gitio.batch``) and runs the full check's own rules on it —
each changed document's checks, each change against each parent (the history rules),
the undone-sync-merge rule, the fork-arrival rule — with the verdict cache's own keys.
It answers only "clean, for certain": anything it does not read for certain, or any
finding or note at all, sends the push to the full check, which then judges it alone
(and says what is wrong). So it is only ever stricter in what it lets through, never in
what it refuses.

Certain means: every updated ref points at a commit; no forced update (a ref created
where a deleted one is remembered is an update from the tip it had; a lease ref moving
from one lease commit to another is none, as in the full check); the default branch
not deleted; every file the new
commits change (against each parent) is a regular file install's patterns name (then the
file set of the full check, whatever the routing, holds exactly these), none removed (no
rename to pair); no VerMAS projection beside a changed file; no merge arriving on a branch
that brings a blob mentioning a fork.
"""

from __future__ import annotations

import os

from ..branches import AGENT_PREFIX, agent_prefix_of
from ..document import checked_file, may_hold_fork
from ..gitio.batch import TREE, Objects, Unreadable, config_value, is_ancestor, rev_list
from ..gitio.loose import EMPTY_TREES, is_lease_ref, loose_dirs, ref_tips_in_files
from .cache import VerdictCache, blob_key, change_key, tips_key
from .remotepast import remembered as deleted_tips

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..gitio.batch import Commit
    from ..gitio.outgoing import RefUpdate
    from ..validation.model import Finding

SERVER = "(server)"
REACH_LIMIT = 64
"""How many commits the repository had before a push ``Light._reaches`` reads to find a
ref's old tip in its new history before leaving the question to ``git merge-base``."""
PROJECTION_SUFFIX = ".jsonl"
"""What the name of every VerMAS file a projection's drift depends on ends with (the event
log, ``validation.projections.EVENTS``, and each of ``vermas.project.PROJECTIONS``; held by
the same test): a commit changing none has no drift to judge, without loading those rules."""


class Light:
    """One push judged through git's plumbing (``clean`` says whether it is, for certain)."""

    def __init__(self, git_dir: str, cache: VerdictCache) -> None:
        self.git_dir = git_dir
        self.cache = cache
        self.objects = Objects(git_dir)
        self.commits = 0
        self.files = 0
        self.prefix: str | None = None
        self.parents: dict[str, list[str]] = {}  # the push's new commits (``_new_commits``)

    def clean(self, updates: list[RefUpdate]) -> bool:
        # lazy: an empty push returns before
        from ..codecs import ReusedParses

        try:
            with ReusedParses():  # a blob read again (its history, a merge's) is parsed once
                return self._clean(updates)
        except (Unreadable, OSError, ValueError, KeyError, IndexError, RecursionError):
            return False  # not read for certain: the full check reads it
        finally:
            self.objects.close()

    def _clean(self, updates: list[RefUpdate]) -> bool:
        self._prefix()  # the full check reads it for every push, and refuses one it refuses
        default = _default_branch(self.git_dir)
        remembered = deleted_tips(self.git_dir, SERVER)
        if remembered is None:
            return False
        tips = []
        for update in updates:
            if update.is_deletion:
                if default is None or update.remote_ref == default:
                    return False  # the guard's policy says why, in full
                continue
            if self.objects.kind(update.local_sha) != "commit":
                return False  # a tag, or a tag of a tree or a blob
            tips.append(update.local_sha)
        if not tips:
            return True
        rows = self._new_commits([*dict.fromkeys(tips)])
        self.parents = {row[0]: row[1:] for row in rows}
        for update in updates:
            if not update.is_deletion and not self._update(update, remembered):
                return False
        return all(self._commit(self.objects.commit(row[0])) for row in rows)

    def _new_commits(self, tips: list[str]) -> list[list[str]]:
        """The push's new commits, each with its parents (``git rev-list --parents TIPS
        --not --all``'s rows), read from the commits themselves where that is certain:
        walking back from the tips through commits the push brought (loose in git's
        quarantine), to commits a ref points at now (``loose.ref_tips_in_files``: their
        history is all in ``--all``). Every commit git would list is on a path from a tip
        that meets no ref's tip, and the walk follows every such path: none is missed; a
        commit the push brought again that a ref's history holds is judged too: only
        ever stricter. Saves a ``git rev-list`` process per push (issue 28). A commit
        reached that is neither (one already here) is not new when the default branch's
        first parents, read back from its tip, hold it (``_referenced``: the base an agent
        merged, which has moved on since). Else, and with no quarantine read for certain
        (``loose.loose_dirs``: a push of more objects than ``receive.unpackLimit`` arrives
        packed), grafts (git reads other parents than the commits hold), refs the files
        do not say for certain, more than ``REACH_LIMIT`` new commits: git answers. The
        order differs from git's (the verdict does not
        depend on it)."""
        dirs = loose_dirs(self.git_dir)
        grafted = os.path.exists(os.path.join(self.git_dir, "info", "grafts"))
        refs = None if grafted or len(dirs) != 2 else ref_tips_in_files(self.git_dir)
        if refs is not None:
            known, quarantine = set(refs.values()), dirs[0]
            rows: list[list[str]] = []
            here: list[str] = []  # commits already here: not new if a ref's history holds them
            todo, seen = [*tips], set(tips)
            while todo and len(rows) <= REACH_LIMIT:
                oid = todo.pop()
                if oid in known:
                    continue
                if not os.path.isfile(os.path.join(quarantine, oid[:2], oid[2:])):
                    here.append(oid)
                    continue
                parents = self.objects.commit(oid).parents
                rows.append([oid, *parents])
                for parent in parents:
                    if parent not in seen:
                        seen.add(parent)
                        todo.append(parent)
            if not todo and self._referenced(here, refs):
                return rows
        return rev_list(self.git_dir, [*tips, "--not", "--all"])

    def _referenced(self, commits: list[str], refs: dict[str, str]) -> bool:
        """Whether each of ``commits`` is, for certain, in the history of a ref: among the
        default branch's tip and its first parents, at most ``REACH_LIMIT`` of them (the
        base an agent merged is one of the base's own commits)."""
        wanted = set(commits)
        default = _default_branch(self.git_dir)
        commit = refs.get(default) if wanted and default is not None else None
        read = 0
        while wanted and commit is not None and read < REACH_LIMIT:
            wanted.discard(commit)
            read += 1
            try:
                parents = self.objects.commit(commit).parents if wanted else []
            except Unreadable:
                return False  # (a tag, say): git answers
            commit = parents[0] if parents else None
        return not wanted

    def _update(self, update: RefUpdate, remembered: dict[str, str]) -> bool:
        """One ref update to a commit: no forced update, no ref re-created where a deletion
        is remembered, no fork arriving."""
        new = update.local_sha
        # a ref deleted, then created again, is judged from the tip it had (``remotepast``)
        old = remembered.get(update.remote_ref) if update.is_new else update.remote_sha
        if (
            old is not None
            and not self._follows(old, new)
            and not self._lease_moved(update.remote_ref, old, new)
        ):
            return False  # a forced update: the full check compares the two tips
        branch = update.branch
        if branch is None or branch.startswith(self._prefix()):
            return True  # the fork-arrival rule is for branches outside the agent prefix
        return self._arrivals(new, old) and not self._fork_moved_in(new, old)

    def _fork_moved_in(self, new: str, old: str | None) -> bool:
        """Whether the documents that differ between the two tips may hold an unmerged fork
        block (an agent branch fast-forwarded onto this one): the full check says whether it
        is an agent's, in a note (``branches.arrived``)."""
        if old is None:
            return False  # (the full check notes arrivals on a known tip only)
        # lazy: only a push to a branch outside the agent prefix (``_arrivals`` read it)
        from ..validation.history import may_hold_unmerged_fork

        before, after = self.objects.commit(old).tree, self.objects.commit(new).tree
        for change in self.objects.changes(before, after):
            if change.new is None or not change.regular or not checked_file(change.path):
                continue
            raw = self.objects.blob(change.new[1])
            if may_hold_unmerged_fork(raw):
                return True
        return False

    def _follows(self, old: str, new: str) -> bool:
        """Whether ``new`` moves on from ``old`` without a forced update the full check would
        judge: ``old`` is in its history, or the two hold the same tree (nothing between
        them to compare: a lease taken again is another empty commit)."""
        if self.objects.kind(old) != "commit":
            return False
        if self.objects.commit(old).tree == self.objects.commit(new).tree:
            return True
        return self._reaches(new, old) or is_ancestor(self.git_dir, old, new)

    def _lease_moved(self, ref: str, old: str, new: str) -> bool:
        """Whether ``ref`` is a lease ref moving from one lease commit to another (each
        changes no file: ``remote.refs``), which the full check does not compare either
        (``check.lease_moved``)."""
        return is_lease_ref(ref) and self._changes_nothing(old) and self._changes_nothing(new)

    def _changes_nothing(self, sha: str) -> bool:
        """Whether ``sha`` is a lease commit: a root commit of the empty tree, or a commit
        with one parent and its tree."""
        if self.objects.kind(sha) != "commit":
            return False
        commit = self.objects.commit(sha)
        if not commit.parents:
            return commit.tree in EMPTY_TREES
        parent = commit.parents[0]
        if len(commit.parents) != 1 or self.objects.kind(parent) != "commit":
            return False
        return self.objects.commit(parent).tree == commit.tree

    def _reaches(self, new: str, old: str) -> bool:
        """Whether ``old`` is, for certain, in ``new``'s history: ``new`` itself, or a parent
        of a commit reached from ``new``, as this push's new commits show them
        (``_new_commits``), then as the commits the repository has read themselves (a request ref
        re-created past the merges its branch received meanwhile: issue 28 point 2), at
        most ``REACH_LIMIT`` of them, newest first (a push moving a ref on, the usual case:
        no ``git merge-base`` to start). False says nothing: git answers then. Where git
        would read other parents than the commits hold (``info/grafts``), only git's
        rev-list's are followed (``_new_commits`` asks git then)."""
        grafted = os.path.exists(os.path.join(self.git_dir, "info", "grafts"))
        todo, seen, read = [new], {new}, 0
        while todo:
            commit = todo.pop(0)
            if commit == old:
                return True
            parents = self.parents.get(commit)
            if parents is None:
                if grafted or read >= REACH_LIMIT:
                    continue
                read += 1
                parents = self.objects.commit(commit).parents
            for parent in parents:
                if parent not in seen:
                    seen.add(parent)
                    todo.append(parent)
        return False

    def _prefix(self) -> str:
        """The agent prefix (``branches.agents.agent_prefix``), read with git config; one
        that command refuses (starting with '-') is ValueError here: the full check refuses
        the push in that command's one line."""
        if self.prefix is None:
            found = agent_prefix_of(config_value(self.git_dir, AGENT_PREFIX))
            if found is None:
                raise ValueError("an agent prefix agent_prefix refuses")
            self.prefix = found
        return self.prefix

    def _arrivals(self, tip: str, previous: str | None) -> bool:
        """The fork-arrival rule finds nothing in the merges arriving on a branch outside
        the agent prefix (``Checker.merge_arrival``, with its cache key)."""
        # lazy: only a push to a branch outside the agent prefix
        from ..validation.history import check_merge_arrival

        spec = [tip, "--not", "--all"] if previous is None else [tip, f"^{previous}"]
        for row in rev_list(self.git_dir, spec):
            if len(row) < 3:
                continue  # not a merge: nothing arrives
            key = tips_key("m", None, row[0])
            cached = self.cache.get_files(key)
            if cached is not None:
                if cached:
                    return False
                continue
            merge = self.objects.commit(row[0])
            trees = [self.objects.commit(p).tree for p in merge.parents]
            for change in self.objects.changes(trees[0], merge.tree):
                if change.new is None or not change.regular or not checked_file(change.path):
                    return False  # a removal (git may pair it as a move), maybe routed: full
                new = self.objects.blob(change.new[1])
                if not may_hold_fork(new):
                    continue
                old = None if change.old is None else self.objects.blob(change.old[1])
                others = [self._data(tree, change.path) for tree in trees[1:]]
                was = None if change.old is None else change.path
                if check_merge_arrival(old, new, others, change.path, old_path=was):
                    return False
            self.cache.put_files(key, {})
        return True

    def _data(self, tree: str, path: str) -> bytes | None:
        entry = self.objects.at(tree, path)
        if entry is None or entry[0] not in ("100644", "100755"):
            return None
        return self.objects.blob(entry[1])

    def _commit(self, commit: Commit) -> bool:
        """Whether one new commit is clean for certain, against every parent."""
        self.commits += 1
        merge = len(commit.parents) > 1
        changed: list[str] = []
        parents: list[str | None] = [*commit.parents] or [None]
        for parent in parents:
            old_tree = None if parent is None else self.objects.commit(parent).tree
            for change in self.objects.changes(old_tree, commit.tree):
                if not change.regular or change.new is None or not checked_file(change.path):
                    return False  # a removal, a folder, another file: the full check
                self.files += 1
                changed.append(change.path)
                if not self._change(commit.tree, change.old, change.new, change.path, merge):
                    return False
        if any(path.endswith(PROJECTION_SUFFIX) for path in changed):
            # lazy: only a commit changing a JSONL file
            from ..validation.projections import drift_targets

            if drift_targets(changed):
                return False  # VerMAS projections: the full check
        return self._not_undoing(commit)

    def _change(
        self,
        tree: str,
        before: tuple[str, str] | None,
        after: tuple[str, str],
        path: str,
        merge: bool,
    ) -> bool:
        """Whether one file's change (``(mode, blob)`` before and after) is clean for
        certain: the new blob valid, no case twin, its history kept."""
        # lazy: only a push with files to judge
        from ..validation.history import check_change

        if not self._blob(after[1], path):
            return False
        if before is None and self._twins(tree, path):
            return False  # a path one file with another's: the full check notes it
        if before is None or before[1] == after[1]:
            return True
        key = change_key("g" if merge else "h", before[1], after[1], path)
        found = self.cache.get(key)
        if found is None:
            old, new = self.objects.blob(before[1]), self.objects.blob(after[1])
            found = check_change(old, new, path, old_path=path, merge=merge)
            self.cache.put(key, found)
        return not found

    def _blob(self, blob_id: str, path: str) -> bool:
        # lazy: only a push with files to judge
        from ..validation.files import check_bytes

        key = blob_key(blob_id, path)
        found: list[Finding] | None = self.cache.get(key)
        if found is None:
            report = check_bytes(self.objects.blob(blob_id), path, covered=True)
            found = report.as_findings()
            self.cache.put(key, found)
        return not found  # a finding, or a note (skipped): the full check says it

    def _twins(self, tree: str, path: str) -> bool:
        """Whether another path of the tree differs from ``path`` only in case
        (``validation.model.case_twins``: the full check's note)."""
        from ..validation.model import case_twins

        def entries(oid: str) -> list[tuple[str, str | None]]:
            return [
                (name, sha if mode == TREE else None) for mode, name, sha in self.objects.tree(oid)
            ]

        return bool(case_twins(path, tree, entries))

    def _not_undoing(self, commit: Commit) -> bool:
        """The undone-sync-merge rule (``prepush.undone``) cannot fire: the commit is not
        made on a sync merge, says it means it, or keeps part of what the merge brought into
        every document it changed."""
        if len(commit.parents) != 1:
            return True
        merge = self.objects.commit(commit.parents[0])
        if len(merge.parents) < 2:
            return True
        # lazy: only a commit made on a merge
        from ..branches.commits import is_sync_commit_message, says_drop

        if says_drop(commit.message) or not is_sync_commit_message(merge.message):
            return True
        before = self.objects.commit(merge.parents[0])
        for change in self.objects.changes(before.tree, merge.tree):
            if change.new is None:
                continue  # removed by the merge: nothing brought
            if not change.regular or not checked_file(change.path):
                return False  # maybe a document by content or routing: the full check
            if self.objects.at(commit.tree, change.path) == change.new:
                continue  # left as the merge made it: all it holds kept (nothing to parse)
            if not self._keeps(before.tree, merge.tree, commit.tree, change.path):
                return False  # the full check looks closer (moves, conversions) and says so
        return True

    def _keeps(self, before: str, merge: str, commit: str, path: str) -> bool:
        """Whether the commit's document at ``path`` keeps part of what the merge brought
        into it (or all it holds, the usual round on a sync: first asked with keys stricter
        than the rule's, ``values.strict_key``, whose "all kept" the rule's keys then say
        too; issue 28)."""
        merged = self._keys(merge, path, strict=True)
        if merged.keys() <= self._keys(commit, path, strict=True).keys():
            return True
        merged, kept = self._keys(merge, path), self._keys(commit, path)
        if merged.keys() <= kept.keys():
            return True  # all it holds kept: whatever was brought
        had = self._keys(before, path)
        brought = [key for key in merged if key not in had]
        return not (brought and all(key not in kept for key in brought))

    def _keys(
        self, tree: str, path: str, *, strict: bool = False
    ) -> dict[tuple[str, str | bytes], str]:
        from .undone import record_keys

        data = self._data(tree, path)
        return {} if data is None else record_keys(data, path, strict=strict)


def _default_branch(git_dir: str) -> str | None:
    """The ref the bare repository's HEAD names (None: detached or unreadable)."""
    try:
        with open(os.path.join(git_dir, "HEAD"), encoding="utf-8") as fh:
            head = fh.read().strip()
    except (OSError, ValueError):
        return None
    return head[5:].strip() if head.startswith("ref: ") else None
