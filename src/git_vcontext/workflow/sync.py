"""``sync`` as a whole, as every front end runs it (the command line, the MCP server): check
what was given, finish an interrupted update, sync each pair locally or with ``--push``
(``remote/protocol``), say what happened, and with ``--checkout`` leave each conflict
stopped where its agent works (``conflicts/checkout``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..branches import agents as agent_config
from ..conflicts import checkout as checkouts
from ..conflicts import switchback
from ..errors import Unfinished, shown_url
from ..gitio import config_value, operands, refs, work_tree
from ..gitio.objects import descends
from ..gitio.places import common_dir
from ..gitio.storage import explained
from ..gitio.transport import Link
from ..record import record
from ..remote.rounds import push_with_retries
from ..sync.advice import conflict_step, finish_steps, person, sync_command
from ..sync.busy import busy_steps
from ..sync.interrupted import finish
from ..sync.syncer import CONFLICT, MERGED, REFUSED, UP_TO_DATE, Syncer
from ..sync.tracking import (
    no_push_reason,
    pasted_remote,
    push_refusal,
    push_target,
    refuse_renamed,
    refuse_unusable,
    renamed_upstream,
    shown,
    unusable_upstream,
    unusable_way_out,
)
from ..validation.model import quoted_path
from .link import Given, connected

if TYPE_CHECKING:
    from pygit2 import Repository

    from ..conflicts.checkout import Refusal
    from ..conflicts.stopped import Stopped
    from ..sync.syncer import Diverged, PairResult


@record
class SyncOutcome:
    """What one ``sync`` did: each pair, the merges ``--checkout`` left stopped (or why
    not), and the remote the next ``sync --push`` goes to."""

    ok: bool
    results: tuple[PairResult, ...]
    stopped: tuple[Stopped, ...] = ()
    refusals: tuple[Refusal, ...] = ()
    remote: str | None = None
    switched: tuple[tuple[str, str], ...] = ()  # (agent branch, the branch this work tree was on)
    diverged: tuple[Diverged, ...] = ()  # local bases whose own commits conflict (warned)


def sync(
    repo: Repository,
    given: Given,
    *,
    dry_run: bool = False,
    checkout: bool = False,
    say: Callable[[str], None],
    warn: Callable[[str], None],
    hints: bool = True,
    link: Link | None = None,
    shown: Callable[[PairResult], None] | None = None,
    working_as: tuple[str | None] | None = None,
) -> SyncOutcome:
    """Sync the agents ``given`` says: the remote, ``--into`` and the agents as the caller
    checked them (``link.checked``, the one place they are judged, before git sees any;
    the arguments as given go no further). ``say`` tells what happened, line by line.
    ``checkout``: leave each pair that conflicts stopped in its agent's work tree.
    ``hints``: end each conflict with the commands to run next (the MCP server says its
    own). ``link``: the sync's own to the ``push`` remote, made (and connected, the agents
    ``given`` selected through it: ``link.connected``) by the caller, who closes it; else
    one is made here, and the agents selected through it. ``shown``: given each pair as it is said
    (also when the sync fails later, e.g. a lock in the way: the MCP server still returns
    the conflicts). ``working_as``: (the agent running it,) as the caller knows it (the
    MCP server's own: never the environment's), None: ``agents.running_agent`` says (it
    names ``mergedBy``). Shared by the command and the MCP server. A full disk or a read-only
    repository is said as such (``gitio.storage``)."""
    where = [str(common_dir(repo))] + ([top] if (top := work_tree(repo)) else [])
    with explained(where, "sync"):
        mine = link is None and given.push is not None and not dry_run
        if mine:  # one per sync (over ssh its connection starts now: see connected)
            given, link = connected(repo, given, say)
        try:
            return _sync_with(repo, given, dry_run, checkout, say, warn, hints, link,
                              shown or _unseen, working_as)  # fmt: skip
        finally:
            if mine and link is not None:
                link.close()


def _sync_with(
    repo: Repository,
    given: Given,
    dry_run: bool,
    checkout: bool,
    say: Callable[[str], None],
    warn: Callable[[str], None],
    hints: bool,
    link: Link | None,
    shown: Callable[[PairResult], None],
    working_as: tuple[str | None] | None,
) -> SyncOutcome:
    _finish_interrupted(repo, say, warn)
    push, into = given.push, given.into
    names = given.selected(repo)  # (a local sync's: after the interrupted update)
    pairs = [(name, agent_config.base_of(repo, name, into)) for name in names]
    bases = list(dict.fromkeys(base for _, base in pairs))
    _named_as_on_the_remote(repo, pairs, push, checkout)
    remote = push or _one_upstream(repo, bases)
    syncer = Syncer(repo, dry_run=dry_run, working_as=working_as)
    _remote_agents(syncer, pairs, into, say)
    late: list[str] = []
    if push is None and not dry_run:
        late = _local_bases(syncer, bases, names, checkout)

    def show(r: PairResult, dry: bool = False) -> None:
        shown(r)
        for line in describe(r, dry):
            say(line)
        command = sync_command([r.agent], remote if push else None)
        for line in _next_lines(syncer, r, command, checkout) if hints else []:
            say(line)

    if push is not None and not dry_run:
        outcome = push_with_retries(syncer, pairs, push, report=say, show=show, link=link)
        results = list(outcome.results)
        pushed = outcome.pushed
        _track_pushed(repo, push, [r.agent for r in results if r.ok], say)
    else:
        try:
            results = syncer.sync_pairs(pairs)
        finally:
            syncer.finish()
        for r in results:
            show(r, dry_run)
        pushed = True
    for warning in [*late, *syncer.warnings]:
        warn(warning)
    if push is not None and dry_run:
        say(f"--dry-run: nothing pushed to {shown_url(push)}")
    done = SyncOutcome(
        pushed and all(r.ok for r in results),
        tuple(results),
        remote=remote,
        diverged=tuple(syncer.diverged),
    )
    if checkout:
        return _leave_conflicts(syncer, done, say, hints, push)
    return _switch_back(repo, done, say, dry_run)


def _switch_back(
    repo: Repository, done: SyncOutcome, say: Callable[[str], None], dry_run: bool
) -> SyncOutcome:
    """A work tree ``--checkout`` switched to an agent branch goes back where it was once
    that agent's pair landed (``conflicts/switchback``)."""
    if not dry_run and (top := work_tree(repo)):
        switchback.switch_back(top.rstrip("/"), {r.branch for r in done.results if r.ok}, say)
    return done


def _unseen(_r: PairResult) -> None:
    """No one to give the pairs to (the command line: it prints their lines)."""


def _remote_agents(
    syncer: Syncer, pairs: list[tuple[str, str]], into: str | None, say: Callable[[str], None]
) -> None:
    """An agent only a remote has (a fresh clone, a CI job) gets its local branch from the
    remote's, tracking it, as ``git switch agents/AGENT`` makes it (a dry run only assumes
    it), and the base its fork commit names is recorded as ``fork`` records it."""
    repo = syncer.repo
    for name, base in pairs:
        branch = agent_config.agent_branch(repo, name)
        held = agent_config.remote_agent(repo, name)
        if held is not None:
            remote, commit = held
            if syncer.dry_run:
                syncer.assume(branch, commit)
                continue
            message = f"vcontext sync: created from {remote}/{branch}"
            refs.track(repo, branch, remote, commit, message=message)
            say(f"{branch}: created from {remote}/{branch}, tracking it (as git switch does)")
        unrecorded = into is None and agent_config.recorded_base(repo, name) is None
        if unrecorded and not syncer.dry_run and agent_config.forked_from(repo, name) == base:
            agent_config.record_base(repo, name, base)


def _named_as_on_the_remote(
    repo: Repository, pairs: list[tuple[str, str]], push: str | None, checkout: bool
) -> None:
    """--push works on the remote's branch named as the base: a base whose upstream there
    has another name is refused before anything moves (as ``git push`` refuses it by
    default), where ``status``, ``check`` and ``--checkout`` read ``@{upstream}``; a base
    whose ``@{upstream}`` git cannot name (``branch.BASE.merge = trunk``) is refused by
    --push and --checkout (each fetches it), as status and check say it."""
    if push is not None:
        refuse_renamed(repo, pairs, push)
    elif checkout:
        refuse_unusable(repo, list(dict.fromkeys(base for _, base in pairs)))


def _next_lines(syncer: Syncer, r: PairResult, command: str, checkout: bool) -> list[str]:
    """The last lines of a pair that conflicts: the command that goes on (as ``status``
    names it: ``sync.advice``); of a pair refused because git stopped in the middle of a
    merge (rebase, …) where its branch is checked out: the commands that finish it, then
    the sync."""
    if r.state == CONFLICT:
        step = conflict_step(r.conflicts, command, checkout)
        return [step] if step else []
    path = syncer.checkouts().get(r.branch) if r.state == REFUSED else None
    steps = busy_steps(path) if path else []
    return _next([*steps, command]) if steps else []


def _track_pushed(
    repo: Repository, remote: str, agents: list[str], say: Callable[[str], None]
) -> None:
    """An agent branch without an upstream that the remote now holds (its remote-tracking
    branch, as the push left it, is the local tip, or its ancestor: a round someone else
    merged leaves the published commit there, and the branch gained only the merge of the
    base) tracks it, as ``git push -u`` sets it and says so; an upstream the branch has is
    never changed. Only for a configured remote: ``git push -u URL`` would write a URL no
    ``@{upstream}`` resolves."""
    if remote not in operands.configured(repo):
        return
    for agent in agents:
        branch = agent_config.agent_branch(repo, agent)
        if any(config_value(repo, f"branch.{branch}.{k}") for k in ("remote", "merge")):
            continue
        tip = refs.commit_of(repo, f"refs/heads/{branch}")
        there = refs.commit_of(repo, f"refs/remotes/{remote}/{branch}")
        if tip is None or there is None or (tip != there and not descends(repo, tip, there)):
            continue
        refs.set_upstream(repo, branch, remote)
        say(f"branch '{branch}' set up to track '{remote}/{branch}'.")


def _one_upstream(repo: Repository, bases: list[str]) -> str | None:
    """The remote the bases track (the first base's, when they track several) that a
    ``sync --push`` takes: not one whose branch there has another name, or that git's
    ``@{upstream}`` cannot name, nor one ``--push`` refuses (``push_target``)."""
    for base in bases:
        if (found := push_target(repo, base, [])) is not None:
            return found
    return None


def _local_bases(syncer: Syncer, bases: list[str], names: list[str], checkout: bool) -> list[str]:
    """Before a sync without ``--push``: ``--checkout`` fetches each base's upstream and
    builds on it when the local base is only behind it; a plain sync says when it merges
    into a base that is behind its upstream (as last fetched), or whose ``@{upstream}``
    git cannot name (``branch.BASE.merge = trunk``: nothing to count against, as status and
    check say; ``--checkout`` refused it already). The warnings to give."""
    repo, warnings = syncer.repo, []
    for base in bases:
        remote = checkouts.upstream(repo, base)
        if remote is None:
            continue
        if (why := unusable_upstream(repo, base)) is not None:
            warnings.append(
                f"{base} has no upstream git can name, so this sync merged with {base} as it"
                f" is here; {person(unusable_way_out(repo, base, remote, why))}"
            )
            continue
        push = sync_command(names, remote, pasted=pasted_remote(base, remote))
        publish = f"{push} syncs with {shown_url(remote)}'s {base} and publishes"
        name = renamed_upstream(repo, base)  # @{upstream} is remote's name: no sync --push
        if refused := push_refusal(repo, base, names):  # what sync --push refuses
            publish = person(refused)
        if checkout:
            _, diverged = checkouts.bring_up(syncer, base, remote)
            if diverged:
                warnings.append(
                    f"{base} here has commits {shown(repo, remote, name or base)} lacks:"
                    f" synced with {base} as it is here; {publish}"
                )
        elif (late := checkouts.behind(repo, base, remote, name)) is not None:
            warnings.append(f"{late}; {publish}")
    return warnings


def _leave_conflicts(
    syncer: Syncer, done: SyncOutcome, say: Callable[[str], None], hints: bool, push: str | None
) -> SyncOutcome:
    """--checkout: each pair that conflicts is left as a stopped merge where its agent works."""
    stopped, refusals, switched = [], [], []
    for r in done.results:
        if r.state != CONFLICT or r.against is None or all(c.log_deleted for c in r.conflicts):
            continue  # (a deleted event log: no merge to resolve, the deletion is undone)
        against = checkouts.current_base(syncer.repo, r, push)
        tracked = done.remote or checkouts.upstream(syncer.repo, r.base)  # @{upstream}
        label = checkouts.label_of(syncer.repo, against, r.base, r.branch, tracked)
        command = sync_command([r.agent], push)
        left, refused, was = checkouts.leave(syncer, r, against, label, command)
        if was is not None:
            switched.append((r.branch, was))
            say(
                f"{r.branch}: checked out here for the merge (this work tree was on "
                f"{switchback.shown(was)}): the sync that lands it switches back"
            )
        if refused is not None:
            refusals.append(refused)
            say(f"{r.branch}: not left stopped: {refused.message}")
            if hints:
                for line in _next(list(refused.commands)):
                    say(line)
            continue
        assert left is not None
        stopped.append(left)
        files = ", ".join(left.conflicted) or "none (every file merged)"
        say(
            f"{r.branch}: the merge of {left.merging} into {r.branch} is left stopped in "
            f"{left.worktree} (ours: {r.branch}, theirs: {left.merging})"
        )
        say(f"  conflicted: {files}")
        if hints:
            if push is None and (why := no_push_reason(syncer.repo, r.base, [r.agent])):
                say(f"  {why}")  # (the sync below names none: the MCP server's next says it too)
            for line in _next(stopped_commands(left, r.agent, done.remote)):
                say(line)
    return SyncOutcome(
        done.ok,
        done.results,
        tuple(stopped),
        tuple(refusals),
        done.remote,
        tuple(switched),
        done.diverged,
    )


def stopped_commands(left: Stopped, agent: str, remote: str | None) -> list[str]:
    """What to run after ``--checkout`` left a merge stopped: resolve, commit, sync. The
    choice is the agent's: ``--take <ours|theirs>``, which a shell refuses whole when the
    block is pasted as printed (``--take ours|theirs`` ran ``--take ours`` piped into
    ``theirs``: a side taken, committed and pushed that nobody chose). A merge left with no
    file conflicted (every document merged) is committed as it is: no ``resolve`` of a file
    named ``FILE``, which names none."""
    return [*finish_steps("merge", left.worktree, left.conflicted), sync_command([agent], remote)]


def _next(commands: list[str]) -> list[str]:
    """The commands to run next, one per line, after a ``next:`` line."""
    return ["  next:", *(f"    {c}" for c in commands)]


def _finish_interrupted(
    repo: Repository, say: Callable[[str], None], warn: Callable[[str], None]
) -> None:
    """First, a work tree an interrupted sync left behind (``sync/interrupted``)."""
    try:
        finish(repo, say=say)
    except Unfinished as exc:  # its branch is refused (Syncer.blocked), the others sync
        warn(exc.message)


def describe(r: PairResult, dry_run: bool = False) -> list[str]:
    """What happened to one pair, as a few lines."""
    would = "would " if dry_run else ""
    lines: list[str] = []
    if r.state == UP_TO_DATE:
        idle = r.changes_nothing
        lines.append(f"{r.branch}: up to date with {r.base}" + (f" ({idle})" if idle else ""))
    elif r.state == MERGED:
        parts = []
        if r.elsewhere:
            parts.append(f"merged into {r.base} on the remote ({_count(r.documents)})")
        if r.base_moves:
            parts.append(
                f"{would}merge {_count(r.documents)} into {r.base}" + _short(r.base_commit, dry_run)
            )
        if r.agent_moves:
            what = (
                f"update {_count(r.agent_documents)} on {r.branch}"
                if r.agent_documents  # else only the merge commit, for the two histories
                else f"merge {r.base} into {r.branch} (its documents hold the base's already)"
            )
            parts.append(would + what + _short(r.agent_commit, dry_run))
        lines.append(f"{r.branch} <-> {r.base}: " + "; ".join(parts))
        lines += _documents_lines(r)
    elif r.state == CONFLICT:
        lines.append(f"{r.branch} <-> {r.base}: CONFLICT, nothing moved")
        lines += [f"  {c.describe()}" for c in r.conflicts]
    else:
        lines.append(f"{r.branch} <-> {r.base}: not synced: {r.message}")
    if r.notes and r.state == MERGED:
        n = len(r.notes)
        lines.append(
            f"  {n} automatic resolution{'s' if n != 1 else ''} noted (e.g. sequence numbers)"
        )
    return lines


SHOWN = 10
"""How many documents a pair's lines name, in each list, before "and N more"."""


def _documents_lines(r: PairResult) -> list[str]:
    """The documents a merged pair's line counts, one per line, as git quotes a path: those
    the agent's work changed in the base, and those its agent branch gets (the base's work
    it lacked) under a line naming the branch, unless the two lists are one."""
    into = list(r.documents) if r.base_moves or r.elsewhere else []
    onto = list(r.agent_documents) if r.agent_moves else []
    if not onto or onto == into:
        return _listed(into or list(r.documents), "  ")
    if not into:
        return _listed(onto, "  ")
    return [*_listed(into, "  "), f"  on {r.branch}:", *_listed(onto, "    ")]


def _listed(paths: list[str], indent: str) -> list[str]:
    shown = [f"{indent}{quoted_path(p)}" for p in paths[:SHOWN]]  # as conflicts quote it
    more = len(paths) - SHOWN
    return shown + ([f"{indent}and {more} more"] if more > 0 else [])


def _count(documents: tuple[str, ...]) -> str:
    n = len(documents)
    return f"{n} document" + ("" if n == 1 else "s")


def _short(commit: str | None, dry_run: bool) -> str:
    return "" if dry_run or not commit else f" ({commit[:12]})"
