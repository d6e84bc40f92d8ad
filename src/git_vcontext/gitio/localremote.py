"""A remote that is a repository on this machine (a path or a ``file://`` URL): ``sync --push``
reads its refs and copies its objects in process instead of starting ``git ls-remote`` /
``git fetch`` and their ``upload-pack`` for every look, and takes its lease with a
compare-and-swap of the ref where nothing watches ref updates.

Agents that share one machine usually share one bare repository; a waiting agent looks
at it many times, and each ``git`` look costs processes (fetch + upload-pack + rev-list
+ pack-objects, ~60 ms of CPU and more as documents grow) where reading a ref costs well
under a millisecond and copying a round's objects a few. Pushes of content still go
through ``git push`` (the pre-push hook, the remote's receive hooks, permissions).

Only plain cases take this path: an absolute path or ``file://`` URL (after git's
``insteadOf``), no ``uploadpack`` of the remote's own, neither repository shallow, and
``vcontext.inProcessFetch`` not false. Anything else (and any remote pygit2 cannot
open) uses git.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..errors import OperationalError, RefMoved
from ..faults import step
from ..fsio import permitted
from . import config_flag, config_value, locks
from .objectcopy import TooMany, copy_commits, no_change_commit
from .places import hooks_folder, is_shallow
from .refs import RefLocked, RefUpdate, delete_ref, move_refs, oid_of, set_ref, set_ref_from

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from pygit2 import Commit, Oid, Repository, Signature

SETTING = "vcontext.inProcessFetch"
WATCHERS = (
    "pre-receive",
    "update",
    "post-receive",
    "post-update",
    "reference-transaction",
    "proc-receive",  # (git 2.29: takes over the refs receive.procReceiveRefs names)
)
"""Hooks of a remote that see ref updates: with any of them, every write goes through git."""
LOCKED = (0.01, 0.02, 0.05, 0.1, 0.0)
"""Pauses while the lease ref is locked with its value unchanged (another swap in progress);
still locked after them: the lock is stale (a killed process) or the ref cannot be written."""


class NotAccepted(Exception):
    """A ref update the remote's guard might not let in as written in process: push it."""


class LocalRemote:
    """A remote repository on this machine, read directly."""

    def __init__(self, repo: Repository, name: str, path: Path) -> None:
        self.repo, self.name, self.path = repo, name, path
        self._theirs: Repository | None = None
        self._writable: bool | None = None
        self._guarded: bool | None = None  # see may_write_leases

    @classmethod
    def find(cls, repo: Repository, remote: str) -> LocalRemote | None:
        """``remote`` (a remote's name, or a path) when it is a local repository sync may
        read directly; None: talk to it with git."""
        if not config_flag(repo, SETTING, True) or is_shallow(repo):
            return None
        configured = remote in repo.remotes.names()
        if configured and any(  # an upload-pack of its own; a remote helper (git-remote-VCS)
            config_value(repo, f"remote.{remote}.{key}") is not None
            for key in ("uploadpack", "vcs")
        ):
            return None
        url = repo.remotes[remote].url if configured else remote
        path = None if url is None else _local_path(url)
        if path is None or not path.is_dir():
            return None
        found = cls(repo, remote, path)
        try:
            shallow = is_shallow(found.theirs())
        except OperationalError:
            return None
        return None if shallow else found

    def theirs(self) -> Repository:
        """The remote repository (opened once)."""
        if self._theirs is None:
            import pygit2
            from pygit2.enums import RepositoryOpenFlag

            try:  # that directory itself, as git takes it (no search upwards)
                self._theirs = pygit2.Repository(str(self.path), RepositoryOpenFlag.NO_SEARCH)
            except (pygit2.GitError, KeyError) as exc:
                raise OperationalError(f"cannot open {self.name} ({self.path}): {exc}") from None
        return self._theirs

    def may_write_refs(self) -> bool:
        """Whether sync may write its own coordination refs (a lease) into the remote directly:
        we may write there, its files are not shared between users (core.sharedRepository,
        whose modes only git keeps), and no hook of its watches ref updates (looked at once)."""
        if self._writable is None:
            self._writable = self._may_write()
        return self._writable

    def may_write_leases(self, judged: Callable[[Repository], bool]) -> bool:
        """Whether sync may write its lease into the remote directly: as ``may_write_refs``,
        or where the only hook that sees ref updates is one ``judged`` says judges a lease
        as sync itself does (our own guard, ``setup.server.only_our_guard``), so a lease
        that passes the guard's judgement first (``remote.lease``) is what it would let in."""
        if self.may_write_refs():
            return True
        if self._guarded is None:
            self._guarded = self._plain() and judged(self.theirs())
        return self._guarded

    def _may_write(self) -> bool:
        if not self._plain():
            return False
        folder = hooks_folder(self.theirs(), receiving=True)
        return not any(permitted(folder / hook, os.X_OK) for hook in WATCHERS)

    def _plain(self) -> bool:
        """Writes go nowhere else, and its files are not shared between users."""
        if self.pushes_elsewhere():
            return False
        theirs = self.theirs()
        shared = config_value(theirs, "core.sharedRepository", given=False)  # as git's
        return shared in (None, "false", "umask", "0") and permitted(theirs.path, os.W_OK)

    def maintenance_due(self) -> bool:
        """Whether git's ``gc --auto`` would find work in the remote now: more loose objects
        than ``gc.auto`` allows (counted as git counts them, in ``objects/17``) or more packs
        than ``gc.autoPackLimit`` (git's defaults: 6700, 50). A push that finds none due asks
        the remote's ``receive-pack`` not to start it (see ``gitio.transport``)."""
        theirs = self.theirs()
        limit = _int_setting(theirs, "gc.auto", 6700)
        if limit <= 0:
            return False
        objects = Path(theirs.path) / "objects"
        try:
            loose = [n for n in os.listdir(objects / "17") if len(n) == 38]
        except OSError:
            loose = []
        if len(loose) > (limit + 255) // 256:
            return True
        packs = _int_setting(theirs, "gc.autoPackLimit", 50)
        if packs <= 0:
            return False
        try:
            names = set(os.listdir(objects / "pack"))
        except OSError:
            return False
        kept = [n for n in names if n.endswith(".pack") and n[:-5] + ".keep" not in names]
        return len(kept) > packs

    def pushes_elsewhere(self) -> bool:
        """Whether pushes to this remote may reach another repository or program than the
        one read (``pushurl``, ``pushInsteadOf``, a ``receivepack`` of its own)."""
        if self.name in self.repo.remotes.names() and any(
            config_value(self.repo, f"remote.{self.name}.{key}") is not None
            for key in ("pushurl", "receivepack")
        ):
            return True
        from .configread import matching  # (git's settings: its -c ones, its includes)

        return bool(matching(self.repo.path, r"^url\..*\.pushinsteadof$"))

    def swap(
        self,
        name: str,
        expect: str | None,
        message: str,
        signature: Signature,
        base: Oid | None = None,
        judge: Callable[[Repository, str, Commit, Oid | None], bool] | None = None,
    ) -> Oid | None:
        """Point the remote's ``name`` at a new lease commit whose message is ``message`` (on
        ``base`` with its tree, else a root commit of the empty tree: ``remote.refs``) if
        it still holds ``expect`` (None: it must not exist), all under the ref's lock; the
        commit, or None when the ref held something else (someone was quicker).
        ``judge``: whether the remote's guard would let that update in (the remote, the
        ref, the new commit, what the ref holds); NotAccepted when it says no (nothing
        written but an object no ref names: push it instead, for the guard to judge)."""
        import pygit2

        theirs = self.theirs()
        old = None if expect is None else pygit2.Oid(hex=expect)
        if self._target(name) != old:
            return None  # taken already: no commit written for a swap that cannot win
        where = f"{name} in {self.name} ({self.path})"
        try:
            commit = no_change_commit(theirs, message, signature, base)
        except (pygit2.GitError, OSError) as exc:
            raise OperationalError(f"writing {where}: {exc}") from None
        if judge is not None and not judge(theirs, name, theirs[commit].peel(pygit2.Commit), old):
            raise NotAccepted(name)
        for pause in LOCKED:
            try:
                move_refs(theirs, [RefUpdate(name, old, commit)], message=message.split("\n")[0])
                return commit
            except RefMoved as exc:
                if self._target(name) != old:
                    return None  # someone was quicker
                problem = exc.message  # locked by a swap in progress, or something worse
            time.sleep(pause)
        # still as expected, yet never written: a stale lock, permissions, a full disk
        raise OperationalError(f"writing {where}: {problem}")

    def _target(self, name: str) -> Oid | None:
        """What the remote's ``name`` points to now (None: absent or dangling)."""
        import pygit2

        try:
            ref = self.theirs().references.get(name)
            return None if ref is None else oid_of(ref.resolve())
        except (pygit2.GitError, KeyError, TypeError):
            return None

    def list_refs(self, names: list[str]) -> dict[str, str]:
        """``{ref: object id}`` of the exact ``names`` the remote has now."""

        found = {}
        for name in names:
            target = self._target(name)  # (deleted while we look, dangling: not there)
            if target is not None:
                found[name] = str(target)
        return found

    def fetch(
        self, refspecs: list[str], *, prune: bool = False, notes: list[str] | None = None
    ) -> list[str] | None:
        """Fetch ``refspecs`` (``+SRC:DST``, one ``*`` at most), as ``gitio.remote.fetch``
        does: returns the exact SRCs the remote lacks; with ``prune`` DSTs whose SRC is gone
        are deleted. The objects are copied (``objectcopy``), FETCH_HEAD is left alone.
        ``notes``: the lines about remote-tracking refs left as they were
        (``update_tracking``). None: leave it to git (a ref to a tree, a long history to
        bring over)."""
        import pygit2

        theirs = self.theirs()
        try:
            names = list(theirs.references)
            wanted: dict[str, tuple[str, Oid]] = {}  # DST -> (SRC, the object it names there)
            for spec in refspecs:
                for src, dst in expand_refspec(spec, names):
                    target = self._target(src)  # None: deleted since listed, or dangling
                    if target is not None:
                        wanted[dst] = (src, target)
            if not self._copy([oid for _, oid in wanted.values()]):
                return None
            step("set fetched refs")  # a kill point of the fault-injection tests
            if prune:
                prune_fetched(self.repo, refspecs, set(wanted))
            own = fetch_refspecs(self.repo, self.name)  # (once for the look, as git's fetch)
            for dst, (src, oid) in wanted.items():
                self._set(dst, oid)
                update_tracking(
                    self.repo, self.name, src, oid, own, notes
                )  # origin/main too, as git
        except (pygit2.GitError, OSError, KeyError) as exc:  # KeyError: an object it lacks
            raise OperationalError(f"fetching from {self.name} ({self.path}): {exc}") from None
        return lacking(refspecs, {src for src, _ in wanted.values()})

    def _set(self, name: str, oid: Oid) -> None:
        set_ref(self.repo, name, oid)

    def _copy(self, targets: list[Oid]) -> bool:
        """Bring the objects behind ``targets`` (commits, tags of commits, blobs) over; False
        when git should (anything else, or too many commits)."""
        import pygit2

        theirs = self.theirs()
        commits: list[Oid] = []
        last: list[Oid] = []  # written after the commits: tags, blobs
        for oid in targets:
            obj = theirs[oid]
            if isinstance(obj, pygit2.Tag):
                tagged = theirs.get(obj.target)
                if not isinstance(tagged, pygit2.Commit):
                    return False  # a tag of a tag, a tree or a blob
                last.append(oid)
                commits.append(tagged.id)
            elif isinstance(obj, pygit2.Commit):
                commits.append(obj.id)
            elif isinstance(obj, pygit2.Blob):
                last.append(oid)
            else:
                return False
        try:
            copy_commits(theirs, self.repo, commits)
        except TooMany:
            return False
        for oid in last:
            if oid not in self.repo:
                kind, data = theirs.odb.read(oid)
                self.repo.odb.write(kind, data)
        return True


def _int_setting(repo: Repository, key: str, default: int) -> int:
    """An integer setting of the remote ``repo`` as the ``git gc --auto`` its receive-pack
    starts reads it: without this command's ``git -c`` settings (git clears them for a
    push to a path, ``config_value``'s ``given``), as git reads a number
    (``gitvalues.git_int``: any base, a ``k``, ``m`` or ``g`` unit); ``default`` when
    unset or no number git takes."""
    from ..gitvalues import git_int

    raw = config_value(repo, key, given=False)
    number = None if raw is None else git_int(raw)
    return default if number is None else number


def _local_path(url: str) -> Path | None:
    """The directory a remote URL names on this machine (absolute paths, ``file://``)."""
    if url.startswith("file://"):
        parts = urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            return None
        return Path(unquote(parts.path))
    path = Path(url)
    return path if path.is_absolute() else None


def prune_fetched(repo: Repository, refspecs: list[str], kept: set[str]) -> None:
    """Delete the DSTs of ``refspecs`` (``+SRC:DST``) but ``kept``: those whose SRC the
    remote no longer has (a look's ``--prune``, over these refspecs alone)."""
    targets = [split_refspec(s)[1] for s in refspecs]
    for name in list(repo.references):
        if name not in kept and any(refspec_match(t, name) is not None for t in targets):
            delete_ref(repo, name)


def lacking(refspecs: list[str], present: set[str]) -> list[str]:
    """The exact SRCs of ``refspecs`` (no ``*``) not among the ``present`` ones: what the
    remote lacks."""
    exact = [split_refspec(s) for s in refspecs if "*" not in s]
    return [src for src, _ in exact if src not in present]


def fetch_refspecs(repo: Repository, remote: str) -> list[str]:
    """The named ``remote``'s own fetch refspecs, ``remote.<name>.fetch``, as git's fetch
    reads them (``configread``: this command's ``git -c`` ones, an ``includeIf`` too, which
    libgit2's ``fetch_refspecs`` miss); none for a URL or a path. Read once per look, as
    git's fetch reads them once: each read checks every file the settings came from."""
    from .configread import entries

    wanted = f"remote.{remote}.fetch"
    return [v for k, v in entries(repo.path) if k == wanted and v]


def tracking_refs(
    repo: Repository, remote: str, src: str, specs: list[str] | None = None
) -> list[tuple[str, bool]]:
    """The remote-tracking refs the named ``remote``'s own fetch refspecs (``specs``, else
    ``fetch_refspecs``) give ``src``, each with whether its refspec forces the update
    (``+``)."""
    found = []
    for spec in fetch_refspecs(repo, remote) if specs is None else specs:
        forced = spec.startswith("+")
        found += [(dst, forced) for _, dst in expand_refspec(spec, [src]) if dst]
    return found


def update_tracking(
    repo: Repository,
    remote: str,
    src: str,
    oid: Oid,
    specs: list[str] | None = None,
    notes: list[str] | None = None,
) -> None:
    """Move the remote-tracking refs of ``src`` (``tracking_refs``, of the remote's fetch
    refspecs ``specs`` when the caller read them for its whole look) to ``oid`` as git's
    fetch does: a refspec without ``+`` only fast-forwards (git refuses the rest), and a
    ref moves only from the value read here (compare-and-swap: a concurrent ``git fetch``
    that moved it on is never moved back). A ref left as it was because git's fetch would
    refuse to move it is said in ``notes``, one line each, as the look through git says it
    (``gitio.remote.fetch``): a rewritten branch under a refspec without ``+``
    (``refused_move``), a lock file in the way that stays (``locked_move``; one that goes
    within ``locks.STALE_AFTER``, or proven a killed sync's, is waited for or removed, as a
    fetch through git has it: ``refs.set_ref_from``). Neither fails the look: what sync
    fetched is in its own refs."""
    from .refs import target

    for dst, forced in tracking_refs(repo, remote, src, specs):
        try:
            old = target(repo, dst)
        except (TypeError, ValueError):  # symbolic, or no ref name: git's to update
            continue
        if old == oid:
            continue
        ahead = old is not None and _fast_forward(repo, old, oid)
        if old is not None and not forced and not ahead:
            if notes is not None:  # (git fetch: "! [rejected] (non-fast-forward)")
                notes.append(refused_move(remote, src, dst))
            continue
        # the reflog says the move as git's fetch does: a fast-forward is one under + too
        how = "storing head" if old is None else "fast-forward" if ahead else "forced-update"
        try:
            set_ref_from(repo, dst, old, oid, message=f"fetch {remote}: {how}")
        except RefLocked as exc:  # (one that went, or a killed sync's, was waited for)
            if notes is not None:
                notes.append(locked_move(remote, dst, exc.lock_files[0]))


SHOWN_PREFIXES = ("refs/heads/", "refs/tags/", "refs/remotes/")
"""What git's fetch leaves out of a ref's name in its summary lines (``shown_ref``)."""


def shown_ref(ref: str) -> str:
    """A ref's name as git's fetch shows it in its summary lines (``refs/remotes/origin/main``
    as ``origin/main``, ``refs/heads/main`` as ``main``; others in full)."""
    for prefix in SHOWN_PREFIXES:
        if ref.startswith(prefix):
            return ref[len(prefix) :]
    return ref


def full_refs(shown: str) -> list[str]:
    """The full names a ref ``shown`` in git's fetch summary may have (``shown_ref``'s
    inverse): with each prefix it leaves out, then as it is."""
    return [*(f"{p}{shown}" for p in SHOWN_PREFIXES), shown]


def refused_move(remote: str, src: str, dst: str) -> str:
    """The one line said for a remote-tracking ref ``dst`` that a fetch left where it was
    because ``remote``'s ``src`` was rewritten and the remote's fetch refspec has no ``+``:
    git's own summary line, then what it means and the command that takes the rewritten
    branch. The one text for both looks (in process and through git)."""
    from ..errors import shown_url
    from ..validation.model import command_word

    there, here = shown_ref(src), shown_ref(dst)
    take = f"git fetch {command_word(remote)} {command_word(f'+{src}:{dst}')}"
    return (
        f"git fetch {shown_url(remote)}: ! [rejected] {there} -> {here} (non-fast-forward):"
        f" {here} is left where it was, as git leaves a tracking branch whose fetch refspec"
        f" has no '+' (the remote's {there} was rewritten; {take} takes it); what sync"
        " needs was fetched"
    )


def locked_move(remote: str, dst: str, lock: str, *, pushed: bool = False) -> str:
    """The one line said for a remote-tracking ref ``dst`` a fetch (``pushed``: a push that
    landed) could not move because a lock file stays in its way (``locks.advice``: the
    file, and how to remove it safely). The one text for both looks (in process and
    through git) and the push."""
    from ..errors import shown_url

    verb, done = ("push", "the push landed") if pushed else ("fetch", "what sync needs was fetched")
    return (
        f"git {verb} {shown_url(remote)}: {shown_ref(dst)} not updated: {locks.advice(lock)};"
        f" {done}"
    )


def _fast_forward(repo: Repository, old: Oid, new: Oid) -> bool:
    """Whether the commit ``new`` (a tag: its commit) has ``old``'s commit in its history."""
    import pygit2

    try:
        before = repo[old].peel(pygit2.Commit).id
        after = repo[new].peel(pygit2.Commit).id
        return before == after or bool(repo.descendant_of(after, before))
    except (KeyError, ValueError, TypeError, pygit2.GitError):
        return False


def expand_refspec(refspec: str, names: list[str]) -> list[tuple[str, str]]:
    """(SRC, DST) of every ref among ``names`` that ``refspec`` fetches."""
    src, dst = split_refspec(refspec)
    if "*" not in src:
        return [(src, dst)] if src in names else []
    found = []
    for name in names:
        middle = refspec_match(src, name)
        if middle is not None:
            found.append((name, dst.replace("*", middle, 1)))
    return found


def refspec_match(pattern: str, name: str) -> str | None:
    """What ``*`` stands for when ``name`` matches ``pattern`` (the name itself: "")."""
    if "*" not in pattern:
        return "" if name == pattern else None
    before, _, after = pattern.partition("*")
    if len(name) < len(before) + len(after) or not (
        name.startswith(before) and name.endswith(after)
    ):
        return None
    return name[len(before) : len(name) - len(after)]


def split_refspec(refspec: str) -> tuple[str, str]:
    src, _, dst = refspec.lstrip("+").partition(":")
    return src, dst
