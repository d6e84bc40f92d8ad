"""What the remote had before a push: the tip a ref update replaces, even when the ref was
deleted first, and the routing of the files the remote already has.

- A push that creates a ref git reports as new (the remote has no such ref) may be a
  branch deleted and pushed again, rewritten (``git push origin :b`` then ``git push
  origin b``): the hook compares it with what the remote had before the deletion, when
  that is known: a deletion of the same ref in the same push, the remote-tracking ref
  (someone else deleted it; this clone still has ``origin/b``), or a deletion this
  clone's hook saw earlier (kept in ``<git dir>/vcontext/deleted-refs.json``).
- The routing floor: a commit the remote has whose ``.gitattributes`` also decides which
  files are checked (PRODUCT.md "Validation": the stricter of the commit's routing and
  the remote's): the ref's old tip, else that predecessor, else the remote's default
  branch as last fetched.
"""

from __future__ import annotations

import os

from ..gitio.outgoing import is_zero
from ..jsoncodec import dumps, loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from pygit2 import Commit, Repository

    from ..gitio.outgoing import PushRange, RefUpdate

RECORD = ("vcontext", "deleted-refs.json")
KEEP = 200  # deletions a clone remembers per remote at most (the guard: no limit, see below)


def remember_deletions(
    repo: Repository,
    remote: str,
    updates: list[RefUpdate],
    *,
    keep: bool = True,
    limit: int | None = KEEP,
) -> dict[str, str]:
    """Note the tips this push deletes; every deletion known for ``remote`` (this push's
    and earlier ones), ``{remote ref: sha}``. A ref the remote has again is forgotten.
    ``keep=False``: only say what is known, write nothing (the guard keeps a push's
    deletions once it lets the push in: a refused push leaves no trace). ``limit``: how
    many deletions are kept at most (None: all, the guard's, see ``remember_deletions_in``)."""
    from ..gitio.places import common_dir  # lazy: the guard's light path opens no repository

    exists = None
    if limit is None:  # the guard, in the repository the refs are in
        from ..gitio.refs import ref_exists

        def exists(ref: str) -> bool:
            return ref_exists(repo, ref)

    common = str(common_dir(repo))
    return remember_deletions_in(common, remote, updates, keep=keep, limit=limit, exists=exists)


def remember_deletions_in(
    common: str,
    remote: str,
    updates: list[RefUpdate],
    *,
    keep: bool = True,
    limit: int | None = KEEP,
    exists: Callable[[str], bool] | None = None,
) -> dict[str, str]:
    """``remember_deletions`` in the repository whose git common dir is ``common`` (the
    guard's light path opens no repository).

    The guard (``limit=None``) evicts nothing: a pusher who deletes many refs of its own
    must not push out the deletion a re-created branch is compared with (the record grows
    by one entry per ref name deleted, each a ref the pusher could have kept instead). The
    guard writes before git moves the refs, so an entry may name a deletion git then did
    not make (a refused transaction): it is only ever read for a ref that is absent
    (a ref created), and ``exists`` (the refs there now) drops such entries at the next
    write, this push's own deletions aside."""
    path = os.path.join(common, *RECORD)
    now = {u.remote_ref: u.remote_sha for u in updates if u.is_deletion}
    now = {ref: sha for ref, sha in now.items() if not is_zero(sha)}
    back = [u.remote_ref for u in updates if not u.is_deletion and not u.is_new]

    def apply(record: dict[str, dict[str, str]]) -> tuple[dict[str, str], bool]:
        known = record.setdefault(remote, {})
        stale = [] if exists is None else [r for r in known if r not in now and exists(r)]
        if not (now or stale or any(ref in known for ref in back)):
            return known, False
        for ref in [*now, *back, *stale]:
            known.pop(ref, None)
        known.update(now)
        while limit is not None and len(known) > limit:
            known.pop(next(iter(known)))
        return known, True

    known, changed = apply(_load(path))
    if changed and keep:  # again under the lock: two pushes at once lose neither's deletions
        lock = _Lock(path)
        try:
            record = _load(path)
            known, _ = apply(record)
            _save(path, record)
        finally:
            lock.release()
    return {**known, **now}


class _Lock:
    """An exclusive lock on the record while it is read and written (flock on a file beside
    it; none where there is no flock)."""

    def __init__(self, path: str) -> None:
        self.fd = -1
        try:
            import fcntl

            os.makedirs(os.path.dirname(path), exist_ok=True)
            self.fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except (ImportError, OSError):  # no lock: the write itself stays whole
            self.release()

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # releases the flock
            self.fd = -1


def predecessor(
    repo: Repository,
    pushed: PushRange,
    remote: str,
    deleted: dict[str, str],
    *,
    tracking: bool = True,
) -> Commit | None:
    """What the remote had under a ref this push creates (see the module), if known here.
    ``tracking=False`` (the guard): no remote-tracking ref counts (in the bare repository a
    pusher could write one, to name its own rewritten tip as the old one)."""
    update = pushed.update
    if not update.is_new:
        return None
    candidates = [deleted.get(update.remote_ref)]
    if update.branch is not None and tracking:
        candidates.insert(0, _tracking(repo, remote, update.branch))
    for sha in candidates:
        if sha and (found := _commit(repo, sha)) is not None:
            return found
    return None


def compare_with(pushed: PushRange, previous: Commit, repo: Repository) -> None:
    """Judge ``pushed`` as an update from ``previous`` (a forced one when it is not in the
    pushed history)."""
    from ..gitio.objects import descends  # lazy: the guard's light path opens no repository

    tip = pushed.tip
    if tip is None or pushed.previous is not None:
        return
    pushed.previous = previous
    pushed.rewinds = previous.id != tip.id and not descends(repo, tip.id, previous.id)


def routing_floor(repo: Repository, pushed: PushRange, remote: str) -> str | None:
    """A commit the remote has whose routing counts as well (None: none known here)."""
    if pushed.previous is not None:
        return str(pushed.previous.id)
    for name in (f"refs/remotes/{remote}/HEAD", f"refs/remotes/{remote}/main"):
        sha = _resolve(repo, name)
        if sha is not None:
            return sha
    return None


def _tracking(repo: Repository, remote: str, branch: str) -> str | None:
    return _resolve(repo, f"refs/remotes/{remote}/{branch}")


def _resolve(repo: Repository, name: str) -> str | None:
    from ..gitio.objects import commit_named  # lazy: the guard's light path opens no repository

    found = commit_named(repo, name)
    return None if found is None else str(found.id)


def _commit(repo: Repository, sha: str) -> Commit | None:
    from ..gitio.objects import commit_named  # lazy: the guard's light path opens no repository

    return commit_named(repo, sha)


def remembered(common: str, remote: str) -> dict[str, str] | None:
    """The deleted tips known for ``remote`` in the repository whose git common dir is
    ``common`` (the guard's, under ``(server)``); None when the record is there but cannot
    be read for certain (then the guard's light paths leave the push to the full check)."""
    try:
        with open(os.path.join(common, *RECORD), encoding="utf-8") as fh:
            data = loads(fh.read())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError):
        return None
    refs = data.get(remote, {}) if isinstance(data, dict) else None
    if not isinstance(refs, dict):
        return None
    return {str(k): str(v) for k, v in refs.items()}


def _load(path: str) -> dict[str, dict[str, str]]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = loads(fh.read())
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        str(remote): {str(k): str(v) for k, v in refs.items()}
        for remote, refs in data.items()
        if isinstance(refs, dict)
    }


def _save(path: str, record: dict[str, dict[str, str]]) -> None:
    """Replace the record whole (``fsio.write_atomic``: its temporary named by pid and start
    time), and remove what a killed writer left beside it (``remove_stale_temporaries``)."""
    from ..errors import OperationalError  # lazy: only a push that deletes refs writes
    from ..fsio import remove_stale_temporaries, write_atomic

    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, exist_ok=True)
        write_atomic(path, dumps(record).encode("utf-8"), force=True)
    except (OSError, OperationalError):  # a record we cannot keep only weakens a later check
        return
    remove_stale_temporaries(folder)
