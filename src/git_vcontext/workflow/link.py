"""The link of a ``sync --push`` to its remote, connected before the rest of sync runs
(both front ends: ``commands.sync`` before sync is even imported, ``workflow.sync`` for the
MCP server). Light: what sync checks first, and the transport; ``early`` even before the
repository is opened (pygit2 not loaded)."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygit2 import Repository

    from ..gitio.transport import Link


@dataclass(frozen=True)
class Given:
    """What a sync was given, checked once (``checked``) and passed on: the remote, the
    ``--into`` branch, the agents asked for (or ``all_agents``) and, once selected, the
    agents to sync (``names``; None: not yet, see ``selected``)."""

    push: str | None
    into: str | None
    asked: tuple[str, ...]
    all_agents: bool
    names: tuple[str, ...] | None

    def selected(self, repo: Repository) -> list[str]:
        """The agents to sync, as selected already, else selected now."""
        from ..branches.agents import select_agents

        if self.names is not None:
            return list(self.names)
        return select_agents(repo, self.asked, self.all_agents)


def checked(
    repo: Repository,
    push: str | None,
    into: str | None,
    agents: Sequence[str],
    all_agents: bool,
    *,
    select: bool,
) -> Given:
    """The remote, ``--into`` and (``select``) the agents, each checked as what it is
    (hostile input over MCP: before git sees any of it; no agent branch: the sync stops
    with no login to the server for it). Without ``select`` the agents are chosen later,
    after an interrupted update is finished (a local sync)."""
    from ..gitio import operands

    remote = None if push is None else operands.remote(repo, push, "--push remote")
    base = None if into is None else operands.branch(into, "--into branch")
    given = Given(remote, base, tuple(agents), all_agents, None)
    return replace(given, names=tuple(given.selected(repo))) if select else given


def connected(
    repo: Repository, given: Given, report: Callable[[str], None], early: Link | None = None
) -> Link:
    """The sync's link to the remote ``given`` (checked: ``checked``), its ssh connection
    (if any) started now, in the background (``Link.begin``): the key exchange overlaps
    the sync's local work up to its first git command. ``early``: the link ``early`` made
    before the repository was opened, taken when it is this repository's and remote's
    (else ended). The caller closes it."""
    from ..gitio import run_dir
    from ..gitio.transport import Link

    assert given.push is not None
    if early is not None:
        if early.remote == given.push and _same_folder(early.cwd, run_dir(repo)):
            return early
        early.close()
    link = Link(run_dir(repo), given.push, report=report)
    link.begin()
    return link


PLACE_VARIABLES = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_NAMESPACE", "GIT_CONFIG",
)  # fmt: skip
"""Variables that make git find the repository, its refs or its configuration elsewhere
than the plain search ``early`` does: with any set, it leaves the login to ``connected``."""


def early(agents: Sequence[str], push: str, report: Callable[[str], None]) -> Link | None:
    """``sync AGENT… --push REMOTE``'s link, its ssh login started now, before pygit2 and
    the rest of sync load (a tenth of a second: the login overlaps it), when it is
    certain here that the sync's checks before the network (``connected``) will pass;
    None when anything is less plain (``connected`` then judges and logs in as before).
    What it asks: the remote is a configured remote (``git remote``; its section in the
    repository's own config file) or a URL ``operands.remote`` takes; every agent's name
    and branch (``vcontext.agentPrefix`` + name) passes the check ``checked`` makes of it
    (``branches.agents.branch_of``, the same code: pygit2 loads only for a name that is
    not ``gitio.refs.plain_branch``) and that branch is here (a loose ref or a line of
    ``packed-refs``); the repository is the plain kind
    (found by its ``.git`` above this folder on the same file system, owned by this user,
    its refs in files, no ``core.worktree``, none of ``PLACE_VARIABLES`` set). Its one
    ``git config`` serves the link too. No login is started for a value that the checks refuse."""
    from ..errors import OperationalError, UsageError
    from ..gitio import operands

    if not agents or any(os.environ.get(v) for v in PLACE_VARIABLES):
        return None
    try:
        remote = operands.plain(push, "--push remote")
    except UsageError:
        return None
    found = _work_tree()
    if found is None:
        return None
    top, common = found
    from ..gitio.transport import Link, remote_config

    config = remote_config(top, remote)
    if not config.read or config.unusual:
        return None
    if config.named:
        if not _local_remote(common, remote):
            return None  # (named elsewhere: the user's files, the environment; libgit2,
            # which connected asks, may not read them)
    else:
        try:
            operands.remote(None, remote, "--push remote")  # (a URL: checked as connected does)
        except (UsageError, OperationalError):
            return None
    from ..branches.agents import branch_of, prefix_of  # (sync's own rules)

    prefix = prefix_of(config.agent_prefix)
    try:
        branches = [branch_of(prefix, a) for a in agents]
    except UsageError:
        return None
    if not all(_has_branch(common, b) for b in branches):
        return None
    link = Link(top, remote, report=report, config=config)
    link.begin()
    return link


def _work_tree() -> tuple[str, str] | None:
    """(the top of the working tree, the git folder holding its refs) found as git finds
    them from here, in the plain case: ``.git`` (a folder, or a worktree's file naming its
    folder) in this folder or one above on the same file system, owned by this user;
    None for anything else (inside a git folder, a bare repository, another owner's)."""
    here = os.getcwd()
    if ".git" in here.split(os.sep):
        return None
    try:
        device = os.stat(here).st_dev
        while True:
            dot = os.path.join(here, ".git")
            try:
                info = os.lstat(dot)
            except FileNotFoundError:
                info = None
            if info is not None:
                return _git_folders(here, dot, info)
            parent = os.path.dirname(here)
            if parent == here or os.stat(parent).st_dev != device:
                return None
            here = parent
    except (OSError, ValueError):
        return None


def _git_folders(top: str, dot: str, info: os.stat_result) -> tuple[str, str] | None:
    if os.stat(top).st_uid != os.geteuid() or info.st_uid != os.geteuid():
        return None  # (git's safe.directory: left to connected)
    if stat.S_ISDIR(info.st_mode):
        folder = dot
    elif stat.S_ISREG(info.st_mode):
        with open(dot, encoding="utf-8") as f:
            said = f.read(4096)
        if not said.startswith("gitdir: "):
            return None
        folder = os.path.join(top, said[len("gitdir: ") :].strip())
    else:
        return None
    common = folder
    try:
        with open(os.path.join(folder, "commondir"), encoding="utf-8") as f:
            common = os.path.join(folder, f.read(4096).strip())
    except FileNotFoundError:
        pass
    if not os.path.isfile(os.path.join(folder, "HEAD")):
        return None
    return top, common


def _local_remote(common: str, name: str) -> bool:
    """Whether the repository's own config file (in ``common``) has the section ``[remote
    "NAME"]`` itself (not through an include): a remote ``git remote`` and libgit2 both
    list."""
    if '"' in name or "\\" in name:
        return False
    try:
        with open(os.path.join(common, "config"), encoding="utf-8") as f:
            text = f.read()
    except (OSError, ValueError):
        return False
    header = rf'^[ \t]*\[[ \t]*(?i:remote)[ \t]+"{re.escape(name)}"[ \t]*\]'
    return re.search(header, text, re.MULTILINE) is not None


def _has_branch(common: str, branch: str) -> bool:
    """Whether the local ``branch`` is in the refs of the git folder ``common`` (a loose ref
    file, or a line of ``packed-refs``)."""
    if os.path.isfile(os.path.join(common, "refs", "heads", *branch.split("/"))):
        return True
    try:
        with open(os.path.join(common, "packed-refs"), "rb") as f:
            packed = f.read()
    except OSError:
        return False
    return f" refs/heads/{branch}\n".encode() in packed


def _same_folder(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)
