"""What a push sends: git's pre-push ref lines and the commits each ref update brings.

``<local ref> SP <local sha> SP <remote ref> SP <remote sha>`` per line (githooks(5)).
Commits are read with pygit2 from the object database, never the working tree.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import OperationalError
from ..filechange import FileChange
from . import config_value, open_repo, repository_error
from .diffs import tree_changes
from .objects import blob_data, is_blob
from .promisor import shallow_boundary

# pygit2 is imported inside the functions that use it (lazy): it is slow to import,
# and commands that never read a repository import this module too.
if TYPE_CHECKING:
    from pygit2 import Blob, Commit, Object, Oid, Repository, Tree

DELETE = "(delete)"


def is_zero(sha: str) -> bool:
    """The all-zero object name git uses for 'no object' (SHA-1 or SHA-256 length)."""
    return bool(sha) and set(sha) == {"0"}


@dataclass(frozen=True)
class RefUpdate:
    """One line of the pre-push input."""

    local_ref: str
    local_sha: str
    remote_ref: str
    remote_sha: str

    @property
    def is_deletion(self) -> bool:
        return self.local_ref == DELETE or is_zero(self.local_sha)

    @property
    def is_new(self) -> bool:
        return is_zero(self.remote_sha)

    @property
    def branch(self) -> str | None:
        """The remote branch this update writes (short name), None for tags and others."""
        prefix = "refs/heads/"
        return self.remote_ref[len(prefix) :] if self.remote_ref.startswith(prefix) else None


def parse_ref_lines(text: str) -> list[RefUpdate]:
    """The ref updates of a pre-push input; a malformed line is an OperationalError."""
    updates = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 4:
            raise OperationalError(
                f"pre-push input line {number} is not '<local ref> <local sha> <remote ref> "
                f"<remote sha>': {line.strip()!r}"
            )
        updates.append(RefUpdate(*parts))
    return updates


@dataclass
class PushRange:
    """The commits one ref update brings to the remote, oldest first."""

    update: RefUpdate
    commits: list[Commit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tip: Commit | None = None  # the commit the remote ref will point to
    previous: Commit | None = None  # the commit it points to now, when known here
    rewinds: bool = False  # a forced update: ``previous`` is not in the pushed history


def open_pushing_repo(cwd: str | os.PathLike[str] = ".") -> Repository:
    """The repository a hook runs in (``$GIT_DIR`` when git set it)."""
    import pygit2

    git_dir = os.environ.get("GIT_DIR")
    if git_dir:
        try:
            repo = pygit2.Repository(git_dir)
        except pygit2.GitError as exc:
            if "owned by" in str(exc):
                raise repository_error(git_dir) from None
            raise OperationalError(f"cannot open the repository at {git_dir}: {exc}") from None
        # lazy: only what a partial clone needs
        from .promisor import read_as_git

        read_as_git(repo)
        return repo
    return open_repo(cwd)


def common_dir(repo: Repository) -> Path:
    """Git's common directory (the main ``.git`` even from a linked worktree)."""
    here = Path(repo.path or "")
    pointer = here / "commondir"
    try:
        target = pointer.read_text().strip()
    except OSError:
        return here
    return (here / target).resolve()


def pushed_commits(repo: Repository, update: RefUpdate, remote: str) -> PushRange:
    """The commits ``update`` sends that the remote does not have yet, oldest first.

    Known remote sha: the commits since it. New ref (zero remote sha): the commits not
    reachable from the remote's tracking refs (any ``refs/remotes/*`` when it has none).
    A remote sha missing locally: the same, with a note saying so.
    """
    import pygit2

    pushed = PushRange(update)
    tip = _commit(repo, update.local_sha)
    if tip is None:
        pushed.notes.append(f"{update.local_ref} is not a commit: nothing to check")
        return pushed
    pushed.tip = tip
    own = _tracking_tips(repo, remote)
    hide: list[Oid] = list(own)  # what the remote had when last fetched is not news
    if not update.is_new:
        known = _commit(repo, update.remote_sha, missing_ok=True)
        if known is not None:
            hide.append(known.id)
            pushed.previous = known
            pushed.rewinds = known.id != tip.id and not _descends(repo, tip.id, known.id)
        else:
            pushed.notes.append(
                f"the remote's {update.remote_ref} ({update.remote_sha[:12]}) is not known "
                "here (fetch to update it): checked the commits since the merge base with "
                "the remote-tracking refs"
            )
    cut = shallow_boundary(repo)
    if update.is_new or not hide:
        if not own:
            hide.extend(_tracking_tips(repo, None))
        if not hide:
            whole = "as far as this shallow clone has it" if cut else "the whole history"
            pushed.notes.append(f"no remote-tracking refs: checked {whole} of {update.local_ref}")
    walker = repo.walk(tip.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    for oid in hide:
        walker.hide(oid)
    try:
        pushed.commits = list(walker)
    except pygit2.GitError as exc:
        raise OperationalError(f"cannot read the history of {update.local_ref}: {exc}") from None
    _shallow_notes(pushed, cut)
    return pushed


def _shallow_notes(pushed: PushRange, cut: frozenset[str]) -> None:
    """What a shallow clone kept the check from seeing: the parents of its boundary commits
    (a boundary commit's changes were checked as if it started the history)."""
    edge = [str(c.id)[:12] for c in pushed.commits if str(c.id) in cut]
    if edge:
        pushed.notes.append(
            f"shallow clone: the parents of {', '.join(edge)} were not fetched, so what "
            f"{'those commits' if len(edge) > 1 else 'that commit'} changed in them was NOT "
            "checked (git fetch --unshallow, then push again, checks it)"
        )


def _descends(repo: Repository, tip: Oid, ancestor: Oid) -> bool:
    """Whether ``ancestor`` is in ``tip``'s history, as git sees it (in a shallow clone,
    git's answer: libgit2 may stop at the boundary and say no)."""
    if not repo.is_shallow:
        return bool(repo.descendant_of(tip, ancestor))
    # lazy: only in a shallow clone
    from . import git

    out = git(
        ["merge-base", "--is-ancestor", "--", str(ancestor), str(tip)], cwd=repo.path, check=False
    )
    return out.returncode == 0


def _commit(repo: Repository, sha: str, *, missing_ok: bool = False) -> Commit | None:
    import pygit2

    try:
        obj = repo[sha]
    except (KeyError, ValueError):
        named = _named(repo, sha)  # the pre-commit framework may hand over a ref name
        if named is None:
            if missing_ok:
                return None
            raise OperationalError(f"object {sha} is not in this repository") from None
        obj = named
    try:
        return obj.peel(pygit2.Commit)
    except (pygit2.InvalidSpecError, ValueError, pygit2.GitError):
        return None  # a tag of a tree or a blob: no commits


def _named(repo: Repository, name: str) -> Object | None:
    import pygit2

    if all(c in "0123456789abcdef" for c in name):
        return None  # an object name, just not here
    try:
        return repo.revparse_single(name)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        return None


FETCHED = "refs/vcontext/remotes/"
"""Where ``sync --push`` keeps what it fetched of a remote (its branches, requests, lease)."""


def hooks_folder(repo: Repository) -> Path:
    """Where git runs ``repo``'s hooks from: ``core.hooksPath`` (``~`` expanded; a relative
    path from the top of the work tree, or from the git directory of a bare repository),
    else the common git directory's ``hooks``."""
    configured = config_value(repo, "core.hooksPath")
    if not configured:
        return common_dir(repo) / "hooks"
    path = Path(os.path.expanduser(configured))
    return path if path.is_absolute() else Path(repo.workdir or repo.path) / path


def fetched_namespace(repo: Repository, remote: str) -> str:
    """``refs/vcontext/remotes/<key>/`` of a remote: its name when it is a configured one,
    else a name made from its URL or path."""
    import pygit2

    if remote in repo.remotes.names() and pygit2.reference_is_valid_name(f"{FETCHED}{remote}"):
        return f"{FETCHED}{remote}/"
    digest = hashlib.sha1(remote.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{FETCHED}url-{digest}/"


def tracking_tips(repo: Repository) -> list[Oid]:
    """What every remote had when last fetched (tracking refs, what sync fetched)."""
    return _tracking_tips(repo, None)


def _tracking_tips(repo: Repository, remote: str | None) -> list[Oid]:
    """Commit ids of what ``remote`` had when last fetched (of every remote when None): its
    tracking refs, and what ``sync --push`` fetched of it."""
    import pygit2

    if remote is None:
        prefixes: tuple[str, ...] = ("refs/remotes/", FETCHED)
    else:
        prefixes = (f"refs/remotes/{remote}/", fetched_namespace(repo, remote))
    tips = []
    for name in repo.references:
        if not name.startswith(prefixes):
            continue
        try:
            target = repo.references[name].resolve().peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            continue  # a dangling symbolic ref (origin/HEAD to a pruned branch)
        tips.append(target.id)
    return tips


def changes(
    repo: Repository, parent: Commit | None, commit: Commit, wanted: Callable[[str], bool]
) -> list[FileChange]:
    """The ``wanted`` files that differ between ``parent`` (None: empty tree) and ``commit``
    (blob ids, no contents).

    Renames are found (so a moved document keeps its past), but only when a wanted
    file was added or deleted: rename detection reads contents.
    """
    old = None if parent is None else parent.tree
    found = tree_changes(old, commit.tree, wanted=wanted, renames=True, files_only=True)
    return [c for c in found if c.old_id != c.new_id or c.renamed]


def blob_bytes(repo: Repository, blob_id: str) -> bytes:
    """The content of a blob; OperationalError when the object cannot be read."""
    try:
        return blob_data(repo, blob_id)
    except (KeyError, ValueError, TypeError) as exc:
        raise OperationalError(f"cannot read object {blob_id}: {exc}") from None


def tree_blob(tree: Tree, path: str) -> Blob | None:
    """The blob at ``path`` in a tree (``.id``, ``.data``), or None (absent, or not a file)."""
    try:
        entry = tree[path]
    except KeyError:
        return None
    return entry if is_blob(entry) else None
