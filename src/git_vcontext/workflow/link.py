"""The link of a ``sync --push`` to its remote, connected before the rest of sync runs
(both front ends: ``commands.sync`` before sync is even imported, ``workflow.sync`` for the
MCP server). Light: what sync checks first, and the transport."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..record import record, replace

if TYPE_CHECKING:
    from pygit2 import Repository

    from ..gitio.transport import Link


@record
class Given:
    """What a sync was given, checked once (``checked``) and passed on: the remote, the
    ``--into`` branch, the agents asked for (or ``all_agents``) and, once selected, the
    agents to sync (``names``; None: not yet, see ``selected``)."""

    push: str | None
    into: str | None
    asked: tuple[str, ...]
    all_agents: bool
    names: tuple[str, ...] | None

    def selected(self, repo: Repository, *, link: Link | None = None) -> list[str]:
        """The agents to sync, as selected already, else selected now (``link``: the sync's
        own to the ``push`` remote, through which an agent with no branch here is looked
        for there first, known from the last fetch or not: ``_look_for``)."""
        from ..branches.agents import select_agents

        if self.names is not None:
            return list(self.names)
        looked = None if link is None else _look_for(repo, link)
        return select_agents(repo, self.asked, self.all_agents, _person, looked, self.push)


def _look_for(repo: Repository, link: Link) -> Callable[[list[str]], str]:
    """``select_agents``'s look at the remote of ``link`` (``remote.view.fetch_branches``:
    one fetch of the agent branches named, as ``git fetch REMOTE BRANCH`` would bring them,
    their remote-tracking branches included), through the sync's own link: a transient
    failure is tried again until ``vcontext.syncTimeout``, as every other step of the sync
    on the network (PRODUCT.md, "Sync at scale"), ``link.report`` told of each, and over
    ssh its login is the sync's one; what to add to the refusal when it could not look."""

    def look(branches: list[str]) -> str:
        from ..errors import OperationalError
        from ..gitio import run_dir
        from ..gitio.refs import target
        from ..remote.protocol import settings
        from ..remote.view import fetch_branches

        remote = link.remote
        if link.deadline is None:
            link.deadline = link.clock() + settings(repo).timeout
        try:
            missing = fetch_branches(repo, run_dir(repo), remote, branches, link=link)
        except OperationalError as exc:
            return f" (looking at {remote} for it failed: {exc.one_line()})"
        for branch in branches:  # found there, yet no remote-tracking branch keeps it
            if branch not in missing and target(repo, f"refs/heads/{branch}") is None:
                _untracked(repo, remote, branch, link.report)
        return ""

    return look


def _untracked(
    repo: Repository, remote: str, branch: str, report: Callable[[str], None] | None
) -> None:
    """Take ``branch``, which the look found on ``remote``, when no remote-tracking branch
    here keeps it (``remote.NAME.fetch`` does not name it, or ``remote`` is a URL or a path:
    ``git fetch`` brings nothing): the local branch is made from the look's copy, as ``git
    fetch REMOTE BRANCH:BRANCH`` makes it (no upstream: none names it), and said, so the
    sync goes on as with a remote-tracking branch (PRODUCT.md, "Command-line contract":
    ``--push`` takes a configured remote or a URL alike). A branch made meanwhile (this
    runs before the sync's lock: another sync's look of the same agent, or the person) is
    taken as it is, never moved, as a look a moment later would take it."""
    from ..branches.agents import agent_prefix, remote_agent
    from ..errors import OperationalError, shown_url
    from ..gitio.places import fetched_namespace
    from ..gitio.refs import create_branch, target

    agent = branch.removeprefix(agent_prefix(repo))
    try:
        if remote_agent(repo, agent) is not None:
            return
    except OperationalError:
        return  # several remotes have it: select_agents says so
    copy = target(repo, f"{fetched_namespace(repo, remote)}heads/{branch}")
    if copy is None:  # (the look fetched it there: gone since, select_agents says so)
        return
    there = shown_url(remote)
    try:
        create_branch(repo, branch, copy, message=f"vcontext sync: created from {there}'s {branch}")
    except OperationalError:
        if target(repo, f"refs/heads/{branch}") is not None:  # made since the look's check
            return  # (another sync's look, before the lock; the person): taken as it is
        raise
    if report is not None:
        report(
            f"{branch}: created from {there}'s {branch}, as git fetch would make it"
            " (no remote-tracking branch here keeps it)"
        )


def _person(step: str) -> str:
    """A shell step as advice says it (``sync.advice.person``), loaded only for a refusal:
    the link connects before the rest of sync is imported."""
    from ..sync.advice import person

    return person(step)


def checked(
    repo: Repository, push: str | None, into: str | None, agents: Sequence[str], all_agents: bool
) -> Given:
    """The remote and ``--into``, each checked as what it is (hostile input over MCP: before
    git sees any of it). The agents are selected later: by ``connected`` for a sync that
    pushes (through its link, before any other step on the network), else after an
    interrupted update is finished (a local sync: ``Given.selected``)."""
    from ..gitio import operands

    remote = None if push is None else operands.remote(repo, push, "--push remote")
    base = None if into is None else operands.branch(into, "--into branch")
    return Given(remote, base, tuple(agents), all_agents, None)


def base_remote(repo: Repository, agent: str) -> str | None:
    """The remote (a name or a URL, as configured) ``agent``'s base tracks: what the next
    ``sync --push`` (``vcontext_sync``'s ``push``) of that agent is told to go to, only
    when that sync takes it (the same judges: ``operands.remote`` as ``checked``, and
    ``push_refusal`` as ``_named_as_on_the_remote``). None: the base tracks none, or a
    sync told to push there would refuse (its name unreadable, the branch gone, an upstream
    of another name: that sync says why)."""
    from ..branches.agents import base_of
    from ..errors import VContextError
    from ..sync.tracking import push_target

    try:
        return push_target(repo, base_of(repo, agent), [agent])
    except VContextError:
        return None


def no_push(repo: Repository, agent: str) -> str | None:
    """Why ``base_remote`` names no remote although ``agent``'s base tracks one
    (``tracking.no_push_reason``: the one text), for whoever names that agent's next sync
    without a push; None when it names one, or the base tracks none (or cannot be read:
    the next sync says what is wrong with it)."""
    from ..branches.agents import base_of
    from ..errors import VContextError
    from ..sync.tracking import no_push_reason

    try:
        return no_push_reason(repo, base_of(repo, agent), [agent])
    except VContextError:
        return None


def connected(repo: Repository, given: Given, report: Callable[[str], None]) -> tuple[Given, Link]:
    """The sync's link to the remote ``given`` names (checked: ``checked``) and the agents
    selected through it (an agent only the remote has is looked for there: that fetch is
    the link's first command, and over ssh its login the sync's one; no agent branch at
    all: the sync stops with no login for it). Over ssh, when the look did not log in, the
    connection starts now, in the background (``Link.begin``): the key exchange overlaps
    the sync's local work up to its first git command. The caller closes the link."""
    from ..gitio import run_dir
    from ..gitio.transport import Link

    assert given.push is not None
    link = Link(run_dir(repo), given.push, report=report)
    try:
        given = replace(given, names=tuple(given.selected(repo, link=link)))
    except BaseException:
        link.close()
        raise
    link.begin()
    return given, link
