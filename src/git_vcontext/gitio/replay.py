"""Whether the merge git runs the driver for is a replay: a rebase step, a cherry-pick, a
revert (PRODUCT.md M6, M8), rather than a merge.

In a replay theirs is the commit being applied and the base its parent, which need not
be ours' ancestor. git (2.39) writes ``CHERRY_PICK_HEAD``/``REVERT_HEAD`` only after the
merge, and a single-commit ``git cherry-pick``/``git revert`` leaves no trace while the
driver runs (no sequencer state, no ``GIT_REFLOG_ACTION``), so the driver tells from
ours' history: the base is ours' ancestor when ours' history held that very version of
the file, and a revert applies a version ours' history held before it. Shortcuts: a
rebase in progress (``rebase-merge/``, ``rebase-apply/``: every step is a replay, the
first one too), a cherry-pick or revert of several commits (``sequencer/``), and ``git
merge``/``git pull`` (a merge: ``GIT_REFLOG_ACTION``, ``GITHEAD_*``); then the command
line of the git process running the driver (``invoker``: ``git cherry-pick``, ``git
revert``; an alias of either too: git runs the command it names as a child ``git
cherry-pick …``), which tells a pick whose base is ours' ancestor from a merge; history
last.

A driver that leaves conflicts records what it judged (``record``, under
``.git/vcontext/replay/``, by path and the three sides' contents), and ``resolve`` merges
the index stages again with that judgement (``recorded``): the two never judge the same
merge differently, whatever the driver could read of its invoker.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

MAX_COMMITS = 20_000
"""How far back ours' history is read (a base older than that counts as an ancestor)."""
REVERT_WINDOW = 200
"""Commits read past the base's version for the older one a revert applies."""


def signal(git_dir: str | None, env: Mapping[str, str] | None = None) -> bool | None:
    """What git's state says: True (a replay), False (a merge), None (nothing: ask history)."""
    env = os.environ if env is None else env
    if git_dir is not None:
        for name in ("rebase-merge", "rebase-apply", "sequencer"):
            if os.path.isdir(os.path.join(git_dir, name)):
                return True
    action = env.get("GIT_REFLOG_ACTION", "")
    if action.startswith(("merge", "pull")) or any(k.startswith("GITHEAD_") for k in env):
        return False
    return None


def invoked_as_replay(commands: list[list[str]] | None = None) -> bool | None:
    """What the git command running the driver says (``invoker``: its command line, read
    from ``/proc`` or ``ps``): ``git cherry-pick``/``git revert`` replay a commit (True)
    even when the commit's parent is ours' ancestor, which ours' history cannot tell from a
    merge; ``git merge``/``git pull`` merge (False); None: anything else, or unknown."""
    if commands is None:
        # lazy: only a merge git's state says nothing of reads the process table
        from .invoker import git_commands

        commands = git_commands()
    first = commands[0][0] if commands and commands[0] else None
    if first in ("cherry-pick", "revert"):
        return True
    if first in ("merge", "pull"):
        return False
    return None


def from_history(path: str, base: bytes, ours: bytes, theirs: bytes, start: str = ".") -> bool:
    """Whether ours' history (HEAD's, when HEAD holds ours at ``path``) shows a replay: the
    base's version of the file was never in it, or it was and the version theirs brings
    came right before it (a revert). Anything unknown is a merge."""
    # lazy: only a cherry-pick or revert (or an unknown merge) reads history
    import pygit2

    try:
        found = pygit2.discover_repository(start)
        if found is None:
            return False
        repo = pygit2.Repository(found)
        if repo.head_is_unborn:
            return False
        head = repo.head.peel(pygit2.Commit)
        if _blob_id(head, path) != pygit2.hash(ours):
            return False  # ours is not HEAD's version (merge-tree, a stash): a merge
        return _walk(repo, head, path, pygit2.hash(base), pygit2.hash(theirs))
    except (pygit2.GitError, KeyError, ValueError, OSError):
        return False


def _walk(repo: object, head: object, path: str, base_id: object, theirs_id: object) -> bool:
    import pygit2

    assert isinstance(repo, pygit2.Repository) and isinstance(head, pygit2.Commit)
    seen_base = None  # how many commits were read when the base's version was met
    from .cutwalk import walk  # lazy: the driver's imports

    for count, commit in enumerate(walk(repo, head.id, pygit2.enums.SortMode.TOPOLOGICAL)):
        if count >= MAX_COMMITS:
            return False
        blob = _blob_id(commit, path)
        if blob == base_id and seen_base is None:
            seen_base = count
        elif blob == theirs_id and seen_base is not None:
            return True  # theirs is older than the base, on ours' line: a revert
        if seen_base is not None and count - seen_base > REVERT_WINDOW:
            return False  # the base is ours' ancestor: a merge
    return seen_base is None


def _blob_id(commit: object, path: str) -> object:
    try:
        return commit.tree[path].id  # type: ignore[attr-defined]
    except KeyError:
        return None


def is_replay(path: str | None, base: bytes | None, ours: bytes, theirs: bytes) -> bool:
    """The merge driver's answer (``MergeOptions.replay_probe``): git's state, else ours'
    history (run at the top of the work tree, as git runs drivers)."""
    # lazy: operation reads small files only
    from .operation import find_git_dir

    git_dir = find_git_dir(".")
    said = signal(git_dir)
    if said is None:
        said = invoked_as_replay()
    if said is not None:
        return said
    if git_dir is None or not path or base is None:
        return False  # outside a repository: no history to read
    return from_history(path, base, ours, theirs)


def reverted_commit(
    path: str | None, base: bytes | None, ours: bytes, theirs: bytes, start: str = "."
) -> tuple[str, str] | None:
    """(full id, subject) of the commit a ``git revert`` is undoing while the driver merges
    for it; None when this merge is no revert. From the git command running the driver (its
    argument, or the sequencer's next ``revert`` line), else from ours' history: the newest
    commit that brought the base's version of the file right after theirs'."""
    from .invoker import describe, git_commands
    from .operation import current, find_git_dir

    git_dir = find_git_dir(start)
    if git_dir is None:
        return None
    if any(os.path.isdir(os.path.join(git_dir, d)) for d in ("rebase-merge", "rebase-apply")):
        return None  # every rebase step is a pick
    op = current(git_dir, commands=git_commands())
    if op.kind in ("cherry-pick", "merge", "stash", "checkout"):
        return None
    sha = _sequencer_revert(git_dir) or (_named_sha(op.theirs) if op.kind == "revert" else None)
    if sha is None and path and base is not None:
        sha = _revert_from_history(path, base, ours, theirs, start)
    return describe(git_dir, sha) if sha else None


def _sequencer_revert(git_dir: str) -> str | None:
    try:
        with open(os.path.join(git_dir, "sequencer", "todo"), encoding="utf-8") as fh:
            first = fh.readline().split()
    except OSError:
        return None
    return first[1] if len(first) >= 2 and first[0] == "revert" else None


def _named_sha(label: str) -> str | None:
    """The commit id in a revert's label (``parent of 3f2a1bc (subject)``)."""
    parts = label.split()
    if len(parts) >= 3 and parts[:2] == ["parent", "of"]:
        return parts[2]
    return None


def _revert_from_history(
    path: str, base: bytes, ours: bytes, theirs: bytes, start: str
) -> str | None:
    """The newest commit on HEAD's line whose version of ``path`` is the base's and whose
    parent's is theirs': the commit being reverted."""
    import pygit2

    try:
        found = pygit2.discover_repository(start)
        if found is None:
            return None
        repo = pygit2.Repository(found)
        head = repo.head.peel(pygit2.Commit)
        if _blob_id(head, path) != pygit2.hash(ours):
            return None
        base_id, theirs_id = pygit2.hash(base), pygit2.hash(theirs)
        from .cutwalk import cut, parent_ids, walk  # lazy: the driver's imports

        boundary = cut(repo)
        walker = walk(repo, head.id, pygit2.enums.SortMode.TOPOLOGICAL)
        for count, commit in enumerate(walker):
            if count >= MAX_COMMITS:
                return None
            if _blob_id(commit, path) == base_id and any(
                _blob_id(repo[p].peel(pygit2.Commit), path) == theirs_id
                for p in parent_ids(repo, commit, boundary)
            ):
                return str(commit.id)
    except (pygit2.GitError, KeyError, ValueError, OSError):
        return None
    return None


def committer_agent(agent: str | None) -> tuple[tuple[str, str], ...]:
    """Who makes the revert, as an Extension 10 Agent (pairs): ``agent``, the agent running
    it (``GIT_VCONTEXT_AGENT`` as ``branches.agents.agent_named_in_env`` checked it), else
    git's committer identity, else git-vcontext itself."""
    import subprocess

    if agent:
        return (("id", agent), ("type", "aiAgent"))
    try:
        ident = subprocess.run(
            ["git", "var", "GIT_COMMITTER_IDENT"],
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=30,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        ident = ""
    name, _, rest = ident.partition(" <")
    email = rest.split(">", 1)[0]
    if name and email:
        return (("id", email), ("type", "human"), ("name", name), ("email", email))
    return (("id", "git-vcontext"), ("type", "system"), ("name", "git-vcontext"))


def _record_file(git_dir: str, path: str) -> str:
    import hashlib  # lazy: only a conflicted replay's driver, and resolve, read records

    key = hashlib.sha1(path.encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return os.path.join(git_dir, "vcontext", "replay", key)


def _sides(path: str, base: bytes | None, ours: bytes | None, theirs: bytes | None) -> str:
    """What a record is of: the path and each side's content (``-``: absent or empty)."""
    import hashlib

    ids = (hashlib.sha1(side).hexdigest() if side else "-" for side in (base, ours, theirs))
    return " ".join([*ids, path.encode("utf-8", "surrogateescape").hex()])


def record(
    git_dir: str, path: str, base: bytes | None, ours: bytes, theirs: bytes, replay: bool
) -> None:
    """Keep the driver's judgement of this merge for ``resolve`` (best effort: a record
    that cannot be written leaves resolve to the operation's kind)."""
    from ..fsio import write_atomic

    target = _record_file(git_dir, path)
    said = "replay" if replay else "merge"
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        write_atomic(target, f"{said} {_sides(path, base, ours, theirs)}\n".encode(), force=True)
    except OSError:
        pass


def recorded(
    git_dir: str, path: str, base: bytes | None, ours: bytes | None, theirs: bytes | None
) -> bool | None:
    """What the driver judged of the merge of exactly these sides at ``path``: True (a
    replay), False (a merge), None (no record of it)."""
    try:
        with open(_record_file(git_dir, path), encoding="ascii") as fh:
            said, _, sides = fh.read().rstrip("\n").partition(" ")
    except (OSError, ValueError):
        return None
    if sides != _sides(path, base, ours, theirs) or said not in ("replay", "merge"):
        return None
    return said == "replay"


def forget_others(git_dir: str, live: set[str]) -> None:
    """Remove the records of paths no longer conflicted (``live``: those that are)."""
    folder = os.path.join(git_dir, "vcontext", "replay")
    try:
        names = os.listdir(folder)
    except OSError:
        return
    keep = {os.path.basename(_record_file(git_dir, p)) for p in live}
    for name in names:
        if name not in keep and len(name) == 20:  # (not a record being written)
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass
