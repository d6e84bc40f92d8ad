"""``status``: where each agent branch stands against its base, predicted by a dry-run sync.

Each agent's state is what ``sync AGENT`` would do now (``sync AGENT --dry-run`` says the
same), with the base as it stands: never "needs sync" for an agent its sync finds up to
date. Agents that each sync cleanly alone but not both (the second would conflict with the
first) are shown as clashes, naming each other (``sync.trials``). Agents that exist only on
a remote (a fresh clone: ``origin/agents/AGENT``) are listed with where they are; their
sync creates the local branch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import document as doc
from ..branches import agents
from ..branches.forkstate import MERGED as MERGED_FORK
from ..branches.forkstate import forks_of
from ..branches.treemerge import DocumentSides, is_document
from ..codecs import parse
from ..errors import OperationalError, ParseError, UsageError
from ..gitio.diffs import tree_changes
from ..gitio.objects import commit_at
from ..gitio.refs import branch_tip, commit_of
from ..prepush.mergecheck import only_check_failures
from ..record import record, replace
from ..validation.model import command_word, quoted_path
from .advice import clash_step, conflict_step, for_agents_with_tools, person, sync_command
from .busy import busy_steps
from .syncer import CONFLICT, MERGED, REFUSED, Syncer, count_new
from .trials import predicted_clashes

if TYPE_CHECKING:
    from typing import Any, Final, Literal

    from pygit2 import Oid, Repository

    from ..branches.treemerge import PathConflict
    from .syncer import PairResult
    from .trials import Clash

    StatusState = Literal["up to date", "needs sync", "conflict", "blocked", "refused"]

NEEDS_SYNC: Final = "needs sync"
BLOCKED: Final = "blocked"


@record
class ForkSequence:
    """One fork block on the agent branch against its parent document on the base."""

    path: str
    container: str
    parent_sequence: Any  # fork.parentSequence
    base_sequence: Any  # the base document's sequence now (None: no such document)
    merge_status: Any

    @property
    def divergence(self) -> int | None:
        """How many sequence steps the parent moved since the fork last saw it."""
        p, b = self.parent_sequence, self.base_sequence
        if isinstance(p, int) and isinstance(b, int) and not isinstance(p, bool | float):
            return b - p
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "container": self.container,
            "parentSequence": self.parent_sequence,
            "baseSequence": self.base_sequence,
            "divergence": self.divergence,
            "mergeStatus": self.merge_status,
        }


@record
class AgentStatus:
    """One row of ``status``."""

    agent: str
    branch: str
    base: str
    ahead: int  # agent commits the base does not have (sync's own merges not counted)
    behind: int  # base commits the agent branch does not have (idem)
    state: StatusState
    documents: tuple[str, ...]  # documents the agent's work would change in the base
    forks: tuple[ForkSequence, ...]
    conflicts: tuple[PathConflict, ...]
    message: str = ""
    remote: str | None = None  # "origin/agents/AGENT": the agent exists only there
    clashes: tuple[Clash, ...] = ()  # other agents whose sync and this one's would conflict
    # refused because git stopped in a merge (rebase, …) where the branch is checked out:
    # the commands that finish it (``busy_steps``), before the agent's sync
    finish: tuple[str, ...] = ()
    # (the remote's copy of the agent branch, as last fetched, its commits this one lacks):
    # another clone's work (the agent's own clone), which only ``sync --push`` brings in
    copy: tuple[str, int] | None = None

    @property
    def merge_status(self) -> str:
        """The forks' mergeStatus values ("-" when the branch has no fork block)."""
        values = sorted({str(f.merge_status) for f in self.forks})
        return ",".join(values) if values else "-"

    @property
    def divergence(self) -> int:
        """The largest sequence divergence over the documents (0 when none is known)."""
        known = [d for f in self.forks if (d := f.divergence) is not None]
        return max(known, default=0)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "branch": self.branch,
            "base": self.base,
            "ahead": self.ahead,
            "behind": self.behind,
            "state": self.state,
            "documents": list(self.documents),
            "sequences": [f.to_json() for f in self.forks],
            "mergeStatus": self.merge_status,
            "conflicts": [c.to_json() for c in self.conflicts],
            "message": self.message,
            "remote": self.remote,
            "clashes": [
                {"with": c.other_branch, "conflicts": [x.to_json() for x in c.conflicts]}
                for c in self.clashes
            ],
            **({"finish": list(self.finish)} if self.finish else {}),
            **({"copy": {"ref": self.copy[0], "ahead": self.copy[1]}} if self.copy else {}),
        }


@record
class BaseTracking:
    """Where a base branch stands against its upstream as last fetched, as ``git status``
    tells a branch's (it does not fetch either): the rows count against the base here,
    the branch a plain ``sync`` merges into (``sync --push`` works on the remote's)."""

    base: str
    remote: str
    fetched: bool  # the remote's base was fetched before (its tracking branch exists)
    ahead: int  # commits of the base here the remote's lacks
    behind: int  # commits of the remote's base the base here lacks
    # the remote is one status --fetch and sync --push take (a configured remote, a URL, a
    # repository's path: ``operands.remote``); False: nothing fetched or counted
    usable: bool = True
    gone: bool = False  # status --fetch found no such branch there (nothing counted)
    # the upstream's name on the remote (``branch.BASE.merge``, as ``@{upstream}`` reads
    # it) when it is not the base's own: sync --push and --checkout refuse such a base
    renamed: str | None = None
    # the remote is a configured remote's name; False: a URL or a path, which has no
    # ``REMOTE/BRANCH`` tracking branch to name (git shows the two apart)
    named: bool = True
    # why and the way out when ``branch.BASE.merge`` names no branch a command line can
    # take (``-x``: ``tracking.unusable_way_out``): nothing fetched or counted, sync --push
    # refuses the base
    unusable: str | None = None
    # a branch named as the renamed upstream exists here (``tracking.renamed_way_out``)
    renamed_here: bool = False

    @property
    def branch(self) -> str:
        """The upstream's branch on the remote."""
        return self.renamed or self.base

    @property
    def upstream(self) -> str:
        """The upstream as a person reads it: ``origin/main``, or ``main of /srv/x.git``
        for a URL or a path (``/srv/x.git/main`` names nothing)."""
        from ..gitio.operands import shown_branch

        return shown_branch(self.remote, self.branch, named=self.named)

    @property
    def shown_remote(self) -> str:
        """The remote as it may be printed: a URL's credentials masked."""
        from ..errors import shown_url

        return shown_url(self.remote)

    @property
    def pushed(self) -> str:
        """The remote as a word to paste after ``sync --push`` (as this base's line names
        it), or "" when sync --push would refuse it (not usable, renamed, gone)."""
        from .tracking import pasted_remote

        if not self.usable or self.unusable is not None or self.renamed or self.gone:
            return ""
        return pasted_remote(self.base, self.remote)

    def describe(self, agents: list[str]) -> str:
        from .tracking import renamed_way_out

        if self.unusable is not None:
            return f"{self.base}: counts against {self.base} here; {person(self.unusable)}"
        line = self._describe(agents)
        if self.renamed is None or not self.usable:
            return line
        way_out = renamed_way_out(
            self.remote, self.base, self.renamed, agents, named=self.named, here=self.renamed_here
        )
        return f"{line}; {person(way_out)}"

    def _describe(self, agents: list[str]) -> str:
        from .tracking import pasted_remote

        up, here = self.upstream, f"counts against {self.base} here"
        if not self.usable:
            return (
                f"{self.base}: {here}; its upstream's remote"
                f" {command_word(self.shown_remote)} is not a configured remote, a URL or a"
                " repository's path ("
                + person(
                    "git remote -v; to stop tracking it: git branch --unset-upstream "
                    + command_word(self.base)
                )
                + ")"
            )
        if self.gone:
            stop = f"git branch --unset-upstream {command_word(self.base)}"
            return (
                f"{self.base}: {here}; {self.shown_remote} has no {self.branch} as"
                f" fetched now (to stop tracking it: {person(stop)})"
            )
        if not self.fetched:
            fetch = person("git vcontext status --fetch")
            return f"{self.base}: {here}; {up} was never fetched ({fetch})"
        if not (self.ahead or self.behind):
            return f"{self.base}: {here}, up to date with {up} as of the last fetch"
        parts = [f"{n} commit{'s' if n != 1 else ''} {w}" for n, w in
                 ((self.ahead, "ahead of"), (self.behind, "behind")) if n]  # fmt: skip
        line = f"{self.base}: {here}, {' and '.join(parts)} {up} as of the last fetch"
        if self.behind and self.renamed is None:
            push = sync_command(agents, self.remote, pasted=pasted_remote(self.base, self.remote))
            line += f": {push} syncs with {up}"
        return line

    def to_json(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "upstream": self.upstream,
            "remote": self.shown_remote,
            "branch": self.branch,
            "fetched": self.fetched,
            "ahead": self.ahead,
            "behind": self.behind,
            "usable": self.usable and self.unusable is None,
            "gone": self.gone,
        }


def base_tracking(
    repo: Repository, rows: list[AgentStatus], gone: frozenset[str] = frozenset()
) -> list[BaseTracking]:
    """Each base of ``rows`` that tracks a remote (``branch.BASE.remote``), against the
    remote's base as last fetched (git's tracking branch or sync's own copy, the newer);
    ``gone``: the bases ``fetch_bases`` found their remote without."""
    # lazy: the remote view behind it is needed only when a base tracks a remote
    from ..gitio import operands
    from ..gitio.objects import new_commits
    from .tracking import (
        known_tip,
        renamed_upstream,
        unusable_upstream,
        unusable_way_out,
        upstream,
    )

    found = []
    for base in dict.fromkeys(r.base for r in rows):
        remote = upstream(repo, base)
        local = commit_of(repo, f"refs/heads/{base}")  # None: deleted (the row says so)
        if remote is None or local is None:
            continue
        try:
            operands.remote(repo, remote, f"branch.{base}.remote")
        except (OperationalError, UsageError):  # what status --fetch and sync --push stop on
            found.append(BaseTracking(base, remote, False, 0, 0, usable=False))
            continue
        named = remote in operands.configured(repo)
        bad = unusable_upstream(repo, base)
        if bad is not None:
            why = unusable_way_out(repo, base, remote, bad)
            found.append(BaseTracking(base, remote, False, 0, 0, named=named, unusable=why))
            continue
        renamed = renamed_upstream(repo, base)  # git status counts against @{upstream}
        here = renamed is not None and commit_of(repo, f"refs/heads/{renamed}") is not None
        if base in gone:
            found.append(
                BaseTracking(
                    base, remote, True, 0, 0, True, True, renamed, named, renamed_here=here
                )
            )
            continue
        there = known_tip(repo, remote, renamed or base)
        if there is None:
            found.append(
                BaseTracking(
                    base, remote, False, 0, 0, renamed=renamed, named=named, renamed_here=here
                )
            )
            continue
        ahead = sum(1 for _ in new_commits(repo, local, there))
        behind = sum(1 for _ in new_commits(repo, there, local))
        found.append(
            BaseTracking(
                base, remote, True, ahead, behind, renamed=renamed, named=named, renamed_here=here
            )
        )
    return found


def agent_status(repo: Repository, syncer: Syncer, agent: str) -> AgentStatus:
    """The row of one agent: counts from the history, the rest from what ``sync AGENT``
    would do now (a dry run that forgets its plan: each agent against the base as it is)."""
    base = agents.base_of(repo, agent)
    branch = agents.agent_branch(repo, agent)
    a, b = agents.agent_tip(repo, agent), branch_tip(repo, base)
    if a is None:
        raise OperationalError(f"no branch {branch} for agent {agent!r}")
    remote = agents.remote_agent(repo, agent)
    if remote is not None:
        syncer.assume(branch, remote[1])
    try:
        predicted = syncer.sync_pair(agent, base)
    finally:
        syncer.forget()
    state: StatusState = NEEDS_SYNC if predicted.state == MERGED else predicted.state
    if state == CONFLICT and only_check_failures(predicted.conflicts):
        state = BLOCKED  # its merge would fail the checks: no sync lands it as it is
    ahead = count_new(repo, a, b)
    return AgentStatus(
        agent,
        branch,
        base,
        ahead,
        count_new(repo, b, a),
        state,
        _documents(predicted),
        _landed(_fork_sequences(repo, a, b), ahead),
        predicted.conflicts,
        predicted.message or predicted.changes_nothing,
        None if remote is None else f"{remote[0]}/{branch}",
        finish=_finish(syncer, predicted),
        copy=_copy_ahead(repo, base, branch, a) if remote is None else None,
    )


def _copy_ahead(repo: Repository, base: str, branch: str, tip: Oid) -> tuple[str, int] | None:
    """The remote's copy of the agent branch as last fetched (on the remote the base
    tracks), when it holds work this branch lacks: (its name, how many commits; sync's own
    merges not counted). A person's clone whose branch ``fork`` made and a plain ``git
    push`` published (no upstream) counts against its own old copy: this says what a
    ``sync --push`` would meet (the copy it reads: ``tracking.known_tip``, git's
    remote-tracking branch or sync's own, the newer)."""
    from .tracking import known_tip, upstream

    remote = upstream(repo, base)
    there = None if remote is None else known_tip(repo, remote, branch)
    if remote is None or there is None or there == tip:
        return None
    n = count_new(repo, there, tip)
    return (f"{remote}/{branch}", n) if n else None


def _finish(syncer: Syncer, predicted: PairResult) -> tuple[str, ...]:
    """A row refused because git stopped in a merge (rebase, …) where its branch is checked
    out: the commands that finish it, as ``sync`` prints them under ``next:`` (said as
    tool calls and a person's step over MCP: its message says those)."""
    if predicted.state != REFUSED or for_agents_with_tools():
        return ()
    path = syncer.checkouts().get(predicted.branch)
    return tuple(busy_steps(path)) if path else ()


def _documents(predicted: PairResult) -> tuple[str, ...]:
    """What the agent's work would change in the base: a stopped pair moves nothing, but
    the files it conflicts on are still work of the agent's (not "0 documents")."""
    if predicted.base_moves:
        return tuple(predicted.documents)
    return tuple(dict.fromkeys(c.path for c in predicted.conflicts))


def listed(repo: Repository, own: str | None) -> tuple[list[str], list[str]]:
    """The agents ``status`` lists, and those it leaves out. In an agent's clone (``own``:
    the agent this clone works as, ``agents.running_agent``) the agents only a remote has,
    other than ``own``, are other clones' work, not this one's: left out, as ``git status``
    shows only this clone's branches (``status --all`` lists them). Elsewhere (a person's
    clone, a fresh clone, CI: ``own`` None) every agent, local or only on a remote."""
    names = agents.list_agents(repo, remote=True)
    if own is None or own not in names:
        return names, []
    only_there = agents.remote_only(repo)
    return (
        [a for a in names if a == own or a not in only_there],
        [a for a in names if a != own and a in only_there],
    )


def status_and_clashes(
    repo: Repository, names: list[str] | None = None, unlisted: list[str] | None = None
) -> tuple[list[AgentStatus], list[Clash]]:
    """The rows of ``names`` (default: every agent, local or only on a remote, by name, each
    with the other agents it clashes with), and every clash the
    trial merges found among them (agent pairs, and agents against their base: what
    ``status --format dot`` draws). ``unlisted``: the agents ``listed`` left out, whose
    clashes with a row still count (its sync stops after theirs): the row names them."""
    syncer = Syncer(repo, dry_run=True)
    if names is None:
        names = agents.list_agents(repo, remote=True)
    rows = [_row(repo, syncer, agent) for agent in names]
    others = [_row(repo, syncer, agent) for agent in unlisted or ()]
    clashes = predicted_clashes(repo, rows, others)
    found = [c for c in clashes if not c.with_base]
    if not found:
        return rows, clashes
    branches = {r.agent: r.branch for r in rows + others}
    rows = [replace(r, clashes=tuple(_clashes_of(r.agent, found, branches))) for r in rows]
    if others:  # (the picture draws the rows' own: no node for an agent left out)
        drawn = {r.agent for r in rows}
        clashes = [c for c in clashes if c.with_base or c.other in drawn]
    return rows, clashes


def agents_status(
    repo: Repository, own: str | None
) -> tuple[list[AgentStatus], list[Clash], list[str]]:
    """What ``status`` (and MCP ``vcontext_status``) reports: the rows ``listed`` keeps for
    ``own`` (None: every agent), their clashes (with the agents left out too), and the
    agents left out."""
    names, unlisted = listed(repo, own)
    rows, clashes = status_and_clashes(repo, names, unlisted)
    return rows, clashes, unlisted


def status_json(
    rows: list[AgentStatus], tracking: list[BaseTracking], unlisted: list[str]
) -> dict[str, Any]:
    """``status --format json``'s object, the MCP ``vcontext_status`` answer's too: a row
    the text ends with commands under ``next:`` lists them as ``next`` (``next_commands``)."""
    pushes = _pushes(tracking)
    return {
        "agents": [
            {**r.to_json(), **({"next": list(n)} if (n := next_commands(r, pushes)) else {})}
            for r in rows
        ],
        "bases": [t.to_json() for t in tracking],
        "unlisted": unlisted,
    }


def _clashes_of(agent: str, found: list[Clash], branches: dict[str, str]) -> list[Clash]:
    """The clashes of ``agent``, each seen from its side (``other`` the other agent's branch)."""
    mine = []
    for c in found:
        if agent in (c.agent, c.other):
            other = c.other if c.agent == agent else c.agent
            mine.append(replace(c, agent=agent, other=other, other_branch=branches[other]))
    return mine


def _row(repo: Repository, syncer: Syncer, agent: str) -> AgentStatus:
    """One agent's row; a problem of that agent alone (its base branch was deleted, …)
    is shown in its row instead of hiding every other agent's."""
    try:
        return agent_status(repo, syncer, agent)
    except OperationalError as exc:
        branch = agents.agent_branch(repo, agent)
        base = agents.recorded_base(repo, agent) or _forked_from(repo, agent) or "-"
        return AgentStatus(agent, branch, base, 0, 0, REFUSED, (), (), (), exc.message)


def _forked_from(repo: Repository, agent: str) -> str | None:
    try:
        return agents.forked_from(repo, agent)
    except OperationalError:  # several remotes have the branch: the row says so
        return None


def _fork_sequences(repo: Repository, a: Oid, b: Oid) -> tuple[ForkSequence, ...]:
    """The fork blocks on the agent tip, each against the base tip's document.

    A base never holds fork blocks, so a document with one differs between the
    two tips: only those are read.
    """
    a_tree, b_tree = commit_at(repo, a).tree, commit_at(repo, b).tree
    sides = DocumentSides(repo, None, b_tree, a_tree)
    found: list[ForkSequence] = []
    for change in tree_changes(b_tree, a_tree):
        path = change.path
        raw = sides.data("theirs", path)
        if raw is None or not doc.may_hold_fork(raw):  # an escaped key spells it too
            continue
        blobs: list[bytes | None] = [raw]
        if not is_document(path, blobs.copy):
            continue
        try:
            data = parse(raw, path=path).data
        except ParseError:
            continue
        forks = forks_of(data)
        if not forks:
            continue
        base_data = _parsed(sides.data("ours", path), path)
        for key, fork in forks.items():
            parent = base_data.get(key) if isinstance(base_data, dict) else None
            seq = parent.get(doc.SEQUENCE_FIELD) if isinstance(parent, dict) else None
            found.append(
                ForkSequence(path, key, fork.get("parentSequence"), seq, fork.get("mergeStatus"))
            )
    return tuple(found)


def _landed(forks: tuple[ForkSequence, ...], ahead: int) -> tuple[ForkSequence, ...]:
    """The forks as sync judges them: an agent none of whose commits the base lacks has had
    its work merged (``sync`` says "merged into BASE on the remote"), even where its branch
    still reads ``unmerged``: the remote's copy of a branch whose work another agent's
    ``sync --push`` integrated keeps its published commit until the agent publishes again,
    and only the agent's own clone marks the fork."""
    if ahead:
        return forks
    return tuple(
        replace(f, merge_status=MERGED_FORK) if f.merge_status == "unmerged" else f for f in forks
    )


def _parsed(raw: bytes | None, path: str) -> Any:
    if raw is None:
        return None
    try:
        return parse(raw, path=path).data
    except ParseError:
        return None


COLUMNS = ("AGENT", "BASE", "AHEAD", "BEHIND", "DOCS", "SEQ", "FORK", "STATE")


def table(
    rows: list[AgentStatus],
    tracking: list[BaseTracking] | None = None,
    unlisted: list[str] | tuple[str, ...] = (),
) -> list[str]:
    """The text report: one row per agent, then the details of each, then where each base
    stands against its upstream as last fetched (``status`` prints it, the MCP server
    answers with it); last, how many agents only a remote has were left out (``listed``)."""
    pushes = _pushes(tracking)
    lines = _rows(rows, pushes) if rows else []
    for t in tracking or () if rows else ():
        lines.append(t.describe([r.agent for r in rows if r.base == t.base]))
    if unlisted:
        lines.append(unlisted_line(unlisted))
    return lines or ["no agent branches"]


UNLISTED_SHOWN: Final = 5
"""How many of the agents ``status`` left out its line names (a team may have hundreds)."""


def unlisted_line(unlisted: list[str] | tuple[str, ...]) -> str:
    """The line under an agent's table naming the other agents only a remote has."""
    n = len(unlisted)
    names = ", ".join(command_word(a) for a in unlisted[:UNLISTED_SHOWN])
    more = f" and {n - UNLISTED_SHOWN} more" if n > UNLISTED_SHOWN else ""
    other = "other agent" if n == 1 else "other agents"
    command = (
        'vcontext_status {"all": true}' if for_agents_with_tools() else "git vcontext status --all"
    )
    return (
        f"{n} {other} only on the remote, not listed in this agent's clone ({names}{more}):"
        f" {command} lists them"
    )


def _copy_line(r: AgentStatus, command: str) -> list[str]:
    """The line of a row whose agent branch lacks work of the remote's copy of it: the
    ``sync --push`` (``command``) that merges it in."""
    if not r.copy:
        return []
    ref, n = r.copy
    it = "it" if n == 1 else "them"
    return [
        f"  {ref} has {n} commit{'' if n == 1 else 's'} {r.branch} lacks (as last fetched; "
        f"this row counts without {it}): {command} merges {it}"
    ]


def _pushes(tracking: list[BaseTracking] | None) -> dict[str, tuple[str, str]]:
    """The remote (and as a word to paste) each base's agents sync with, as its tracking
    line names it (``BaseTracking.pushed``)."""
    return {t.base: (t.remote, t.pushed) for t in tracking or () if t.pushed}


def _agent_sync(r: AgentStatus, pushes: dict[str, tuple[str, str]]) -> str:
    remote, pasted = pushes.get(r.base, (None, ""))
    return sync_command([r.agent], remote, pasted=pasted)


def next_commands(r: AgentStatus, pushes: dict[str, tuple[str, str]]) -> tuple[str, ...]:
    """The commands a row with nothing in the way runs next, as ``status`` prints them
    under ``next:``: a stopped merge's (``finish``) then the agent's sync; the agent's
    sync alone for a row that needs one (a clash too: it lands alone). () for a conflict
    (its own ``next:`` line says what comes first), a refused row, one up to date."""
    command = _agent_sync(r, pushes)
    if r.conflicts:
        return ()
    if r.finish:
        return (*r.finish, command)
    return (command,) if r.state == NEEDS_SYNC else ()


def _way_on(r: AgentStatus, command: str, pushes: dict[str, tuple[str, str]]) -> list[str]:
    """A row's last lines: the ``next:`` step (``command``: the agent's sync)."""
    if r.conflicts:
        step = conflict_step(r.conflicts, command, False)
        return [step] if step else []  # the way out, last, as sync names it
    if r.clashes and r.state == NEEDS_SYNC:
        return [clash_step(command)]  # it lands alone: the other's sync says more
    if r.finish:  # finish the stopped merge (as its message says), then sync
        return ["  next:", *(f"    {c}" for c in next_commands(r, pushes))]
    if r.state == NEEDS_SYNC:  # as every other row with a way on names it
        return [f"  next: {command}"]
    return []


def _rows(rows: list[AgentStatus], pushes: dict[str, tuple[str, str]]) -> list[str]:
    """The table, then each agent's details; ``pushes``: the remote (and as a word to
    paste) a base's agents sync with, as its tracking line names it (``BaseTracking``)."""
    lines: list[str] = []
    cells = [COLUMNS] + [
        (
            r.agent,
            r.base,
            str(r.ahead),
            str(r.behind),
            str(len(r.documents)),
            f"+{r.divergence}" if r.divergence > 0 else str(r.divergence),
            r.merge_status,
            r.state,
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(COLUMNS))]
    for row in cells:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    for r in rows:
        details = [f"  {quoted_path(p)}" for p in r.documents]  # a newline splits no line
        label = "blocked" if r.state == BLOCKED else "conflict"
        details += [f"  {label}: {c.describe()}" for c in r.conflicts]
        for clash in r.clashes:
            details.append(
                f"  clashes with {clash.other_branch}: each syncs alone, not both "
                f"(the second to sync conflicts and names its way out)"
            )
            details += [f"    {c.describe()}" for c in clash.conflicts]
        details += [
            f"  sequence: {quoted_path(f.path)} ({f.container}): forked at {f.parent_sequence}, "
            f"base now at {f.base_sequence}"
            for f in r.forks
            if f.divergence
        ]
        if r.message:
            details.append(f"  {r.message}")
        if r.remote:
            details.append(
                f"  only on the remote, as {r.remote}: {sync_command([r.agent])} "
                f"creates {r.branch} from it"
            )
        command = _agent_sync(r, pushes)
        details += _copy_line(r, command) if r.base in pushes else []
        details += _way_on(r, command, pushes)
        if details:
            lines += [f"{r.branch}:", *details]
    return lines
