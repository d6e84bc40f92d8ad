"""``vcontext_sync`` and the way out of its conflicts with tool calls alone.

The server runs in the agent's work tree, where ``agents/NAME`` is checked out. When the
agent's own pair conflicts, the merge of the current base into its branch is left stopped
right here (as ``sync --checkout``) and the conflicts come back as data, each with its id;
``vcontext_resolve`` settles them and, once none is left, commits the merge (on an agent
branch every write is a commit); the next ``vcontext_sync`` lands. A merge whose
conflicts were all settled some other way is committed by ``vcontext_sync`` itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ...branches.commits import stopped_sync
from ...conflicts.listing import Listing, list_conflicts
from ...conflicts.report import render_text
from ...errors import OperationalError, Refused, shown_url
from ...gitio import complaint, git
from ...gitio.operation import current, find_git_dir
from ...sync.advice import PERSON, finish_or_abort
from ...workflow.link import Given, base_remote, checked
from ...workflow.sync import sync as run_sync
from ..service import Answer, Service

if TYPE_CHECKING:
    from pygit2 import Repository

    from ...sync.syncer import PairResult
    from ...workflow.sync import SyncOutcome
    from ..gitside import GitSide

SYNC = "vcontext_sync"
MERGE_FORK = "vbrief_merge_fork"
"""The tools that sync: the agent's own next sync is named as the tool it called names it."""


def sync(svc: Service, args: dict[str, Any], *, tool: str = SYNC) -> Answer:
    """Sync as ``args`` say; the agent's own next sync is named ``tool`` in the answer
    (``vbrief_merge_fork`` names its own; another agent's call stays ``vcontext_sync``,
    made through the server of its own work tree)."""
    svc.may_write(None)
    git_side = _git(svc)
    own = git_side.agent_branch()
    names = list(args.get("agents") or [])
    if not names and not args.get("all"):
        if own is None:
            raise Refused(
                "bad-argument",
                "this work tree is not on an agent branch: name the "
                "agents to sync (agents: [...]) or all: true",
            )
        names = [own]
    mine = own is not None and names == [own] and not args.get("dryRun")
    notes: list[str] = []
    if mine:
        waiting = _finish_stopped(svc, git_side, args, notes, tool)
        if waiting is not None:
            return waiting
    lines: list[str] = [*notes]
    warnings: list[str] = []
    seen: list[PairResult] = []
    push = _unmasked(svc, args.get("push"))  # before the lock: it reads the configuration
    dry_run = bool(args.get("dryRun"))
    working_as = (git_side.working_as(),)  # (mergedBy: this server's agent, never the env's)

    def given(repo: Repository) -> Given:  # hostile input: checked before git sees any
        return checked(repo, push, args.get("into"), names, bool(args.get("all")))

    try:  # (the lock: one sync at a time here, as libgit2's timeouts are process-wide:
        # httpremote._time_limit)
        outcome: SyncOutcome = git_side.locked(
            lambda repo: run_sync(
                repo,
                given(repo),
                dry_run=dry_run,
                checkout=mine,
                say=lines.append,
                warn=warnings.append,
                hints=False,  # the CLI's shell commands: this answer names tool calls
                shown=seen.append,
                working_as=working_as,
            )
        )
    except OperationalError as exc:
        svc.catalog.refresh()
        return _failed(svc, args, exc, lines, warnings, seen, tool)
    svc.catalog.refresh()
    data: dict[str, Any] = {"ok": outcome.ok, "lines": lines, "warnings": warnings}
    if conflicted := _conflicted(seen):
        data["conflicted"] = conflicted
    published = _diverged(git_side, args, outcome, data, tool)  # (warnings without commands)
    text = "\n".join([*lines, *(f"warning: {w}" for w in data["warnings"])]) or "nothing to sync"
    text = _warned_locks(text, data, args, git_side.top, tool)
    text += "".join(f"\n{line}" for line in published)
    if outcome.ok:
        return Answer(text, data)
    here = os.path.realpath(git_side.top or ".")
    stopped_here = [s for s in outcome.stopped if os.path.realpath(s.worktree) == here]
    if stopped_here:
        listing = list_conflicts(cwd=git_side.top or ".", by=svc.resolver())
        merging = stopped_here[0].merging
        data["stopped"] = {"worktree": stopped_here[0].worktree, "merging": merging}
        again = _own_next(svc, tool, args)
        text += "\n" + _conflict_text(listing, None, again)
        data.update(_conflict_data(listing, again))
    else:
        shown = _ways_out(git_side, args, outcome, seen, data, tool)
        text += "".join(f"\n{line}" for line in shown)
    return Answer(f"sync stopped: {text}", data, error=True)


def _ways_out(
    git_side: GitSide,
    args: dict[str, Any],
    outcome: SyncOutcome,
    seen: list[PairResult],
    data: dict[str, Any],
    tool: str,
) -> list[str]:
    """The way out of each conflict not left stopped here, as MCP tool calls or a
    person's steps (never a shell command for the agent: an agent with MCP tools alone has
    no shell). A conflict whose stopped merge was refused (local changes in the work tree,
    say), or a pair sync refused (a branch it must not move): the person's steps, then
    the same ``vcontext_sync``. Another agent's conflict: the ``vcontext_sync`` that agent
    makes through the MCP server of its own work tree (which leaves the merge stopped there
    and gives back its ``vcontext_resolve`` calls); when its branch is checked out in no
    work tree, a person checks it out and serves it first. The text: ``data``'s
    ``person`` and ``next``, as lines."""
    whys, steps = _refused_steps(outcome, seen)
    calls: list[dict[str, Any]] = []
    if steps:
        calls.append({**own_call(tool, _again(args)), "after": "person"})
    calls += _their_calls(git_side, args, outcome, seen, whys, steps)
    if not calls:
        return []
    said = _add_person(data, whys, steps) if whys else []
    data["next"] = [*data.get("next", []), *calls]
    return said + [_said_call(call) for call in calls]


def _add_person(data: dict[str, Any], whys: list[str], steps: list[str]) -> list[str]:
    """Add a person's steps to ``data``'s ``person`` (why, steps); the lines saying them."""
    why = "; ".join(dict.fromkeys(whys))
    person = data.setdefault("person", {"why": "", "steps": []})
    person["why"] = "; ".join(w for w in (person["why"], why) if w)
    person["steps"] = [*person["steps"], *steps]
    return [f"{PERSON}{why}:", *(f"  {s}" for s in steps)]


def _diverged(
    git_side: GitSide, args: dict[str, Any], outcome: SyncOutcome, data: dict[str, Any], tool: str
) -> list[str]:
    """A local base whose own commits conflict with the remote's (``sync --push``; the
    agents' round landed without them): its warning without the command line's commands,
    and the way to publish them: the ``vcontext_sync`` of the agent branch that holds
    them, else the person's steps (a pull where the base is checked out, its conflicts
    resolved, a push). The text: those, as lines."""
    said: list[str] = []
    own = git_side.agent_branch()
    for d in {d.base: d for d in outcome.diverged}.values():
        data["warnings"] = [d.head if w == d.warning else w for w in data["warnings"]]
        if d.agent is None:
            said += _add_person(data, [f"{d.head}; to publish them"], list(d.commands))
            continue
        again = _own(args)
        if d.agent == own or (tool == MERGE_FORK and args.get("agents") == [d.agent]):
            call = own_call(tool, again)  # the served agent's own (merge_fork names it)
        else:
            call = {"tool": SYNC, "arguments": {"agents": [d.agent], **again}}
        data["next"] = [*data.get("next", []), call]
        said.append(f"next, to publish them: {call['tool']} {_json(call['arguments'])}")
    return said


def _said_call(call: dict[str, Any]) -> str:
    """A ``next`` call as a line of the answer's text."""
    then = ", once the person has done it" if call.get("after") else ""
    if "agent" in call:
        where = call.get("workTree", "its work tree")
        then += f", by agent {call['agent']} through the MCP server of {where}"
    return f"next{then}: {said_sync(call)}"


def _refused_steps(outcome: SyncOutcome, seen: list[PairResult]) -> tuple[list[str], list[str]]:
    """(why, the person's steps) for each conflict that could not be left stopped and
    each pair sync refused; the CLI's own ``git vcontext sync`` (``Refusal.then``) left
    out: the agent's ``vcontext_sync`` follows."""
    from ...sync.syncer import REFUSED

    whys: list[str] = []
    steps: list[str] = []
    for refusal in outcome.refusals:
        whys.append(refusal.message)
        steps += refusal.steps
    for r in seen:
        if r.state == REFUSED:
            whys.append(f"sync could not move {r.branch}")
            steps.append(r.message)
    return whys, steps


def _their_calls(
    git_side: GitSide,
    args: dict[str, Any],
    outcome: SyncOutcome,
    seen: list[PairResult],
    whys: list[str],
    steps: list[str],
) -> list[dict[str, Any]]:
    """The ``vcontext_sync`` each agent whose conflict this sync did not leave stopped
    makes in its own work tree (a person's steps first, added to ``whys``/``steps``, when
    its branch is checked out in none)."""
    from ...gitio import worktrees
    from ...sync.syncer import CONFLICT
    from ...validation.model import command_word

    refused = {r.agent for r in outcome.refusals}
    conflicted = [r for r in seen if r.state == CONFLICT and r.agent not in refused]
    if not conflicted:
        return []
    checked_out: dict[str, str] = git_side.locked(worktrees.checkouts)
    own_args = _own(args)
    calls: list[dict[str, Any]] = []
    for r in conflicted:
        call: dict[str, Any] = {"tool": SYNC, "arguments": own_args, "agent": r.agent}
        where = checked_out.get(r.branch)
        if where is not None:
            call["workTree"] = where
        else:
            whys.append(f"{r.branch} is checked out in no work tree")
            steps += [
                f"check {r.branch} out in a work tree of its own "
                f"(git worktree add PATH {command_word(r.branch)})",
                f"start agent {r.agent}'s MCP server in that work tree (git vcontext mcp)",
            ]
            call["after"] = "person"
        calls.append(call)
    return calls


def _failed(
    svc: Service,
    args: dict[str, Any],
    exc: OperationalError,
    lines: list[str],
    warnings: list[str],
    seen: list[PairResult],
    tool: str,
) -> Answer:
    """A sync that failed part way: the error (one line, as any refusal, when that is all
    there is to say), with what the sync had said until then (a pair that conflicts, with
    its paths: the agent must see them) and the way on: the same ``vcontext_sync`` again.
    A lock file the tool could not prove stale is a person's to remove: said as such
    (``person``: the exact steps); no tool of this server removes it."""
    message = exc.one_line()
    conflicted = _conflicted(seen)
    files = _git_locks(exc.lock_files) or _named_locks([*warnings, message])
    if not (lines or warnings or conflicted or files):
        raise Refused("sync", message)
    data: dict[str, Any] = {"ok": False, "lines": lines, "warnings": warnings}
    data["error"] = {"kind": "locked" if files else "sync", "message": message}
    shown = [*lines, *(f"warning: {w}" for w in warnings), f"error: {message}"]
    if conflicted:
        data["conflicted"] = conflicted
    again = own_call(tool, _again(args))
    if files:
        then = {**again, "after": "person"}
        data["next"] = [then]
        shown += [*_add_locks(data, files, svc.git.top if svc.git else None), _said_call(then)]
    else:  # (a lock named but gone since included: the same sync is the way on)
        data["next"] = [again]
        said = f"{again['tool']} {_json(again['arguments'])}"
        shown.append(f"next, once the error above is dealt with: {said}")
    return Answer("sync stopped: " + "\n".join(shown), data, error=True)


def _warned_locks(
    text: str, data: dict[str, Any], args: dict[str, Any], top: str | None, tool: str
) -> str:
    """A sync that named a lock file in its way without failing (an ``index.lock`` in a
    warning: its work landed, the local branches stayed behind; a lock on a remote here
    that refused the push, in its lines): the person's step added to ``data`` (after a
    diverged base's, which stay); the text."""
    files = _named_locks([*data["lines"], *data["warnings"]])
    if not files:
        return text
    said = _add_locks(data, files, top)
    then = {**own_call(tool, _again(args)), "after": "person"}
    data["next"] = [*data.get("next", []), then]
    return "\n".join([text, *said, f"{_said_call(then)} (it brings the local branches along)"])


def _named_locks(said: list[str]) -> tuple[str, ...]:
    """Lock files on this machine that ``said`` (warnings, an error) names as in the way:
    git's own (``index.lock``), which only a person may remove (``gitio.locks``)."""
    from ...gitio import locks

    found = (locks.named_lock(line) for line in said if ".lock'" in line)
    return _git_locks(p for p in found if p)


def _git_locks(paths: Iterable[str]) -> tuple[str, ...]:
    """The lock files of ``paths`` that are there and are git's: in a git folder (its
    ``refs/``, or one of its own files: ``index.lock``, ``packed-refs.lock``, a linked
    work tree's). A line may come from a remote (a refused push's ``remote: …``, a hook's
    output): any other file it names is no person's step to remove."""
    from ...gitio import locks

    def in_git_folder(path: str) -> bool:
        parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
        for cut in range(len(parts) - 1, 0, -1):
            folder = os.sep.join(parts[:cut]) or os.sep
            if _is_git_folder(folder):
                rest = parts[cut:]
                return (
                    rest[0] == "refs"
                    or len(rest) == 1
                    or (rest[0] == "worktrees" and len(rest) == 3)
                )
        return False

    here = (p for p in paths if p.endswith(".lock") and locks.age(p) is not None)
    return tuple(dict.fromkeys(p for p in here if in_git_folder(p)))


def _is_git_folder(folder: str) -> bool:
    return (
        os.path.isfile(os.path.join(folder, "HEAD"))
        and os.path.isdir(os.path.join(folder, "objects"))
        and os.path.isdir(os.path.join(folder, "refs"))
    )


def own_call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The agent's own next sync through this server, as ``tool`` takes it:
    ``vcontext_sync`` with ``arguments``; ``vbrief_merge_fork`` with its remote alone
    (it syncs the serving agent, whose base it knows)."""
    if tool == MERGE_FORK:
        arguments = {k: v for k, v in arguments.items() if k == "push"}
    return {"tool": tool, "arguments": arguments}


def _own(args: dict[str, Any]) -> dict[str, Any]:
    """The arguments of an agent's own ``vcontext_sync`` made after this one's (its base and
    remote, not the agents this one named)."""
    return {k: args[k] for k in ("into", "push") if args.get(k)}


def _again(args: dict[str, Any]) -> dict[str, Any]:
    """The arguments of the same ``vcontext_sync`` (for after its way out)."""
    return {k: args[k] for k in ("agents", "all", "into", "push") if args.get(k)}


_LOCKS_WHY = (
    "lock files are in the way that this server cannot prove were left by a process "
    "that died (a git command, or a sync killed before it claimed them), so it never "
    "removes them, and an agent with MCP tools alone cannot"
)


def _add_locks(data: dict[str, Any], lock_files: tuple[str, ...], top: str | None) -> list[str]:
    """What a person must do about lock files the tool could not prove stale, added to
    ``data``'s ``person`` (the exact steps; ``lockFiles``): an agent with MCP tools alone
    has no shell, and no tool removes them. Each lock's own repository is named (the
    served work tree's, or a remote's on this machine). The lines saying them."""
    from ...gitio import locks

    steps = []
    for where in dict.fromkeys(_repository_of(p, top) for p in lock_files):
        steps.append(f"make sure no git command (and no other sync) is running in {where}")
    steps += [locks.removal(p) for p in lock_files]
    said = _add_person(data, [_LOCKS_WHY], steps)
    data["person"]["lockFiles"] = [*data["person"].get("lockFiles", []), *lock_files]
    return said


def _repository_of(lock: str, top: str | None) -> str:
    """The repository a lock file is in: the served work tree when it is that one's (its
    git folder's ``refs/…`` or ``index.lock``), else the git folder holding it."""
    parts = lock.split(os.sep)
    cut = len(parts) - 1 - parts[::-1].index("refs") if "refs" in parts[:-1] else len(parts) - 1
    git_dir = os.path.normpath(os.sep.join(parts[:cut]) or os.sep)
    if top is not None:
        mine = find_git_dir(top, env={})
        from ...fsio import find_common_dir

        common = find_common_dir(top, {})
        if any(d and os.path.realpath(d) == os.path.realpath(git_dir) for d in (mine, common)):
            return top
    return git_dir


def _conflicted(seen: list[PairResult]) -> list[dict[str, Any]]:
    """The pairs that conflicted, each with its conflicting paths (as ``sync`` said them)."""
    from ...sync.syncer import CONFLICT

    return [
        {
            "agent": r.agent,
            "branch": r.branch,
            "base": r.base,
            "paths": list(dict.fromkeys(c.path for c in r.conflicts)),
        }
        for r in seen
        if r.state == CONFLICT
    ]


def _git(svc: Service) -> GitSide:
    if svc.git is None or svc.git.top is None:
        raise Refused("no-git", "vcontext_sync needs a git work tree; this folder is not in one")
    return svc.git


def _finish_stopped(
    svc: Service, git_side: GitSide, args: dict[str, Any], notes: list[str], tool: str
) -> Answer | None:
    """A merge stopped in this work tree: its conflicts (as data) while any is left, else
    it is committed and the sync goes on (None)."""
    top = git_side.top or "."
    git_dir = find_git_dir(top, env={})
    op = current(git_dir, env={}) if git_dir else None
    if op is None or op.kind is None:
        return None
    left = stopped_sync(git_dir) if git_dir and op.kind == "merge" else None
    if left is None or left.agent != git_side.agent_branch():
        what = f"a {op.kind} of {op.theirs}" if op.kind == "merge" else f"a {op.kind}"
        raise Refused(
            "busy",
            f"{what} is in progress in {top}, not one sync left: vcontext_conflicts and "
            f"vcontext_resolve settle its conflicts; {PERSON}{finish_or_abort(op.kind)}; "
            f"then {tool}",
        )
    listing = list_conflicts(cwd=top, by=svc.resolver())
    if listing.found:
        data = {"ok": False, "lines": [], "warnings": []}
        again = _own_next(svc, tool, args)
        data.update(_conflict_data(listing, again))
        head = (
            f"the merge of {op.theirs} into {op.ours} is stopped in this work tree "
            f"(ours: {op.ours}, theirs: {op.theirs}):"
        )
        text = _conflict_text(listing, head, again)
        return Answer(f"sync stopped: a merge is in progress here; {text}", data, error=True)
    notes.append(git_side.locked(lambda _repo: conclude(top)))  # as a write commits
    return None


def conclude(top: str) -> str:
    """Commit the merge stopped in ``top`` (none of its conflicts left): one line. Called
    holding the repository lock (``GitSide.locked``), as a write commits."""
    done = git(["commit", "--no-edit", "--quiet"], cwd=top, check=False)
    if done.returncode != 0:
        raise Refused(
            "commit",
            f"the merge in {top} could not be committed: "
            f"{complaint(done.stderr or done.stdout, done.returncode)}",
        )
    head = git(["rev-parse", "HEAD"], cwd=top).stdout.strip()
    return f"committed the merge ({head[:12]})"


def _sync_args(svc: Service, args: dict[str, Any]) -> dict[str, Any]:
    """The arguments of the next ``vcontext_sync``: the same remote."""
    return {"push": args["push"]} if args.get("push") else next_sync_args(svc)


def _own_next(svc: Service, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The served agent's next sync after this one (``tool``, the same remote, else the one
    its base tracks), with why it names no push when it names none although the base
    tracks a remote (``noPush``: ``next_sync_call``)."""
    call = own_call(tool, _sync_args(svc, args))
    return call if args.get("push") else _no_push_said(svc, call)


def next_sync_call(svc: Service) -> dict[str, Any]:
    """The served agent's next ``vcontext_sync`` (``next_sync_args``), with ``noPush`` when
    it names no push although the agent's base tracks a remote: why (``sync --push`` there
    refuses the base: its upstream has another name, or none git can name) and the
    person's way out, the text the command line gives (``tracking.no_push_reason``)."""
    return _no_push_said(svc, {"tool": SYNC, "arguments": next_sync_args(svc)})


def _no_push_said(svc: Service, call: dict[str, Any]) -> dict[str, Any]:
    if "push" in call["arguments"] or svc.git is None:
        return call
    own = svc.git.agent_branch()
    if own is None:
        return call
    from ...workflow.link import no_push

    why: str | None = svc.git.locked(lambda repo: no_push(repo, own))
    return {**call, "noPush": why} if why else call


def said_sync(call: dict[str, Any]) -> str:
    """A next sync call as the text of an answer says it: the tool and its arguments, then
    why it names no push, when it says (``noPush``)."""
    why = f" ({call['noPush']})" if call.get("noPush") else ""
    return f"{call['tool']} {_json(call['arguments'])}{why}"


def next_sync_args(svc: Service) -> dict[str, Any]:
    """``vcontext_sync``'s arguments for the agent served here: push to the remote its
    base tracks, when it has one; a URL's credentials masked (the client never sees them:
    ``_unmasked`` takes that masked URL back to the configured one)."""
    found = _base_upstream(svc)
    return {"push": shown_url(found)} if found else {}


def _base_upstream(svc: Service) -> str | None:
    """The remote (a name or a URL, as configured) the served agent's base tracks."""
    if svc.git is None:
        return None
    own = svc.git.agent_branch()
    if own is None:
        return None
    found: str | None = svc.git.locked(lambda repo: base_remote(repo, own))
    return found


def _unmasked(svc: Service, push: Any) -> Any:
    """``push`` as given, or the configured upstream when it is that upstream with its
    credentials masked (as ``next_sync_args`` suggested it)."""
    if not isinstance(push, str) or "***@" not in push:
        return push
    found = _base_upstream(svc)
    return found if found is not None and found != push and shown_url(found) == push else push


def _conflict_data(listing: Listing, again: dict[str, Any]) -> dict[str, Any]:
    files = listing.to_json()["files"]
    calls: list[dict[str, Any]] = []
    for f in files:
        for c in f["conflicts"]:
            calls.append(
                {
                    "tool": "vcontext_resolve",
                    "arguments": {"path": f["path"], "conflict": c["id"], "take": "ours"},
                    "or": [{"take": "theirs"}, {"value": "any JSON value"}],
                }
            )
    calls.append(again)
    return {"conflicts": files, "others": list(listing.others), "next": calls}


def _conflict_text(listing: Listing, head: str | None, again: dict[str, Any]) -> str:
    steps = [
        f'vcontext_resolve {{"path": "{f.path}", "conflict": "{c.id}", "take": "ours"}} '
        '(or "take": "theirs", or "value": …)'
        for f in listing.files
        for c in f.conflicts
    ]
    steps.append(said_sync(again))
    shown = [head] if head else []
    shown += [render_text(listing).rstrip("\n"), "next:", *(f"  {s}" for s in steps)]
    return "\n".join(shown)


def _json(args: dict[str, Any]) -> str:
    import json

    return json.dumps(args)
