"""``git vcontext revert COMMIT…``: ``git revert`` whose documents come out right (issue 36).

git reverts a file by merging the reverted commit's parent into HEAD with the commit
as the base. Where the file did not change since the commit, git takes the parent's
version as it was, without any merge driver: the ``sequence`` goes down and the commit's
changeLog entries and playbook events vanish — history the pre-push hook refuses. Here
git does the revert (``git revert --no-commit``: every other file exactly as git
reverts it, its conflicts, its message), then each vContext document the commit changed
is written as the merge engine reverts it (``merging.revert``): the inverse of the
commit's changes written as new ones — the sequence up, a changeLog entry naming the
reverted commit, an event the commit appended deprecated rather than removed — and the
revert is committed with git's own message (``git commit``: the user's hooks run).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..branches.agents import agent_named_in_env
from ..branches.treemerge import is_document
from ..clock import now_rfc3339
from ..errors import OperationalError, UsageError
from ..fsio import write_atomic
from ..gitio import (
    complaint,
    git,
    git_at_terminal,
    git_dir,
    open_repo,
    operands,
    work_tree,
    worktrees,
)
from ..gitio.commits import head_commit
from ..gitio.diffs import tree_changes
from ..gitio.eol import to_worktree
from ..gitio.objects import blob_data, commit_at
from ..gitio.replay import committer_agent
from ..merging.files import merge_files
from ..merging.result import MergeOptions, Reverting
from ..record import record, replace

if TYPE_CHECKING:
    from pygit2 import Commit, Repository

IN_PROGRESS = {
    "MERGE_HEAD": "a merge",
    "CHERRY_PICK_HEAD": "a cherry-pick",
    "REVERT_HEAD": "a revert",
    "rebase-merge": "a rebase",
    "rebase-apply": "a rebase",
    "sequencer": "a cherry-pick or revert",
}


@record
class Reverted:
    """One commit reverted: its id, and what was written into each document."""

    commit: str
    documents: tuple[tuple[str, tuple[str, ...]], ...]  # (path, what was written)
    stopped: tuple[str, ...] = ()  # files left conflicted
    rest: tuple[str, ...] = ()  # when stopped: the commits not reached (full ids, in order)


def revert(
    revisions: Sequence[str],
    *,
    cwd: str = ".",
    commit: bool = True,
    edit: bool = False,
    mainline: int | None = None,
    say: Callable[[str], None],
) -> list[Reverted]:
    """Revert each commit of ``revisions`` (in the order given; a range newest first, as
    ``git revert`` does), one commit each unless ``commit`` is False. Stops at the first
    that conflicts, with the conflicts left for ``conflicts``/``resolve``."""
    by = committer_agent(agent_named_in_env())  # an invalid GIT_VCONTEXT_AGENT: before git runs
    repo = open_repo(cwd)
    top = work_tree(repo)
    if not top:
        raise OperationalError("git vcontext revert needs a work tree (this repository is bare)")
    _nothing_in_progress(repo)
    shas = _commits(top, revisions)
    if commit and git(["diff", "--cached", "--quiet"], cwd=top, check=False).returncode != 0:
        raise OperationalError(
            "your index holds staged changes: commit or stash them first (or revert with "
            "--no-commit to add the revert to them)"
        )
    done: list[Reverted] = []
    for n, sha in enumerate(shas):
        outcome = _revert_one(repo, top, sha, by, commit=commit, edit=edit, mainline=mainline)
        if outcome.stopped:
            outcome = replace(outcome, rest=tuple(shas[n + 1 :]))
        done.append(outcome)
        for path, lines in outcome.documents:
            for line in lines:
                say(f"{path}: {line}")
        if outcome.stopped:
            break
    return done


def _nothing_in_progress(repo: Repository) -> None:
    for name, what in IN_PROGRESS.items():
        if os.path.exists(os.path.join(git_dir(repo), name)):
            raise OperationalError(
                f"{what} is in progress: finish it or abort it first (git status says how)"
            )


def _commits(top: str, revisions: Sequence[str]) -> list[str]:
    """The full ids to revert: each revision a commit, a range expanded newest first."""
    if not revisions:
        raise UsageError("name the commit(s) to revert")
    shas: list[str] = []
    for given in revisions:
        rev = operands.revision(given, "commit")
        if ".." in rev:
            listed = git(["rev-list", "--end-of-options", rev, "--"], cwd=top, check=False)
            if listed.returncode != 0:
                raise OperationalError(f"{rev}: {complaint(listed.stderr, listed.returncode)}")
            shas += listed.stdout.split()
            continue
        found = git(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
            cwd=top,
            check=False,
        )
        if found.returncode != 0 or not found.stdout.strip():
            raise OperationalError(f"{rev}: no such commit")
        shas.append(found.stdout.strip())
    if not shas:
        raise OperationalError("nothing to revert: the range holds no commit")
    return list(dict.fromkeys(shas))


def _revert_one(
    repo: Repository,
    top: str,
    sha: str,
    by: tuple[tuple[str, str], ...],
    *,
    commit: bool,
    edit: bool,
    mainline: int | None,
) -> Reverted:
    reverted = commit_at(repo, sha)
    parent = _parent(reverted, mainline)
    head = head_commit(repo)  # HEAD before git's revert (it does not move with -n)
    if head is None:
        raise OperationalError("the current branch has no commits yet: nothing to revert onto")
    flags = ["--no-commit"] + ([f"--mainline={mainline}"] if mainline else [])
    started = git(["revert", *flags, "--end-of-options", sha], cwd=top, check=False)
    conflicted = worktrees.unmerged(top)
    if started.returncode != 0 and not conflicted:
        raise OperationalError(f"git revert: {complaint(started.stderr, started.returncode)}")
    reverting = Reverting(sha, _subject(reverted), by, now_rfc3339())
    written = _documents(
        repo, top, (parent, reverted, commit_at(repo, head)), reverting, conflicted
    )
    if conflicted:
        return Reverted(sha, written, tuple(conflicted))
    if commit and git(["diff", "--cached", "--quiet"], cwd=top, check=False).returncode == 0:
        git(["revert", "--quit"], cwd=top, check=False)  # git's stop on an empty revert
        raise OperationalError(
            f"{sha[:7]} ({_subject(reverted)}): nothing to revert: its changes are already "
            "undone here, or are only what a revert keeps (changeLog entries and playbook "
            "events are append-only, a sequence never goes down)"
        )
    if commit:
        _commit(top, edit)
    return Reverted(sha, written)


def _parent(commit: Commit, mainline: int | None) -> Commit | None:
    parents = list(commit.parents)
    if len(parents) > 1 and mainline is None:
        raise UsageError(
            f"{str(commit.id)[:7]} is a merge: say which parent is the mainline (-m 1, -m 2)"
        )
    index = (mainline or 1) - 1
    if index >= len(parents) and parents:
        raise UsageError(f"{str(commit.id)[:7]} has no parent {mainline}")
    return parents[index] if parents else None


def _subject(commit: Commit) -> str:
    return (commit.message or "").strip().split("\n", 1)[0]


def _documents(
    repo: Repository,
    top: str,
    sides: tuple[Commit | None, Commit, Commit],
    reverting: Reverting,
    conflicted: list[str],
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each document the commit changed, written as the engine reverts it (the base: the
    commit's version; ours: HEAD's; theirs: its parent's), and staged."""
    parent, reverted, head = sides
    written: list[tuple[str, tuple[str, ...]]] = []
    staged: list[str] = []
    old_tree = parent.tree if parent is not None else None
    for change in tree_changes(old_tree, reverted.tree, files_only=True):
        rel = change.path
        if rel in conflicted:
            continue  # a conflict of the driver's: resolve it (resolve merges as a revert)
        base, theirs = _blob(repo, change.new_id), _blob(repo, change.old_id)
        ours = _blob(repo, _entry_id(head, rel))
        if base is None or ours is None or theirs is None:
            continue  # added or deleted: git's revert removes or restores the file
        if not is_document(rel, lambda b=base, t=theirs: [b, t], repo):  # type: ignore[misc]
            continue
        options = MergeOptions(now=reverting.now, path=rel, replay=True, revert=reverting)
        outcome = merge_files(base, ours, theirs, path=rel, options=options)
        if not outcome.clean or outcome.result is None:
            continue  # git's (or its driver's) result stands
        write_atomic(os.path.join(top, rel), to_worktree(repo, rel, outcome.output), force=True)
        staged.append(rel)
        said = [n.message for n in outcome.result.notes if n.kind == "revert"]
        written.append((rel, tuple(said) or (f"reverted as new changes ({reverting.reason})",)))
    if staged:
        git(["add", "--", *staged], cwd=top)
    return tuple(written)


def _blob(repo: Repository, oid: str | None) -> bytes | None:
    if oid is None:
        return None
    try:
        return bytes(blob_data(repo, oid))
    except (KeyError, TypeError, ValueError):
        return None


def _entry_id(commit: Commit, rel: str) -> str | None:
    try:
        return str(commit.tree[rel].id)
    except KeyError:
        return None


def _commit(top: str, edit: bool) -> None:
    """Commit the revert with the message git prepared (``Revert "…"``, ``This reverts
    commit …``), running the user's hooks as ``git revert`` does."""
    if edit:  # the person's editor needs the terminal: git runs it, not us
        if git_at_terminal(["commit", "--quiet", "--edit"], cwd=top) != 0:
            raise OperationalError("git commit did not commit the revert (left staged)")
        return
    made = git(["commit", "--quiet", "--no-edit"], cwd=top, check=False)
    if made.returncode != 0:
        raise OperationalError(
            f"git commit: {complaint(made.stderr, made.returncode)} (the revert is left staged)"
        )
