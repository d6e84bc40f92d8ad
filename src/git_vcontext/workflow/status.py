"""``status --fetch``: bring each agent base's remote copy up to date before the table is
counted (the table itself is ``sync.status``: it reads this clone only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..branches import agents
from ..errors import OperationalError

if TYPE_CHECKING:
    from collections.abc import Callable

    from pygit2 import Repository


def fetch_bases(repo: Repository, say: Callable[[str], None]) -> frozenset[str]:
    """``status --fetch``: fetch each agent base's upstream (``branch.BASE.remote``) and the
    agent branches it holds, as ``sync --push`` fetches them (its transport: transient
    failures tried again until ``vcontext.statusTimeout``, 15 s by default, not sync's
    600; every value checked before git sees it). Git's tracking branches move too, as
    for any fetch of a named remote. A base that tracks no remote is said (``say``), and
    left as it is. Returns the bases their remote did not have (its copies fetched before
    are left as they are)."""
    # lazy: only --fetch talks to a remote
    from ..gitio import operands, run_dir
    from ..gitio import remote as remotes
    from ..gitio.places import fetched_namespace
    from ..gitio.transport import Link
    from ..remote.protocol import status_timeout
    from ..sync.tracking import unusable_upstream, unusable_way_out, upstream, upstream_branch

    bases = {agents.default_base(repo): None}
    for agent in agents.list_agents(repo, remote=True):
        try:
            bases[agents.base_of(repo, agent)] = None
        except OperationalError:  # its row says why
            continue
    prefix = operands.branch(f"{agents.agent_prefix(repo)}x", "vcontext.agentPrefix")[:-1]
    cwd = run_dir(repo)
    by_remote: dict[str, dict[str, str]] = {}  # remote: {its branch: the base here}
    gone: set[str] = set()
    for base in bases:
        remote = upstream(repo, base)
        if remote is None:
            say(f"status --fetch: {base} tracks no remote: nothing fetched for it")
            continue
        checked = operands.remote(repo, remote, f"branch.{base}.remote")
        bad = unusable_upstream(repo, base)
        if bad is not None:
            why = unusable_way_out(repo, base, remote, bad)
            say(f"status --fetch: nothing fetched for {base}: {why}")
            continue
        there = operands.branch(upstream_branch(repo, base), "base branch")  # @{upstream}
        by_remote.setdefault(checked, {})[there] = base
    for remote, names in by_remote.items():
        ns = fetched_namespace(repo, remote)
        specs = [f"+refs/heads/{b}:{ns}heads/{b}" for b in names]
        specs.append(f"+refs/heads/{prefix}*:{ns}heads/{prefix}*")
        link = Link(cwd, remote, report=say)
        link.deadline = link.clock() + status_timeout(repo)  # its own, not sync's 600 s
        link.timeout_setting = "vcontext.statusTimeout"
        notes: list[str] = []
        try:
            missing = remotes.fetch(cwd, remote, specs, prune=True, link=link, notes=notes)
        finally:
            link.close()
        for note in notes:  # (a tracking branch git's fetch left as it was)
            say(f"status --fetch: {note}")
        gone.update(base for b, base in names.items() if f"refs/heads/{b}" in missing)
    return frozenset(gone)
