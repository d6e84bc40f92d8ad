"""Finishing a work-tree update that an interrupted ``sync`` left undone.

``sync`` moves a checked-out branch, then brings that work tree's index and files along
(``read-tree -m -u OLD NEW``). Killed between the two, the branch names the merge while
the index and the files are still the old ones: to git they look like staged changes
that undo the merge, and committing them would publish a revert of other agents' work.

So before moving such a branch, sync writes a journal entry (``<git common
dir>/vcontext/follow/<key>.json``: work tree, branch, OLD, NEW) and removes it once the
work tree followed. ``finish(repo)``, run first by every command that reads or writes the
work tree's documents (sync, status, the MCP server's writes, ``playbook`` edits),
completes whatever a journal says was left:

- the branch still at OLD: the move never happened; at NEW with the index at NEW's tree:
  the update had finished. The entry is dropped.
- at NEW otherwise: the update runs again. Files the interrupted update had written
  already (they hold NEW's content) are taken as written; files changed since by someone
  are merged three-way (OLD, NEW, the file) with git-vcontext's rules, and the change
  stays a local change on top of NEW. Only a change that conflicts stops it, naming the
  files and what to do; nothing is touched then.
- commits made since on the old files (a plain ``git commit``): each is replayed on NEW
  (its own change, as made on the files it saw), the branch moves to the replayed
  commits (the originals stay in the reflog), and the work tree follows.

A journal is never told to the user as "commit or stash your changes".
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import OperationalError, Unfinished
from ..fsio import remove_stale_temporaries, write_atomic
from ..record import record

if TYPE_CHECKING:
    from collections.abc import Callable

    from pygit2 import Commit, Oid, Repository

FOLDER = ("vcontext", "follow")
REPLAY_LIMIT = 50  # commits made on the old files that are replayed at most


@record
class Entry:
    """One journal entry: ``worktree``'s checked-out ``branch`` moves from ``old`` to ``new``."""

    worktree: str
    branch: str
    old: str
    new: str
    file: str = ""  # where it is kept


def folder(repo: Repository) -> Path:
    from ..gitio.places import common_dir

    return common_dir(repo).joinpath(*FOLDER)


def _file(repo: Repository, worktree: str) -> Path:
    key = hashlib.sha1(os.path.realpath(worktree).encode("utf-8", "surrogateescape"))
    return folder(repo) / f"{key.hexdigest()[:16]}.json"


def note(repo: Repository, worktree: str, branch: str, old: str, new: str) -> None:
    """Write the entry for ``worktree`` before its branch moves (replacing an earlier one of
    the same run: OLD stays what the work tree holds)."""
    path = _file(repo, worktree)
    body = {"worktree": worktree, "branch": branch, "old": old, "new": new, "pid": os.getpid()}
    body["time"] = int(time.time())
    data = (json.dumps(body, indent=1) + "\n").encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data, force=True)  # its temporary named by pid and start time
    except OSError as exc:
        raise _unwritten(f"{path}: cannot write ({exc.strerror})") from None
    except OperationalError as exc:
        raise _unwritten(str(exc)) from None
    remove_stale_temporaries(str(path.parent))  # what a killed sync left beside it


def _unwritten(why: str) -> OperationalError:
    return OperationalError(
        f"{why}: nothing moved; free some space or make the repository writable, then sync again"
    )


def forget(repo: Repository, worktree: str) -> None:
    """Drop the entry of ``worktree`` (its work tree followed, or its branch never moved)."""
    with contextlib.suppress(FileNotFoundError):
        _file(repo, worktree).unlink()


def entries(repo: Repository) -> list[Entry]:
    """The journal's entries (none: no interrupted update). Cheap when there is none."""
    where = folder(repo)
    try:
        names = sorted(n for n in os.listdir(where) if n.endswith(".json"))
    except OSError:
        return []
    found = []
    for name in names:
        path = where / name
        try:
            body = json.loads(path.read_text(encoding="utf-8"))
            found.append(
                Entry(body["worktree"], body["branch"], body["old"], body["new"], str(path))
            )
        except (OSError, ValueError, KeyError, TypeError):
            with contextlib.suppress(OSError):
                path.unlink()  # half written: its branch had not moved yet
    return found


def pending_for(repo: Repository, worktree: str) -> Entry | None:
    """The entry of ``worktree``, if an update of it is unfinished."""
    real = os.path.realpath(worktree)
    for entry in entries(repo):
        if os.path.realpath(entry.worktree) == real:
            return entry
    return None


def finish(repo: Repository, *, say: Callable[[str], None] | None = None) -> list[str]:
    """Finish every update the journal says was left; what was done, line by line
    (also given to ``say``). Unfinished when one needs the user (the others are done)."""
    done: list[str] = []
    problems: list[str] = []
    for entry in entries(repo):
        try:
            line = _finish_one(repo, entry)
        except Unfinished as exc:
            problems.append(exc.message)
            continue
        if line:
            done.append(line)
            if say is not None:
                say(line)
    if problems:
        raise Unfinished("; ".join(problems))
    return done


def _finish_one(repo: Repository, entry: Entry) -> str | None:
    from .. import gitio
    from ..gitio import git, refs, worktrees
    from ..gitio.objects import descends

    path = entry.worktree
    if os.path.realpath(worktrees.checkouts(repo).get(entry.branch, "")) != os.path.realpath(path):
        _drop(entry)  # the work tree is gone, or has another branch checked out
        return None
    tip = refs.target(repo, entry.branch)
    new = gitio.resolve_commit(repo, entry.new)
    if tip is None or str(tip) == entry.old:
        _drop(entry)  # the branch never moved
        return None
    if tip != new.id:
        if not descends(repo, tip, new.id):
            _drop(entry)  # moved elsewhere since (reset, another sync): nothing of ours left
            return None
        return _replay(repo, entry, tip, new)
    index_tree = git(["write-tree"], cwd=path, check=False)
    if index_tree.returncode == 0 and index_tree.stdout.strip() == str(new.tree_id):
        _drop(entry)  # the update had finished; only the journal was left
        return None
    _follow(repo, entry)
    _drop(entry)
    return (
        f"finished updating the work tree at {path} to {entry.branch} "
        f"({entry.new[:12]}): an interrupted sync had moved the branch but not its files"
    )


def _drop(entry: Entry) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(entry.file)


def _follow(repo: Repository, entry: Entry) -> None:
    """``read-tree -m -u OLD NEW`` in the work tree, taking files the interrupted update
    wrote already, merging files changed since; Unfinished when a change conflicts."""
    from ..gitio import worktrees
    from . import catchup

    path, old, new = entry.worktree, entry.old, entry.new
    if worktrees.follow(path, old, new) is None:
        return
    edited = catchup.take_written(repo, path, old, new)
    if worktrees.follow(path, old, new) is None:
        return
    if edited:
        catchup.merge_edits(repo, path, old, new, edited, branch=entry.branch)
        problem = worktrees.follow(path, old, new)
        if problem is None:
            return
    else:
        problem = worktrees.follow(path, old, new) or "read-tree failed"
    raise Unfinished(
        f"the work tree at {path} still holds the files from before an interrupted sync "
        f"moved {entry.branch} to {new[:12]}, and it cannot be updated ({problem}); "
        f"nothing was changed: move the files named aside, then run git vcontext status "
        f"to finish the update"
    )


def _replay(repo: Repository, entry: Entry, tip: Oid, new: Commit) -> str | None:
    """Commits made on the files the interrupted sync left behind: replayed on NEW."""
    from ..gitio import git, refs
    from ..gitio.cutwalk import parent_commits
    from ..gitio.objects import commit_at
    from ..prepush.undone import undone_since
    from . import catchup

    chain: list[Commit] = []
    at = commit_at(repo, tip)
    while at.id != new.id:
        parents = parent_commits(repo, at)  # none past a shallow boundary, as git sees it
        if len(parents) != 1 or len(chain) >= REPLAY_LIMIT:
            raise Unfinished(
                f"{entry.branch} has commits made after an interrupted sync moved it to "
                f"{entry.new[:12]} while its work tree at {entry.worktree} still held the "
                f"files from {entry.old[:12]} (a merge, or more than {REPLAY_LIMIT}): redo "
                f"them on those files: git reset --soft {entry.old[:12]} && git commit, "
                "then sync again"
            )
        chain.append(at)
        at = parents[0]
    chain.reverse()
    if not undone_since(repo, chain[0], commit_at(repo, entry.old), new):
        _drop(entry)  # made on the updated files (the journal outlived the update)
        return None
    replayed = catchup.replay(repo, chain, entry.old, new, branch=entry.branch)
    note(repo, entry.worktree, entry.branch, str(tip), str(replayed))
    try:
        refs.move_refs(
            repo,
            [refs.RefUpdate(refs.branch_ref(entry.branch), tip, replayed)],
            message="vcontext sync: replay commits made on the files of an interrupted sync",
        )
    except refs.RefMoved as exc:
        forget(repo, entry.worktree)
        raise Unfinished(f"{exc.message}: run git vcontext sync again") from None
    moved = Entry(entry.worktree, entry.branch, str(tip), str(replayed), entry.file)
    index_tree = git(["write-tree"], cwd=entry.worktree, check=False)
    replayed_tree = str(commit_at(repo, replayed).tree_id)
    if not (index_tree.returncode == 0 and index_tree.stdout.strip() == replayed_tree):
        _follow(repo, moved)
    _drop(moved)
    n = len(chain)
    return (
        f"{entry.branch}: {n} commit{'s' if n != 1 else ''} made on the files an interrupted "
        f"sync had left behind ({', '.join(str(c.id)[:12] for c in chain)}) replayed on top of "
        f"what it merged, as {str(replayed)[:12]} (the originals stay in the reflog)"
    )


def finish_near(path: str, *, say: Callable[[str], None] | None = None) -> list[str]:
    """``finish`` for the repository holding ``path`` (a file or folder), if any; only files
    are looked at unless a journal entry is there (cheap for commands outside a repository)."""
    from ..fsio import find_common_dir

    here = os.path.abspath(path)
    here = here if os.path.isdir(here) else os.path.dirname(here)
    while True:
        common = find_common_dir(here, {})
        if common is not None:
            break
        parent = os.path.dirname(here)
        if parent == here:
            return []
        here = parent
    try:
        if not any(n.endswith(".json") for n in os.listdir(os.path.join(common, *FOLDER))):
            return []
    except OSError:
        return []
    from ..gitio import open_repo

    return finish(open_repo(here), say=say)
