"""A local base with commits of its own that conflict with the remote's base.

``sync --push`` builds on the remote's base; commits only the local base has are merged in
and published with the agents' round. When they conflict with it (a person's own commit,
made while the remote moved on), the round goes on without them and this says how to
publish them: through the agent branch that holds them, else with ``git pull`` where the
base is checked out (a work tree of its own when it is checked out nowhere).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..branches import agents
from ..branches.ancestry import contains
from ..errors import shown_url
from ..gitio import refs, run_dir, worktrees
from ..gitio.objects import commit_at, new_commits
from ..sync.advice import sync_command
from ..sync.syncer import Diverged
from ..sync.tracking import shown
from ..validation.model import command_path, command_word

if TYPE_CHECKING:
    from ..sync.syncer import PairResult, Syncer


def diverged_base(syncer: Syncer, remote: str, base: str, merged: PairResult) -> str:
    """The warning for a local base whose own commits conflict with ``remote``'s base
    (``merged``: the failed merge of the remote's base into it), ending in the commands
    that publish them (kept in ``syncer.diverged``, for a caller without a shell)."""
    found = _diverged(syncer, remote, base, merged)
    syncer.diverged.append(found)
    return found.warning


def _diverged(syncer: Syncer, remote: str, base: str, merged: PairResult) -> Diverged:
    repo = syncer.repo
    local = refs.target(repo, base)
    theirs = None if merged.against is None else commit_at(repo, merged.against).id
    assert local is not None  # the merge was tried because it has commits of its own
    count = sum(1 for _ in new_commits(repo, local, theirs))
    paths = list(dict.fromkeys(c.path for c in merged.conflicts))
    files = ", ".join(paths) or "some files"
    head = (
        f"{base} here has {count} commit{'s' if count != 1 else ''} {shown(repo, remote, base)}"
        " lacks, "
        f"which conflict with it ({files}): left out of this sync, {base} not moved"
    )
    q = command_word
    for agent in agents.list_agents(repo):
        tip = refs.target(repo, agents.agent_branch(repo, agent))
        if contains(repo, tip, local):
            said = (
                f"{head}; they are {agents.agent_branch(repo, agent)}'s work, which its sync "
                "publishes (and reports the conflict of)"
            )
            command = sync_command([agent], remote)  # (a quote, ``$(…)``: a branch may hold them)
            return Diverged(base, f"{said}:\n  next: {command}", said, agent, (command,))
    where = worktrees.checkouts(repo).get(base)
    commands = []
    b, r = q(base), q(shown_url(remote))  # (a branch may hold ``$(…)``; a URL, a token)
    if where is None:
        where = f"{run_dir(repo).rstrip('/')}-{base}"
        commands.append(f"git worktree add {q(where)} {b}")
    w = q(where)
    commands += [
        f"git -C {w} pull --no-rebase {r} {b}",
        f"git -C {w} vcontext conflicts",
        *(
            f"git -C {w} vcontext resolve {command_path(p)} --take <ours|theirs>"
            for p in paths or ["FILE"]
        ),
        f"git -C {w} commit --no-edit",
        f"git -C {w} push {r} {b}",
    ]
    said = f"{head}; to publish them:\n  next:" + "".join(f"\n    {c}" for c in commands)
    return Diverged(base, said, head, None, tuple(commands))
