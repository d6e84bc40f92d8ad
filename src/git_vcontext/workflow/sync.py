"""``sync``: merge each agent branch and its base both ways, in process, as real merge commits.

For one pair (base B at b, agent A at a):

1. B side: merge a into b (merge base of a and b). Every document that differs
   goes through our engine, so ours' (the base's) lack of a ``fork`` block wins
   (M11) and the agent's fork never reaches the base. A merged tree equal to b's
   means the agent has nothing new: B does not move.
2. A side: merge the new B commit (or b) into a. Its merge base is a itself
   after step 1, so A receives exactly the base's data and keeps its own fork,
   with ``parentSequence`` set to the base's sequence (M11); when step 1 merged
   something, the same commit marks the forks ``merged`` (``mergedAt``, ``mergedBy``).
3. Both refs move in one transaction that checks their old values.

Afterwards both branches hold the same data except the fork blocks, the base's
merge commit is an ancestor of the agent's, and a second sync finds nothing to do.
"""

from __future__ import annotations

from ..errors import OperationalError
from ..gitio import refs, worktrees
from ..record import record
from . import agents
from .treemerge import PathConflict, TreeMerge, carry_to_agent, merge_trees

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

TRAILER = "Vcontext-Sync"

# What happened to a pair
MERGED = "merged"  # refs moved (or would move, in a dry run)
UP_TO_DATE = "up to date"
CONFLICT = "conflict"
REFUSED = "refused"  # a checked-out branch with local changes, a branch moved meanwhile, …


@record
class PairResult:
    """The outcome of syncing one agent branch with its base."""

    agent: str
    branch: str
    base: str
    state: str
    base_commit: str | None = None  # the new merge commit on the base (None: base unchanged)
    agent_commit: str | None = None  # the new merge commit on the agent branch
    documents: tuple[str, ...] = ()  # documents the agent's work changed in the base
    agent_documents: tuple[str, ...] = ()  # documents that changed on the agent branch
    conflicts: tuple[PathConflict, ...] = ()
    notes: tuple[str, ...] = ()
    message: str = ""
    base_moves: bool = False  # the base gets (or, in a dry run, would get) a merge commit
    agent_moves: bool = False

    @property
    def ok(self) -> bool:
        return self.state in (MERGED, UP_TO_DATE)

    def refused(self, message: str) -> PairResult:
        """The same pair, stopped: nothing moves."""
        return PairResult(
            self.agent, self.branch, self.base, REFUSED, documents=self.documents, message=message
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "branch": self.branch,
            "base": self.base,
            "state": self.state,
            "baseCommit": self.base_commit,
            "agentCommit": self.agent_commit,
            "documents": list(self.documents),
            "agentDocuments": list(self.agent_documents),
            "conflicts": [c.to_json() for c in self.conflicts],
            "notes": list(self.notes),
            "message": self.message,
            "baseMoves": self.base_moves,
            "agentMoves": self.agent_moves,
        }


class Syncer:
    """Syncs pairs in one repository; remembers work trees to bring along at the end."""

    def __init__(self, repo: Any, *, dry_run: bool = False, now: str | None = None) -> None:
        from ..clock import now_rfc3339

        self.repo = repo
        self.dry_run = dry_run
        self.now = now or now_rfc3339()
        self._checkouts: dict[str, str] | None = None
        self._dirty: dict[str, list[str]] = {}
        self._pending: dict[str, list[Any]] = {}  # work tree path -> [first old, last new]
        self._signatures: tuple[Any, Any] | None = None
        self.warnings: list[str] = []
        self._parsed: dict[Any, Any] = {}  # documents parsed so far, by content (all pairs)
        self._planned: dict[str, list[Any]] = {}  # full ref name -> [old, new]: moved by commit()
        self._reflog: list[str] = []

    # -- many pairs ----------------------------------------------------------------

    def sync_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[PairResult]:
        """Sync each (agent, base) in order, then move every ref in one transaction.

        When a ref moved meanwhile (another process), nothing is moved and the
        pairs are synced again one by one, each pair's refs moved on their own.
        """
        results = [self.sync_pair(agent, base) for agent, base in pairs]
        try:
            self.commit()
            return results
        except refs.RefMoved as exc:
            self.warnings.append(f"{exc.message}: syncing the agents one at a time")
        results = []
        for agent, base in pairs:
            result = self.sync_pair(agent, base)
            try:
                self.commit()
            except refs.RefMoved as exc:
                result = result.refused(f"{exc.message}: nothing moved, sync again")
            results.append(result)
        return results

    def commit(self) -> None:
        """Move the planned refs, all or none (RefMoved: none); work trees follow in finish()."""
        planned, self._planned = self._planned, {}
        reflog, self._reflog = self._reflog, []
        if not planned or self.dry_run:
            return  # a dry run forgets its plan
        for name, (old, new) in planned.items():
            short = name.removeprefix("refs/heads/")
            path = self.checkouts().get(short)
            if path is None:
                continue
            shown = self._pending.get(path, [old])[0]  # what the work tree holds now
            if why := worktrees.can_follow(path, str(shown), str(new)):
                raise refs.RefMoved(f"{short} is checked out in {path} and cannot follow: {why}")
        updates = [refs.RefUpdate(name, old, new) for name, (old, new) in planned.items()]
        refs.move_refs(self.repo, updates, message="vcontext sync: " + ", ".join(reflog))
        for name, (old, new) in planned.items():
            self._follow(name.removeprefix("refs/heads/"), old, new)

    def tip(self, branch: str) -> Any:
        """Where ``branch`` is (or will be, once the planned moves are committed)."""
        planned = self._planned.get(refs.branch_ref(branch))
        return planned[1] if planned else refs.target(self.repo, branch)

    def _plan(self, branch: str, old: Any, new: Any, why: str) -> None:
        name = refs.branch_ref(branch)
        self._planned.setdefault(name, [old, new])[1] = new
        self._reflog.append(why)

    # -- identities and checkouts ------------------------------------------------

    def signatures(self) -> tuple[Any, Any]:
        if self._signatures is None:
            self._signatures = agents.signatures(self.repo)
        return self._signatures

    def checkouts(self) -> dict[str, str]:
        if self._checkouts is None:
            self._checkouts = worktrees.checkouts(self.repo)
        return self._checkouts

    def blocked(self, branch: str) -> str | None:
        """Why ``branch`` must not move: checked out in a work tree with local changes."""
        path = self.checkouts().get(branch)
        if path is None:
            return None
        if path not in self._dirty:
            self._dirty[path] = worktrees.local_changes(path)
        changed = self._dirty[path]
        if not changed:
            return None
        shown = ", ".join(changed[:3]) + (
            f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        )
        return (
            f"{branch} is checked out in {path} with local changes ({shown}): "
            "commit or stash them, then sync again"
        )

    # -- one pair --------------------------------------------------------------

    def sync_pair(self, agent: str, base: str) -> PairResult:
        """Merge ``agents/AGENT`` and ``base`` both ways (see the module's description)."""
        from ..codecs import reused_parses

        with reused_parses(self._parsed):
            return self._sync_pair(agent, base)

    def _sync_pair(self, agent: str, base: str) -> PairResult:
        repo = self.repo
        branch = agents.agent_branch(repo, agent)
        a, b = self.tip(branch), self.tip(base)
        if a is None:
            raise OperationalError(f"no branch {branch} for agent {agent!r}")
        if b is None:
            raise OperationalError(f"base branch {base!r} of agent {agent!r} does not exist")
        result = _Pair(agent, branch, base)
        if repo.merge_base(a, b) is None:
            return result.done(REFUSED, message=f"{branch} and {base} share no history")

        # 1. the agent's work into the base
        merged_in = None
        if a != b and not repo.descendant_of(b, a):
            merged_in = self._merge(b, a)
            if not merged_in.clean:
                return result.done(CONFLICT, conflicts=merged_in.conflicts)
            result.notes += merged_in.notes
            if merged_in.tree == repo[b].tree_id:
                merged_in = None  # nothing new from the agent: the base stays
        new_b = None
        if merged_in is not None:
            result.documents = merged_in.documents
            message = _message(f"merge {branch} into {base}", agent, merged_in.documents)
            new_b = self._commit(merged_in.tree, [b, a], message)

        # 2. the base into the agent branch (after step 1 the merge base is a itself)
        merged_back = None
        if merged_in is not None:
            mark = None if self.dry_run else self._marker(merged_in.documents)
            merged_back = carry_to_agent(
                repo, repo[a].tree, repo[merged_in.tree], now=self.now, mark=mark
            )
        elif a != b and not repo.descendant_of(a, b):
            merged_back = self._merge(a, b)
        new_a = None
        if merged_back is not None:
            if not merged_back.clean:
                return result.done(CONFLICT, conflicts=merged_back.conflicts)
            tree, documents = merged_back.tree, merged_back.documents
            if tree == repo[a].tree_id and merged_in is None:
                merged_back = None  # the agent branch already holds the base's data
            else:
                result.agent_documents = documents
                message = _message(f"merge {base} into {branch}", agent, result.agent_documents)
                new_a = self._commit(tree, [a, new_b or b], message)

        if merged_in is None and merged_back is None:
            return result.done(UP_TO_DATE)
        result.base_moves, result.agent_moves = merged_in is not None, merged_back is not None
        result.base_commit = None if new_b is None else str(new_b)
        result.agent_commit = None if new_a is None else str(new_a)
        for name, moves in ((base, result.base_moves), (branch, result.agent_moves)):
            if moves and (why := self.blocked(name)):
                return result.done(REFUSED, message=why)
        for name, old, new in ((base, b, new_b), (branch, a, new_a)):
            if new is not None:
                self._plan(name, old, new, agent)
        return result.done(MERGED)

    def integrate(self, branch: str, theirs: Any, what: str) -> PairResult:
        """Merge commit ``theirs`` into local ``branch`` with a real merge commit (push retries).

        Planned like a pair: ``commit()`` moves the ref.
        """
        from ..codecs import reused_parses

        with reused_parses(self._parsed):
            return self._integrate(branch, theirs, what)

    def _integrate(self, branch: str, theirs: Any, what: str) -> PairResult:
        repo = self.repo
        ours = self.tip(branch)
        result = _Pair("", branch, what)
        if ours is None or theirs == ours or repo.descendant_of(ours, theirs):
            return result.done(UP_TO_DATE)
        merged = self._merge(ours, theirs)
        if not merged.clean:
            return result.done(CONFLICT, conflicts=merged.conflicts)
        message = f"vcontext sync: merge {what} into {branch}\n"
        if merged.documents:
            message += "\nDocuments:\n" + "".join(f"- {p}\n" for p in merged.documents)
        new = self._commit(merged.tree, [ours, theirs], message)
        result.documents = merged.documents
        if why := self.blocked(branch):
            return result.done(REFUSED, message=why)
        self._plan(branch, ours, new, f"merge {what}")
        result.base_commit, result.base_moves = str(new), True
        return result.done(MERGED)

    # -- pieces ------------------------------------------------------------------

    def _merge(self, ours: Any, theirs: Any) -> TreeMerge:
        repo = self.repo
        base = repo.merge_base(ours, theirs)
        base_tree = None if base is None else repo[base].tree
        return merge_trees(repo, base_tree, repo[ours].tree, repo[theirs].tree, now=self.now)

    def _commit(self, tree: Any, parents: list[Any], message: str) -> Any:
        """A commit object (no ref moves).

        A dry run writes its commits too, so later pairs build on earlier ones as
        in the real run, but with a fixed identity and time: the same prediction
        writes the same objects, and they are never referenced.
        """
        if self.dry_run:
            import pygit2

            nobody = pygit2.Signature("git-vcontext dry run", "dry-run@git-vcontext.invalid", 0, 0)
            return self.repo.create_commit(None, nobody, nobody, message, tree, parents)
        author, committer = self.signatures()
        return self.repo.create_commit(None, author, committer, message, tree, parents)

    def _marker(self, contributed: Sequence[str]) -> Any:
        """How the agent side marks forks merged: documents whose changes reached the base
        get a fresh ``mergedAt``; other forks still ``unmerged`` are marked too."""
        from .forkstate import merger_agent

        by = merger_agent(self.signatures()[1])
        done = set(contributed)

        def mark(path: str) -> tuple[str, dict[str, Any], bool]:
            return (self.now, by, path in done)

        return mark

    def _follow(self, branch: str, old: Any, new: Any) -> None:
        path = self.checkouts().get(branch)
        if path is None:
            return
        pending = self._pending.setdefault(path, [old, new])
        pending[1] = new

    def finish(self) -> None:
        """Bring every checked-out branch's work tree along (once per work tree)."""
        pending, self._pending = self._pending, {}
        for path, (old, new) in pending.items():
            problem = worktrees.follow(path, str(old), str(new))
            if problem:
                self.warnings.append(
                    f"the work tree at {path} was not updated ({problem}); after saving your "
                    f"changes run: git -C {path} read-tree -m -u {str(old)[:12]} HEAD"
                )


class _Pair:
    """A PairResult being filled in."""

    def __init__(self, agent: str, branch: str, base: str) -> None:
        self.agent, self.branch, self.base = agent, branch, base
        self.base_commit: str | None = None
        self.agent_commit: str | None = None
        self.documents: tuple[str, ...] = ()
        self.agent_documents: tuple[str, ...] = ()
        self.notes: tuple[str, ...] = ()
        self.base_moves = False
        self.agent_moves = False

    def done(
        self, state: str, *, conflicts: tuple[PathConflict, ...] = (), message: str = ""
    ) -> PairResult:
        moved = state == MERGED
        return PairResult(
            self.agent,
            self.branch,
            self.base,
            state,
            self.base_commit if moved else None,
            self.agent_commit if moved else None,
            self.documents,
            self.agent_documents if moved else (),
            conflicts,
            self.notes,
            message,
            self.base_moves if moved else False,
            self.agent_moves if moved else False,
        )


def _message(title: str, agent: str, documents: Iterable[str]) -> str:
    lines = [f"vcontext sync: {title}", ""]
    docs = list(documents)
    if docs:
        lines.append("Documents:")
        lines += [f"- {p}" for p in docs]
        lines.append("")
    lines.append(f"{TRAILER}: {agent}")
    return "\n".join(lines) + "\n"


def is_sync_commit(commit: Any) -> bool:
    """A merge commit ``sync`` made (it carries the trailer)."""
    return len(commit.parent_ids) == 2 and f"\n{TRAILER}: " in commit.message


def select_agents(repo: Any, names: Sequence[str], all_agents: bool) -> list[str]:
    """The agents to sync: the names given, or every agent branch with --all."""
    from ..errors import UsageError

    if all_agents and names:
        raise UsageError("give agent names or --all, not both")
    if all_agents:
        found = agents.list_agents(repo)
        if not found:
            raise OperationalError(f"no agent branches (none under {agents.agent_prefix(repo)})")
        return found
    if not names:
        raise UsageError("name the agents to sync, or pass --all")
    for name in names:
        if repo.branches.local.get(agents.agent_branch(repo, name)) is None:
            raise OperationalError(
                f"no branch {agents.agent_branch(repo, name)} for agent {name!r}"
            )
    return list(dict.fromkeys(names))
