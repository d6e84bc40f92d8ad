"""Which agents would conflict with each other, and which with their base: trial merges.

``status`` predicts what ``sync --all`` meets, agents in name order; that says *that*
an agent conflicts, not with whom. Here every two agents of one base that changed a
common file since they left it are merged with each other (their merge base as the
base), and an agent whose sync is predicted to conflict is merged with the base as it
stands. Merges are done in memory: objects may be written, no commit, no ref.
"""

from __future__ import annotations

from itertools import combinations

from ..record import record
from .sync import CONFLICT, REFUSED
from .treemerge import PathConflict, merge_trees

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .status import AgentStatus

NOW = "1970-01-01T00:00:00Z"
"""Trial merges write nothing anyone reads: their time stamps need not be now."""


@record
class Clash:
    """Two sides that conflict: two agents, or an agent and its base (``with_base``)."""

    agent: str
    other: str  # another agent, or the base branch
    with_base: bool
    conflicts: tuple[PathConflict, ...]


def predicted_clashes(repo: Any, rows: Sequence[AgentStatus]) -> list[Clash]:
    """Agent pairs (and agent-base pairs) whose merge would stop on a conflict.

    An agent predicted to conflict whose conflicts none of these merges explain (a
    three-way effect of the earlier agents) is shown against its base with its own.
    """
    from ..codecs import reused_parses

    live = [r for r in rows if r.state != REFUSED]
    tips = {r.agent: _tip(repo, r.branch) for r in live}
    with reused_parses({}):
        changed = {r.agent: _changed(repo, tips[r.agent], _tip(repo, r.base)) for r in live}
        found = []
        for a, b in combinations(live, 2):
            if a.base != b.base or not changed[a.agent] & changed[b.agent]:
                continue
            if conflicts := _trial(repo, tips[a.agent], tips[b.agent]):
                found.append(Clash(a.agent, b.agent, False, conflicts))
        for r in live:
            if r.state != CONFLICT:
                continue
            conflicts = _trial(repo, _tip(repo, r.base), tips[r.agent])
            if conflicts or not any(r.agent in (c.agent, c.other) for c in found):
                found.append(Clash(r.agent, r.base, True, conflicts or r.conflicts))
    return found


def _tip(repo: Any, branch: str) -> Any:
    return repo.branches.local[branch].target


def _changed(repo: Any, tip: Any, base_tip: Any) -> set[str]:
    """Paths the agent changed since it last met its base."""
    since = repo.merge_base(tip, base_tip)
    if since is None:
        return set()
    diff = repo[since].tree.diff_to_tree(repo[tip].tree)
    return {p for d in diff.deltas for p in (d.old_file.path, d.new_file.path)}


def _trial(repo: Any, ours: Any, theirs: Any) -> tuple[PathConflict, ...]:
    """The conflicts of merging two commits (none: it would merge cleanly)."""
    base = repo.merge_base(ours, theirs)
    base_tree = None if base is None else repo[base].tree
    return merge_trees(repo, base_tree, repo[ours].tree, repo[theirs].tree, now=NOW).conflicts
