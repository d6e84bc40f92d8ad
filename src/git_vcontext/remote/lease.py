"""Holding a base's integration lease from ``sync --push``: take it with a compare-and-swap
push, wait while someone else holds it (looking when its ``Landing`` says), give it back."""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

from ..errors import OperationalError, PushRefused, shown_url
from ..gitio import remote as remotes
from ..gitio.localremote import NotAccepted
from ..gitio.places import common_dir
from ..setup.server import only_our_guard
from . import refs as leases
from .pusher import RemoteLocks, refusal

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

    from pygit2 import Commit, Oid, Repository, Signature

    from .pusher import Pusher
    from .view import RemoteView, Snapshot

POLL = (0.1, 2.0)  # first and longest pause between two looks at a held lease: the pause
# grows by half each time, so a long integration costs its waiters a few polls, not hundreds
PUSHES_PER_INTEGRATION = 2.5  # an integration takes its lease push, merges, pushes the round:
# over git, a lease that does not say when it lands is first looked at after about that many
# of our own pushes (see LeaseKeeper.first_pause)
MERGE_SHARE = 0.1  # each other agent's request merged costs about this share of our own work
# (over HTTP, 8 agents: integrations of 0 to 6 requests all took 0.5-2.5 s, their round
# trips, not their merges, the most of it)
LANDING_SLACK = 0.5  # a holder says it lands this share later than it expects (a loaded
# machine makes it late, and a waiter that looks too soon looks twice, the second time
# an integration's time later)
LATE = (1.3, 0.95, 3.0)  # how a waiter's own factor on the holders' integration time moves
# when its look at their Landing was too soon (times the first), in time (times the second),
# and its largest value: it settles where about one look in six is too soon (see first_pause)
EARLIEST = 1 / (1 + LANDING_SLACK)  # its smallest value: the holder's own expectation, its
# slack taken off (a clone starts at 1, the slack kept, until its looks find the holders in
# time). At 1 it could not settle where the holders are quicker than their slack: 8 x 5 over
# HTTP, every clone's factor sat at 1 and waiters looked a median 1.1 s after their round
# landed (0.16 s over a path); see bench_timeline
UNSEEN = 1.5  # integrations (as ours would take, with the requests we last saw) after which
# a waiter that pushed for the lease without looking first (and lost) looks (see
# LeaseKeeper.wait): it lost a race, so the lease was taken just before its push, and its
# round is in that holder's batch only when its push landed before the holder's look (which
# follows the lease push at once): one that missed it waits for the next holder as well.
# First looks that found a holder still at it, 16 x 10 over HTTP: at 0.5 (a lease taken any
# time during its integration) 72 of 126, at 1.0 54 of 128, at 1.5 37 of 117. Our own
# expectation, without the slack a holder adds to the Landing it announces and without our
# lateness on others' Landings (neither is one): with both, 8 x 8 over HTTP, these waiters
# looked 3.9-6.4 s after their push, their round (in the next holder's integration in 28
# of 39) landed 1.5-3.7 s after it (median 1.9 s): a median 1.75 s later (bench_timeline)
JITTER = (0.9, 1.1)  # a look timed by a Landing comes after this share of its pause
UNTIMED_JITTER = (0.7, 1.3)  # a look no Landing times: spread wider, so waiters part
NOT_SEEN = "(not seen yet)"  # a lease another agent's push took just before ours


def _lease_hint(others: remotes.Pushed) -> str:
    """What to do about a lease the remote refused: without a lease when it refused the
    lease alone (a hook for that ref: the rest of an atomic push refused with it only as
    collateral); when it refused the agent's branch or request
    of the same push on their own too (a hook that takes only branches and tags), the lease
    is not the problem and ``vcontext.syncLease false`` publishes the same request: say what the
    remote must take instead, and the way that needs none of it."""
    also = [row.branch for row in others.rows if not row.ok and not row.collateral]
    if not also:
        return " (to integrate without a lease: git config vcontext.syncLease false)"
    return (
        f"; it refused {', '.join(also)} too, so not the lease alone (without a lease,"
        " sync --push publishes the same request): sync --push needs a remote that takes"
        " refs under refs/vcontext/ (the remote's lines say why it did not); without --push, git"
        " vcontext sync merges here and git push publishes the base and the agent branch"
    )


class LeaseKeeper:
    """Our hold on one base's lease (``held``: the lease commit while we have it)."""

    def __init__(self, pusher: Pusher, view: RemoteView, holder: str, seconds: float) -> None:
        self.pusher, self.view, self.holder, self.seconds = pusher, view, holder, seconds
        self.held: Oid | None = None
        self.tried: Oid | None = None  # the lease commit we last pushed
        self.waited = 0.0
        self.said_waiting = False
        self.lost = 0  # lease pushes another agent's beat (a busy base)
        self.won: float | None = None  # when we took the lease (``timer``)
        self.timer: Callable[[], float] = time.monotonic  # durations (integrate.Io.timer)
        self.remote_locks = RemoteLocks()
        self._late: float | None = None  # see lateness()
        self.last_pause = 0.0  # before the look that found the lease we waited for gone

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

        A remote on this machine that allows it (``LocalRemote.may_write_leases``: no hook
        sees its ref updates, or only our own guard, ``guard_accepts`` judging the lease
        first as it would) has its lease ref swapped in process (``publish`` is left to the
        caller); any other gets a compare-and-swap push, with ``publish`` in it (one round
        trip: the request is out whether the lease is won or not)."""
        if self.ours(snap):
            return True, None
        if not self.free(snap, now):
            return False, None
        if self.pusher.link is not None and self.view.local is None:
            waited = self.timer()  # an ssh login still under way is no part of the
            self.pusher.link.ready()  # integration: its time, and the lease's expiry and
            now += self.timer() - waited  # Landing, count from after it
        began = self.timer()  # (the integration's time counts its lease push: ``landed``)
        lease = leases.mine(self.holder, self.where(), self.seconds, now, self.takes(snap))
        expect = "" if snap.lease_id is None else str(snap.lease_id)
        local = self.view.local
        if local is not None and local.may_write_leases(only_our_guard):  # no push
            judge = None if local.may_write_refs() else guard_accepts
            try:
                self.held = local.swap(
                    self.ref, expect or None, lease.message(), signature, snap.base, judge
                )
                return self.held is not None, None
            except NotAccepted:
                pass  # the guard judges it: pushed
        commit = self.pusher.lease_commit(lease, signature, snap.base)
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
            self.held, self.won = commit, began
            return True, others if publish else None
        lost = remotes.Pushed(tuple(rows), True, pushed.said)
        if not rows[0].retry:
            raise PushRefused(refusal(lost, self.pusher.remote, _lease_hint(others)))
        if stuck := self.remote_locks.stuck(lost, self.timer()):
            raise PushRefused(refusal(lost, self.pusher.remote) + f"\n  {stuck}")
        self.lost += 1
        return False, others if publish else None  # someone was quicker

    def takes(self, snap: Snapshot) -> float | None:
        """How long an integration taken now should take until its push has landed (what
        the lease says as ``Landing``, so that waiters look once it is done instead of
        polling): what this clone's last integrations took (``landed``), per request; else
        measured on this sync's own commands (two pushes, a look, and the work since the
        look for each merge). None over no network (a remote read in process)."""
        link = self.pusher.link
        fetch = None if link is None else link.took.get("fetch")
        if link is None or self.view.local is not None:
            return None
        merging = self._merging(snap)
        if (unit := self._last_unit()) is None:
            if fetch is None:
                return None
            push = max(link.took.get("push", fetch), fetch)
            unit = 2 * push + fetch + max(self.timer() - self.view.looked, fetch)
        return unit * merging * (1 + LANDING_SLACK)  # (later rather than sooner: one look)

    def landed(self, now: float, merged: int) -> None:
        """Our integration's push landed (``now``: a ``timer`` value), with ``merged``
        other agents' requests in it: remember what it took (per request merged, counted as
        ``_merging`` counts them, with the earlier ones: a loaded machine's integrations
        take longer), best effort. (The requests it merged, not those the look before the
        lease push saw: a push that took the lease without a look saw none, or an earlier
        sync's.)"""
        if self.won is None or self.view.local is not None:
            return
        since, self.won = self.won, None
        unit = (now - since) / (1 + MERGE_SHARE * merged)
        last = self._last_unit()
        unit = unit if last is None else (unit + last) / 2
        try:
            path = self._unit_file()
            path.parent.mkdir(exist_ok=True)
            path.write_text(f"{unit:.3f}\n")
        except OSError:
            pass  # (a read-only clone: waiters fall back on their own estimate)

    def _last_unit(self) -> float | None:
        try:
            unit = float(self._unit_file().read_text())
        except (OSError, ValueError):
            return None
        return unit if 0 < unit < self.seconds else None

    def _unit_file(self) -> Path:
        return common_dir(self.pusher.repo) / "vcontext" / "integration-seconds"

    def _merging(self, snap: Snapshot) -> float:
        others = sum(1 for b in snap.requests if b not in self.view.branches)
        return 1 + MERGE_SHARE * others

    def integration(self) -> float:
        """How long another agent's integration should take: as long as ours took (``landed``),
        else by our own commands' times."""
        if (unit := self._last_unit()) is not None:
            return unit
        link = self.pusher.link
        push = None if link is None else link.took.get("push", link.took.get("fetch"))
        return POLL[0] if push is None else max(POLL[0], push * PUSHES_PER_INTEGRATION)

    def busy(self) -> bool:
        """Whether other agents sync with this base now: we waited for a lease, or lost one."""
        return self.waited > 0 or self.lost > 0

    def pause(self, seconds: float, sleep: Callable[[float], None]) -> None:
        """Wait ``seconds`` (jittered) for another agent's integration, counted as waiting."""
        slept = seconds * random.uniform(0.9, 1.1)
        sleep(slept)
        self.waited += slept

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
        unseen: bool = False,
    ) -> None:
        """Until one of our ``ours`` requests is gone (merged), or the lease is free, or the
        lease we watch has expired. Each look is ``RemoteView.poll``: the lease and our
        requests read in process for a remote on this machine, else a fetch of the refs
        the next step needs (nothing new: an ``ls-remote``'s cost), timed by the lease's
        ``Landing``, so a waiter looks about once per integration. ``lost``: another
        agent's lease push landed just before ours, so ``snap`` does not show that lease
        yet: the first look finds it (it lasts a lease's time at most). ``unseen``: nor did
        we look before that push (we know neither the holder's ``Landing`` nor whether its
        look saw our request), so the first look comes after ``UNSEEN`` integrations (ours
        as we expect it: ``takes`` without the slack a holder announces, nor our lateness),
        when its holder has landed and, had our request come after its look, the next one
        mostly too; then the lease's own ``Landing`` times the next. A lease
        found expired or left by a sync that is gone ends the wait (the next step takes
        it). ``until``: the sync's deadline, a ``timer`` value (monotonic: a step of the wall
        ``clock``, which leases' expiry and landing are said in, neither ends the wait early
        nor extends it past the deadline)."""
        start, began = clock(), self.timer()
        if snap.lease is not None:
            self._say_waiting(report, snap.lease.describe(start))
        elif lost and not unseen:  # (unseen: said once seen)
            self._say_waiting(report)
        lease, expires, landing = self._watched(snap, start, lost=lost, unseen=unseen)
        pause = self.first_pause(landing, start, None if unseen else expires)  # (see UNSEEN)
        while self.timer() < until and lease is not None and clock() < expires:
            sleep(pause * random.uniform(*(JITTER if landing else UNTIMED_JITTER)))
            self.last_pause = pause
            now_lease, now_ours, said = self.view.poll()
            if landing is not None and lease != NOT_SEEN:  # the look a Landing timed: too soon?
                self.judge_landing(too_soon=now_lease == lease and now_ours >= ours)
            if now_ours < ours or now_lease is None:
                break
            now = clock()
            if said is not None and leases.breakable(said, self.where(), now):
                break  # expired, or its sync is gone: the next step takes it
            if said is not None:
                self._say_waiting(report, said.describe(now))
            if now_lease != lease:  # another holder: give it its own lease time
                lease, expires = now_lease, now + self.seconds
                landing = said.landing if said is not None else None
                pause = self.first_pause(landing, now, said.expires if said else None)
            elif landing is not None:  # the same holder, later than it said: as long again
                landing, pause = None, max(self.first_pause(), pause)
            else:
                pause = min(pause * 1.5, POLL[1])
        self.waited += self.timer() - began

    def _watched(
        self, snap: Snapshot, start: float, *, lost: bool, unseen: bool
    ) -> tuple[str | None, float, float | None]:
        """The lease a wait starts watching: (its commit, or ``NOT_SEEN``; when it expires;
        when it says it lands), see ``wait``."""
        if lost and snap.lease_id is None:  # it was just taken: it lands about when ours would
            if unseen:  # (UNSEEN integrations as we expect them: no slack, no lateness)
                took = self.takes(snap)
                took = self.integration() if took is None else took / (1 + LANDING_SLACK)
                return NOT_SEEN, start + self.seconds, start + took * UNSEEN
            landing = start + (self.takes(snap) or self.integration())
            return NOT_SEEN, start + self.seconds, landing
        if snap.lease is None:
            return _hex(snap.lease_id), start, None
        return _hex(snap.lease_id), snap.lease.expires, snap.lease.landing

    def _say_waiting(self, report: Callable[[str], None], held: str | None = None) -> None:
        """Say once that this sync waits for the lease (``held``: how it is held)."""
        if self.said_waiting:
            return
        where = f"{shown_url(self.pusher.remote)} {self.view.base}"  # no credentials
        if held is None:
            report(f"{where}: another agent took the integration lease first: waiting")
        else:
            report(f"{where}: the integration lease is {held}: waiting")
        self.said_waiting = True

    def others_look(self) -> float:
        """How much later than ours another agent waiting for the same lease may look, once
        it is gone, and have the lease taken: its pause jittered the other way and
        stretched one step more by its clone's lateness (``LATE``) than ours was, then its
        look and its lease push, each as long as ours took in this sync (a loaded machine
        slows both agents alike: at load 15-23 one look and one push took seconds, longer
        than the pause's share alone allowed)."""
        low, high = JITTER
        link = self.pusher.link
        took = {} if link is None else link.took
        return self.last_pause * (high * LATE[0] / low - 1) + sum(
            took.get(verb, 0.0) for verb in ("fetch", "push")
        )

    def judge_landing(self, *, too_soon: bool) -> None:
        """Move this clone's factor on the holders' integration time (``lateness``) after a
        look timed by a lease's ``Landing``: up when the holder was still at it, slowly down
        when it was done (best effort: a read-only clone keeps 1)."""
        more, less, most = LATE
        late = self.lateness()
        late = min(most, late * more) if too_soon else max(EARLIEST, late * less)
        self._late = late
        try:
            path = self._late_file()
            path.parent.mkdir(exist_ok=True)
            path.write_text(f"{late:.3f}\n")
        except OSError:
            pass

    def lateness(self) -> float:
        """How much longer than their ``Landing`` said the holders' integrations have taken,
        as this clone's waiters found it (1: as said, the holder's slack in it; at least
        ``EARLIEST``, the holder's expectation without its slack; at most ``LATE[2]``)."""
        if self._late is None:
            try:
                late = float(self._late_file().read_text())
            except (OSError, ValueError):
                late = 1.0
            self._late = min(LATE[2], max(EARLIEST, late))
        return self._late

    def _late_file(self) -> Path:
        return common_dir(self.pusher.repo) / "vcontext" / "landing-lateness"

    def first_pause(
        self, landing: float | None = None, now: float = 0.0, expires: float | None = None
    ) -> float:
        """How long to wait before the first look at a held lease. A remote on this machine
        is read in process (a look costs well under a millisecond): soon. Over git each look
        is a command and a request to the server: a lease that says when its round lands
        (``Landing``) is looked at just after that (however long: the lease's expiry still
        bounds it), the integration it announced stretched by this clone's ``lateness``
        (a loaded machine's holders land later than they say: a look too soon is a look
        more) when ``expires`` tells when it was taken; else the holder's integration lasts
        about ``PUSHES_PER_INTEGRATION`` of our pushes: looking before that is mostly a
        wasted look."""
        if self.view.local is not None:
            return POLL[0]
        if landing is not None:
            taken = None if expires is None else expires - self.seconds
            if taken is not None and 0 < landing - taken <= self.seconds:
                landing += (landing - taken) * (self.lateness() - 1)
            return max(POLL[0], min(landing - now, self.seconds))
        return min(POLL[1], self.integration())

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
            if self.pusher.push([release[0]], verify=False).ok:
                self.view.forget([self.ref])  # (our copy of it: see RemoteView.forget)
        except OperationalError:
            pass

    def where(self) -> str:
        return str(common_dir(self.pusher.repo))


def guard_accepts(theirs: Repository, ref: str, tip: Commit, old: Oid | None) -> bool:
    """Whether our guard (``install --server --guard``) lets in ``ref`` moving from ``old``
    (None: created) to ``tip``, for certain, by its own judgement of a lease ref: a lease
    ref (``is_lease_ref``), a commit that changes no file (``changes_nothing``: its only
    parent, on the lease's base there, a commit its guard judged, or none), and what the ref held
    before, or the tip the guard remembers for it once deleted, a lease commit as well, so
    no forced update to compare (``prepush.check.lease_moved``, the light path's
    ``_lease_moved``, the fast path's ``is_lease_commit``). Anything else (a record it
    cannot read, a tip it remembers that is no lease): False, and the lease is pushed for
    the guard to judge."""
    # lazy: only a lease written in process into a remote the guard watches
    from ..gitio.objectcopy import changes_nothing
    from ..gitio.objects import commit_named
    from ..prepush.check import SERVER, lease_moved
    from ..prepush.remotepast import remembered

    if not leases.is_lease_ref(ref) or not changes_nothing(tip):
        return False
    if tip.parent_ids and not _on_base(theirs, ref, tip.parent_ids[0]):
        return False  # a commit merely in the store: maybe never judged, the guard judges it
    record = remembered(str(common_dir(theirs)), SERVER)
    if record is None:
        return False
    for before in (None if old is None else str(old), record.get(ref)):
        if before is None:
            continue
        previous = commit_named(theirs, before)
        if previous is None or not lease_moved(ref, previous, tip):
            return False
    return True


def _on_base(theirs: Repository, ref: str, parent: Oid) -> bool:
    """Whether ``parent`` is on the branch whose lease ``ref`` is: a commit the guard
    let in (a ref reaches it, so its ``rev-list --not --all`` of new commits leaves it out;
    the fast path's ``_lease_taken`` asks a ref's tip). Merely in the store (a branch
    deleted or rewound since, objects put there by hand): maybe never judged."""
    from ..gitio import library_errors
    from ..gitio.objects import descends
    from ..gitio.refs import commit_of

    branch = "refs/heads/" + leases.decode_base(ref.removeprefix(leases.LEASES))
    failures: tuple[type[Exception], ...] = (KeyError, ValueError, *library_errors())
    try:
        target = commit_of(theirs, branch)
        # the tip, or (the base moved on since this sync looked) in its history
        return target is not None and (target == parent or descends(theirs, target, parent))
    except failures:
        return False


def _hex(oid: Oid | None) -> str | None:
    return None if oid is None else str(oid)
