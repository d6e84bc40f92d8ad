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
    from collections.abc import Callable, Mapping

    from pygit2 import Oid, Signature

    from .pusher import Pusher
    from .view import RemoteView, Snapshot

POLL = (0.1, 2.0)  # first and longest pause between two looks at a held lease: the pause
# grows by half each time, so a long integration costs its waiters a few polls, not hundreds
PUSHES_PER_INTEGRATION = 2.5  # an integration takes its lease push, merges, pushes the round:
# over git the first look waits about that many of our own pushes (see LeaseKeeper.first_pause)


class LeaseKeeper:
    """Our hold on one base's lease (``held``: the lease commit while we have it)."""

    def __init__(self, pusher: Pusher, view: RemoteView, holder: str, seconds: float) -> None:
        self.pusher, self.view, self.holder, self.seconds = pusher, view, holder, seconds
        self.held: Oid | None = None
        self.tried: Oid | None = None  # the lease commit we last pushed
        self.waited = 0.0
        self.said_waiting = False
        self.remote_locks = RemoteLocks()

    @property
    def ref(self) -> str:
        return leases.lease_ref(self.view.base)

    def ours(self, snap: Snapshot) -> bool:
        """Whether the lease the remote shows is ours: held, or pushed by a push whose answer
        we did not get (its connection dropped after the remote took it)."""
        if snap.lease_id is None or snap.lease_id not in (self.held, self.tried):
            return False
        self.held = snap.lease_id
        return True

    def free(self, snap: Snapshot, now: float) -> bool:
        """Whether we may take the lease: nobody holds it, or its holder may not keep it."""
        return snap.lease_id is None or leases.breakable(snap.lease, self.where(), now)

    def acquire(
        self,
        snap: Snapshot,
        signature: Signature,
        now: float,
        publish: list[remotes.Update] | None = None,
        known: Mapping[str, Oid | str | None] | None = None,
    ) -> tuple[bool, remotes.Pushed | None]:
        """Take the lease unless someone holds it (and may keep it): (whether it is ours, the
        rows of ``publish`` when they went in the same push).

        A remote on this machine that allows it (``LocalRemote.may_write_refs``) has its
        lease ref swapped in process (``publish`` is left to the caller); any other gets a
        compare-and-swap push, with ``publish`` in it (one round trip: the request is out
        whether the lease is won or not)."""
        if self.ours(snap):
            return True, None
        if not self.free(snap, now):
            return False, None
        lease = leases.mine(self.holder, self.where(), self.seconds, now)
        expect = "" if snap.lease_id is None else str(snap.lease_id)
        local = self.view.local
        if local is not None and local.may_write_refs():  # a compare-and-swap, no push
            self.held = local.swap(self.ref, expect or None, lease.message(), signature)
            return self.held is not None, None
        commit = self.pusher.lease_commit(lease, signature)
        self.tried = commit
        update = remotes.Update(str(commit), self.ref, expect=expect)
        pushed = self.pusher.push_with(list(publish or []), [update], known=known)
        rows = [row for row in pushed.rows if row.ref == self.ref]
        others = remotes.Pushed(
            tuple(row for row in pushed.rows if row.ref != self.ref), False, pushed.said
        )
        if not rows:  # the publish was refused first: the lease was not tried
            return False, others
        if rows[0].ok:
            self.held = commit
            return True, others if publish else None
        lost = remotes.Pushed(tuple(rows), True, pushed.said)
        if not rows[0].retry:
            hint = " (vcontext.syncLease=false integrates without a lease)"
            raise PushRefused(refusal(lost, self.pusher.remote, hint))
        if stuck := self.remote_locks.stuck(lost, now):
            raise PushRefused(refusal(lost, self.pusher.remote) + f"\n  {stuck}")
        return False, others if publish else None  # someone was quicker

    def wait(
        self,
        snap: Snapshot,
        ours: int,
        until: float,
        clock: Callable[[], float],
        sleep: Callable[[float], None],
        report: Callable[[str], None],
        *,
        lost: bool = False,
    ) -> None:
        """Until one of our ``ours`` requests is gone (merged), or the lease is free, or the
        lease we watch has expired. Each look reads two refs (in process for a remote on this
        machine, else one ``git ls-remote``; no objects): waiting agents do not fetch every
        time the base moves, only when it concerns them. ``lost``: another agent's lease push
        landed just before ours, so ``snap`` does not show that lease yet: the first look
        finds it (it lasts a lease's time at most)."""
        start = clock()
        where = f"{self.pusher.remote} {self.view.base}"
        if not self.said_waiting and snap.lease is not None:
            held = snap.lease.describe(start)
            report(f"{where}: the integration lease is {held}: waiting")
            self.said_waiting = True
        elif not self.said_waiting and lost:
            report(f"{where}: another agent took the integration lease first: waiting")
            self.said_waiting = True
        lease = _hex(snap.lease_id)
        expires = snap.lease.expires if snap.lease is not None else start
        if lost and lease is None:
            lease, expires = "(not seen yet)", start + self.seconds
        pause = self.first_pause()
        while clock() < until and lease is not None and clock() < expires:
            sleep(pause * random.uniform(0.7, 1.3))
            now_lease, now_ours = self.view.poll()
            if now_ours < ours or now_lease is None:
                break
            if now_lease != lease:  # another holder: give it its own lease time
                lease, expires = now_lease, clock() + self.seconds
            pause = min(pause * 1.5, POLL[1])
        self.waited += clock() - start

    def first_pause(self) -> float:
        """How long to wait before the first look at a held lease. A remote on this machine
        is read in process (a look costs well under a millisecond): soon. Over git each look
        is a command and a request to the server, and the holder's integration lasts about
        ``PUSHES_PER_INTEGRATION`` pushes: looking before that is mostly a wasted look."""
        push = self.pusher.link.took.get("push") if self.pusher.link is not None else None
        if self.view.local is not None or push is None:
            return POLL[0]
        return min(POLL[1], max(POLL[0], push * PUSHES_PER_INTEGRATION))

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
