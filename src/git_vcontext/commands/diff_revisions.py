"""``git vcontext diff [REV [REV]] [--cached] [-- PATHS]``: the vContext files git sees changed."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..diffing.files import FileDiff, compare
from ..document import looks_like_vcontext, matches_file_patterns
from ..errors import OperationalError
from ..filechange import FileChange
from ..gitio import open_repo, relative_to_top, resolve_commit, revision_range
from ..gitio.diffs import attribute, changed_files, unmerged_paths

if TYPE_CHECKING:
    from pygit2 import Repository

_CANDIDATE_SUFFIXES = (".json", ".tron", ".jsonl")


def revisions(
    revs: Sequence[str], *, cached: bool, paths: Sequence[str]
) -> tuple[list[FileDiff], list[str]]:
    """Structural diffs of the changed vContext files, in git's path order, and with
    ``--cached`` the unmerged ones (a stopped merge: nothing staged to compare)."""
    repo = open_repo(os.getcwd())
    revs, paths = _split(repo, revs, paths)
    specs = [relative_to_top(repo, p) for p in paths]
    # lazy: only a path in a submodule needs it
    from . import in_submodule

    named = [(spec, shown, "") for spec, shown in zip(specs, paths, strict=True)]
    before = ["--cached"] if cached else []
    in_submodule.check(repo, "diff", named, revs=revs, before=before)
    declared = declared_paths(repo)

    def wanted(path: str) -> bool:
        return _in_specs(path, specs) and _candidate(path, declared)

    changed = changed_files(repo, revs, cached=cached, wanted=wanted)
    diffs = [compare(file) for file in changed if _is_vcontext(file, declared)]
    unmerged = [p for p in unmerged_paths(repo) if wanted(p)] if cached else []
    return diffs, unmerged


def _split(
    repo: Repository, args: Sequence[str], paths: Sequence[str]
) -> tuple[list[str], list[str]]:
    """Like git without ``--``: leading revisions, then paths that exist in the work tree."""
    revs = list(args)
    extra: list[str] = []
    while revs and not is_revision(repo, revs[-1]):
        if not os.path.exists(revs[-1]):
            raise OperationalError(f"{revs[-1]}: no such file or revision")
        extra.insert(0, revs.pop())
    return revs, [*extra, *paths]


def is_revision(repo: Repository, arg: str) -> bool:
    """Whether ``arg`` names a commit or a range of them (``A..B``, ``A...B``)."""
    try:
        if revision_range(repo, arg) is None:
            resolve_commit(repo, arg)
    except OperationalError:
        return False
    return True


def declared_paths(repo: Repository) -> Callable[[str], bool]:
    """A path git treats as a vContext file: install's patterns or ``diff``/``merge=vcontext``."""

    def declared(path: str) -> bool:
        if matches_file_patterns(path):
            return True
        return "vcontext" in (attribute(repo, path, "diff"), attribute(repo, path, "merge"))

    return declared


def _candidate(path: str, declared: Callable[[str], bool]) -> bool:
    return path.endswith(_CANDIDATE_SUFFIXES) or declared(path)


def _is_vcontext(file: FileChange, declared: Callable[[str], bool]) -> bool:
    """Declared by name or attribute, else recognised by content (an info key near the top)."""
    names = [n for n in (file.old_path, file.new_path) if n]
    if any(declared(n) for n in names):
        return True
    return any(raw is not None and looks_like_vcontext(raw) for raw in (file.old, file.new))


def _in_specs(path: str, specs: Sequence[str]) -> bool:
    """``-- PATHS``: a file, a directory prefix or a glob (repo-relative); none = everything."""
    if not specs:
        return True
    return any(
        spec in ("", ".")
        or path == spec
        or path.startswith(spec.rstrip("/") + "/")
        or fnmatch.fnmatchcase(path, spec)
        for spec in specs
    )
