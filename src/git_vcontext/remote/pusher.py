"""The pushes of ``sync --push``: by commit id (local branches move only once a push landed),
checked in process first as the pre-push hook checks them: the hook finds its verdict
made, or is not started at all when it is only our shim (``setup.hooks.only_our_shim``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import OperationalError, shown_url
from ..gitio import locks
from ..gitio import remote as remotes
from ..gitio.objectcopy import no_change_commit
from ..prepush.check import prefill
from ..setup.hooks import only_our_shim

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pygit2 import Oid, Repository, Signature

    from ..codecs import ParseMemo
    from ..gitio.transport import Link
    from .refs import Lease


def refusal(pushed: remotes.Pushed, remote: str, hint: str = "") -> str:
    """A refused push in a few lines: which refs and why, then what the pre-push hook or
    the remote said (its findings, its ``remote:`` lines)."""
    failed = [row for row in pushed.rows if not row.ok]
    shown = [row for row in failed if not row.collateral] or failed
    names = ", ".join(f"{row.branch} {row.summary}" for row in shown)
    head = f"push to {shown_url(remote)} refused" + (f": {names}" if names else "") + hint
    if pushed.refused_here:
        head += " by the pre-push hook"
    return head + "".join(f"\n  {line}" for line in pushed.said)


class RemoteLocks:
    """Lock files a remote names when it rejects a push (``Unable to create '….lock': File
    exists``): another push holds the ref for a moment (retry), or a killed process left the
    file (retrying cannot help: stop, showing git's lines)."""

    def __init__(self) -> None:
        self.first_seen: dict[str, float] = {}

    def stuck(self, pushed: remotes.Pushed, now: float) -> str | None:
        """What to do about a lock that stays, or None (none named, or worth a retry). A lock
        file on this machine (a remote by path) is judged by its age; a stale one of a ref
        only sync writes is removed; elsewhere a lock named for ``STALE_AFTER`` seconds
        stays."""
        lock = locks.named_lock("\n".join(pushed.said))
        if lock is None:
            return None
        held = locks.age(lock)
        if held is not None:  # on this machine (the lock of a ref pushed: its repository's)
            if locks.settle(lock, locks.common_of(lock, [row.ref for row in pushed.rows])):
                return None
            return locks.advice(lock)
        first = self.first_seen.setdefault(lock, now)
        if now - first < locks.STALE_AFTER:
            return None
        return (
            f"{lock} on the remote has stayed locked for {now - first:.0f} s (most likely "
            "left by a git process that was killed there): if no git command is running on "
            "the remote, remove that file there"
        )


class Pusher:
    """Pushes to one remote from one repository."""

    def __init__(
        self,
        repo: Repository,
        cwd: str,
        remote: str,
        parsed: ParseMemo | None = None,
        link: Link | None = None,
    ) -> None:
        self.repo, self.cwd, self.remote = repo, cwd, remote
        self.parsed = parsed  # documents parsed so far, by content (shared with the merges)
        self.link = link  # the sync's connection (retries, a shared ssh connection)
        self._our_shim: bool | None = None  # whether the pre-push hook is only ours (once)
        # remote-tracking refs here a landed push left where they were (a lock file in
        # their way: ``remotes.push``'s notes), a line each
        self.notes: list[str] = []

    def push(
        self,
        updates: list[remotes.Update],
        *,
        known: Mapping[str, Oid | str | None] | None = None,
        verify: bool = True,
        atomic: bool = True,
    ) -> remotes.Pushed:
        """Push ``updates`` (atomically unless told). ``known``: what each ref holds on the
        remote as far as we know (the pre-push hook's input says the same when nobody moved
        it since).

        The push is checked here first, as the hook will check it; when it is clean and
        the hook is only our shim (``setup.hooks.only_our_shim``), git is told not to start
        it: it would look up the verdict just made and say yes."""
        if verify and self._skips_hook(updates, known or {}):
            verify = False
        return remotes.push(
            self.cwd, self.remote, updates, verify=verify, atomic=atomic, link=self.link,
            notes=self.notes,
        )  # fmt: skip

    def push_with(
        self,
        updates: list[remotes.Update],
        quiet: list[remotes.Update],
        *,
        known: Mapping[str, Oid | str | None] | None = None,
    ) -> remotes.Pushed:
        """``updates`` and ``quiet`` ones (refs that carry no content: a lease) in one push,
        not atomic (each ref stands or falls alone), when the pre-push hook need not run
        for ``updates``; else ``updates`` through the hook, then ``quiet`` without it. One
        row per ref either way."""
        if not updates or self._skips_hook(updates, known or {}):
            return remotes.push(
                self.cwd, self.remote, [*updates, *quiet], verify=False, atomic=False,
                link=self.link, notes=self.notes,
            )  # fmt: skip
        first = remotes.push(self.cwd, self.remote, updates, link=self.link, notes=self.notes)
        if not first.ok:
            return first
        then = remotes.push(
            self.cwd, self.remote, quiet, verify=False, link=self.link, notes=self.notes
        )
        return remotes.Pushed((*first.rows, *then.rows), False, (*first.said, *then.said))

    def _skips_hook(
        self, updates: list[remotes.Update], known: Mapping[str, Oid | str | None]
    ) -> bool:
        return self._prefill(updates, known) and self._only_our_shim()

    def _prefill(
        self, updates: list[remotes.Update], known: Mapping[str, Oid | str | None]
    ) -> bool:
        """Check the push as the hook will and record the verdict; True when it is clean (a
        failure here only means the hook checks for itself)."""
        lines = hook_lines(updates, known)
        try:
            return not prefill(self.repo, lines, self.remote, self.parsed).problems
        except OperationalError:
            return False

    def _only_our_shim(self) -> bool:
        if self._our_shim is None:
            self._our_shim = only_our_shim(self.repo)
        return self._our_shim

    def lease_commit(self, lease: Lease, signature: Signature, base: Oid | None) -> Oid:
        """A commit whose message is ``lease`` (what a lease ref points to): on ``base``
        (the base's tip on the remote as last fetched), with its tree, so that it changes no
        file; a root commit of the empty tree when there is no base (see ``remote.refs``)."""
        return no_change_commit(self.repo, lease.message(), signature, base)


def hook_lines(updates: list[remotes.Update], known: Mapping[str, Oid | str | None]) -> list[str]:
    """git's pre-push input for a push of ``updates`` (githooks(5)): ``<local ref> <local
    sha> <remote ref> <remote sha>``, a commit id standing for the local ref."""
    shas = [u.src for u in updates if u.src] + [str(v) for v in known.values() if v is not None]
    zero = "0" * (len(shas[0]) if shas else 40)
    lines = []
    for u in updates:
        old = known.get(u.dst)
        theirs = zero if old is None else str(old)
        mine = ("(delete)", zero) if u.src is None else (u.src, u.src)
        lines.append(f"{mine[0]} {mine[1]} {u.dst} {theirs}")
    return lines
