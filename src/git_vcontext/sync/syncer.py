"""``sync``: merge each agent branch and its base both ways, in process, as real merge commits.

For the pairs (base B, agent A at a) of one run:

1. B side, agent after agent: merge a into B's current commit b (merge base of a
   and b). Every document that differs goes through our engine, so ours' (the
   base's) lack of a ``fork`` block wins (M11) and the agent's fork never reaches
   the base. A merged tree equal to b's means the agent has nothing new: B stays.
2. A side, once every agent's work is in: merge B's final commit into a. a is an
   ancestor of it after step 1, so A receives exactly the base's data and keeps
   its own forks, with ``parentSequence`` set to the base's sequence (M11); when
   step 1 merged something, the same commit marks the forks ``merged``
   (``mergedAt``, ``mergedBy``).
3. All refs move in one transaction that checks their old values.

Afterwards every agent branch holds its base's data except the fork blocks, the
base's merge commits are ancestors of the agents', and a second sync finds
nothing to do. A pair that conflicts (or whose checked-out branch has local
changes) stops in step 1 and plans nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..branches import agents
from ..branches.commits import document_lines, is_sync_commit, sync_message
from ..branches.forkstate import merger_agent
from ..branches.treemerge import PathConflict, TreeMerge, carry_to_agent, merge_trees, named
from ..branches.virtualbase import base_tree
from ..clock import now_rfc3339
from ..codecs import ReusedParses
from ..errors import OperationalError
from ..gitio import refs, run_dir, worktrees
from ..gitio.bases import merge_bases
from ..gitio.objects import (
    commit_at,
    descends,
    make_commit,
    new_commits,
    object_at,
    signature,
    signatures,
)
from ..gitio.promisor import no_common_history
from ..gitio.settings import merge_settings
from ..prepush.mergecheck import MergeChecks
from ..record import record, replace
from . import interrupted
from .busy import busy

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence
    from typing import Any, Final, Literal

    from pygit2 import Oid, Repository, Signature

    from ..branches.treemerge import Marker
    from ..codecs import ParseMemo

    PairState = Literal["merged", "up to date", "conflict", "refused"]


# What happened to a pair
MERGED: Final = "merged"  # refs moved (or would move, in a dry run)
UP_TO_DATE: Final = "up to date"
CONFLICT: Final = "conflict"
REFUSED: Final = "refused"  # a checked-out branch with local changes, a branch moved meanwhile, …


@record
class Diverged:
    """A local base whose own commits conflict with the remote's: the warning as the
    command line prints it, its first part (without the commands), and the way to publish
    them: the agent whose sync does (None: the person's ``commands``)."""

    base: str
    warning: str
    head: str
    agent: str | None
    commands: tuple[str, ...]


@record
class PairResult:
    """The outcome of syncing one agent branch with its base."""

    agent: str
    branch: str
    base: str
    state: PairState
    base_commit: str | None = None  # the new merge commit on the base (None: base unchanged)
    agent_commit: str | None = None  # the new merge commit on the agent branch
    documents: tuple[str, ...] = ()  # documents the agent's work changed in the base
    agent_documents: tuple[str, ...] = ()  # documents that changed on the agent branch
    conflicts: tuple[PathConflict, ...] = ()
    notes: tuple[str, ...] = ()
    message: str = ""
    base_moves: bool = False  # the base gets (or, in a dry run, would get) a merge commit
    agent_moves: bool = False
    elsewhere: bool = False  # the agent's work reached the base in another agent's sync
    # a conflict: the commit the agent branch could not be merged with (its base as sync
    # saw it, or the remote's copy of the branch): what ``sync --checkout`` merges into it
    against: str | None = None
    idle: int = 0  # up to date: the agent's own commits the base lacks (they change nothing)

    @property
    def ok(self) -> bool:
        return self.state in (MERGED, UP_TO_DATE)

    @property
    def changes_nothing(self) -> str:
        """Why an agent with commits its base lacks is up to date (``sync`` and ``status``
        say it alike): they change nothing there (a resolution that took the base's side
        undid them, or the base made the same change); "" for any other pair."""
        n = self.idle
        if self.state != UP_TO_DATE or not n:
            return ""
        commits = f"{n} commit{'' if n == 1 else 's'}"
        return (
            f"its {commits} {self.base} lacks change{'s' if n == 1 else ''} nothing on "
            f"{self.base}: nothing to sync"
        )

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
            "mergedElsewhere": self.elsewhere,
            "against": self.against,
        }


class Syncer:
    """Syncs pairs in one repository; remembers work trees to bring along at the end."""

    def __init__(
        self,
        repo: Repository,
        *,
        dry_run: bool = False,
        now: str | None = None,
        working_as: tuple[str | None] | None = None,
    ) -> None:
        self.repo = repo
        # (the agent running the sync,) as its caller knows it (the MCP server: its own
        # agent, None for a person's work tree); None: ``agents.running_agent`` says
        self.working_as = working_as
        self.dry_run = dry_run
        self.now = now or now_rfc3339()
        self._checkouts: dict[str, str] | None = None
        self._dirty: dict[str, list[str]] = {}
        self._pending: dict[str, list[Oid | None]] = {}  # work tree -> [first old, last new]
        self._signatures: tuple[Signature, Signature] | None = None
        self.warnings: list[str] = []
        self.diverged: list[Diverged] = []  # local bases whose own commits conflict (--push)
        self._parsed: ParseMemo = {}  # documents parsed so far, by content (all pairs)
        self._planned: dict[str, tuple[Oid | None, Oid]] = {}  # full ref name -> (old, new)
        # (old None: a new branch): moved by commit()
        self._pinned: dict[str, Oid] = {}  # full ref name -> the tip to build on (see pin())
        self._carried: set[str] = set()  # pinned branches whose own commits an agent holds
        # full ref name -> what moved it, for its reflog entry (see commit())
        self._reflog: dict[str, list[str]] = {}
        self._sources: dict[str, str] = {}  # pinned ref -> where its commit came from
        # the branches the last commit() moved (short name -> new tip): see brought_along()
        self.moved: dict[str, Oid] = {}
        self._favor: tuple[str | None] | None = None  # (merge.vcontext.favor,), read once
        # while batch() combines: base -> document -> the M8 merge Changes the integration
        # logged so far (values.canonical; its later merges fold into them)
        self._integration: dict[str, dict[str, set[str]]] | None = None
        self._undoing: dict[tuple[Oid, Oid | None], str | None] = {}  # see undoing()
        self.checks = MergeChecks(repo)  # the hook's verdicts on the merges into a base
        # while batch() combines: base -> where it was before the integration's first merge
        self._starts: dict[str, Oid] | None = None
        self._assumed: dict[str, Oid] = {}  # see assume()
        # what this run learnt of the history (it never changes): see descends()
        self._made: dict[Oid, frozenset[Oid]] = {}  # a commit made here -> what it reaches
        self._descent: dict[tuple[Oid, Oid], bool] = {}
        self._bases: dict[tuple[Oid, Oid], list[Oid]] = {}

    # -- many pairs ----------------------------------------------------------------

    def sync_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[PairResult]:
        """Sync every (agent, base), then move every ref in one transaction.

        First each agent's work goes into its base, in order; then each agent
        branch receives its base as all the agents left it, so one run leaves
        every branch up to date. When a ref moved meanwhile (another process),
        nothing is moved and the pairs are synced again one by one, each pair's
        refs moved on their own.
        """
        results = self._run(pairs)
        try:
            self.commit()
            return results
        except refs.RefMoved as exc:
            self.warnings.append(f"{exc.message}: syncing the agents one at a time")
        results = []
        for pair in pairs:
            [result] = self._run([pair])
            try:
                self.commit()
            except refs.RefMoved as exc:
                result = result.refused(f"{exc.message}: nothing moved, sync again")
            results.append(result)
        return results

    def sync_pair(self, agent: str, base: str) -> PairResult:
        """Merge ``agents/AGENT`` and ``base`` both ways (planned: ``commit()`` moves the refs)."""
        [result] = self._run([(agent, base)])
        return result

    def _run(self, pairs: Sequence[tuple[str, str]]) -> list[PairResult]:
        return self.batch(pairs)[0]

    def batch(
        self,
        pairs: Sequence[tuple[str, str]],
        requests: Sequence[tuple[str, str, str, Oid]] = (),
        *,
        more: Callable[[], bool] = lambda: True,
        elsewhere: dict[str, tuple[str, ...]] | None = None,
        combine: bool = False,
    ) -> tuple[list[PairResult], list[PairResult]]:
        """Sync ``pairs``, merging other agents' ``requests`` (agent, branch, base, commit)
        into the bases between the two steps, while ``more()`` says there is time.

        ``elsewhere``: agents whose work reached the base in another sync, with the
        documents it changed (their forks are marked merged). ``combine``: the agents'
        work goes into each base as one merge commit (an octopus: the base and every agent
        commit as parents) however many agents it merges, so one integration is one commit
        to check and to push. Returns (the pairs' results, the requests' results).
        """
        with ReusedParses(self._parsed):
            self._integration = {} if combine else None
            self._starts = {} if combine else None
            try:
                started = [self._into_base(agent, base) for agent, base in pairs]
                merged = []
                for agent, branch, base, commit in requests:
                    if not more():
                        break
                    merged.append(self._into_base(agent, base, branch=branch, commit=commit))
            finally:
                self._integration, self._starts = None, None
            self.checks.save()  # for the hook that checks the push of these merges
            if combine:
                self._combine([*started, *merged])
            others = [p.final or p.done(MERGED if p.base_moves else UP_TO_DATE) for p in merged]
            for pair in started:
                # its work reached the base elsewhere only if the base holds its commit: a
                # published commit whose merge changes nothing was merged by no one
                if pair.agent in (elsewhere or {}) and not pair.base_moves and pair.contained:
                    pair.elsewhere, pair.documents = True, (elsewhere or {})[pair.agent]
            return [self._into_agent(pair) for pair in started], others

    def _combine(self, pairs: Sequence[_Pair]) -> None:
        """Replace each base's chain of planned merge commits (one per agent) by one merge
        commit of the same tree whose parents are the base before them and each agent's
        commit, in the order merged (the chain's commits stay unreferenced)."""
        for base in dict.fromkeys(p.base for p in pairs):
            chain = [p for p in pairs if p.base == base and p.base_moves and p.final is None]
            if len(chain) < 2 or self.dry_run:
                continue
            name = refs.branch_ref(base)
            first, tip = self._planned[name]
            tree = commit_at(self.repo, tip).tree_id
            parents = [chain[0].b, *(p.a for p in chain)]  # (both set when base_moves)
            documents = dict.fromkeys(d for p in chain for d in p.documents)
            title = f"merge {', '.join(p.branch for p in chain)} into {base}"
            message = sync_message(title, [p.agent for p in chain], documents)
            combined = self._commit(tree, [p for p in parents if p is not None], message)
            self._planned[name] = (first, combined)
            for pair in chain:
                pair.base_commit = str(combined)

    def pin(self, branch: str, commit: Oid, source: str, *, carried: bool = False) -> None:
        """Build on ``commit`` as ``branch``'s tip (the remote's base, ``source`` as a person
        reads it: ``origin/main``): ``commit()`` then fast-forwards the local branch to where
        the merges end, when it can (a branch no merge moves has the reflog entry ``vcontext
        sync: brought along from SOURCE``). ``carried``: the local branch's commits that
        ``commit`` lacks are all in an agent branch (a local sync merged them): it moves
        there even when that is no fast-forward, so it never keeps a commit of its own that
        the remote's base lacks."""
        self._pinned[refs.branch_ref(branch)] = commit
        self._sources[refs.branch_ref(branch)] = source
        if carried:
            self._carried.add(refs.branch_ref(branch))

    def _settle_pins(self) -> None:
        """Plan the local moves of pinned branches: fast-forwards from where they are."""
        pinned, self._pinned = self._pinned, {}
        carried, self._carried = self._carried, set()
        for name, at in pinned.items():
            short = name.removeprefix("refs/heads/")
            local = refs.target(self.repo, short)
            new = self._planned.get(name, (at, at))[1]
            # a fast-forward to where the merges end (the local commits may have reached the
            # remote's base through an agent branch that holds them)
            behind = local is not None and (local == new or descends(self.repo, new, local))
            behind = behind or (local is not None and name in carried)
            problem = None if behind else f"{short} has commits here that {str(new)[:12]} lacks"
            problem = problem or self.blocked(short)
            if problem or local == new:
                self._planned.pop(name, None)
                if problem and local != new:
                    where = f"{short} here was not moved to {str(new)[:12]}"
                    self.warnings.append(f"{where}: {problem}")
                continue
            self._planned[name] = (local, new)

    def commit(self) -> None:
        """Move the planned refs, all or none (RefMoved: none); work trees follow in finish()."""
        self._settle_pins()
        planned, self._planned = self._planned, {}
        reflog, self._reflog = self._reflog, {}
        sources, self._sources = self._sources, {}
        self.moved = {}
        if not planned or self.dry_run:
            return  # a dry run forgets its plan
        journal = self._journal(planned)
        updates = [
            refs.RefUpdate(name, old, new, _reflog_entry(reflog.get(name), sources.get(name)))
            for name, (old, new) in planned.items()
        ]
        try:
            refs.move_refs(self.repo, updates, message="vcontext sync")
        except (refs.RefMoved, refs.RefLocked):
            for path, branch in journal.items():
                if path in self._pending:  # an earlier move of this run still to follow
                    first, last = self._pending[path]
                    interrupted.note(self.repo, path, branch, str(first), str(last))
                else:
                    interrupted.forget(self.repo, path)
            raise
        for name, (old, new) in planned.items():
            self._follow(name.removeprefix("refs/heads/"), old, new)
        self.moved = {name.removeprefix("refs/heads/"): new for name, (_, new) in planned.items()}

    def brought_along(self) -> list[str]:
        """The branches the last ``commit()`` moved to a commit this run did not make: taken
        as they are from elsewhere (the remote's base, an agent branch's copy there), which
        no pair's line says (its merges are the commits it made)."""
        return [b for b, new in self.moved.items() if new not in self._made]

    def _journal(self, planned: dict[str, tuple[Oid | None, Oid]]) -> dict[str, str]:
        """Check that each work tree of a planned move can follow it, then note the moves in
        the journal (``sync/interrupted``), before any ref moves: killed before its work
        tree follows, the next command finds it. Returns {work tree: branch} noted."""
        noted: dict[str, str] = {}
        for name, (old, new) in planned.items():
            short = name.removeprefix("refs/heads/")
            path = self.checkouts().get(short)
            if path is None:
                continue
            shown = self._pending.get(path, [old])[0]  # what the work tree holds now
            if why := worktrees.can_follow(path, str(shown), str(new)):
                raise refs.RefMoved(f"{short} is checked out in {path} and cannot follow: {why}")
            if shown is not None:
                interrupted.note(self.repo, path, short, str(shown), str(new))
                noted[path] = short
        return noted

    def tip(self, branch: str) -> Oid | None:
        """Where ``branch`` is (or will be, once the planned moves are committed)."""
        name = refs.branch_ref(branch)
        planned = self._planned.get(name)
        if planned:
            return planned[1]
        if name in self._pinned:
            return self._pinned[name]
        return refs.target(self.repo, branch) or self._assumed.get(name)

    def assume(self, branch: str, commit: Oid) -> None:
        """A dry run: take ``branch``, which does not exist here, as being at ``commit`` (an
        agent only a remote has, whose local branch a real sync would create there)."""
        self._assumed[refs.branch_ref(branch)] = commit

    def move(self, branch: str, new: Oid, why: str, *, expected: Oid | None = None) -> str | None:
        """Plan ``branch`` to point at ``new`` (``commit()`` moves it); or why it must not.

        ``expected``: where the branch must still be when ``commit()`` moves it
        (default: where it is now).
        """
        old = self.tip(branch) if expected is None else expected
        if old == new:
            return None
        if problem := self.blocked(branch):
            return problem
        self._plan(branch, old, new, why)
        return None

    def _plan(self, branch: str, old: Oid | None, new: Oid, why: str) -> None:
        name = refs.branch_ref(branch)
        first = self._planned.get(name)
        self._planned[name] = (old if first is None else first[0], new)
        self._reflog.setdefault(name, []).append(why)

    # -- identities and checkouts ------------------------------------------------

    @property
    def parsed(self) -> ParseMemo:
        """The documents parsed so far, by content (for other steps to reuse)."""
        return self._parsed

    def use_identity(self, signature: Signature) -> None:
        """Commit as ``signature`` (a server's hook, which has no user of its own)."""
        self._signatures = (signature, signature)

    def signatures(self) -> tuple[Signature, Signature]:
        if self._signatures is None:
            self._signatures = signatures(self.repo)
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
        if why := self._busy(branch):
            return why
        if path not in self._dirty:
            self._dirty[path] = worktrees.local_changes(path)
        changed = self._dirty[path]
        if not changed:
            return None
        if interrupted.pending_for(self.repo, path) is not None:
            from .advice import for_agents_with_tools

            look = "run git vcontext status there for what to do"
            if for_agents_with_tools():
                look = "vcontext_status, through the MCP server there, says what to do"
            return (
                f"{branch} is checked out in {path}, whose files an interrupted sync left "
                f"behind (do not commit them): {look}"
            )
        shown = ", ".join(changed[:3]) + (
            f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        )
        return (
            f"{branch} is checked out in {path} with local changes ({shown}): "
            "commit or stash them, then sync again"
        )

    def _busy(self, branch: str) -> str | None:
        """Why ``branch`` must not move: git stopped in the middle of a merge (rebase, …)
        in the work tree where it is checked out."""
        path = self.checkouts().get(branch)
        if path is None:
            return None
        return busy(path, branch)

    def undoing(self, branch: str, tip: Oid, base: Oid | None) -> str | None:
        """Why ``branch`` at ``tip`` must not be merged into a base at ``base``: a commit of it
        undoes what a sync merge brought (made on files an interrupted sync left behind,
        ``prepush/undone``); None when none does."""
        key = (tip, base)
        if key not in self._undoing:
            from ..prepush.undone import refusal  # (it imports this module)

            if base is not None and self._none_may_undo(tip, base):
                self._undoing[key] = None
            else:
                with ReusedParses(self._parsed):
                    self._undoing[key] = refusal(self.repo, branch, tip, base)
        return self._undoing[key]

    def _none_may_undo(self, tip: Oid, base: Oid) -> bool:
        """Whether no commit of ``tip`` that ``base`` lacks is one ``undone`` looks into
        (``may_undo``), known without libgit2's walk of the base's history, which reads
        every commit it passes from disk: those commits are reached from ``tip`` without
        passing a merge base of the two (an ancestor of one is in the base), so a walk
        that stops at the merge bases sees them all (and maybe more). False when that walk
        finds a commit ``undone`` looks into, goes on for long, or meets a commit this
        clone lacks: then ask ``refusal``."""
        from ..prepush.undone import may_undo  # (it imports this module)

        stops = set(self.merge_bases(base, tip))
        seen: set[Oid] = set()
        todo = [tip]
        while todo:
            oid = todo.pop()
            if oid in stops or oid in seen:
                continue
            seen.add(oid)
            if len(seen) > _UNDO_WALK:
                return False
            commit = commit_at(self.repo, oid)  # (the tip, or a parent found here)
            if any(object_at(self.repo, p) is None for p in commit.parent_ids):
                return False  # a parent this clone lacks (shallow)
            if may_undo(commit):
                return False
            todo.extend(commit.parent_ids)
        return True

    # -- one pair --------------------------------------------------------------

    def _into_base(
        self, agent: str, base: str, *, branch: str | None = None, commit: Oid | None = None
    ) -> _Pair:
        """Step 1: the agent's work into the base (planned), or why the pair stops.

        ``commit`` of ``branch``: another agent's work, not a local branch (only the base moves).
        """
        repo = self.repo
        local = commit is None
        branch = branch or agents.agent_branch(repo, agent)
        a, b = self.tip(branch) if local else commit, self.tip(base)
        if a is None:
            raise OperationalError(f"no branch {branch} for agent {agent!r}")
        if b is None:
            raise OperationalError(f"base branch {base!r} of agent {agent!r} does not exist")
        pair = _Pair(agent, branch, base, a)
        if why := self._refused(branch, base, a, b, local=local):
            return pair.stop(REFUSED, message=why)
        if a == b or self.descends(b, a):
            pair.contained = True
            return pair  # nothing of the agent's is missing from the base
        logged = None if self._integration is None else self._integration.setdefault(base, {})
        merged_in = self._merge(b, a, integration=logged)
        if not merged_in.clean or merged_in.tree is None:
            conflicts = named(merged_in.conflicts, base, branch)  # ours: the base
            return pair.stop(CONFLICT, conflicts=conflicts, against=b)
        pair.notes += merged_in.notes
        if merged_in.tree == commit_at(repo, b).tree_id:
            return pair  # nothing new from the agent: the base stays
        for name in (base, branch) if local else (base,):  # both will move
            if name == base and refs.branch_ref(base) in self._pinned:
                continue  # the remote's base moves; the local one follows if it can (pin)
            if why := self.blocked(name):
                return pair.stop(REFUSED, message=why)
        pair.documents = merged_in.documents
        return self._keep(pair, merged_in, b, logged)

    def _keep(
        self, pair: _Pair, merged_in: TreeMerge, b: Oid, logged: dict[str, set[str]] | None
    ) -> _Pair:
        """Step 1's merge commit on the base (planned), unless the hook would refuse it: then
        the pair stops as for a conflict, saying why (a request is left out)."""
        assert pair.a is not None and merged_in.tree is not None  # (a merge was made)
        base, branch = pair.base, pair.branch
        message = sync_message(f"merge {branch} into {base}", [pair.agent], merged_in.documents)
        start = b if self._starts is None else self._starts.setdefault(base, b)
        new_b = self._commit(merged_in.tree, [b, pair.a], message)
        if failing := self.checks.failures(new_b, branch, first=start):
            return pair.stop(CONFLICT, conflicts=failing)
        pair.b = b
        pair.base_moves, pair.base_commit = True, None if self.dry_run else str(new_b)
        self._plan(base, b, new_b, f"merge {branch} into {base}")
        _remember(logged, merged_in)
        return pair

    def _refused(self, branch: str, base: str, a: Oid, b: Oid, *, local: bool) -> str | None:
        """Why step 1 must not merge ``branch`` (at ``a``) into ``base`` (at ``b``): its merge
        stopped in its work tree (finish that first), no shared history, or a commit of it
        undoes what a sync merge brought."""
        if local and (why := self._busy(branch)):
            return why
        if not self.merge_bases(b, a):
            return no_common_history(self.repo, branch, base)
        if not local or a == b or self.descends(b, a):
            return None
        return self.undoing(branch, a, b)

    def _into_agent(self, pair: _Pair) -> PairResult:
        """Step 2: the base, as every pair left it, into the agent branch (planned)."""
        if pair.final is not None:
            return pair.final
        repo, a = self.repo, pair.a
        b = self.tip(pair.base)
        if a is None:  # (step 1 checked both, unless it ran in another agent's sync)
            raise OperationalError(f"no branch {pair.branch} for agent {pair.agent!r}")
        if b is None:
            raise OperationalError(
                f"base branch {pair.base!r} of agent {pair.agent!r} does not exist"
            )
        merged_back = None
        if a != b and self.descends(b, a):  # a is in the base: its data plus a's own forks
            # (so b is not in a's history: the history has no cycles)
            mark = self._marker(pair.documents)  # its work is in the base: merged
            merged_back = carry_to_agent(
                repo, commit_at(repo, a).tree, commit_at(repo, b).tree, now=self.now, mark=mark
            )
        elif a != b and not self.descends(a, b):
            # favor names the base's side (ours) or the agent's (theirs) both ways
            merged_back = self._merge(a, b, swap_favor=True)
        # only the three-way route can conflict or be refused here, and it runs only when
        # step 1 planned nothing for this pair
        if merged_back is not None and not merged_back.clean:
            conflicts = named(merged_back.conflicts, pair.branch, pair.base)
            return pair.done(CONFLICT, conflicts=conflicts, against=b)
        # a base with commits the agent branch lacks is merged in even when they change
        # nothing there (the same edit on both sides, an empty commit): "up to date" means
        # the agent branch holds its base, so status never shows it with BEHIND > 0
        if merged_back is None or merged_back.tree is None:  # the agent holds the base
            landed = pair.base_moves or pair.elsewhere
            return pair.done(MERGED) if landed else self._up_to_date(pair, a, b)
        if not pair.base_moves and (why := self.blocked(pair.branch)):
            return pair.done(REFUSED, message=why)
        pair.agent_documents = merged_back.documents
        message = sync_message(
            f"merge {pair.base} into {pair.branch}", [pair.agent], pair.agent_documents
        )
        new_a = self._commit(merged_back.tree, [a, b], message)
        pair.agent_moves, pair.agent_commit = True, None if self.dry_run else str(new_a)
        self._plan(pair.branch, a, new_a, f"merge {pair.base} into {pair.branch}")
        return pair.done(MERGED)

    def _up_to_date(self, pair: _Pair, a: Oid, b: Oid) -> PairResult:
        """A pair where nothing moves, with the agent's own commits the base lacks (their
        merge is the base as it is: ``PairResult.changes_nothing``)."""
        idle = 0 if a == b or self.descends(b, a) else count_new(self.repo, a, b)
        return replace(pair.done(UP_TO_DATE), idle=idle)

    def forget(self) -> None:
        """Drop every planned move and pin (a push that did not land): nothing local moves."""
        self._planned, self._reflog, self._pinned, self._carried = {}, {}, {}, set()
        self._sources = {}

    def integrate(self, branch: str, theirs: Oid, what: str) -> PairResult:
        """Merge commit ``theirs`` into local ``branch`` with a real merge commit (push retries).

        Planned like a pair: ``commit()`` moves the ref.
        """
        with ReusedParses(self._parsed):
            return self._integrate(branch, theirs, what)

    def _integrate(self, branch: str, theirs: Oid, what: str) -> PairResult:
        repo = self.repo
        ours = self.tip(branch)
        result = _Pair("", branch, what)
        if ours is None or theirs == ours or descends(repo, ours, theirs):
            return result.done(UP_TO_DATE)
        merged = self._merge(ours, theirs)
        if not merged.clean or merged.tree is None:
            conflicts = named(merged.conflicts, branch, what)
            return result.done(CONFLICT, conflicts=conflicts, against=theirs)
        message = f"vcontext sync: merge {what} into {branch}\n"
        if merged.documents:
            message += "\nDocuments:\n" + "".join(
                f"{line}\n" for line in document_lines(merged.documents)
            )
        new = self._commit(merged.tree, [ours, theirs], message)
        result.documents = merged.documents
        if why := self.blocked(branch):
            return result.done(REFUSED, message=why)
        self._plan(branch, ours, new, f"merge {what} into {branch}")
        result.base_commit, result.base_moves = str(new), True
        return result.done(MERGED)

    # -- pieces ------------------------------------------------------------------

    def _merge(
        self,
        ours: Oid,
        theirs: Oid,
        *,
        swap_favor: bool = False,
        integration: Mapping[str, Collection[str]] | None = None,
    ) -> TreeMerge:
        """A three-way merge of two commits' trees, from a virtual base when their
        history criss-crosses (libgit2's merge_base would pick one of the bases).
        ``swap_favor``: ours is the agent branch, so favor's sides trade places;
        ``integration``: see ``merge_trees``."""
        repo = self.repo
        base = base_tree(repo, ours, theirs, now=self.now, bases=self.merge_bases(ours, theirs))
        ours_tree, theirs_tree = commit_at(repo, ours).tree, commit_at(repo, theirs).tree
        favor = self.favor()
        if swap_favor and favor is not None:
            favor = "theirs" if favor == "ours" else "ours"
        return merge_trees(
            repo, base, ours_tree, theirs_tree, now=self.now, favor=favor, integration=integration
        )

    def merge_bases(self, ours: Oid, theirs: Oid) -> list[Oid]:
        """``gitio.bases.merge_bases``, remembered for the run (step 1 asks whether the two
        share history, then merges from them)."""
        key = (ours, theirs)
        if key not in self._bases:
            self._bases[key] = merge_bases(self.repo, ours, theirs)
        return self._bases[key]

    def descends(self, commit: Oid, ancestor: Oid) -> bool:
        """``gitio.objects.descends``, remembered for the run, and known without a walk of
        the history (libgit2's, which reads every commit it passes from disk) when
        ``commit`` is one this run made, whose parents it chose, or when the merge bases of
        the two are known: ``ancestor`` is in ``commit``'s history exactly when it is their
        only best common ancestor."""
        if ancestor in self._made.get(commit, ()):
            return True
        key = (commit, ancestor)
        found = self._descent.get(key)
        if found is None:
            bases = self._bases.get(key)
            if bases is not None:
                found = commit != ancestor and bases == [ancestor]
            else:
                found = descends(self.repo, commit, ancestor)
            self._descent[key] = found
        return found

    def favor(self) -> str | None:
        """The side every document conflict is settled on (merge.vcontext.favor), if any."""
        if self._favor is None:
            settings = merge_settings(cwd=run_dir(self.repo))
            self.warnings.extend(settings.warnings)
            self._favor = (settings.favor,)
        return self._favor[0]

    def _commit(self, tree: Oid, parents: list[Oid], message: str) -> Oid:
        """A commit object (no ref moves).

        A dry run writes its commits too, so later pairs build on earlier ones as
        in the real run, but with a fixed identity and time: the same prediction
        writes the same objects, and they are never referenced.
        """
        if self.dry_run:
            nobody = signature("git-vcontext dry run", "dry-run@git-vcontext.invalid", time=0)
            made = make_commit(self.repo, tree, parents, message, nobody, nobody)
        else:
            author, committer = self.signatures()
            made = make_commit(self.repo, tree, parents, message, author, committer)
        reached = self._made.get(made, frozenset()).union(parents)
        self._made[made] = reached.union(*(self._made.get(p, ()) for p in parents))
        return made

    def _marker(self, contributed: Sequence[str]) -> Marker | None:
        """How the agent side marks forks merged: documents whose changes reached the base
        get a fresh ``mergedAt``; other forks still ``unmerged`` are marked too. None in a
        dry run (whose objects must not depend on the time)."""
        if self.dry_run:
            return None
        (agent,) = self.working_as or (agents.running_agent(self.repo),)
        by = merger_agent(self.signatures()[1], agent)
        done = set(contributed)

        def mark(path: str) -> tuple[str, dict[str, Any], bool]:
            return (self.now, by, path in done)

        return mark

    def _follow(self, branch: str, old: Oid | None, new: Oid | None) -> None:
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
            if problem is None:
                interrupted.forget(self.repo, path)
                continue
            self.warnings.append(  # the journal keeps it: the next command finishes it
                f"the work tree at {path} still holds the files of {str(old)[:12]} ({problem}); "
                f"its branch is at {str(new)[:12]}: do not commit them; once that is dealt "
                "with, run git vcontext status there to finish the update"
            )


_UNDO_WALK = 64
"""Commits ``Syncer._none_may_undo`` looks at before it leaves the question to ``refusal``."""


class _Pair:
    """A pair being synced: what step 1 found, then the result."""

    def __init__(self, agent: str, branch: str, base: str, a: Oid | None = None) -> None:
        self.agent, self.branch, self.base, self.a = agent, branch, base, a
        self.b: Oid | None = None  # the base the agent's work was merged into (step 1)
        self.base_commit: str | None = None
        self.agent_commit: str | None = None
        self.documents: tuple[str, ...] = ()
        self.agent_documents: tuple[str, ...] = ()
        self.notes: tuple[str, ...] = ()
        self.base_moves = False
        self.agent_moves = False
        self.elsewhere = False  # step 1 happened in another agent's sync (sync --push)
        self.contained = False  # step 1 found the agent's commit in the base already
        self.final: PairResult | None = None  # set when the pair stopped in step 1

    def stop(
        self,
        state: PairState,
        *,
        conflicts: tuple[PathConflict, ...] = (),
        message: str = "",
        against: Oid | None = None,
    ) -> _Pair:
        """Step 1 ends the pair (nothing of it is planned)."""
        self.final = self.done(state, conflicts=conflicts, message=message, against=against)
        return self

    def done(
        self,
        state: PairState,
        *,
        conflicts: tuple[PathConflict, ...] = (),
        message: str = "",
        against: Oid | None = None,
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
            self.elsewhere and moved,
            None if against is None else str(against),
        )


def count_new(repo: Repository, tip: Oid, other: Oid) -> int:
    """Commits reachable from ``tip`` but not ``other``, not counting sync's merge commits
    (an agent's own commits its base lacks; ``status`` counts AHEAD and BEHIND with it)."""
    return sum(1 for commit in new_commits(repo, tip, other) if not is_sync_commit(commit))


def _remember(logged: dict[str, set[str]] | None, merged: TreeMerge) -> None:
    """Add the M8 merge Changes ``merged`` logged to an integration's (None: not one)."""
    if logged is None:
        return
    for document, change in merged.logged:
        logged.setdefault(document, set()).add(change)


def _reflog_entry(whys: list[str] | None, source: str | None) -> str:
    """The reflog message of one ref a sync moves: what moved it (its merges, or where the
    commit it was moved to came from: ``brought along from origin/main``), so that each
    ref's entry names what happened to that ref, not to the others moved with it."""
    if whys:
        return "vcontext sync: " + ", ".join(dict.fromkeys(whys))
    if source:
        return f"vcontext sync: brought along from {source}"
    return "vcontext sync"
