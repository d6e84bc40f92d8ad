"""Agent branches and their bases, as recorded in git config (shared by fork, sync, status).

- ``vcontext.agentPrefix``: the branch prefix of agents (default ``agents/``);
- ``vcontext.agent.<AGENT>.base``: the branch an agent was forked from.
"""

from __future__ import annotations

import os

from ..errors import OperationalError, UsageError
from ..gitio import config_value, set_config
from . import AGENT_PREFIX, DEFAULT_PREFIX, agent_prefix_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from pygit2 import Oid, Repository, Signature


def agent_prefix(repo: Repository) -> str:
    """The branch prefix of agent branches, always ending in '/'."""
    value = config_value(repo, AGENT_PREFIX)
    prefix = agent_prefix_of(value)
    if prefix is None:  # git takes such a name for an option: no branch, no advice
        raise UsageError(
            f"not a valid branch prefix: {(value or '').strip()!r} (a branch name cannot "
            f"start with '-'; git config vcontext.agentPrefix {DEFAULT_PREFIX})"
        )
    return prefix


def check_agent_name(agent: str) -> str:
    """``agent`` if it can name a branch component; UsageError otherwise."""
    from ..gitio.refs import valid_branch_name  # (the pre-push hook reads only the prefix)

    bad = (
        not agent
        or agent.startswith(("-", "."))
        or agent.endswith((".lock", "/", "."))
        or ".." in agent
        or any(c in agent for c in " ~^:?*[\\\x7f")
        or any(ord(c) < 32 for c in agent)
        or not is_utf8(agent)
        or not valid_branch_name(agent)
    )
    if bad:
        raise UsageError(f"not a valid agent name: {agent!r} (it becomes a branch name)")
    return agent


def is_utf8(text: str) -> bool:
    """False for text holding bytes that were not UTF-8 on the command line."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def agent_branch(repo: Repository, agent: str) -> str:
    """The short branch name of ``agent`` (``agents/AGENT``)."""
    # lazy: the pre-push hook imports this module for agent_prefix only
    from ..gitio.refs import valid_branch_name

    branch = agent_prefix(repo) + check_agent_name(agent)
    if not valid_branch_name(branch):
        raise UsageError(
            f"not a valid branch name: {branch!r} (check git config vcontext.agentPrefix)"
        )
    return branch


def agent_of_branch(repo: Repository, branch: str) -> str | None:
    """The agent whose branch is ``branch`` (short name), or None."""
    prefix = agent_prefix(repo)
    if branch.startswith(prefix) and len(branch) > len(prefix):
        return branch[len(prefix) :]
    return None


def list_agents(repo: Repository, *, remote: bool = False) -> list[str]:
    """Agents that have a local branch under the prefix, sorted; ``remote``: also those that
    exist only as a remote-tracking branch (``origin/agents/AGENT``: a fresh clone)."""
    # lazy: gitio.refs loads re
    from ..gitio.refs import local_branches

    prefix = agent_prefix(repo)
    found = {b[len(prefix) :] for b in local_branches(repo) if b.startswith(prefix)}
    if remote:
        found |= set(remote_only(repo))
    return sorted(found)


def remote_only(repo: Repository) -> dict[str, list[tuple[str, Oid]]]:
    """The agents without a local branch that a remote has (as last fetched): for each, the
    remotes holding its branch, with the commit there."""
    # lazy: the pre-push hook imports this module for agent_prefix only
    from ..gitio.refs import local_branches, remote_branches

    prefix = agent_prefix(repo)
    local = set(local_branches(repo))
    found: dict[str, list[tuple[str, Oid]]] = {}
    for remote, branch, commit in remote_branches(repo, prefix):
        agent = branch[len(prefix) :]
        if branch in local or not agent or not _plain_agent(agent):
            continue
        found.setdefault(agent, []).append((remote, commit))
    return found


def _plain_agent(agent: str) -> bool:
    try:
        check_agent_name(agent)
    except UsageError:
        return False
    return True


def remote_agent(repo: Repository, agent: str) -> tuple[str, Oid] | None:
    """(remote, commit) where ``agent``'s branch is when only a remote has it, chosen as
    ``git switch`` chooses (the one remote, else ``checkout.defaultRemote``); None when
    no remote has it or a local branch does. OperationalError when several remotes have it
    and none is the default."""
    held = remote_only(repo).get(agent)
    if not held:
        return None
    if len(held) == 1:
        return held[0]
    default = config_value(repo, "checkout.defaultRemote")
    for remote, commit in held:
        if remote == default:
            return remote, commit
    branch = agent_branch(repo, agent)
    names = ", ".join(f"{r}/{branch}" for r, _ in held)
    raise OperationalError(
        f"no branch {branch} here, and several remotes have it ({names}): pick one with "
        f"git branch --track {branch} {held[0][0]}/{branch}, or set checkout.defaultRemote"
    )


def agent_tip(repo: Repository, agent: str) -> Oid | None:
    """Where ``agent``'s branch is: the local branch, else the remote's (``remote_agent``)."""
    # lazy: the pre-push hook imports this module for agent_prefix only
    from ..gitio.refs import target

    local = target(repo, agent_branch(repo, agent))
    if local is not None:
        return local
    held = remote_agent(repo, agent)
    return None if held is None else held[1]


FORK_SUBJECT = "vcontext fork: agent {agent} from "
"""The subject of the commit ``fork`` makes: the base branch follows it."""


def forked_from(repo: Repository, agent: str) -> str | None:
    """The base branch named by the fork commit of ``agent``'s branch (local or a remote's):
    what a clone that never ran ``fork`` knows of the base. None when there is none."""
    # lazy: the pre-push hook imports this module for agent_prefix only
    from ..gitio.objects import first_parent_chain

    tip = agent_tip(repo, agent)
    if tip is None:
        return None
    subject = FORK_SUBJECT.format(agent=agent)
    for commit in first_parent_chain(repo, tip):
        first = commit.message.split("\n", 1)[0]
        if first.startswith(subject):
            base = first[len(subject) :].strip()
            return base if base and not base.startswith("-") else None
    return None


AGENT_ENV = "GIT_VCONTEXT_AGENT"


def running_agent(repo: Repository) -> str | None:
    """The agent running this command: ``GIT_VCONTEXT_AGENT`` (set by an agent's harness),
    else the agent whose branch is checked out here; None for a person."""
    # lazy: the pre-push hook imports this module for agent_prefix only
    from ..gitio.commits import current_branch

    named = agent_named_in_env()
    if named is not None:
        return named
    head = current_branch(repo)  # None on an unborn branch: nobody in particular
    return agent_of_branch(repo, head) if head else None


def agent_named_in_env() -> str | None:
    """``GIT_VCONTEXT_AGENT`` (None: unset or blank), checked as ``--agent`` is: it names
    mergedBy, resolvedBy, commits' author (a UsageError naming the variable otherwise).
    The one reading of it: the CLI's ``running_agent`` and ``git vcontext mcp``'s default."""
    named = os.environ.get(AGENT_ENV, "").strip()
    if not named:
        return None
    try:
        return check_agent_name(named)
    except UsageError as exc:
        raise UsageError(f"{AGENT_ENV}: {exc}") from None


def _base_key(agent: str) -> str:
    return f"vcontext.agent.{agent}.base"


def recorded_base(repo: Repository, agent: str) -> str | None:
    """The base branch recorded for ``agent`` by ``fork``, or None."""
    return config_value(repo, _base_key(agent))


def record_base(repo: Repository, agent: str, base: str) -> None:
    """Remember ``base`` as the branch ``agent`` was forked from (local git config)."""
    set_config(repo, _base_key(agent), base)


def default_base(repo: Repository) -> str:
    """The base when nothing is recorded: ``init.defaultBranch``, else main, else master."""
    from ..gitio.refs import has_branch  # lazy: see list_agents

    candidates = [config_value(repo, "init.defaultBranch"), "main", "master"]
    for name in candidates:
        if name and has_branch(repo, name):
            return name
    raise OperationalError("no base branch: pass --into BRANCH (no main or master here)")


def base_of(repo: Repository, agent: str, into: str | None = None) -> str:
    """The branch ``agent`` syncs with: ``into``, else the recorded base, else the one its
    fork commit names (a clone where ``fork`` never ran), else the default."""
    # lazy: the pre-push hook imports this module for agent_prefix only
    from ..gitio import operands
    from ..gitio.refs import has_branch, remote_branches

    if into:
        base = operands.branch(into, "--into branch")
    else:
        base = recorded_base(repo, agent) or forked_from(repo, agent) or default_base(repo)
        base = operands.branch(base, f"base branch (git config {_base_key(agent)})")
    if not has_branch(repo, base):
        there = [r for r, b, _ in remote_branches(repo, base) if b == base]
        hint = f" here (git branch --track {base} {there[0]}/{base} makes it)" if there else ""
        raise OperationalError(f"base branch {base!r} of agent {agent!r} does not exist{hint}")
    return base


AGENT_EMAIL_DOMAIN = "agents.invalid"
"""Agents' commit e-mail, ``NAME@agents.invalid`` (RFC 2606: a domain that never resolves),
unless git config ``vcontext.agent.NAME.email`` names another."""


def agent_signatures(repo: Repository, agent: str) -> tuple[Signature, Signature]:
    """(author, committer) of a commit made for ``agent`` (PRODUCT.md, "The write path"):
    the agent as author, as ``git commit --author`` would set it (``NAME
    <NAME@agents.invalid>`` unless git config ``vcontext.agent.NAME.email``; the time from
    ``clock.commit_time``: ``GIT_AUTHOR_DATE`` as git takes it); the person running the
    server as
    committer, found as git finds one: ``GIT_COMMITTER_NAME``/``GIT_COMMITTER_EMAIL``
    (and ``GIT_COMMITTER_DATE``), else ``committer.name``/``committer.email``, else
    ``user.name``/``user.email`` (the e-mail also from ``EMAIL``). With no committer
    identity at all, an OperationalError with git's hint."""
    # lazy: the pre-push hook imports this module for agent_prefix only
    from ..gitio import config_value
    from ..gitio.objects import signature

    email = config_value(repo, f"vcontext.agent.{agent}.email") or _agent_email(agent)
    author = signature(agent, email, role="AUTHOR")
    name = (
        os.environ.get("GIT_COMMITTER_NAME")
        or config_value(repo, "committer.name")
        or config_value(repo, "user.name")
    )
    mail = (
        os.environ.get("GIT_COMMITTER_EMAIL")
        or config_value(repo, "committer.email")
        or config_value(repo, "user.email")
        or os.environ.get("EMAIL")
    )
    if not name or not mail:
        raise OperationalError(
            "no git identity to commit with: set it with "
            "git config user.name 'Your Name' and git config user.email you@example.com"
        )
    committer = signature(name, mail, role="COMMITTER")
    return author, committer


def _agent_email(agent: str) -> str:
    local = "".join(c if c.isalnum() or c in "._-+" else "-" for c in agent).strip(".-")
    return f"{local or 'agent'}@{AGENT_EMAIL_DOMAIN}"


def select_agents(
    repo: Repository,
    names: Sequence[str],
    all_agents: bool,
    advise: Callable[[str], str] = lambda step: step,
    look: Callable[[list[str]], str] | None = None,
    looked_at: str | None = None,
) -> list[str]:
    """The agents to sync: the names given, or every agent branch with --all (a UsageError
    or OperationalError when there are none: ``sync`` checks it before any network).
    ``advise``: how a step for the shell is said (``sync.advice.person``: marked as a
    person's to an agent with MCP tools alone). ``look``: for ``--push REMOTE``, one look
    at that remote for the branches of the agents named that have no branch here (known
    from the last fetch or not: it may have been rewritten since), which fetches those it
    has as ``git fetch`` would (then they are taken as any remote's branch is); what it
    says when it could not look ("" when it did). ``looked_at``: that remote, as named.
    An agent it does not find either is refused, saying the remote has none either."""
    if all_agents and names:
        raise UsageError("give agent names or --all, not both")
    if all_agents:
        found = list_agents(repo, remote=True)
        if not found:
            raise OperationalError(f"no agent branches (none under {agent_prefix(repo)})")
        return found
    if not names:
        raise UsageError("name the agents to sync, or pass --all")
    # lazy: the pre-push hook imports this module for agent_prefix only
    from ..gitio.refs import target

    elsewhere = [n for n in dict.fromkeys(names) if target(repo, agent_branch(repo, n)) is None]
    absent = [n for n in elsewhere if agent_tip(repo, n) is None]
    said = ""
    if elsewhere and look is not None:  # no branch here: the remote's as it is now (one
        # force-pushed since the last fetch is not taken as it was: its dropped work would
        # come back through the merge of its new copy)
        said = look([agent_branch(repo, n) for n in elsewhere])
        absent = [n for n in elsewhere if agent_tip(repo, n) is None]
    if absent and look is not None and looked_at is not None and not said:
        raise OperationalError(_nowhere(repo, absent[0], looked_at, advise))
    if absent:  # neither here nor on a remote
        raise OperationalError(_no_branch(repo, absent[0], advise) + said)
    return list(dict.fromkeys(names))


def _nowhere(repo: Repository, name: str, remote: str, advise: Callable[[str], str]) -> str:
    """Why ``name`` cannot be synced once the look found no branch of it on ``remote``
    either: its work is only in the clone the agent works in (a round that stopped on a
    conflict pushes nothing) or the name is new; the way out of each (``git fetch`` would
    bring nothing: it led back here)."""
    from ..errors import shown_url
    from ..validation.model import command_word  # lazy: the hook imports this module

    branch = agent_branch(repo, name)
    there = shown_url(remote)
    # a URL holding credentials is shown masked: pasted, its *** would be the password
    masked = there != remote
    push = advise(f"git push {'REMOTE' if masked else command_word(remote)} {command_word(branch)}")
    fork = advise(f"git vcontext fork {command_word(name)}")
    named = f", REMOTE being that clone's name or URL for {there}" if masked else ""
    return (
        f"no branch {branch} for agent {name!r}, here or on {there} (looked just now): an"
        f" agent's branch reaches {there} from the clone it works in ({push} there{named}, or"
        f" that agent's own sync --push once its conflicts are resolved), then sync again; a"
        f" new agent starts with {fork}"
    )


def _no_branch(repo: Repository, name: str, advise: Callable[[str], str]) -> str:
    """Why ``name`` cannot be synced: no branch here nor as any remote's as last fetched;
    with the way out when remotes are configured (a person's clone that fetched only its
    base: ``git fetch`` brings the agent branches, which sync then takes as ``git switch``
    takes a remote's). A remote whose fetch refspecs bring no agent branch (``git clone
    --single-branch``: ``git fetch`` brings nothing more) gets the fetch that makes the
    branch here, as ``git fetch REMOTE BRANCH:BRANCH`` does."""
    # lazy: the hook imports this module
    from ..gitio.localremote import tracking_refs
    from ..gitio.operands import configured
    from ..validation.model import command_word

    branch = agent_branch(repo, name)
    remotes = configured(repo)
    if not remotes:
        return f"no branch {branch} for agent {name!r}"
    ref = f"refs/heads/{branch}"
    kept = [r for r in remotes if tracking_refs(repo, r, ref)]
    fetch = "git fetch" if remotes == ["origin"] else "git fetch --all"
    ways = [f"{fetch} brings the agent branches a remote has"] if kept else []
    if len(kept) < len(remotes):  # a remote git's fetch brings no agent branch from
        bare = [r for r in remotes if r not in kept]
        lone = "origin" if "origin" in bare else bare[0]
        step = f"git fetch {command_word(lone)} {command_word(f'{ref}:{ref}')}"
        ways.append(
            f"{step} makes it here if {lone} has it ({lone}'s fetch refspecs bring no agent"
            " branches)"
        )
    way = advise(f"{', or '.join(ways)}, then sync again")
    return (
        f"no branch {branch} for agent {name!r}, here or in what was last fetched from "
        f"{', '.join(remotes)}: {way}"
    )
