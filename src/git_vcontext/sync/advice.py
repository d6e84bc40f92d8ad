"""The way out of a pair that conflicts, as ``sync`` and ``status`` both name it (one truth:
a row of ``status`` that says "conflict" ends with the command ``sync`` would print)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from ..errors import shown_url
from ..prepush.mergecheck import only_check_failures
from ..validation.model import command_path, command_word

if TYPE_CHECKING:
    from ..branches.treemerge import PathConflict


PERSON = "A PERSON MUST DO THIS (no MCP tool can): "
"""How an MCP answer marks a step only a person can take (the agent has no shell): one
spelling in every answer, which agents and tests look for."""

_TOOLS: ContextVar[bool] = ContextVar("vcontext_advice_for_tools", default=False)


@contextmanager
def for_tools() -> Iterator[None]:
    """While it lasts (this thread, this task), advice is said to an agent with MCP tools
    alone (the MCP server's answers): a sync is its ``vcontext_sync`` call, any other
    command a person's step, marked ``PERSON`` (PRODUCT.md, "MCP server": never a shell
    command for the agent)."""
    token = _TOOLS.set(True)
    try:
        yield
    finally:
        _TOOLS.reset(token)


def for_agents_with_tools() -> bool:
    """Whether advice is said to an agent with MCP tools alone (``for_tools``)."""
    return _TOOLS.get()


def person(step: str) -> str:
    """``step`` (commands for a shell) as advice says it: marked as a person's to an agent
    with MCP tools alone, as it is on the command line."""
    return f"{PERSON}{step}" if _TOOLS.get() else step


def finish_command(kind: str) -> str:
    """The git command that finishes an operation git stopped in (``operation.current``'s
    kind: a merge is committed, the others continue)."""
    return "git commit --no-edit" if kind == "merge" else f"git {kind} --continue"


def finish_or_abort(kind: str, *, it: str = "it", how: str = "") -> str:
    """The two ways out of an operation git stopped in (a merge, rebase, cherry-pick or
    revert), said one way by every answer that names them (sync's refusal of a busy work
    tree, ``--checkout``'s, the MCP server's): ``finish it (HOW) or abort it (git KIND
    --abort)``; ``how`` defaults to the command that finishes it (``finish_command``)."""
    return f"finish {it} ({how or finish_command(kind)}) or abort it (git {kind} --abort)"


def finish_steps(kind: str, path: str, conflicted: Sequence[str]) -> list[str]:
    """The commands that finish an operation git stopped in the work tree at ``path``, as
    the command line prints them under ``next:``: go there, list the conflicts, settle
    each conflicted file, finish it. The side to take is the agent's choice, left as
    ``--take <ours|theirs>``: a shell refuses that line as printed, so a block pasted whole
    stops there instead of taking a side nobody chose."""
    steps = [f"cd {command_word(path)}"]
    if conflicted:
        steps.append("git vcontext conflicts")
        take = "--take <ours|theirs>"
        steps += [f"git vcontext resolve {command_path(f)} {take}" for f in conflicted]
    steps.append(finish_command(kind))
    return steps


def sync_command(agents: list[str], remote: str | None = None, *, pasted: str = "") -> str:
    """``git vcontext sync AGENT… [--push REMOTE]`` (no agents: ``--all``), each word as a
    shell reads it back (``pasted``: the remote as a word already,
    ``tracking.pasted_remote``'s). A URL's credentials are masked (``shown_url``), as every
    line sync prints masks them: the person puts theirs back; printed, a token would be in
    every log of the output. Said to an agent with MCP tools alone (``for_tools``): the
    ``vcontext_sync`` call (``remote``, masked, as ``push``: the server takes its masked
    upstream back)."""
    if _TOOLS.get():
        arguments: dict[str, object] = {"agents": agents} if agents else {"all": True}
        if remote:
            arguments["push"] = shown_url(remote)
        return f"vcontext_sync {json.dumps(arguments)}"
    word = pasted or (command_word(shown_url(remote)) if remote else "")
    push = f" --push {word}" if word else ""
    names = " ".join(command_word(a) for a in agents) or "--all"
    return f"git vcontext sync {names}{push}"


def conflict_step(conflicts: tuple[PathConflict, ...], command: str, checkout: bool) -> str | None:
    """The ``next:`` line of a pair that conflicts on ``conflicts``: the command that goes
    on (``command``: the agent's sync). A merge that would fail the checks, or a deleted
    event log, has nothing to resolve in a stopped merge: the agent fixes its own document
    (as its lines say), then syncs; else ``--checkout`` leaves the merge stopped where the
    agent works (None when the sync had it already: its own block follows)."""
    if only_check_failures(conflicts) or all(c.log_deleted for c in conflicts):
        return f"  next: fix it as said, then {command}"
    if checkout:
        return None
    if _TOOLS.get():  # the agent's own call leaves the merge stopped where it works
        return f"  next: {command}, through the MCP server of the agent's own work tree"
    return f"  next: {command} --checkout"


def clash_step(command: str) -> str:
    """The ``next:`` line of an agent that syncs cleanly alone but clashes with another
    (``status``'s "clashes with"): its own sync (``command``: ``sync_command``'s, the
    ``vcontext_sync`` call for an agent with MCP tools alone), which lands now; the one
    that syncs second then stops on the conflict and names its own way out
    (``conflict_step``)."""
    return f"  next: {command}"
