"""The merge commits ``sync`` makes: their message (a title, the documents merged, a trailer
per agent) and telling them apart from anyone else's commits."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from pygit2 import Commit

TRAILER = "Vcontext-Sync"
DROP = "Vcontext-Drop"
"""The trailer key of a commit that removes records on purpose (a deleted plan's MCP commit
writes it; a person adds it with ``git commit --amend --trailer 'Vcontext-Drop: <why>'``)."""
SAID = f"{DROP}:"


def says_drop(message: str | None) -> bool:
    """Whether a commit message says it removes records on purpose: a line of it starts with
    ``Vcontext-Drop:``, as git reads a trailer key (at a line's start, the colon right after
    it). The one reading of the hook, the guard's light and full paths, ``check`` and
    ``validate``: a message quoting the word in prose ("the Vcontext-Drop: trailer") says
    nothing, where a match anywhere let it turn those checks off. Any line counts, not only
    the last paragraph's: README asks for "a line in its message", and a person's
    ``Signed-off-by:`` paragraph after it must not undo it."""
    if not message:
        return False
    return message.startswith(SAID) or f"\n{SAID}" in message


def sync_message(title: str, agents: Sequence[str], documents: Iterable[str]) -> str:
    """The message of a merge commit sync makes: its title, the documents it merged, and a
    trailer per agent whose work it brings."""
    lines = [f"vcontext sync: {title}", ""]
    docs = list(documents)
    if docs:
        lines.append("Documents:")
        lines += document_lines(docs)
        lines.append("")
    lines += [f"{TRAILER}: {agent}" for agent in agents]
    return "\n".join(lines) + "\n"


def document_lines(paths: Iterable[str]) -> list[str]:
    """The ``- PATH`` lines of a merge commit's "Documents:" list, each name as git shows
    it (C-quoted when it holds a line break or another control character): a document
    named ``a\nVcontext-Drop: b.json`` wrote a line of its own, the trailer that lets a
    commit drop records (the hook reads it anywhere in a message)."""
    from ..validation.model import quoted_path

    return [f"- {quoted_path(p)}" for p in paths]


def is_sync_commit(commit: Commit) -> bool:
    """A merge commit ``sync`` made (it carries the trailer; an integration of several
    agents has a parent per agent after the base)."""
    return len(commit.parent_ids) >= 2 and is_sync_commit_message(commit.message)


def is_sync_commit_message(message: str) -> bool:
    """Whether a (merge) commit's message carries the trailer ``sync`` writes."""
    return f"\n{TRAILER}: " in message
