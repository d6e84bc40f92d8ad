"""What a push sends: git's pre-push ref lines and the commits each ref update brings; and
the ref updates as the receiving end's pre-receive hook reads them (``parse_receive_lines``,
here rather than in ``incoming``: the guard's light path loads no more than it needs).

``<local ref> SP <local sha> SP <remote ref> SP <remote sha>`` per line (githooks(5)).
Commits are read with pygit2 from the object database, never the working tree.
"""

from __future__ import annotations

from ..errors import OperationalError
from ..record import record

# pygit2 is imported inside the functions that use it (lazy): it is slow to import,
# and commands that never read a repository import this module too (the server's guard
# reads its ref lines with this module's RefUpdate: no dataclasses, typing or hashlib).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pygit2 import Commit, Object, Oid, Repository

DELETE = "(delete)"


def is_zero(sha: str) -> bool:
    """The all-zero object name git uses for 'no object' (SHA-1 or SHA-256 length)."""
    return bool(sha) and set(sha) == {"0"}


@record
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


class PushRange:
    """The commits one ref update brings to the remote, oldest first."""

    __slots__ = ("commits", "notes", "previous", "rewinds", "tip", "update")

    def __init__(self, update: RefUpdate) -> None:
        self.update = update
        self.commits: list[Commit] = []
        self.notes: list[str] = []
        self.tip: Commit | None = None  # the commit the remote ref will point to
        self.previous: Commit | None = None  # the commit it points to now, when known here
        self.rewinds = False  # a forced update: ``previous`` is not in the pushed history

    def __repr__(self) -> str:
        return f"PushRange({self.update!r}, {len(self.commits)} commit(s))"


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
    # lazy: only a push that reads a repository
    from .promisor import shallow_boundary

    cut = shallow_boundary(repo)
    if update.is_new or not hide:
        if not own:
            hide.extend(_tracking_tips(repo, None))
        if not hide:
            whole = "as far as this shallow clone has it" if cut else "the whole history"
            pushed.notes.append(f"no remote-tracking refs: checked {whole} of {update.local_ref}")
    from .cutwalk import walk

    walker = walk(repo, tip.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
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
    from .places import is_shallow

    if not is_shallow(repo):
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


def tracking_tips(repo: Repository) -> list[Oid]:
    """What every remote had when last fetched (tracking refs, what sync fetched)."""
    return _tracking_tips(repo, None)


def _tracking_tips(repo: Repository, remote: str | None) -> list[Oid]:
    """Commit ids of what ``remote`` had when last fetched (of every remote when None): its
    tracking refs, and what ``sync --push`` fetched of it."""
    import pygit2

    from .places import FETCHED, fetched_namespace

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


commit_of = _commit
"""The commit an object id (or a ref name) names, peeled; None for a tag of a tree or blob."""
descends = _descends
"""Whether a commit is in another's history, as git sees it (shallow clones too)."""


def parse_receive_lines(text: str) -> list[RefUpdate]:
    """The ref updates of a pre-receive input, as ``RefUpdate`` s (the pushed ref is both
    the local and the remote name); a malformed line is an OperationalError."""
    updates = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 3:
            raise OperationalError(
                f"pre-receive input line {number} is not '<old> <new> <ref>': {line.strip()!r}"
            )
        old, new, ref = parts
        updates.append(RefUpdate(ref, new, ref, old))
    return updates
