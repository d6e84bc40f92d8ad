"""The way out of a pair that conflicts, as ``sync`` and ``status`` both name it (one truth:
a row of ``status`` that says "conflict" ends with the command ``sync`` would print)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import shown_url
from ..prepush.mergecheck import only_check_failures
from ..validation.model import command_word

if TYPE_CHECKING:
    from ..branches.treemerge import PathConflict


def sync_command(agents: list[str], remote: str | None = None, *, pasted: str = "") -> str:
    """``git vcontext sync AGENT… [--push REMOTE]``, each word as a shell reads it back
    (``pasted``: the remote as a word already, ``tracking.pasted_remote``'s). A URL's
    credentials are masked (``shown_url``), as every line sync prints masks them: the
    person puts theirs back; printed, a token would be in every log of the output."""
    word = pasted or (command_word(shown_url(remote)) if remote else "")
    push = f" --push {word}" if word else ""
    return f"git vcontext sync {' '.join(command_word(a) for a in agents)}{push}"


def conflict_step(conflicts: tuple[PathConflict, ...], command: str, checkout: bool) -> str | None:
    """The ``next:`` line of a pair that conflicts on ``conflicts``: the command that goes
    on (``command``: the agent's sync). A merge that would fail the checks, or a deleted
    event log, has nothing to resolve in a stopped merge: the agent fixes its own document
    (as its lines say), then syncs; else ``--checkout`` leaves the merge stopped where the
    agent works (None when the sync had it already: its own block follows)."""
    if only_check_failures(conflicts) or all(c.log_deleted for c in conflicts):
        return f"  next: fix it as said, then {command}"
    return None if checkout else f"  next: {command} --checkout"


def clash_step(command: str) -> str:
    """The ``next:`` line of an agent that syncs cleanly alone but clashes with another
    (``status``'s "clashes with"): its own sync (``command``), which lands now; the one that
    syncs second then stops on the conflict and names its own way out (``conflict_step``)."""
    return f"  next: {command}"
