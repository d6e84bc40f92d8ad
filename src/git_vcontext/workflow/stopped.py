"""``sync AGENT --checkout``: a pair that conflicts is left as a real stopped merge.

It stops in the work tree of its base, so ``conflicts``, ``resolve`` and ``git mergetool``
apply; commit, then sync.

git itself starts the merge (``git merge --no-ff --no-commit``: MERGE_HEAD, MERGE_MSG,
the work tree and every ordinary file as git would have them); then each vContext
document is put the way sync decides it (M11: no agent ``fork`` block reaches the base):
a clean result written and staged, a conflict written with markers (or structured)
and left in the index as stages 1/2/3.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import OperationalError
from ..fsio import write_atomic
from ..gitio import complaint, git, worktrees
from ..gitio.diffs import tree_changes
from ..gitio.objects import commit_at
from ..gitio.operation import current, find_git_dir
from ..gitio.settings import merge_settings
from ..merging.files import merge_files
from ..merging.result import MergeOptions
from ..merging.textmerge import Markers
from ..record import record
from .sync import _message
from .treemerge import SIDES, DocumentSides, _is_doc, document_result
from .virtualbase import base_tree

if TYPE_CHECKING:
    from .sync import PairResult, Syncer


@record
class Stopped:
    """Where the merge was left, and the files that still conflict there."""

    worktree: str
    conflicted: tuple[str, ...]


def leave_stopped(syncer: Syncer, pair: PairResult) -> Stopped:
    """Start the merge of the pair's agent branch into its base in the base's work tree."""
    path = syncer.checkouts().get(pair.base)
    if path is None:
        raise OperationalError(
            f"{pair.base} is not checked out in any work tree: check it out "
            f"(git switch {pair.base}), then run sync {pair.agent} --checkout again"
        )
    _check_free(path, pair.base)
    agent_tip = str(syncer.tip(pair.branch))

    message = _message(f"merge {pair.branch} into {pair.base}", [pair.agent], ())
    started = git(
        ["merge", "--no-ff", "--no-commit", f"--message={message}", "--", agent_tip],
        cwd=path,
        check=False,
    )
    if started.returncode not in (0, 1) or not (Path(_git_dir(path)) / "MERGE_HEAD").exists():
        raise OperationalError(
            f"git merge in {path}: {complaint(started.stderr, started.returncode)}"
        )
    _documents_our_way(syncer, Path(path), pair, agent_tip)
    unmerged = git(["diff", "--name-only", "--diff-filter=U", "-z"], cwd=path).stdout
    return Stopped(path, tuple(sorted(filter(None, unmerged.split("\0")))))


def _check_free(path: str, base: str) -> None:
    changed = worktrees.local_changes(path)
    if changed:
        raise OperationalError(
            f"{base} is checked out in {path} with local changes ({', '.join(changed[:3])}): "
            "commit or stash them, then sync --checkout again"
        )
    if current(_git_dir(path)).kind is not None:
        raise OperationalError(f"{path} is in the middle of a merge, rebase or cherry-pick already")


def _git_dir(path: str) -> str:
    found = find_git_dir(path, env={})
    if found is None:
        raise OperationalError(f"{path}: not a git work tree")
    return found


def _documents_our_way(syncer: Syncer, top: Path, pair: PairResult, agent_tip: str) -> None:
    """Each document that differs, as sync's engine merges it (M11 included)."""
    repo = syncer.repo
    base_tip = syncer.tip(pair.base)
    assert base_tip is not None  # checked out in a work tree (leave_stopped)
    ours, theirs = commit_at(repo, base_tip), commit_at(repo, agent_tip)
    base = base_tree(repo, ours.id, theirs.id, now=syncer.now)  # as sync merges them
    sides = DocumentSides(repo, base, ours.tree, theirs.tree)
    staged, stages = [], []
    for change in tree_changes(ours.tree, theirs.tree):
        rel = change.path
        if not _is_doc(sides, rel):
            continue
        result, outcome = document_result(sides, rel, now=syncer.now, favor=syncer.favor())
        if result is not None:
            write_atomic(top / rel, result, force=True)  # the stopped merge's, as git's
            staged.append(rel)
        elif outcome is not None:
            write_atomic(top / rel, _rendered(sides, rel, pair, syncer.now, top), force=True)
            stages.append(_stage_lines(sides, rel))
    if staged:
        git(["add", "--", *staged], cwd=top)
    if stages:
        git(["update-index", "--index-info"], cwd=top, input="".join(stages))


def _rendered(sides: DocumentSides, rel: str, pair: PairResult, now: str, top: Path) -> bytes:
    """The conflicted document as the merge driver would write it in that work tree."""
    settings = merge_settings(cwd=top)
    markers = Markers(7, pair.base, "base", pair.branch, settings.diff3)
    b, o, t = (sides.data(side, rel) for side in SIDES)
    assert o is not None and t is not None  # the engine merged it: both sides have it
    outcome = merge_files(
        b,
        o,
        t,
        path=rel,
        options=MergeOptions(now=now, path=rel),
        markers=markers,
        structured=settings.structured,
    )
    return outcome.output


def _stage_lines(sides: DocumentSides, rel: str) -> str:
    """``git update-index --index-info`` input: no stage 0, then stages 1, 2 and 3."""
    entries = [sides.entry(side, rel) for side in SIDES]
    width = len(str(next(e.id for e in entries if e is not None)))
    lines = [f"0 {'0' * width}\t{rel}\n"]
    for stage, entry in enumerate(entries, start=1):
        if entry is not None:
            lines.append(f"{entry.filemode:o} {entry.id} {stage}\t{rel}\n")
    return "".join(lines)
