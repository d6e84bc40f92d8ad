"""Seed 003's fork tools: ``vbrief_create_fork`` (as ``git vcontext fork``) and
``vbrief_merge_fork`` (as ``git vcontext sync``, its conflicts returned as data)."""

from __future__ import annotations

from typing import Any

from ...branches.agents import is_utf8
from ...clock import now_rfc3339
from ...errors import Refused, VContextError
from ...validation.model import command_word
from ..catalog import SEGMENT
from ..gitside import DEFAULT_AGENT
from ..service import Answer, Service
from .sync import MERGE_FORK, sync


def create_fork(svc: Service, args: dict[str, Any]) -> Answer:
    """Fork the branch checked out here for the serving agent: ``agents/NAME`` with its
    fork commit (fork metadata in every document with a uid, the ``reason`` in it and in
    the commit message), its base recorded; this work tree stays where it is."""
    from ...sync.fork import fork_agent

    svc.may_write(None)
    git_side = svc.git
    if git_side is None or git_side.top is None:
        raise Refused("no-git", "vbrief_create_fork needs a git work tree; this folder is not one")
    agent = svc.agent()
    if agent == DEFAULT_AGENT and svc.options.agent is None:
        raise Refused(
            "bad-argument",
            "no agent to fork for: start the server with --agent NAME (or in the agent's "
            "work tree, on agents/NAME)",
        )
    document = _document(svc, args.get("documentId"))
    reason = args.get("reason") or None
    if reason is not None and (not is_utf8(reason) or "\0" in reason):
        raise Refused("bad-argument", "reason is not UTF-8 text")
    try:
        made = git_side.locked(
            lambda repo: fork_agent(repo, agent, from_branch=None, reason=reason, now=now_rfc3339())
        )
    except VContextError as exc:
        raise Refused("fork", exc.one_line()) from None
    data: dict[str, Any] = {
        "agent": made.agent,
        "branch": made.branch,
        "base": made.base,
        "baseCommit": made.base_commit,
        "commit": made.commit,
        "forked": list(made.forked),
        "noUid": list(made.no_uid),
        "unreadable": list(made.unreadable),
        "rejected": list(made.rejected),
    }
    lines = [f"{made.branch}: forked from {made.base} at {made.base_commit[:7]}"]
    if document is not None:
        data["document"] = document
        got = "has" if document["path"] in made.forked else "has no"
        lines.append(f"{document['path']} {got} fork metadata on {made.branch}")
    lines.append(
        f"next: work on it in its own work tree (git worktree add "
        f"{command_word('../' + made.agent)} {command_word(made.branch)}) with a server "
        f"there; vbrief_merge_fork there merges it with {made.base}, both ways"
    )
    return Answer("\n".join(lines), data)


def _document(svc: Service, doc_id: Any) -> dict[str, Any] | None:
    """The document ``documentId`` names (of any kind); None when none is named."""
    if doc_id is None:
        return None
    for kind in SEGMENT:
        found = svc.catalog.find(kind, doc_id)
        if found is not None:
            return found.summary()
    raise Refused("unknown-id", f"no document with id {doc_id!r} here (see vbrief://todos, ...)")


def merge_fork(svc: Service, args: dict[str, Any]) -> Answer:
    """Sync the serving agent's fork with its base, both ways (``vcontext_sync``): from the
    agent's own work tree a conflict stops the merge there and comes back as data, with
    the ``vcontext_resolve`` calls to make, then ``vbrief_merge_fork`` again."""
    forwarded: dict[str, Any] = {k: args[k] for k in ("push", "dryRun") if k in args}
    git_side = svc.git
    if git_side is not None and git_side.top is not None and git_side.agent_branch() is None:
        agent = svc.agent()
        if agent == DEFAULT_AGENT and svc.options.agent is None:
            raise Refused(
                "bad-argument",
                "this work tree is not on an agent branch and the server has no --agent: "
                "run vbrief_merge_fork in the agent's work tree",
            )
        forwarded["agents"] = [agent]
    return sync(svc, forwarded, tool=MERGE_FORK)  # (another agent's calls stay vcontext_sync)
