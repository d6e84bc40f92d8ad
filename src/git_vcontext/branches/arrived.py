"""An agent's fork block on a branch outside the agent prefix that came without a merge.

``git merge agents/x`` onto a base that has not moved since the fork fast-forwards: the
base takes the agent branch's commits as they are, the ``fork`` block its fork commit
wrote included (M11: fork metadata is branch-local; ``sync`` keeps the base free of it).
PRODUCT.md judges only a merge commit that brings such a block (``history-unmerged-fork``)
and accepts a forked document committed directly, so this is a note that says what to
do, not a refusal, and ``validate``, the pre-push hook, the guard and ``check`` say it
alike (the hook, the guard and ``check`` of the commits that make it arrive; ``validate``
of the work tree, for as long as it stays).

A block is an agent's when an agent branch holds the same fork (its ``parentUid`` and
``forkedAt``, whatever its ``mergeStatus`` now) in the same document: a document
imported with a fork block of its own matches none and gets no note.
"""

from __future__ import annotations

from ..document import may_hold_fork
from ..record import record
from ..validation.history import fork_marks, unmerged_fork_marks
from ..validation.model import command_path, command_word, quoted_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from pygit2 import Repository, Tree


@record
class ArrivedFork:
    """A document of a branch outside the agent prefix holding agent ``agent``'s fork."""

    path: str
    agent: str
    container: str  # todoList, plan, playbook

    def note(self, branch: str, undo: str | None) -> str:
        """The note, with the fix: ``undo`` is the commit the branch had before the
        fast-forward (None when not known here, or already published)."""
        before = (
            f"before it is pushed: git reset --keep {undo}, then "
            f"git vcontext sync {command_word(self.agent)}; "
            "once pushed: "
            if undo
            else ""
        )
        return (
            f"{quoted_path(self.path)}: agent {self.agent}'s fork block (branch-local fork "
            f"metadata, M11) is on {branch}, brought by a fast-forward of its agent branch "
            f"(git merge without a merge commit; sync merges and keeps the base free of it); "
            f"{before}delete {self.container}.fork from {command_path(self.path)} in a "
            f"commit on {branch}"
        )


def arrived_forks(repo: Repository, paths: Iterable[tuple[str, bytes]]) -> list[ArrivedFork]:
    """The documents among ``paths`` (path, content on a branch outside the agent prefix)
    whose unmerged fork block an agent branch (local, else the remote's) holds too."""
    # lazy: only a branch outside the agent prefix holding a fork block gets here
    from ..gitio.objects import commit_at, tree_blob
    from .agents import agent_tip, list_agents

    candidates = [
        (path, marks)
        for path, raw in paths
        if may_hold_fork(raw) and (marks := unmerged_fork_marks(raw, path))
    ]
    if not candidates:
        return []
    tips: dict[str, Tree] = {}
    for agent in list_agents(repo, remote=True):
        tip = agent_tip(repo, agent)
        if tip is not None:
            tips[agent] = commit_at(repo, tip).tree
    found = []
    for path, marks in candidates:
        for agent, agent_tree in tips.items():
            blob = tree_blob(agent_tree, path)
            shared = set() if blob is None else marks & fork_marks(blob.data, path)
            if shared:
                found.append(ArrivedFork(path, agent, min(shared)[0]))
                break
    return found


def work_tree_notes(repo: Repository, files: Iterable[tuple[str, bytes]]) -> list[str]:
    """``validate``'s notes for the work tree (``files``: repository path and content) when
    the branch checked out is outside the agent prefix; the undo names its upstream when
    the upstream lacks the block (the fast-forward is not published yet)."""
    # lazy: only validate in a repository
    from ..errors import OperationalError
    from ..gitio.commits import current_branch
    from ..gitio.incoming import resolve_range
    from ..gitio.objects import commit_at, tree_blob
    from .agents import agent_prefix

    branch = current_branch(repo)
    if branch is None or branch.startswith(agent_prefix(repo)):
        return []
    found = arrived_forks(repo, files)
    if not found:
        return []
    try:
        spec = resolve_range(repo, None)
    except OperationalError:
        spec = None
    notes = []
    for arrived in found:
        undo = None
        if spec is not None and spec.base is not None:
            blob = tree_blob(commit_at(repo, spec.base).tree, arrived.path)
            if blob is None or not unmerged_fork_marks(blob.data, arrived.path):
                undo = spec.shown.split("..", 1)[0]
        notes.append(arrived.note(branch, undo))
    return notes
