"""Holding a base's integration lease from ``sync --push``: take it with a compare-and-swap
push, wait (polling, no objects fetched) while someone else holds it, give it back."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from ..errors import OperationalError, PushRefused
from ..gitio import remote as remotes
from ..gitio.places import common_dir
from . import refs as leases
from .pusher import RemoteLocks, refusal

if TYPE_CHECKING:
    from collections.abc import Callable

    from pygit2 import Oid, Signature

    from .pusher import Pusher
    from .view import RemoteView, Snapshot

POLL = (0.1, 2.0)  # first and longest pause between two looks at a held lease: the pause
# grows by half each time, so a long integration costs its waiters a few polls, not hundreds


class LeaseKeeper:
    """Our hold on one base's lease (``held``: the lease commit while we have it)."""

    def __init__(self, pusher: Pusher, view: RemoteView, holder: str, seconds: float) -> None:
        self.pusher, self.view, self.holder, self.seconds = pusher, view, holder, seconds
        self.held: Oid | None = None
        self.waited = 0.0
        self.said_waiting = False
        self.remote_locks = RemoteLocks()

    @property
    def ref(self) -> str:
        return leases.lease_ref(self.view.base)

    def acquire(self, snap: Snapshot, signature: Signature, now: float) -> bool:
        """Take the lease unless someone holds it (and may keep it); True when ours. A remote
        on this machine that allows it (``LocalRemote.may_write_refs``) has its lease ref
        swapped in process; any other gets a compare-and-swap push."""
        where = self.where()
        if snap.lease_id is not None and snap.lease_id == self.held:
            return True
        if snap.lease_id is not None and not leases.breakable(snap.lease, where, now):
            return False
        lease = leases.mine(self.holder, where, self.seconds, now)
        expect = "" if snap.lease_id is None else str(snap.lease_id)
        local = self.view.local
        if local is not None and local.may_write_refs():  # a compare-and-swap, no push
            self.held = local.swap(self.ref, expect or None, lease.message(), signature)
            return self.held is not None
        commit = self.pusher.lease_commit(lease, signature)
        update = remotes.Update(str(commit), self.ref, expect=expect)
        pushed = self.pusher.push([update], verify=False)
        if pushed.ok:
            self.held = commit
            return True
        if pushed.refused_here or not all(row.retry for row in pushed.rows):
            hint = " (vcontext.syncLease=false integrates without a lease)"
            raise PushRefused(refusal(pushed, self.pusher.remote, hint))
        if stuck := self.remote_locks.stuck(pushed, now):
            raise PushRefused(refusal(pushed, self.pusher.remote) + f"\n  {stuck}")
        return False  # someone was quicker

    def wait(
        self,
        snap: Snapshot,
        ours: int,
        until: float,
        clock: Callable[[], float],
        sleep: Callable[[float], None],
        report: Callable[[str], None],
    ) -> None:
        """Until one of our ``ours`` requests is gone (merged), or the lease is free, or the
        lease we watch has expired. Each look reads two refs (in process for a remote on this
        machine, else one ``git ls-remote``; no objects): waiting agents do not fetch every
        time the base moves, only when it concerns them."""
        start = clock()
        if not self.said_waiting and snap.lease is not None:
            held = snap.lease.describe(start)
            where = f"{self.pusher.remote} {self.view.base}"
            report(f"{where}: the integration lease is {held}: waiting")
            self.said_waiting = True
        lease = _hex(snap.lease_id)
        expires = snap.lease.expires if snap.lease is not None else start
        pause = POLL[0]
        while clock() < until and lease is not None and clock() < expires:
            sleep(pause * random.uniform(0.7, 1.3))
            now_lease, now_ours = self.view.poll()
            if now_ours < ours or now_lease is None:
                break
            if now_lease != lease:  # another holder: give it its own lease time
                lease, expires = now_lease, clock() + self.seconds
            pause = min(pause * 1.5, POLL[1])
        self.waited += clock() - start

    def release_update(self) -> tuple[remotes.Update, Oid] | None:
        """The release, for a push that carries it (with what the ref holds now)."""
        if self.held is None:
            return None
        return remotes.Update(None, self.ref, expect=str(self.held)), self.held

    def release(self) -> None:
        """Give the lease back now (best effort: it expires anyway)."""
        if (release := self.release_update()) is None:
            return
        self.held = None
        try:
            self.pusher.push([release[0]], verify=False)
        except OperationalError:
            pass

    def where(self) -> str:
        return str(common_dir(self.pusher.repo))


def _hex(oid: Oid | None) -> str | None:
    return None if oid is None else str(oid)
