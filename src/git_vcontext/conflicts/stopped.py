"""``sync AGENT --checkout``: a pair that conflicts is left as a real stopped merge.

The conflict is the agent's work, so it stops where the agent works: the commit the agent
branch could not be merged with (its base as sync saw it — the remote's, with a remote —
or the remote's copy of the branch) is merged into ``agents/AGENT`` in the work tree where
that branch is checked out, so ``conflicts``, ``resolve`` and ``git mergetool`` apply;
``git commit --no-edit`` finishes it, and the next sync finds the base in the agent branch.

git itself starts the merge (``git merge --no-ff --no-commit``: MERGE_HEAD, MERGE_MSG,
the work tree and every ordinary file as git would have them); then each vContext
document is put the way sync decides it (M11: the agent's ``fork`` block stays, its
``parentSequence`` follows the base): a clean result written and staged, a conflict
written with markers (or structured) and left in the index as stages 1/2/3. A document
one side renamed or converted (``renames``) is merged under its new name, and its old name
leaves the merge.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..branches.commits import sync_message
from ..branches.renames import align
from ..branches.treemerge import SIDES, DocumentSides, document_result, document_wanted
from ..branches.virtualbase import base_tree
from ..errors import OperationalError
from ..fsio import write_atomic
from ..gitio import complaint, git, open_repo, worktrees
from ..gitio.diffs import tree_changes
from ..gitio.eol import to_worktree
from ..gitio.objects import commit_at
from ..gitio.operation import find_git_dir
from ..gitio.settings import merge_settings
from ..merging.files import merge_files
from ..merging.result import MergeOptions
from ..merging.textmerge import Markers
from ..record import record

if TYPE_CHECKING:
    from ..sync.syncer import PairResult, Syncer


@record
class Stopped:
    """Where the merge was left, what was merged into what, and the files that still
    conflict there."""

    worktree: str
    branch: str  # the agent branch (ours)
    merging: str  # what was merged into it (theirs), e.g. origin/main
    conflicted: tuple[str, ...]


def leave_stopped(syncer: Syncer, pair: PairResult, path: str, against: str, label: str) -> Stopped:
    """Start the merge of commit ``against`` (named ``label``) into the pair's agent branch
    in the work tree at ``path``, where that branch is checked out, clean and not busy."""
    message = sync_message(f"merge {label} into {pair.branch}", [pair.agent], ())
    started = git(
        ["merge", "--no-ff", "--no-commit", f"--message={message}", "--", against],
        cwd=path,
        check=False,
        outlive=True,  # killed meanwhile, sync leaves a stopped merge, not its files alone
    )
    if started.returncode not in (0, 1) or not (Path(_git_dir(path)) / "MERGE_HEAD").exists():
        raise OperationalError(
            f"git merge in {path}: {complaint(started.stderr, started.returncode)}"
        )
    _documents_our_way(syncer, Path(path), pair, against, label)
    return Stopped(path, pair.branch, label, tuple(worktrees.unmerged(path)))


def _git_dir(path: str) -> str:
    found = find_git_dir(path, env={})
    if found is None:
        raise OperationalError(f"{path}: not a git work tree")
    return found


def _documents_our_way(
    syncer: Syncer, top: Path, pair: PairResult, against: str, label: str
) -> None:
    """Each document that differs, as sync's engine merges it (M11 included)."""
    repo = syncer.repo
    agent_tip = syncer.tip(pair.branch)
    assert agent_tip is not None  # checked out there
    ours, theirs = commit_at(repo, agent_tip), commit_at(repo, against)
    base = base_tree(repo, ours.id, theirs.id, now=syncer.now)  # as sync merges them
    # a document one side renamed or converted is one document, under its new name only
    aligned = align(repo, base, ours.tree, theirs.tree, document_wanted(repo))
    _drop_old_names(top, [r.old for r in aligned.renames])
    sides = DocumentSides(repo, aligned.base, aligned.ours, aligned.theirs)
    favor = syncer.favor()  # it names the base's side "ours": here the base is theirs
    if favor is not None:
        favor = "theirs" if favor == "ours" else "ours"
    staged, stages = [], []
    here = open_repo(top)  # the work tree's own attributes and config (core.autocrlf)
    for change in tree_changes(aligned.ours, aligned.theirs):
        rel = change.path
        if not sides.holds_document(rel):
            continue
        result, outcome = document_result(sides, rel, now=syncer.now, favor=favor)
        if result is not None:  # the stopped merge's, as git checks files out
            write_atomic(top / rel, to_worktree(here, rel, result), force=True)
            staged.append(rel)
        elif outcome is not None:
            rendered = _rendered(sides, rel, (pair.branch, label), syncer.now, top)
            write_atomic(top / rel, to_worktree(here, rel, rendered), force=True)
            stages.append(_stage_lines(sides, rel))
    if staged:
        git(["add", "--", *staged], cwd=top)
    if stages:
        git(["update-index", "--index-info"], cwd=top, input="".join(stages))


def _drop_old_names(top: Path, paths: list[str]) -> None:
    """The old names of renamed documents leave the index (git's modify/delete conflict on
    them included) and the work tree: sync never revives them."""
    if not paths:
        return
    git(["rm", "-q", "--cached", "--ignore-unmatch", "--", *paths], cwd=top)
    for rel in paths:
        (top / rel).unlink(missing_ok=True)


def _rendered(
    sides: DocumentSides, rel: str, labels: tuple[str, str], now: str, top: Path
) -> bytes:
    """The conflicted document as the merge driver would write it in that work tree."""
    settings = merge_settings(cwd=top)
    markers = Markers(7, labels[0], "base", labels[1], settings.diff3)
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
