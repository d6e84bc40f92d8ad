"""Where a conflict ``sync`` reports is resolved, and what to run next.

A pair that stops on a conflict has no index stages: ``sync AGENT --checkout`` leaves the
merge of the commit it met (the current base: the remote's, when the base has an upstream
or ``--push`` names a remote) into ``agents/AGENT`` stopped in the work tree where that
branch is checked out (see ``stopped``). This module picks that work tree (the current
one, switched to the agent branch, when the branch is checked out nowhere and this one is
clean), says why it cannot (local changes, an operation in progress: with the commands
that fix it), brings a base that is only behind its upstream up to it, and warns when a
local sync merges into a base that is behind its upstream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..branches.ancestry import contains
from ..errors import OperationalError
from ..gitio import complaint, git, run_dir, work_tree, worktrees
from ..gitio.objects import commit_at
from ..gitio.places import fetched_namespace
from ..gitio.refs import commit_of
from ..record import record
from ..remote.view import RemoteView
from ..sync.busy import busy, busy_steps
from ..sync.tracking import known_tip as known_tip
from ..sync.tracking import remote_branch
from ..sync.tracking import shown as shown_remote
from ..sync.tracking import upstream as upstream
from ..validation.model import command_word
from . import switchback
from .stopped import Stopped, leave_stopped

if TYPE_CHECKING:
    from pygit2 import Oid, Repository

    from ..sync.syncer import PairResult, Syncer


@record
class Refusal:
    """A conflict that could not be left stopped: why, the person's steps that fix it, and
    the sync that goes on once they are taken (apart: the MCP server names its own tool
    call instead, with no need to tell the CLI's command from the steps by its text)."""

    agent: str
    branch: str
    message: str
    steps: tuple[str, ...] = ()
    then: str = ""

    @property
    def commands(self) -> tuple[str, ...]:
        """The commands to run, in order, as the CLI prints them: the steps, then the sync."""
        return (*self.steps, self.then) if self.then else self.steps


def _tip(repo: Repository, name: str) -> Oid | None:
    return commit_of(repo, name)


def behind(repo: Repository, base: str, remote: str, name: str | None = None) -> str | None:
    """A warning when the local base lacks commits its upstream (``remote``'s ``name``,
    default the base's own) had when last fetched."""
    local = _tip(repo, f"refs/heads/{base}")
    there = known_tip(repo, remote, name or base)
    if local is None or there is None or contains(repo, local, there):
        return None
    return (
        f"{base} is behind {shown_remote(repo, remote, name or base)} (as last fetched:"
        f" {str(there)[:12]}): this sync "
        f"merged with {base} as it is here"
    )


def bring_up(syncer: Syncer, base: str, remote: str) -> tuple[Oid | None, bool]:
    """Fetch ``remote``'s base; when the local base is only behind it, build on it (the
    local base fast-forwards when the sync's moves are made). Returns (the remote's base,
    whether the local base has commits the remote's lacks: it is synced as it is)."""
    repo = syncer.repo
    cwd = run_dir(repo)
    name = remote_branch(repo, base, remote)
    view = RemoteView(repo, cwd, remote, name, [])
    snap = view.fetch()
    syncer.warnings += [n for n in view.notes if n not in syncer.warnings]
    local = _tip(repo, f"refs/heads/{base}")
    if snap.base is None or local is None or snap.base == local:
        return snap.base, False
    if contains(repo, snap.base, local):
        syncer.pin(base, snap.base, shown_remote(repo, remote, name))
        return snap.base, False
    return snap.base, True


def worktree_for(repo: Repository, branch: str) -> tuple[str | None, str | None, str]:
    """(the work tree where ``branch`` is checked out, the branch this work tree was on
    when it was switched to ``branch`` for the merge, why not): (None, None, why) when it is
    checked out nowhere and this work tree cannot take it."""
    found = worktrees.checkouts(repo).get(branch)
    if found is not None:
        return found, None, ""
    here = (work_tree(repo) or "").rstrip("/")
    if not here:
        return None, None, "this repository has no work tree"
    if worktrees.local_changes(here):
        return None, None, f"this one ({here}) has local changes"
    if busy(here, "HEAD") is not None:
        return None, None, f"this one ({here}) is in the middle of a merge, rebase or the like"
    was = switchback.was_on(here)
    # noted before the switch (the sync that lands it switches back): a process killed
    # between the two leaves a note a later sync drops (the work tree is not on the
    # branch), never a work tree switched with no note of where it was
    noted = switchback.remember(here, branch, was)
    switched = git(["switch", "-q", "--", branch], cwd=here, check=False)
    if switched.returncode != 0:
        switchback.forget(here, noted)
        why = complaint(switched.stderr, switched.returncode)
        return None, None, f"this one ({here}) cannot switch to it: {why}"
    return here, was, ""


def leave(
    syncer: Syncer, pair: PairResult, against: str, label: str, sync_command: str
) -> tuple[Stopped | None, Refusal | None, str | None]:
    """Leave ``pair``'s conflict stopped in its agent's work tree, as the merge of commit
    ``against`` (named ``label``) into the agent branch: (where, or why not, and the branch
    the current work tree was on when it was switched for it)."""
    repo = syncer.repo
    path, was, why_not = worktree_for(repo, pair.branch)
    if path is None:
        here = run_dir(repo).rstrip("/")
        where = command_word(f"{here}-{pair.agent}")
        return (
            None,
            Refusal(
                pair.agent,
                pair.branch,
                f"{pair.branch} is checked out in no work tree, and {why_not}: check the "
                "branch out in a work tree of its own, and run sync --checkout there",
                (f"git worktree add {where} {command_word(pair.branch)}", f"cd {where}"),
                f"{sync_command} --checkout",
            ),
            None,
        )
    if why := busy(path, pair.branch):  # finish it, then the sync goes on
        steps = tuple(busy_steps(path))
        return None, Refusal(pair.agent, pair.branch, why, steps, sync_command), was
    changed = worktrees.local_changes(path)
    if changed:
        shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if changed[3:] else "")
        return (
            None,
            Refusal(
                pair.agent,
                pair.branch,
                f"{pair.branch} is checked out in {path} with local changes ({shown}): commit "
                "them (or stash them), then run sync --checkout again",
                (f"git -C {command_word(path)} commit -am 'work in progress'",),
                f"{sync_command} --checkout",
            ),
            was,
        )
    try:
        return leave_stopped(syncer, pair, path, against, label), None, was
    except OperationalError as exc:
        return None, Refusal(pair.agent, pair.branch, exc.one_line()), was


def current_base(repo: Repository, pair: PairResult, remote: str | None) -> str:
    """What ``--checkout`` merges into the agent branch: the commit the pair conflicted
    with, or — after a ``--push`` run, when that commit is not on the remote (a merge the
    run planned and did not publish) — the remote's base as just fetched."""
    assert pair.against is not None  # a conflict
    if remote is None or pair.base.startswith(f"{remote}/"):
        return pair.against
    there = known_tip(repo, remote, pair.base)
    if there is None or contains(repo, there, commit_at(repo, pair.against).id):
        return pair.against
    return str(there)


def label_of(repo: Repository, against: str, base: str, branch: str, remote: str | None) -> str:
    """A name for the commit a conflict was met with: ``origin/main``, ``main``,
    ``origin/agents/bo``, else ``main`` (the base as sync was building it)."""
    if remote is not None:
        ns = fetched_namespace(repo, remote)
        for name in (remote_branch(repo, base, remote), branch):
            shown = shown_remote(repo, remote, name)
            for ref in (f"{ns}heads/{name}", f"refs/remotes/{remote}/{name}"):
                tip = _tip(repo, ref)
                if tip is not None and str(tip) == against:
                    return shown
    return base
