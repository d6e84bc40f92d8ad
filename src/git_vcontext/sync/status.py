"""``status``: where each agent branch stands against its base, predicted by a dry-run sync.

The prediction is that of ``sync --all``: agents in name order, each merged into the
base as the earlier ones left it, so agents that conflict with each other show it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import document as doc
from ..branches import agents
from ..branches.forkstate import forks_of
from ..branches.treemerge import DocumentSides, is_document
from ..codecs import parse
from ..errors import OperationalError, ParseError
from ..gitio.diffs import tree_changes
from ..gitio.objects import commit_at, new_commits
from ..gitio.refs import branch_tip
from ..prepush.mergecheck import only_check_failures
from ..record import record
from .syncer import CONFLICT, MERGED, REFUSED, UP_TO_DATE, Syncer, is_sync_commit

if TYPE_CHECKING:
    from typing import Any

    from pygit2 import Oid, Repository

    from ..branches.treemerge import PathConflict
    from .syncer import PairResult

NEEDS_SYNC = "needs sync"
BLOCKED = "blocked"


@record
class ForkSequence:
    """One fork block on the agent branch against its parent document on the base."""

    path: str
    container: str
    parent_sequence: Any  # fork.parentSequence
    base_sequence: Any  # the base document's sequence now (None: no such document)
    merge_status: Any

    @property
    def divergence(self) -> int | None:
        """How many sequence steps the parent moved since the fork last saw it."""
        p, b = self.parent_sequence, self.base_sequence
        if isinstance(p, int) and isinstance(b, int) and not isinstance(p, bool | float):
            return b - p
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "container": self.container,
            "parentSequence": self.parent_sequence,
            "baseSequence": self.base_sequence,
            "divergence": self.divergence,
            "mergeStatus": self.merge_status,
        }


@record
class AgentStatus:
    """One row of ``status``."""

    agent: str
    branch: str
    base: str
    ahead: int  # agent commits the base does not have (sync's own merges not counted)
    behind: int  # base commits the agent branch does not have (idem)
    state: str  # "up to date" | "needs sync" | "conflict" | "blocked" | "refused"
    documents: tuple[str, ...]  # documents the agent's work would change in the base
    forks: tuple[ForkSequence, ...]
    conflicts: tuple[PathConflict, ...]
    message: str = ""

    @property
    def merge_status(self) -> str:
        """The forks' mergeStatus values ("-" when the branch has no fork block)."""
        values = sorted({str(f.merge_status) for f in self.forks})
        return ",".join(values) if values else "-"

    @property
    def divergence(self) -> int:
        """The largest sequence divergence over the documents (0 when none is known)."""
        known = [d for f in self.forks if (d := f.divergence) is not None]
        return max(known, default=0)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "branch": self.branch,
            "base": self.base,
            "ahead": self.ahead,
            "behind": self.behind,
            "state": self.state,
            "documents": list(self.documents),
            "sequences": [f.to_json() for f in self.forks],
            "mergeStatus": self.merge_status,
            "conflicts": [c.to_json() for c in self.conflicts],
            "message": self.message,
        }


def agent_status(repo: Repository, syncer: Syncer, agent: str) -> AgentStatus:
    """The row of one agent: counts from the history, the rest from a dry-run sync."""
    base = agents.base_of(repo, agent)
    branch = agents.agent_branch(repo, agent)
    a, b = branch_tip(repo, branch), branch_tip(repo, base)
    predicted = syncer.sync_pair(agent, base)
    state = {MERGED: NEEDS_SYNC, UP_TO_DATE: UP_TO_DATE, CONFLICT: CONFLICT}.get(
        predicted.state, predicted.state
    )
    if state == CONFLICT and only_check_failures(predicted.conflicts):
        state = BLOCKED  # its merge would fail the checks: no sync lands it as it is
    return AgentStatus(
        agent,
        branch,
        base,
        _count_new(repo, a, b),
        _count_new(repo, b, a),
        state,
        _documents(predicted),
        _fork_sequences(repo, a, b),
        predicted.conflicts,
        predicted.message,
    )


def _documents(predicted: PairResult) -> tuple[str, ...]:
    """What the agent's work would change in the base: a stopped pair moves nothing, but
    the files it conflicts on are still work of the agent's (not "0 documents")."""
    if predicted.base_moves:
        return tuple(predicted.documents)
    return tuple(dict.fromkeys(c.path for c in predicted.conflicts))


def all_status(repo: Repository) -> list[AgentStatus]:
    """Every agent branch's row, by agent name."""
    syncer = Syncer(repo, dry_run=True)
    return [_row(repo, syncer, agent) for agent in agents.list_agents(repo)]


def _row(repo: Repository, syncer: Syncer, agent: str) -> AgentStatus:
    """One agent's row; a problem of that agent alone (its base branch was deleted, …)
    is shown in its row instead of hiding every other agent's."""
    try:
        return agent_status(repo, syncer, agent)
    except OperationalError as exc:
        branch = agents.agent_branch(repo, agent)
        base = agents.recorded_base(repo, agent) or "-"
        return AgentStatus(agent, branch, base, 0, 0, REFUSED, (), (), (), exc.message)


def _count_new(repo: Repository, tip: Oid, other: Oid) -> int:
    """Commits reachable from ``tip`` but not ``other``, not counting sync's merge commits."""
    return sum(1 for commit in new_commits(repo, tip, other) if not is_sync_commit(commit))


def _fork_sequences(repo: Repository, a: Oid, b: Oid) -> tuple[ForkSequence, ...]:
    """The fork blocks on the agent tip, each against the base tip's document.

    A base never holds fork blocks, so a document with one differs between the
    two tips: only those are read.
    """
    a_tree, b_tree = commit_at(repo, a).tree, commit_at(repo, b).tree
    sides = DocumentSides(repo, None, b_tree, a_tree)
    found: list[ForkSequence] = []
    for change in tree_changes(b_tree, a_tree):
        path = change.path
        raw = sides.data("theirs", path)
        if raw is None or b"fork" not in raw:
            continue
        blobs: list[bytes | None] = [raw]
        if not is_document(path, blobs.copy):
            continue
        try:
            data = parse(raw, path=path).data
        except ParseError:
            continue
        forks = forks_of(data)
        if not forks:
            continue
        base_data = _parsed(sides.data("ours", path), path)
        for key, fork in forks.items():
            parent = base_data.get(key) if isinstance(base_data, dict) else None
            seq = parent.get(doc.SEQUENCE_FIELD) if isinstance(parent, dict) else None
            found.append(
                ForkSequence(path, key, fork.get("parentSequence"), seq, fork.get("mergeStatus"))
            )
    return tuple(found)


def _parsed(raw: bytes | None, path: str) -> Any:
    if raw is None:
        return None
    try:
        return parse(raw, path=path).data
    except ParseError:
        return None
