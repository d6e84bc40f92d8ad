"""Moving branches safely: every update names the value it expects to replace (compare-and-swap)."""

from __future__ import annotations

from ..errors import OperationalError, RefLocked, RefMoved
from ..faults import step
from ..record import record
from . import locks

# pygit2 is imported inside the functions that use it (lazy): it is slow to import,
# and commands that never read a repository import this module too.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from pygit2 import Oid, Reference, Repository


__all__ = [  # with the two errors moving refs raises (defined in errors.py)
    "RefLocked",
    "RefMoved",
    "RefUpdate",
    "branch_ref",
    "branch_tip",
    "commit_of",
    "create_branch",
    "delete_ref",
    "has_branch",
    "local_branches",
    "move_refs",
    "oid_of",
    "ref_names",
    "ref_target",
    "set_ref",
    "target",
    "valid_branch_name",
]


@record
class RefUpdate:
    """Move ``name`` (full ref name) from ``old`` to ``new`` (commit ids)."""

    name: str
    old: Oid | str | None  # None: the ref must not exist
    new: Oid | str
    message: str = ""  # its reflog entry (default: the message of the whole move)


def branch_ref(branch: str) -> str:
    """The full ref name of a local branch given by its short name."""
    return branch if branch.startswith("refs/") else f"refs/heads/{branch}"


def valid_branch_name(branch: str) -> bool:
    """Whether git accepts ``branch`` (a short name) as the name of a local branch."""
    import pygit2

    return pygit2.reference_is_valid_name(f"refs/heads/{branch}")


def create_branch(repo: Repository, branch: str, commit: Oid, *, message: str) -> None:
    """Create the local ``branch`` at ``commit`` (reflog ``message``); OperationalError when
    it exists already or git cannot make it."""
    import pygit2

    try:
        repo.create_reference_direct(f"refs/heads/{branch}", commit, False, message=message)
    except pygit2.AlreadyExistsError:
        raise OperationalError(f"a branch named '{branch}' already exists") from None
    except (pygit2.GitError, OSError) as exc:  # e.g. agents/a next to agents/a/b
        raise OperationalError(f"cannot create branch '{branch}': {exc}") from None


def target(repo: Repository, name: str) -> Oid | None:
    """The commit id a direct reference points at now (read from disk), or None."""
    ref = repo.references.get(branch_ref(name))
    return None if ref is None else oid_of(ref.resolve())


def commit_of(repo: Repository, name: str) -> Oid | None:
    """What the reference ``name`` (a full name) points at, through symbolic references;
    None when there is no such reference or it leads nowhere."""
    import pygit2

    ref = repo.references.get(name)
    if ref is None:
        return None
    try:
        return oid_of(ref.resolve())
    except (KeyError, TypeError, ValueError, pygit2.GitError):
        return None


def oid_of(ref: Reference) -> Oid:
    """The object id a direct reference points at (TypeError for a symbolic reference)."""
    import pygit2

    found = ref.target
    if not isinstance(found, pygit2.Oid):
        raise TypeError(f"{ref.name} is a symbolic reference (to {found})")
    return found


def local_branches(repo: Repository) -> list[str]:
    """The short names of the local branches."""
    return list(repo.branches.local)


def has_branch(repo: Repository, branch: str) -> bool:
    """Whether the local branch ``branch`` (short name) exists."""
    return repo.branches.local.get(branch) is not None


def ref_names(repo: Repository, prefix: str) -> list[str]:
    """The full names of the refs under ``prefix``, in the repository's order."""
    return [name for name in repo.references if name.startswith(prefix)]


def ref_exists(repo: Repository, name: str) -> bool:
    """Whether the repository has the ref ``name`` (whatever it points at)."""
    return name in repo.references


def ref_target(repo: Repository, name: str) -> Oid | None:
    """The commit a ref points to (a symbolic one followed); None when it does not exist."""
    ref = repo.references.get(name)
    return None if ref is None else oid_of(ref)


def branch_tip(repo: Repository, branch: str) -> Oid:
    """The commit id the local ``branch`` points at (KeyError when there is no such branch)."""
    return oid_of(repo.branches.local[branch])


def move_refs(repo: Repository, updates: Sequence[RefUpdate], *, message: str) -> None:
    """Apply all ``updates`` or none: each ref is locked, checked against its ``old`` value, moved.

    Raises RefMoved when a ref no longer holds its ``old`` value; no ref is moved then.
    A ref locked by another process is waited for (``gitio.locks``); a lock file left by
    a killed process is removed when the ref is one only sync writes (``refs/vcontext/``),
    else RefLocked names it with what to do.
    """
    import pygit2

    if not updates:
        return
    step("move refs")  # a kill point of the fault-injection tests
    names = ", ".join(_short(u.name) for u in updates)
    for attempt in range(3):
        try:
            _transaction(repo, updates, message)
            return
        except (pygit2.GitError, OSError) as exc:  # (libgit2's OS errors: OSError)
            lock = locks.named_lock(str(exc))
            if lock is None:
                raise RefMoved(f"could not update {names}: {exc}") from None
            common = _common(repo)
            if attempt < 2 and locks.settle(lock, common):
                continue  # gone, or stale and ours (removed): again
            left = _other_locks(lock, updates, common)
            also = "".join(f"; and {locks.removal(p)}" for p in left)
            raise RefLocked(
                f"could not update {names}: {locks.advice(lock)}{also}",
                lock_files=(lock, *left),
            ) from None


def _other_locks(lock: str, updates: Sequence[RefUpdate], common: str) -> list[str]:
    """Lock files of the other refs of ``updates`` that stay too (next to ``lock``)."""
    import os

    root = locks.common_of(lock, [u.name for u in updates])
    if root is None:
        return []
    others = [os.path.join(root, *v.name.split("/")) + ".lock" for v in updates]
    return [p for p in others if p != lock and not locks.settle(p, common)]


def _common(repo: Repository) -> str:
    from .places import common_dir

    return str(common_dir(repo))


def _transaction(repo: Repository, updates: Sequence[RefUpdate], message: str) -> None:
    """Lock, check and move the refs; the locks claimed as this process's while held
    (``locks.claim``: killed with them held, the next sync proves them stale)."""
    import os

    from .places import common_dir

    claimed = None
    try:
        with repo.transaction() as txn:
            for u in updates:
                txn.lock_ref(u.name)
            common = str(common_dir(repo))
            held = [
                os.path.join(common, *u.name.split("/")) + ".lock"
                for u in updates
                if _shared(u.name)  # (a work tree's own ref: its lock is elsewhere)
            ]
            claimed = locks.claim(common, held)
            step("refs locked")  # a kill point: killed here, the locks stay behind
            for u in updates:
                now = target(repo, u.name)
                if now != u.old:
                    raise RefMoved(f"{_short(u.name)} moved while syncing (now {str(now)[:12]})")
                # reflog: the repo's identity, the update's own message or the move's
                txn.set_target(u.name, u.new, message=u.message or message)
    finally:
        locks.release(claimed)  # (committed or let go: the lock files are gone)


_OWN_REFS = ("refs/bisect/", "refs/worktree/", "refs/rewritten/")
"""Refs each work tree has of its own (git's and libgit2's ``is_per_worktree_ref``)."""


def _shared(name: str) -> bool:
    """Whether ref ``name`` is the repository's, its lock in the git common directory (not
    a work tree's own, nor a pseudo-ref such as ``HEAD``, locked in the work tree's git
    folder: the common folder's file of that name is another work tree's)."""
    return name.startswith("refs/") and not name.startswith(_OWN_REFS)


def set_ref(repo: Repository, name: str, oid: Oid) -> None:
    """Point ``name`` at ``oid`` whatever it held (what was fetched; a stale lock of a ref
    of ours is removed first, any other is named: RefLocked)."""

    def write() -> None:
        ref = repo.references.get(name)
        if ref is None or ref.target != oid:
            repo.references.create(name, oid, force=True)

    _unlocked(repo, write, f"could not update {name}")


class _Moved(Exception):
    """The ref no longer holds the value read: the transaction is let go, nothing moved."""


def set_ref_from(repo: Repository, name: str, old: Oid | None, new: Oid, *, message: str) -> bool:
    """Point ``name`` at ``new`` only while it holds ``old`` (None: absent), checked under
    its lock (compare-and-swap, as git's fetch updates a ref from the value it read).
    False, nothing moved: it holds another value now (that writer's value stands). A lock
    file in its way is waited for, or removed, as ``set_ref``'s (``locks.settle``); one
    that stays: RefLocked, naming it."""
    import pygit2

    def write() -> None:
        with repo.transaction() as txn:
            txn.lock_ref(name)
            ref = repo.references.get(name)
            if (None if ref is None else ref.target) != old:
                raise _Moved
            txn.set_target(name, new, message=message)

    try:
        _unlocked(repo, write, f"could not update {name}")
    except (_Moved, pygit2.GitError, OSError):
        return False
    return True


def delete_ref(repo: Repository, name: str) -> None:
    """Delete ``name`` if it is there (locks as ``set_ref``)."""

    def delete() -> None:
        ref = repo.references.get(name)
        if ref is not None:
            ref.delete()

    _unlocked(repo, delete, f"could not delete {name}")


def _unlocked(repo: Repository, action: Callable[[], None], what: str) -> None:
    """``action()``, again after a lock file in its way went (``locks.settle``)."""
    import pygit2

    for attempt in range(3):
        try:
            action()
            return
        except (pygit2.GitError, OSError) as exc:  # (libgit2's OS errors: OSError)
            lock = locks.named_lock(str(exc))
            if lock is None:
                raise
            if attempt == 2 or not locks.settle(lock, _common(repo)):
                raise RefLocked(f"{what}: {locks.advice(lock)}", lock_files=(lock,)) from None


def _short(name: str) -> str:
    return name.removeprefix("refs/heads/")


def remote_branches(repo: Repository, prefix: str) -> list[tuple[str, str, Oid]]:
    """(remote, branch, commit) of each remote-tracking branch ``refs/remotes/REMOTE/BRANCH``
    of a configured remote whose BRANCH starts with ``prefix`` (as last fetched)."""
    import pygit2

    try:
        remotes = sorted((name for name in repo.remotes.names() if name), key=len, reverse=True)
    except pygit2.GitError:
        return []
    names = [n for n in repo.references if n.startswith("refs/remotes/")]
    found: list[tuple[str, str, Oid]] = []
    seen: set[str] = set()
    for remote in remotes:  # the longest first: a remote "a/b" before a remote "a"
        start = f"refs/remotes/{remote}/"
        for name in names:
            if not name.startswith(start + prefix) or name in seen:
                continue
            seen.add(name)
            oid = commit_of(repo, name)
            if oid is not None:
                found.append((remote, name.removeprefix(start), oid))
    return sorted(found, key=lambda f: (f[1], f[0]))


def remote_copy(repo: Repository, base: str) -> str | None:
    """The remote's copy of ``base`` as last fetched (``origin/main``): the base's upstream,
    else the one remote-tracking branch of that name (``origin``'s among several); None
    when no remote has it (a repository with no remote: the local base is the base)."""
    import pygit2

    try:
        local = repo.branches.local.get(base)
        upstream = None if local is None else local.upstream
    except (KeyError, ValueError, pygit2.GitError):
        upstream = None
    if upstream is not None and upstream.name.startswith("refs/remotes/"):
        return str(upstream.shorthand)
    remotes = [remote for remote, name, _ in remote_branches(repo, base) if name == base]
    if len(remotes) == 1 or "origin" in remotes:
        return f"{remotes[0] if len(remotes) == 1 else 'origin'}/{base}"
    return None


def track(repo: Repository, branch: str, remote: str, commit: Oid, *, message: str) -> None:
    """Create the local ``branch`` at ``commit`` tracking ``remote``'s branch of that name,
    as ``git switch BRANCH`` does for a branch only a remote has (``branch.BRANCH.remote``,
    ``branch.BRANCH.merge``)."""
    create_branch(repo, branch, commit, message=message)
    set_upstream(repo, branch, remote)


def set_upstream(repo: Repository, branch: str, remote: str) -> None:
    """Make ``remote``'s branch of the same name ``branch``'s upstream, as ``git push -u``
    and ``git branch --set-upstream-to`` write it (``branch.BRANCH.remote``, ``.merge``)."""
    from . import config_written

    repo.config[f"branch.{branch}.remote"] = remote
    repo.config[f"branch.{branch}.merge"] = branch_ref(branch)
    config_written()
