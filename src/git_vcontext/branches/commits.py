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
    return [f"- {listed_name(p)}" for p in paths]


def listed_name(path: str) -> str:
    """A name in a commit message's list of files: as git shows it (``quoted_path``), and
    C-quoted with the colon of ``Vcontext-Drop:`` as git's octal escape (``\\072``: the
    same name read back) when it holds that word: ``says_drop`` reads it only at a line's
    start, which a listed name never is, but an older hook or guard read it anywhere in a
    message (``plans/Vcontext-Drop: x.vcontext.json`` said it as it is)."""
    from ..validation.model import quoted_path

    shown = quoted_path(path)
    if SAID not in shown:
        return shown
    inner = shown[1:-1] if shown.startswith('"') else shown  # (unquoted: no " nor \\)
    return '"' + inner.replace(SAID, SAID[:-1] + "\\072") + '"'


def said_line(text: str) -> str:
    """Words from outside (an agent's title, a fork's reason, a parse error) on one line of
    a commit message: whitespace runs made one space (a line break would write a line of
    its own), and the word of the ``Vcontext-Drop:`` trailer defused as ``Vcontext-Drop :``
    (an older hook or guard read it anywhere in a message)."""
    return " ".join(text.split()).replace(SAID, SAID[:-1] + " :")


def is_sync_commit(commit: Commit) -> bool:
    """A merge commit ``sync`` made (it carries the trailer; an integration of several
    agents has a parent per agent after the base)."""
    return len(commit.parent_ids) >= 2 and is_sync_commit_message(commit.message)


def is_sync_commit_message(message: str) -> bool:
    """Whether a (merge) commit's message carries the trailer ``sync`` writes."""
    return f"\n{TRAILER}: " in message


class StoppedSync:
    """The merge ``sync`` left stopped in a work tree (``sync --checkout``, ``vcontext_sync``):
    what it merges into which agent branch, and that branch's agent."""

    __slots__ = ("agent", "branch", "merging")

    def __init__(self, merging: str, branch: str, agent: str) -> None:
        self.merging = merging
        self.branch = branch
        self.agent = agent

    @property
    def prefix(self) -> str:
        """The agent prefix the sync that left it read (``vcontext.agentPrefix``)."""
        return self.branch[: -len(self.agent)]


def stopped_sync(git_dir: str) -> StoppedSync | None:
    """The merge in progress in ``git_dir`` when it is the one ``sync`` left stopped (else
    None: a person's merge, another operation, none), judged by the files git keeps as
    ``conflicts/stopped.leave_stopped`` has them written: MERGE_HEAD, and MERGE_MSG with
    ``sync_message``'s title (``vcontext sync: merge X into BRANCH``, BRANCH checked out
    there) and its trailer for the one agent whose branch BRANCH is (``Vcontext-Sync:
    AGENT``, BRANCH ending ``/AGENT``). Not the agent prefix read here: a sync run with
    another (``git -c vcontext.agentPrefix=…``) left it all the same."""
    import os

    from ..gitio.operation import head_branch, sync_title

    def read(name: str) -> str:
        try:
            with open(os.path.join(git_dir, name), encoding="utf-8", errors="replace") as fh:
                return fh.read()
        except OSError:
            return ""

    if not read("MERGE_HEAD").strip():
        return None
    message = read("MERGE_MSG")
    title = sync_title(message.split("\n", 1)[0])
    branch = head_branch(git_dir)
    if title is None or branch is None or title[1] != branch:
        return None
    agents = [
        line[len(TRAILER) + 2 :].strip()
        for line in message.split("\n")
        if line.startswith(f"{TRAILER}: ")
    ]
    if len(agents) != 1 or not agents[0] or not branch.endswith(f"/{agents[0]}"):
        return None
    return StoppedSync(title[0], branch, agents[0])
