"""Which agents would conflict with each other, and which with their base: trial merges.

``status`` predicts what ``sync --all`` meets, agents in name order; that says *that*
an agent conflicts, not with whom. Here every two agents of one base that changed a
common file since they left it are merged with each other (their merge base as the
base), and an agent whose sync is predicted to conflict is merged with the base as it
stands. Merges are done in memory: objects may be written, no commit, no ref.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

from ..branches.agents import agent_tip
from ..branches.treemerge import PathConflict, named, same_but_fork, trial_conflicts
from ..branches.virtualbase import base_tree
from ..codecs import ReusedParses
from ..document import may_hold_fork
from ..gitio import run_dir
from ..gitio.diffs import tree_changes
from ..gitio.objects import commit_at, is_blob, object_at
from ..gitio.refs import branch_tip
from ..gitio.settings import merge_settings
from ..record import record
from .syncer import CONFLICT, REFUSED

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pygit2 import Oid, Repository

    from .status import AgentStatus

    Side = tuple[Oid, dict[str, bool]]  # a commit, the paths it changed (beyond a fork block?)

NOW = "1970-01-01T00:00:00Z"
"""Trial merges write nothing anyone reads: their time stamps need not be now."""


@record
class Clash:
    """Two sides that conflict: two agents, or an agent and its base (``with_base``)."""

    agent: str
    other: str  # another agent, or the base branch
    with_base: bool
    conflicts: tuple[PathConflict, ...]
    other_branch: str = ""  # the other agent's branch (set by status)


def predicted_clashes(
    repo: Repository, rows: Sequence[AgentStatus], others: Sequence[AgentStatus] = ()
) -> list[Clash]:
    """Agent pairs (and agent-base pairs) whose merge would stop on a conflict; ``others``:
    agents merged only with ``rows`` (an agent's clone: those ``status`` leaves out).

    An agent predicted to conflict whose conflicts none of these merges explain (a
    three-way effect of the earlier agents) is shown against its base with its own.
    """
    live = [r for r in rows if r.state != REFUSED]
    besides = [r for r in others if r.state != REFUSED]
    tips = {r.agent: _tip(repo, r) for r in live + besides}
    favor = merge_settings(cwd=run_dir(repo)).favor
    with ReusedParses({}):
        changed = {
            r.agent: _changes(repo, tips[r.agent], branch_tip(repo, r.base)) for r in live + besides
        }
        found = []
        pairs = [*combinations(live, 2), *((a, b) for a in live for b in besides)]
        for a, b in pairs:
            if a.base != b.base:
                continue
            mine, yours = changed[a.agent], changed[b.agent]
            if conflicts := _trial(repo, (tips[a.agent], mine), (tips[b.agent], yours), favor):
                found.append(Clash(a.agent, b.agent, False, named(conflicts, a.branch, b.branch)))
        for r in live:
            if r.state != CONFLICT:
                continue
            if clash := _with_base(repo, r, (changed[r.agent], favor), found):
                found.append(clash)
    return found


def _with_base(
    repo: Repository,
    row: AgentStatus,
    how: tuple[dict[str, bool], str | None],
    found: list[Clash],
) -> Clash | None:
    """The agent against its base as it stands; else, when no pair explains the conflicts
    predicted for it, those conflicts against its base."""
    (changed, favor), agent, base = how, _tip(repo, row), branch_tip(repo, row.base)
    conflicts = _trial(repo, (base, _changes(repo, base, agent)), (agent, changed), favor)
    if not conflicts and any(row.agent in (c.agent, c.other) for c in found):
        return None
    return Clash(row.agent, row.base, True, named(conflicts, row.base, row.branch) or row.conflicts)


def _tip(repo: Repository, row: AgentStatus) -> Oid:
    """Where the agent's branch is: the local branch, else the remote's copy (status lists
    agents only a remote has)."""
    found = agent_tip(repo, row.agent)
    return branch_tip(repo, row.branch) if found is None else found


def _changes(repo: Repository, tip: Oid, other: Oid) -> dict[str, bool]:
    """Paths ``tip`` changed since it last met ``other``: whether beyond a fork block."""
    since = base_tree(repo, tip, other, now=NOW)
    if since is None:
        return {}
    out = {}
    for change in tree_changes(since, commit_at(repo, tip).tree):
        real = True
        if change.status == "modified":
            old, new = _blob(repo, change.old_id), _blob(repo, change.new_id)
            if old is not None and new is not None:
                real = not may_hold_fork(new) or not same_but_fork(old, new, change.path)
        out[change.path] = real
    return out


def _blob(repo: Repository, blob_id: str | None) -> bytes | None:
    """A blob's content (None: no id, or a submodule's commit, which this repo need not have)."""
    found = None if blob_id is None else object_at(repo, blob_id)
    return bytes(found.data) if found is not None and is_blob(found) else None


def _trial(
    repo: Repository, ours: Side, theirs: Side, favor: str | None
) -> tuple[PathConflict, ...]:
    """The conflicts of merging two commits (none: it would merge cleanly), from the base
    sync would use: a virtual one when their histories criss-cross (agents that synced).
    Only paths both changed can conflict, and a fork block changes nothing that travels
    (M11): not against another change, not against a deletion."""
    (o, o_paths), (t, t_paths) = ours, theirs
    paths = {p for p in o_paths.keys() & t_paths.keys() if o_paths[p] and t_paths[p]}
    if not paths:
        return ()
    base = base_tree(repo, o, t, now=NOW)
    ours_tree, theirs_tree = commit_at(repo, o).tree, commit_at(repo, t).tree
    return trial_conflicts(repo, base, ours_tree, theirs_tree, paths=paths, now=NOW, favor=favor)
