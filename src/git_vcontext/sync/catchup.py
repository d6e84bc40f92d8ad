"""The pieces of finishing an interrupted work-tree update (``sync/interrupted``): files
the update had written already, files someone changed since, commits made on old files."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..clock import now_rfc3339
from ..errors import Unfinished
from ..fsio import write_atomic
from ..gitio import git
from ..gitio.objects import commit_at, make_commit, raw_object
from ..record import record
from ..validation.model import command_path, command_word

if TYPE_CHECKING:
    from collections.abc import Iterator

    from pygit2 import Commit, Oid, Repository

ZERO = "0" * 40


class _Conflict:
    """A file whose changes cannot be combined."""


CONFLICT = _Conflict()


@record
class Side:
    """A file on one side: (mode, blob id), or absent (None, None)."""

    mode: str | None
    sha: str | None


ABSENT = Side(None, None)


def take_written(repo: Repository, worktree: str, old: str, new: str) -> list[str]:
    """Paths the update from ``old`` to ``new`` changes whose files already hold ``new``'s
    content while the index still has ``old``'s (written by the interrupted update): their
    index entries are set to ``new``'s. A file the update was writing when it was killed
    (gone, or a beginning of ``new``'s content) is written whole from ``new``. Returns the
    paths changed by someone (the file or the index is neither ``old``'s nor ``new``'s)."""
    paths = _changed(worktree, old, new)
    if not paths:
        return []
    was, will = _tree_sides(worktree, old, paths), _tree_sides(worktree, new, paths)
    staged = _index_sides(worktree, paths)
    files = _file_shas(worktree, paths)
    take: list[str] = []
    write: list[str] = []
    edited: list[str] = []
    for path in paths:
        o, n = was.get(path, ABSENT), will.get(path, ABSENT)
        index, file = staged.get(path, ABSENT), files.get(path)
        if index == n:
            continue
        if index == o and file == n.sha:
            take.append(path)
        elif index == o and n.sha is not None and _half_written(repo, worktree, path, n.sha):
            write.append(path)
        elif index != o or file != o.sha:
            edited.append(path)
    set_index(worktree, {p: will.get(p, ABSENT) for p in [*take, *write]})
    if write:  # from the index, as git checks files out (filters applied)
        git(["checkout-index", "-f", "-q", "--", *write], cwd=worktree)
    return edited


def _half_written(repo: Repository, worktree: str, path: str, sha: str) -> bool:
    """Whether the file is missing or holds a beginning of blob ``sha`` (cut short)."""
    data = _read(os.path.join(worktree, path))
    if data is None:
        return not os.path.lexists(os.path.join(worktree, path))
    try:
        whole = raw_object(repo, sha)
    except (KeyError, ValueError):
        return False
    return len(data) < len(whole) and whole.startswith(data)


def merge_edits(
    repo: Repository, worktree: str, old: str, new: str, paths: list[str], *, branch: str
) -> None:
    """Merge the files at ``paths`` (changed since the interrupted update) three-way: ``old``
    as the base, ``new`` as ours, the file as theirs. Each result is written to the file and
    the index takes ``new``'s entry, so the change stays a local change on top of ``new``.
    Unfinished (nothing written) when one cannot be merged."""
    merged: dict[str, bytes | None] = {}
    failed: list[str] = []
    for path in paths:
        base, ours = _blob(repo, old, path), _blob(repo, new, path)
        theirs = _read(os.path.join(worktree, path))
        result = _merge_one(repo, path, base, ours, theirs)
        if isinstance(result, _Conflict):
            failed.append(path)
        else:
            merged[path] = result
    if failed:
        names = ", ".join(failed)
        raise Unfinished(
            f"the work tree at {worktree} still holds the files from before an interrupted "
            f"sync moved {branch} to {new[:12]}, and your changes to {names} conflict with "
            f"what it merged; nothing was changed. Save your version of {names} elsewhere, "
            f"then run: git -C {command_word(worktree)} checkout HEAD -- "
            f"{' '.join(command_path(p) for p in failed)}; then any "
            "git vcontext command (e.g. git vcontext status) finishes the update; "
            "then make your change again"
        )
    sides = _tree_sides(worktree, new, list(merged))
    for path, data in merged.items():
        full = os.path.join(worktree, path)
        if data is None:
            if os.path.lexists(full):
                os.unlink(full)
            continue
        os.makedirs(os.path.dirname(full) or ".", exist_ok=True)
        write_atomic(full, data)
    set_index(worktree, {p: sides.get(p, ABSENT) for p in merged})


def _merge_one(
    repo: Repository, path: str, base: bytes | None, ours: bytes | None, theirs: bytes | None
) -> bytes | _Conflict | None:
    """The merged content (None: the file is gone), or False for a conflict."""
    from ..branches.treemerge import is_document

    if theirs == base:
        return ours
    if ours == base or theirs == ours:
        return theirs
    if ours is None or theirs is None:
        return CONFLICT  # changed on one side, deleted on the other
    if is_document(path, lambda: [ours, theirs], repo):
        from ..merging.files import merge_files

        outcome = merge_files(base, ours, theirs, path=path)
        return outcome.output if outcome.clean else CONFLICT
    return _merge_text(base or b"", ours, theirs)


def _merge_text(base: bytes, ours: bytes, theirs: bytes) -> bytes | _Conflict:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="vcontext-catchup-") as tmp:
        names = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            full = os.path.join(tmp, name)
            with open(full, "wb") as fh:
                fh.write(data)
            names.append(full)
        out = git(["merge-file", "-p", "--", *names], check=False)
        if out.returncode != 0:
            return CONFLICT
        return out.stdout.encode("utf-8", "surrogateescape")


def replay(repo: Repository, chain: list[Commit], old: str, new: Commit, *, branch: str) -> Oid:
    """Each commit of ``chain`` (oldest first; the first made on ``old``'s files though its
    parent is ``new``) again on top of ``new``: its own change, as made on the files it saw.
    Unfinished when one cannot be merged (nothing moves)."""
    from ..branches.treemerge import merge_trees

    now = now_rfc3339()
    seen = commit_at(repo, old).tree
    on = new
    for commit in chain:
        merged = merge_trees(repo, seen, on.tree, commit.tree, now=now)
        if not merged.clean or merged.tree is None:
            paths = ", ".join(c.path for c in merged.conflicts)
            short = str(commit.id)[:12]
            raise Unfinished(
                f"{branch}: commit {short} was made on the files an interrupted sync had left "
                f"behind and conflicts with what that sync merged ({paths}); nothing moved. "
                f"Redo it on those files: git reset --soft {old[:12]} && git commit -C {short}, "
                "then sync again"
            )
        made = make_commit(
            repo, merged.tree, [on.id], commit.message, commit.author, commit.committer
        )
        seen, on = commit.tree, commit_at(repo, made)
    return on.id


# -- git plumbing ---------------------------------------------------------------------------


def _changed(worktree: str, old: str, new: str) -> list[str]:
    out = git(  # revisions before "--": after --end-of-options, never read as options
        ["diff", "--name-only", "-z", "--no-renames", "--end-of-options", old, new, "--"],
        cwd=worktree,
    )
    return [p for p in out.stdout.split("\0") if p]


def _tree_sides(worktree: str, rev: str, paths: list[str]) -> dict[str, Side]:
    if not paths:
        return {}
    out = git(
        ["ls-tree", "-r", "-z", "--full-tree", "--end-of-options", rev, "--", *paths], cwd=worktree
    )
    return {path: Side(mode, sha) for (mode, _kind, sha), path in _listed(out.stdout)}


def _index_sides(worktree: str, paths: list[str]) -> dict[str, Side]:
    out = git(["ls-files", "-s", "-z", "--full-name", "--", *paths], cwd=worktree)
    return {
        path: Side(mode, sha) if stage == "0" else Side("unmerged", stage)
        for (mode, sha, stage), path in _listed(out.stdout)
    }


def _listed(stdout: str) -> Iterator[tuple[list[str], str]]:
    """The rows of git's ``-z`` listing (``ls-tree``, ``ls-files -s``): the fields before
    the tab, and the path."""
    for row in stdout.split("\0"):
        if row:
            meta, _, path = row.partition("\t")
            yield meta.split(" "), path


def _file_shas(worktree: str, paths: list[str]) -> dict[str, str | None]:
    """The blob id each file would have (git's filters applied); None: no regular file."""
    present = [p for p in paths if os.path.isfile(os.path.join(worktree, p))]
    found: dict[str, str | None] = dict.fromkeys(paths)
    if present:
        out = git(["hash-object", "--stdin-paths"], cwd=worktree, input="\n".join(present) + "\n")
        for path, sha in zip(present, out.stdout.split(), strict=False):
            found[path] = sha
    return found


def set_index(worktree: str, entries: dict[str, Side]) -> None:
    """Set (or remove, for an absent side) the index entries of ``entries``."""
    if not entries:
        return
    rows = []
    for path, side in entries.items():
        if side.sha is None:
            rows.append(f"0 {ZERO}\t{path}\0")
        else:
            rows.append(f"{side.mode} {side.sha}\t{path}\0")
    git(["update-index", "-z", "--index-info"], cwd=worktree, input="".join(rows))


def _blob(repo: Repository, rev: str, path: str) -> bytes | None:
    try:
        entry = commit_at(repo, rev).tree[path]
    except KeyError:
        return None
    data = getattr(entry, "data", None)
    return data if isinstance(data, bytes) else None


def _read(full: str) -> bytes | None:
    try:
        with open(full, "rb") as fh:
            return fh.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
