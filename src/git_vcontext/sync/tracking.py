"""Where a base branch's remote copy is: the remote it tracks and its tip as last fetched
(what ``status`` counts against, and what sync's checkout and ``--push`` start from)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..branches.ancestry import contains
from ..errors import OperationalError
from ..gitio import config_value
from ..gitio.places import fetched_namespace
from ..gitio.refs import commit_of

if TYPE_CHECKING:
    from pygit2 import Oid, Repository


def upstream(repo: Repository, base: str) -> str | None:
    """The remote the base branch tracks (``branch.BASE.remote``), None for none or '.'."""
    remote = config_value(repo, f"branch.{base}.remote")
    if not remote or remote == "." or remote.startswith("-"):
        return None
    return remote


def shown(repo: Repository, remote: str, branch: str) -> str:
    """A remote's branch as a person reads it: ``origin/main`` for a configured remote,
    ``main of /srv/x.git`` for a URL or a path (``/srv/x.git/main`` names nothing; git
    shows the two apart)."""
    from ..gitio import operands

    return operands.shown_branch(remote, branch, named=remote in operands.configured(repo))


def upstream_branch(repo: Repository, base: str) -> str:
    """The name of the base's upstream branch on its remote, as ``@{upstream}`` reads it
    (``branch.BASE.merge``: ``refs/heads/trunk`` -> ``trunk``); the base's own name when
    none is set (or it is no branch name git accepts)."""
    return _merge_branch(repo, base)[0] or base


def unusable_upstream(repo: Repository, base: str) -> str | None:
    """Why ``branch.BASE.merge`` names no branch sync can fetch or push by name (git's
    ``@{upstream}`` is none, or no command line can take it: ``operands.upstream_branch``);
    None when it is unset or names a usable branch."""
    return _merge_branch(repo, base)[1]


def _merge_branch(repo: Repository, base: str) -> tuple[str | None, str | None]:
    """(the upstream's name on the remote, None) or (None, why it names none usable), as
    ``operands.upstream_branch`` reads ``branch.BASE.merge``; (None, None) when unset."""
    from ..gitio import operands

    return operands.upstream_branch(config_value(repo, f"branch.{base}.merge"), base)


def unusable_way_out(repo: Repository, base: str, remote: str, why: str) -> str:
    """Why a base whose ``branch.BASE.merge`` names no usable branch (``why``:
    ``unusable_upstream``) is not synced with its remote, and the command that makes its
    upstream the remote's branch of its name."""
    from ..validation.model import command_word

    return (
        f"{why}: sync cannot fetch or push it; to sync {base} with"
        f" {shown(repo, remote, base)}, git config branch.{command_word(base)}.merge"
        f" {command_word(f'refs/heads/{base}')}"
    )


def remote_branch(repo: Repository, base: str, remote: str) -> str:
    """The base's branch on ``remote``: its upstream's name when it tracks that remote
    (``@{upstream}``), else its own name."""
    return upstream_branch(repo, base) if upstream(repo, base) == remote else base


def renamed_upstream(repo: Repository, base: str, remote: str | None = None) -> str | None:
    """The upstream branch's name when ``base`` tracks a branch of another name on
    ``remote`` (None: on the remote it tracks); None when the names agree or the base
    tracks another remote or none."""
    tracked = upstream(repo, base)
    if tracked is None or (remote is not None and remote != tracked):
        return None
    name = upstream_branch(repo, base)
    return None if name == base else name


def pasted_remote(base: str, remote: str) -> str:
    """``remote`` as a command to paste names it: quoted for the shell, or, a URL holding
    credentials, read from the base's configuration (``"$(git config branch.BASE.remote)"``)
    where it is, never printed."""
    from ..errors import shown_url
    from ..validation.model import command_word

    if shown_url(remote) == remote:
        return command_word(remote)
    return f'"$(git config {command_word(f"branch.{base}.remote")})"'


def renamed_way_out(
    remote: str,
    base: str,
    name: str,
    agents: list[str],
    *,
    named: bool = True,
    here: bool = False,
) -> str:
    """What to do about a base that tracks ``remote``'s ``name``: ``sync --push`` works on
    the remote's branch named as the base (as ``git push`` does by default,
    ``push.default=simple``, which refuses such a branch too). ``named``: ``remote`` is a
    configured remote (else a URL or a path, which has no tracking branch to start from).
    ``here``: a branch ``name`` exists here already (a clone of a remote whose default
    branch it is): the agents are based on it, never told to make it (``git branch
    --track`` refuses a branch that exists: "fatal: a branch named … already exists")."""
    from ..errors import shown_url
    from ..gitio.operands import shown_branch
    from ..validation.model import command_word

    new = command_word(name)
    seen = shown_url(remote)  # never a URL's credentials (a way out is pasted, logged)
    configs = "; ".join(
        f"git config vcontext.agent.{command_word(a)}.base {new}" for a in agents or ["AGENT"]
    )
    up = shown_branch(remote, name, named=named)
    if named:
        make = f"git branch --track {new} {command_word(f'{remote}/{name}')}"
    else:
        where = pasted_remote(base, remote)
        make = (
            f"git fetch {where} {command_word(f'{name}:{name}')}; git config branch.{new}.remote"
            f" {where}; git config branch.{new}.merge {command_word(f'refs/heads/{name}')}"
        )
    steps = configs if here else f"{make}; {configs}"
    return (
        f"{base} tracks {up}, but sync --push works on {seen}'s branch named as the base"
        f" ({base}), as git push does by default: to sync with {up}, base the agents on a"
        f" branch of that name ({steps})"
    )


def push_refusal(
    repo: Repository, base: str, agents: list[str], remote: str | None = None
) -> str | None:
    """Why ``sync --push`` to ``remote`` (None: the remote ``base`` tracks) refuses
    ``base``, with its way out: an upstream there of another name, or one no command line
    can name; None when it does not."""
    from ..gitio import operands

    tracked = upstream(repo, base)
    if tracked is None or (remote is not None and remote != tracked):
        return None
    name, bad = _merge_branch(repo, base)
    if bad is not None:
        return unusable_way_out(repo, base, tracked, bad)
    if name is None or name == base:
        return None
    named = tracked in operands.configured(repo)
    here = commit_of(repo, f"refs/heads/{name}") is not None
    return renamed_way_out(tracked, base, name, agents, named=named, here=here)


def no_push_reason(repo: Repository, base: str, agents: list[str]) -> str | None:
    """Why the next sync of ``agents`` that a command or an MCP answer names has no push
    although ``base`` tracks a remote: ``sync --push`` there refuses the base
    (``push_refusal``: its upstream has another name, or none a command line can name),
    with the way out (a person's step to an agent with MCP tools alone). The one text the
    command line and the MCP server's ``next`` give; None when nothing is left out."""
    from ..errors import shown_url
    from .advice import person

    tracked = upstream(repo, base)
    why = None if tracked is None else push_refusal(repo, base, agents, tracked)
    return None if why is None else f"no push to {shown_url(tracked or '')}: {person(why)}"


def push_target(repo: Repository, base: str, agents: list[str]) -> str | None:
    """The remote ``base`` tracks as a ``sync --push`` of ``agents`` takes it (one judge
    for the sync that picks it and the advice that names it): checked as ``--push`` is
    (``operands.remote``) and not refused (``push_refusal``); None: none such."""
    from ..errors import UsageError
    from ..gitio import operands

    found = upstream(repo, base)
    if found is None or push_refusal(repo, base, agents, found) is not None:
        return None
    try:
        return operands.remote(repo, found, "--push remote")
    except UsageError:  # a helper's address, a transport not allowed: --push refuses it
        return None


def refuse_unusable(repo: Repository, bases: list[str]) -> None:
    """OperationalError for the first of ``bases`` whose ``branch.BASE.merge`` names no
    usable branch on the remote it tracks (``sync --checkout`` fetches and builds on
    ``@{upstream}``: there is none), before anything moves."""
    for base in bases:
        remote = upstream(repo, base)
        why = None if remote is None else unusable_upstream(repo, base)
        if remote is not None and why is not None:
            raise OperationalError(unusable_way_out(repo, base, remote, why))


def refuse_renamed(repo: Repository, pairs: list[tuple[str, str]], remote: str | None) -> None:
    """OperationalError (``push_refusal``) for the first base of the pairs (agent, base)
    that ``sync --push`` to ``remote`` refuses, before it touches anything."""
    for base in dict.fromkeys(b for _, b in pairs):
        why = push_refusal(repo, base, [a for a, b in pairs if b == base], remote)
        if why is not None:
            raise OperationalError(why)


def known_tip(repo: Repository, remote: str, base: str) -> Oid | None:
    """The remote's base as last fetched: git's tracking branch or sync's own copy,
    whichever holds the other (the newer)."""
    names = [f"refs/remotes/{remote}/{base}", f"{fetched_namespace(repo, remote)}heads/{base}"]
    tips = [t for t in (commit_of(repo, n) for n in names) if t is not None]
    best: Oid | None = None
    for tip in tips:
        if best is None or contains(repo, tip, best):
            best = tip
    return best
