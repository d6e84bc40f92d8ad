"""One base of ``sync --push``: publish the agents' work, integrate it (under the base's lease)
or wait for whoever does, then bring the agent branches along (see ``remote/protocol``)."""

from __future__ import annotations

import hashlib
import time
from typing import TYPE_CHECKING

from ..branches import agents as agent_config
from ..branches.ancestry import contains, has_work, start_of
from ..branches.commits import TRAILER
from ..branches.treemerge import changed_documents
from ..codecs import ReusedParses
from ..errors import OperationalError, PushRefused, RefLocked, RefMoved, shown_url
from ..gitio import locks, refs, run_dir
from ..gitio import remote as remotes
from ..gitio.objects import commit_at
from ..gitio.transport import Backoff, Link, TransportError, wait_longer
from ..prepush.mergecheck import only_check_failures
from ..record import record
from ..sync.syncer import CONFLICT, MERGED, PairResult, Syncer
from ..sync.tracking import known_tip, shown
from . import refs as leases
from .divergence import diverged_base
from .lease import LeaseKeeper
from .protocol import PushOutcome, Settings, settings, wait_before
from .pusher import Pusher, RemoteLocks, refusal
from .view import RemoteView, Snapshot

if TYPE_CHECKING:
    from collections.abc import Callable

    from pygit2 import Oid

    Known = dict[str, Oid | None]  # what each ref holds on the remote, as far as we know


RECENT = 60.0  # seconds: a base another agent integrated into this recently is busy
DEFER = 1.5  # a waiting agent that lets another take the lease looks again after this many
# integrations' time (its own estimate: LeaseKeeper.integration), until that agent's lease
# shows or it has had as long as it may take to look (LeaseKeeper.others_look)


@record
class Io:
    """How a round talks and waits (tests give their own clocks and sleep). ``clock``: the
    wall clock, for what other machines read or wrote (a lease's expiry and landing, a
    commit's time); ``timer``: a monotonic one, for the sync's own durations and deadline,
    which a step of the wall clock (NTP, a resumed VM) must neither cut short nor extend."""

    report: Callable[[str], None]
    show: Callable[[PairResult], None]
    sleep: Callable[[float], None]
    clock: Callable[[], float]
    timer: Callable[[], float] = time.monotonic


class Again(Exception):
    """A push was rejected for a reason fresh state can fix: look at the remote again."""


class BaseRound:
    """``sync --push`` of the agents of one base (see ``remote/protocol``)."""

    def __init__(
        self,
        syncer: Syncer,
        remote: str,
        base: str,
        agents: list[str],
        io: Io,
        link: Link | None = None,
    ) -> None:
        self.syncer, self.repo, self.io = syncer, syncer.repo, io
        self.remote, self.base, self.agents = remote, base, agents
        self.shown = shown_url(remote)  # in messages and merge labels: no URL's credentials
        self.settings: Settings = settings(self.repo)
        self.branches = {a: agent_config.agent_branch(self.repo, a) for a in agents}
        cwd = run_dir(self.repo)
        self.link = link or Link(
            cwd, remote, clock=io.clock, sleep=io.sleep, report=io.report, timer=io.timer
        )
        branches = list(self.branches.values())
        self.view = RemoteView(self.repo, cwd, remote, base, branches, self.link)
        self.pusher = Pusher(self.repo, cwd, remote, syncer.parsed, self.link)
        local = self.view.local
        if local is not None and not local.pushes_elsewhere():  # its receive-pack is ours to
            self.link.quiet_receive = lambda: not local.maintenance_due()  # tell (transport)
        self.published: dict[str, Oid] = {}  # agent -> the commit its request names
        # agent -> its tip, whose new commits are all merges and whose merge still moves the
        # base (what a resolution chose is work; ``has_work`` counts commits alone): see _finish
        self.merges_only: dict[str, Oid] = {}
        self.results: dict[str, PairResult] = {}  # agent -> how its pair ended
        self.contributed: dict[str, tuple[str, ...]] = {}  # agent -> documents its work changed
        self.stopped: dict[str, PairResult] = {}  # agents that stopped (conflict, refused)
        holder = ", ".join(self.branches.values())
        self.lease = LeaseKeeper(self.pusher, self.view, holder, self.settings.lease_seconds)
        self.lease.timer = io.timer
        self.retries = 0
        self.deferred: Oid | None = None  # the base we let another waiting agent integrate
        self.defer_until = 0.0  # (timer) when we stop letting it and take the lease ourselves
        self.looked_again: Oid | None = None  # the lease we looked again under (_look_again)
        self.diverged = False  # the local base's own commits conflict with the remote's
        self.remote_locks = RemoteLocks()
        self.first = True  # no step taken yet (see _unlooked_work)
        # agent branches the remote holds as they are here, as far as this clone knows (git's
        # remote-tracking branch newer than sync's own copy): see _unlooked_work
        self.copies: dict[str, Oid] = {}
        # agent branches a publishing push of this run moved on the remote (said with the
        # integration's own pushes: a round whose integration pushes nothing more still
        # moved them)
        self.branches_out: dict[str, None] = {}

    def run(self) -> PushOutcome:
        try:
            return self._loop()
        finally:
            self.lease.release()  # interrupted or failed while holding it: give it back
            # remote-tracking refs the looks and pushes left as git leaves them: said once
            self.syncer.warnings[:] = locks.said_once(
                [*self.syncer.warnings, *self.view.notes, *self.pusher.notes]
            )

    def _loop(self) -> PushOutcome:
        deadline = self.io.timer() + self.settings.timeout  # (timer: see Io)
        self.link.deadline = self.io.clock() + self.settings.timeout  # transient failures are
        # tried again until then (the Link keeps it on its own timer)
        backoff = Backoff()
        while True:
            try:
                done = self._step(deadline)
            except Again:
                self.syncer.forget()
                continue
            except PushRefused as exc:
                self.syncer.forget()
                return self._give_up(str(exc))
            except TransportError as exc:
                if not exc.transient or exc.final:
                    raise
                self.syncer.forget()  # a push whose answer was lost: look again, then go on
                self.link.wait(exc.message, backoff, exc.lines)
                continue
            if done is not None:
                return done
            backoff = Backoff()

    def _step(self, deadline: float) -> PushOutcome | None:
        """One look at the remote and what follows from it; None: look again."""
        self.syncer.forget()
        first, self.first = self.first, False
        snap = self.view.latest()  # the last look while waiting fetched
        if snap is None and first:
            if (work := self._unlooked_work()) is not None:
                return self._publish_unlooked(work, deadline)
            self.syncer.forget()  # (a branch it brought forward: the look decides again)
        snap = snap or self.view.fetch(light=True)
        self._adopt_requests(snap)
        work = self._work(snap)
        live = [a for a in self.agents if a in work]
        if not live:
            return self._outcome(False)
        todo = [a for a in live if self._has_work(a, work[a], snap)]
        if not todo and not self._base_ahead(snap):
            return self._finish(snap, live, work)
        if self.io.timer() > deadline:
            why = f"{self.shown} {self.base}: not integrated after {self.settings.timeout:.0f} s"
            return self._give_up(f"{why} ({wait_longer('vcontext.syncTimeout')})")
        unpublished = [a for a in todo if self.published.get(a) != work[a]]
        if unpublished and snap.server:  # the server merges requests as they are pushed
            self._publish(unpublished, work, snap)
            return None
        if self.settings.lease:
            return self._under_lease(snap, live, todo, unpublished, work, deadline)
        if unpublished:
            self._publish(unpublished, work, snap)
        return self._integrate(live)

    def _has_work(self, agent: str, tip: Oid, snap: Snapshot) -> bool:
        """Whether ``agent``'s branch at ``tip`` holds work the remote's base lacks: commits
        of its own (``has_work``), or merges ``_finish`` found to move the base."""
        if has_work(self.repo, tip, snap.base):
            return True
        return self.merges_only.get(agent) == tip and not self._contains(snap.base, tip)

    def _unlooked_work(self) -> dict[str, Oid] | None:
        """The first step's work when it may be published without a look first (over git,
        under the lease): every agent's branch holds work the base had not when this clone
        last looked, moves forward from the remote's copy of it as last seen, and is not
        what a request of it seen then named (an interrupted run's). The push that
        publishes it also tries the lease (it must not be held): won, the integration's
        look comes after it (nothing is integrated from what an earlier sync saw); lost,
        the request waits for its holder. Either way one round
        trip less than looking first: a look a sync's start would add to every sync. Where
        the last look is wrong (the remote's copy of the branch moved, a request already
        merged), the push is rejected or the request found merged, and the next step looks.
        "As last seen" is the newer of sync's own copy and git's remote-tracking branch (a
        ``git fetch`` or ``git push`` since moved it: a person's clone whose agent works in
        a clone of its own), for the base and each agent branch: an agent branch only behind
        the remote's copy is brought forward to it first, as a look would bring it
        (``_take_remote_branch``: only where its work tree may follow), never published as
        it is (that push would be rejected, and looked after, for nothing), and one whose
        work the remote's base holds already is no work to publish. None: look first."""
        if self.view.local is not None or not self.settings.lease:
            return None
        seen = self.view.read()
        if seen.base is None or seen.server:  # never looked, or the server merges requests
            return None
        base = known_tip(self.repo, self.remote, self.base) or seen.base
        work: dict[str, Oid] = {}
        for agent, branch in self.branches.items():
            theirs = known_tip(self.repo, self.remote, branch)  # (the newer of the two copies)
            tip = self._forward(branch, theirs)
            if tip is None or seen.requests.get(branch) == tip:  # out already: look first
                return None
            if not has_work(self.repo, tip, base) or self.syncer.blocked(branch):
                return None
            if self.syncer.undoing(branch, tip, base):
                return None
            work[agent] = tip
            if tip == theirs:
                self.copies[branch] = theirs  # (there already: its request publishes it)
        return work

    def _forward(self, branch: str, theirs: Oid | None) -> Oid | None:
        """The agent branch's tip for ``_unlooked_work``: brought forward to ``theirs`` (the
        remote's copy as this clone knows it) when only behind it (planned, as
        ``_take_remote_branch`` plans it); None when it may not be published without a look
        (no branch, a copy with commits of its own, a branch whose work tree may not follow)."""
        tip = self.syncer.tip(branch)
        if tip is None or theirs is None or self._contains(tip, theirs):
            return tip
        if not self._contains(theirs, tip):
            return None  # the remote's copy has commits of its own: merged after a look
        there = shown(self.syncer.repo, self.remote, branch)
        if self.syncer.move(branch, theirs, f"brought along from {there}") is not None:
            return None  # (its work tree may not follow: the look's step says why)
        return theirs

    def _publish_unlooked(self, work: dict[str, Oid], deadline: float) -> PushOutcome | None:
        """Publish ``work`` and try the lease in one push (see ``_unlooked_work``)."""
        seen = self.view.read()
        blank = Snapshot(seen.base, seen.branches, None, None, False, seen.requests, False)
        # (not a look: never integrated from, see _integrate)
        blank.branches.update(self.copies)
        todo = list(work)
        updates, known = self._publish_updates(todo, work, blank)
        signature = self.syncer.signatures()[1]
        won, pushed = self.lease.acquire(blank, signature, self.io.clock(), updates, known)
        if pushed is not None:
            self._judge(pushed)
            self._published(todo, work, blank)
        if won:  # the integration looks now, after the lease is ours
            return self._integrate(todo)
        self.lease.wait(
            blank, len(todo), deadline, self.io.clock, self.io.sleep, self.io.report,
            lost=True, unseen=True,
        )  # fmt: skip
        return None

    def _adopt_requests(self, snap: Snapshot) -> None:
        """Requests an interrupted run left on the remote count as published."""
        for agent, branch in self.branches.items():
            if agent not in self.published and (left := snap.requests.get(branch)) is not None:
                self.published[agent] = left

    def _under_lease(
        self,
        snap: Snapshot,
        live: list[str],
        todo: list[str],
        unpublished: list[str],
        work: dict[str, Oid],
        deadline: float,
    ) -> PushOutcome | None:
        """Integrate when the lease is ours; else publish and wait for it (None: look again).

        A free lease is tried in the push that publishes our work (a remote on this machine
        swaps it in process instead): won, we integrate; lost, our request is out already
        for whoever won, and we wait."""
        now = self.io.clock()
        if self.lease.ours(snap):  # (this step's look: every request, the lease ours)
            return self._integrate(live, snap if snap.complete else None)
        lost = False
        if self.lease.free(snap, now) and self._turn_of_another(snap, todo, unpublished):
            step = min(DEFER * self.lease.integration(), self.defer_until - self.io.timer())
            self.lease.pause(step, self.io.sleep)
            return None  # (the next step's look finds the lease taken, the round merged or free)
        if self.lease.free(snap, now):
            updates, known = self._publish_updates(unpublished, work, snap)
            signature = self.syncer.signatures()[1]
            won, pushed = self.lease.acquire(snap, signature, now, updates, known)
            if pushed is not None:
                self._judge(pushed)
                self._published(unpublished, work, snap)
            if won:  # over git, the look before the lease push serves (see _integrate)
                served = self.view.local is None and snap.complete  # (else: look under it)
                return self._integrate(live, snap if served else None)
            lost = True
        if [a for a in unpublished if self.published.get(a) != work[a]]:
            self._publish(unpublished, work, snap)  # so that whoever holds the lease merges it
        waiting = sum(1 for a in todo if a in self.published)
        self.lease.wait(
            snap, waiting, deadline, self.io.clock, self.io.sleep, self.io.report, lost=lost
        )
        return None

    def _turn_of_another(self, snap: Snapshot, todo: list[str], unpublished: list[str]) -> bool:
        """Whether another waiting agent takes the free lease, not us: over git, when our
        work is published and waits with other agents' requests, they all look at about the
        same time once the lease is released (each at the landing its lease said). Were
        each to push for the lease, all but one push would lose and look again; instead
        the request first by an order every waiter computes alike (its branch hashed with
        the base) takes it and merges every request, and the others look once it is done.
        That agent looks when its own schedule says (the landing jittered and stretched by
        its clone's lateness), then pushes (``LeaseKeeper.others_look``): we look again
        every ``DEFER`` integrations until its lease shows, and once it has had that long
        and the lease is still free (its agent gone), we take it. Once per base."""
        if self.view.local is not None or snap.lease_id is not None or unpublished or not todo:
            return False
        pending = [b for b, c in snap.requests.items() if not self._contains(snap.base, c)]
        own = set(self.branches.values())
        if not [b for b in pending if b not in own]:
            return False
        first = min(pending, key=lambda b: hashlib.sha1(f"{snap.base} {b}".encode()).digest())
        if first in own:
            return False
        now = self.io.timer()
        if self.deferred == snap.base:  # looked again: still free
            return now < self.defer_until
        self.deferred = snap.base
        self.defer_until = now + DEFER * self.lease.integration() + self.lease.others_look()
        return True

    # -- the agents' work ------------------------------------------------------------

    def _work(self, snap: Snapshot) -> dict[str, Oid]:
        """Each live agent's commit to integrate: its branch, with commits the remote's copy
        of it has and this one lacks merged in (planned)."""
        work = {}
        for agent, branch in self.branches.items():
            if agent in self.stopped:
                continue
            mine, theirs = self.syncer.tip(branch), snap.branches.get(branch)
            if mine is None:
                raise OperationalError(f"no branch {branch} for agent {agent!r}")
            problem: PairResult | None = None
            if why := self.syncer.blocked(branch):
                problem = self._pair(branch).refused(why)
            elif theirs is not None and not self._contains(mine, theirs):
                problem = self._take_remote_branch(branch, mine, theirs)
            tip = self.syncer.tip(branch)
            assert tip is not None  # the branch exists (checked above), or moves
            if problem is None and (why := self.syncer.undoing(branch, tip, snap.base)):
                problem = self._pair(branch).refused(why)  # never published
            if problem is not None:
                self._stop(agent, problem)
                continue
            work[agent] = tip
        return work

    def _base_there(self) -> str:
        """The remote's base as a person reads it (``origin/main``), for the reflog entry of
        a base brought along from it."""
        return shown(self.syncer.repo, self.remote, self.base)

    def _take_remote_branch(self, branch: str, mine: Oid, theirs: Oid) -> PairResult | None:
        if self._contains(theirs, mine):
            there = shown(self.syncer.repo, self.remote, branch)
            problem = self.syncer.move(branch, theirs, f"brought along from {there}")
            return None if problem is None else self._pair(branch).refused(problem)
        merged = self.syncer.integrate(branch, theirs, f"{self.shown}/{branch}")
        if merged.ok:
            return None
        return PairResult(  # the agent's own pair: its branch here and its copy there
            self._agent_of(branch),
            branch,
            merged.base,
            merged.state,
            conflicts=merged.conflicts,
            message=merged.message,
            against=merged.against,
        )

    def _documents(
        self, agent: str, base: Oid | None, commit: Oid | None = None
    ) -> tuple[str, ...]:
        """The documents the agent's work (its published commit, else ``commit``) changed
        since it last met the base."""
        if agent not in self.contributed:
            commit = self.published.get(agent, commit)
            start = None if base is None or commit is None else start_of(self.repo, commit, base)
            trees = (
                None
                if start is None or commit is None
                else (commit_at(self.repo, start).tree, commit_at(self.repo, commit).tree)
            )
            into = None if base is None else commit_at(self.repo, base).tree  # names there
            with ReusedParses(self.syncer.parsed):  # the merges read the same documents
                found = () if trees is None else changed_documents(self.repo, *trees, named_in=into)
            self.contributed[agent] = found
        return self.contributed[agent]

    # -- publishing, leasing, waiting ---------------------------------------------

    def _publish(self, todo: list[str], work: dict[str, Oid], snap: Snapshot) -> None:
        """Push each agent's branch and its request (refs nobody else writes)."""
        self._push(*self._publish_updates(todo, work, snap))
        self._published(todo, work, snap)

    def _publish_updates(
        self, todo: list[str], work: dict[str, Oid], snap: Snapshot
    ) -> tuple[list[remotes.Update], Known]:
        """The push that publishes ``todo``'s work: each agent's branch and its request."""
        updates: list[remotes.Update] = []
        known: Known = {}
        for agent in todo:
            branch, commit = self.branches[agent], work[agent]
            ref = f"refs/heads/{branch}"
            if snap.branches.get(branch) != commit:
                updates.append(remotes.Update(str(commit), ref))
                known[ref] = snap.branches.get(branch)
            request = leases.request_ref(self.base, branch)
            updates.append(remotes.Update(str(commit), request, force=True))
            known[request] = self.published.get(agent)
        return updates, known

    def _published(self, todo: list[str], work: dict[str, Oid], snap: Snapshot) -> None:
        """Note that ``todo``'s work is out (its push landed)."""
        for agent in todo:
            self.published[agent] = work[agent]
            self.contributed.pop(agent, None)
            self._documents(agent, snap.base)
            branch = self.branches[agent]  # what the remote holds now, as far as we know
            if snap.branches.get(branch) != work[agent]:  # (_publish_updates pushed it)
                self.branches_out[branch] = None
            snap.branches[branch] = snap.requests[branch] = work[agent]

    # -- integrating -------------------------------------------------------------

    def _integrate(self, live: list[str], snap: Snapshot | None = None) -> PushOutcome | None:
        """Merge every request into the base, then the base into our agents; push it all.

        ``snap``: the look this step took (every request of the base), when the lease is
        ours by it or by the push that took it right after it: no second look. A request
        published between that look and the lease push waits for the next holder; the base
        cannot have moved unless someone held the lease and released it in between, and
        then the integration push (which moves the base only as a fast-forward of the base
        seen) is rejected and the next step looks again. Else (None) fetch every request."""
        if snap is None:
            snap = self.view.fetch()
            if self.settings.lease and snap.lease_id != self.lease.held:
                self.lease.held = None  # it expired and someone took it over: start again
                return None
            self.looked_again = self.lease.held  # this look is under the lease: no second one
            live = self._caught_up(snap, live)
        if (problem := self._start_base(snap)) is not None:
            return problem
        own = set(self.branches.values())
        theirs = {b: c for b, c in snap.requests.items() if b not in own}
        tip = self.syncer.tip(self.base)
        done = {b: c for b, c in theirs.items() if self._contains(tip, c)}  # landed before
        requests = [
            (self._agent_of(b), b, self.base, c) for b, c in sorted(theirs.items()) if b not in done
        ]
        until = self.io.timer() + self.settings.lease_seconds / 3
        elsewhere = {a: self._documents(a, snap.base) for a in live if a in self.published}
        results, others = self.syncer.batch(
            [(a, self.base) for a in live],
            requests,
            more=lambda: self.io.timer() < until,
            elsewhere=elsewhere,
            combine=True,
        )
        for other in others:
            if other.state == CONFLICT:
                self.io.report(f"left {other.branch} out: {left_out(other)}")
        merged = tuple(o.branch for o in others if o.state == MERGED)
        for (_, branch, _, commit), other in zip(requests, others, strict=False):
            if other.ok:
                done[branch] = commit
        if self._look_again(snap, requests):
            return None  # requests came meanwhile: integrate them too, from that look
        return self._land(snap, dict(zip(live, results, strict=True)), merged, done)

    def _caught_up(self, snap: Snapshot, live: list[str]) -> list[str]:
        """``live`` after this integration's own look, where the remote's copy of an agent
        branch has commits the local one lacks: each such branch first takes that copy in,
        as a step that looks first does (``_work``: brought along, or merged), so the
        integration merges what the agent branch holds now. A publish without a look
        (``_unlooked_work``) trusts the last look; when someone moved the copy since (a
        person who resolved the agent's conflict in another clone and pushed it), the
        local tip alone would conflict again with the base, or be merged as it was. Its
        request, published from the local tip, is removed by the integration push as
        every request of ours (``_branch_updates``)."""
        if all(
            (theirs := snap.branches.get(self.branches[a])) is None
            or (mine := self.syncer.tip(self.branches[a])) is None
            or self._contains(mine, theirs)
            for a in live
        ):
            return live
        work = self._work(snap)
        return [a for a in live if a in work]

    def _look_again(self, snap: Snapshot, requests: list[tuple[str, str, str, Oid]]) -> bool:
        """Before the integration push, on a busy base (other agents' requests merged, or we
        waited for the lease or lost it), when the look we merged from came before the lease
        was ours (the lease push followed it): look once more (over git, once per lease).
        Agents that published between that look and the push would otherwise wait for the
        next integration (and look again for it); their requests are merged now (True: the
        next step integrates from this look). Also True when the lease or the base changed
        meanwhile. A look taken under the lease (``_integrate``'s own) is not repeated: the
        second look and the merge it restarts cost every integration on a busy base more
        (a round trip, and a second merge in about half of them, measured at 16 agents over
        HTTP) than what those requests gain by not waiting for the next one."""
        if self.view.local is not None or not self.settings.lease or self.lease.held is None:
            return False
        if self.looked_again == self.lease.held or not (requests or self._busy(snap)):
            return False
        self.looked_again = self.lease.held
        fresh = self.view.fetch()
        if fresh.lease_id != self.lease.held:
            self.lease.held = None  # it expired and someone took it over: start again
        own = set(self.branches.values())
        came = {
            b: c
            for b, c in fresh.requests.items()
            if b not in own and snap.requests.get(b) != c and not self._contains(fresh.base, c)
        }
        if not came and fresh.base == snap.base and self.lease.held is not None:
            return False
        self.syncer.forget()
        self.view.keep(fresh)
        return True

    def _busy(self, snap: Snapshot) -> bool:
        """Whether other agents sync with this base now: we waited for the lease or lost it,
        or the base's last integration (less than ``RECENT`` seconds ago) was another's."""
        if self.lease.busy():
            return True
        if snap.base is None:
            return False
        last = commit_at(self.repo, snap.base)
        if self.io.clock() - last.commit_time > RECENT:
            return False
        said = (line.partition(": ") for line in last.message.splitlines())
        agents = {value.strip() for key, _, value in said if key == TRAILER}
        return bool(agents - set(self.agents))

    def _start_base(self, snap: Snapshot) -> PushOutcome | None:
        """Build on the remote's base; local commits the remote lacks are merged with it.

        Local commits an agent branch of this sync holds (a local sync merged them) come
        with it: the base is built on the remote's alone, and the local base fast-forwards
        once the push landed. Local commits that conflict with the remote's base (a
        person's own) are left out, with the commands that publish them: the agents' round
        never waits for them."""
        local = refs.target(self.repo, self.base)
        carried = local is not None and any(
            self._contains(self.syncer.tip(b), local) for b in self.branches.values()
        )
        if snap.base is None or local is None or carried or self._contains(snap.base, local):
            if snap.base is not None:
                self.syncer.pin(self.base, snap.base, self._base_there(), carried=carried)
            return None
        merged = self.syncer.integrate(self.base, snap.base, f"{self.shown}/{self.base}")
        if merged.ok:
            return None
        self.syncer.pin(self.base, snap.base, self._base_there())
        if not self.diverged:
            self.diverged = True
            self.syncer.warnings.append(diverged_base(self.syncer, self.remote, self.base, merged))
        return None

    def _land(
        self,
        snap: Snapshot,
        results: dict[str, PairResult],
        merged: tuple[str, ...],
        done: dict[str, Oid],
    ) -> PushOutcome | None:
        """The integration push: base, our agent branches, the requests it merged removed
        (each only if it still names what was merged), the lease released."""
        updates, known = self._branch_updates(snap, results)
        for branch, commit in sorted(done.items()):
            request = leases.request_ref(self.base, branch)
            updates.append(remotes.Update(None, request, expect=str(commit)))
            known[request] = commit
        tip = self.syncer.tip(self.base)
        if tip != snap.base:
            updates.insert(0, remotes.Update(str(tip), f"refs/heads/{self.base}"))
            known[f"refs/heads/{self.base}"] = snap.base
        if (release := self.lease.release_update()) is not None:
            updates.append(release[0])
            known[release[0].dst] = release[1]
        self._push(updates, known)
        self.lease.landed(self.io.timer(), len(merged))
        self.lease.held = None
        for agent, result in results.items():
            if not result.ok:
                self._stop(agent, result)
        return self._landed(results, merged, updates)

    def _finish(self, snap: Snapshot, live: list[str], work: dict[str, Oid]) -> PushOutcome | None:
        """Every agent's work is on the remote's base (merged by whoever held the lease, who
        also removed the requests, or the base moved without it): bring the agent branches
        along. One this run published (its request merged by another agent or the server)
        keeps its published work on the remote until the agent publishes again (a second
        push each round would buy nothing but the merge of the base back). Any other that
        moved is pushed as a fast-forward of the remote's copy (``--push``: what this sync
        did is on the remote, so no other clone finds the agent behind its base). An agent
        branch is its agent's own: a copy that moved on there (the agent's newer work) is
        never overwritten; that branch stays unpushed, said in one line, and the round is
        not failed for it (its next sync brings both together)."""
        assert snap.base is not None  # without a base on the remote every agent has work
        self.syncer.pin(self.base, snap.base, self._base_there())
        elsewhere = {  # published in this run, or by an earlier one: its work is in the base
            a: self._documents(a, snap.base, work[a])
            for a in live
            if a in self.published or self._contains(snap.base, work[a])
        }
        results, _ = self.syncer.batch([(a, self.base) for a in live], elsewhere=elsewhere)
        by_agent = dict(zip(live, results, strict=True))
        # new commits that are all merges (a resolution made in one) can still move the base:
        # that is work, integrated as any (never said merged here while the remote lacks it)
        moving = {a: work[a] for a, r in by_agent.items() if r.base_moves and not r.elsewhere}
        if any(self.merges_only.get(a) != tip for a, tip in moving.items()):
            self.merges_only.update(moving)
            return None  # (the caller forgets the plan) look again: integrate them
        for agent, result in by_agent.items():
            if not result.ok:
                self._stop(agent, result)
        moved = {a: r for a, r in by_agent.items() if a not in self.published}
        along = self._bring_along(snap, moved, self._merged_requests(snap))
        return self._landed(by_agent, (), along)

    def _merged_requests(self, snap: Snapshot) -> list[remotes.Update]:
        """The removals of requests still on the remote that hold no work the base lacks
        (``has_work``: the base holds their commits, or they only merged the base in): ones
        an integration leaves none of (it removes each it merged), but a killed sync may (a
        ``git push`` of it that lived on and landed after its work did, which a sync with
        nothing new to publish never overwrote); each only if it still names that commit
        (compare-and-swap: a request its agent published again since stays)."""
        return [
            remotes.Update(None, leases.request_ref(self.base, b), expect=str(c))
            for b, c in sorted(snap.requests.items())
            if not has_work(self.repo, c, snap.base)
        ]

    def _bring_along(
        self, snap: Snapshot, results: dict[str, PairResult], stale: list[remotes.Update]
    ) -> list[remotes.Update]:
        """Push the agent branches ``_finish`` moved, each a plain (fast-forward only) update
        standing alone, and the removals of ``stale`` requests; the branch updates that
        landed (a rejected one is said, not failed; a removal rejected was another's or
        published again: nothing to say)."""
        updates: list[remotes.Update] = []
        known: dict[str, Oid | str | None] = {u.dst: u.expect for u in stale}
        for agent, result in results.items():
            branch = self.branches[agent]
            tip, ref = self.syncer.tip(branch), f"refs/heads/{branch}"
            if result.ok and tip is not None and tip != snap.branches.get(branch):
                updates.append(remotes.Update(str(tip), ref))
                known[ref] = snap.branches.get(branch)
        if not updates and not stale:
            return []
        pushed = self.pusher.push([*updates, *stale], known=known, atomic=False)
        if pushed.refused_here:
            if updates:
                self.io.report(refusal(pushed, self.shown, hint=": agent branches left unpushed"))
            return []
        landed = {row.ref for row in pushed.rows if row.ok}
        self.view.forget([u.dst for u in stale if u.dst in landed])
        why = (
            ": its copy there has commits this clone lacks (never overwritten; its next sync"
            " merges them)"
        )
        ours = {u.dst for u in updates}
        for row in pushed.rows:
            if not row.ok and row.ref in ours:  # (else a removal: see above)
                said = why if row.retry else "".join(f"; {line}" for line in pushed.said)
                self.io.report(f"{row.branch} not pushed to {self.shown} {row.summary}{said}")
        return [u for u in updates if u.dst in landed]

    def _branch_updates(
        self, snap: Snapshot, results: dict[str, PairResult]
    ) -> tuple[list[remotes.Update], Known]:
        """Pushes of our agent branches that moved, and removals of their requests."""
        updates: list[remotes.Update] = []
        known: Known = {}
        for agent, result in results.items():
            branch = self.branches[agent]
            tip, ref = self.syncer.tip(branch), f"refs/heads/{branch}"
            if result.ok and tip != snap.branches.get(branch):
                updates.append(remotes.Update(str(tip), ref))
                known[ref] = snap.branches.get(branch)
            request = leases.request_ref(self.base, branch)
            if agent in self.published and snap.requests.get(branch) == self.published[agent]:
                updates.append(remotes.Update(None, request, expect=str(self.published[agent])))
                known[request] = self.published[agent]
            # (else another holder merged it and removed it already: a removal that expects
            # it would be rejected as stale, at every retry, the look finding it gone again)
        return updates, known

    def _landed(
        self, results: dict[str, PairResult], merged: tuple[str, ...], updates: list[remotes.Update]
    ) -> PushOutcome:
        """After a push that landed (or none was needed): move the local branches, report."""
        self.published = {a: c for a, c in self.published.items() if a not in results}
        self.results.update(results)
        names = [u.dst.removeprefix("refs/heads/") for u in updates if u.src is not None]
        names = [n for n in names if not n.startswith("refs/")]
        stopped = {self.branches[a] for a in self.stopped}  # (their lines end with next:)
        names += [b for b in self.branches_out if b not in names and b not in stopped]
        self.branches_out = {}
        try:
            self.syncer.commit()
        except RefMoved as exc:
            self.syncer.warnings.append(f"{exc.message}: the local branches were not moved")
        except RefLocked as exc:  # (landed on the remote, if any pushed) this clone stays behind
            done = f"pushed to {self.shown}: {', '.join(names)}, but " if names else ""
            raise RefLocked(  # (nothing pushed, a conflict: never "pushed")
                f"{done}the local branches were not moved: "
                f"{exc.message}; then sync again (it brings them along)",
                lock_files=exc.lock_files,
            ) from None
        for result in results.values():
            if result.ok:
                self.io.show(result)
        if names:
            done = "pushed" if not self.retries else f"pushed after {_retries(self.retries)}"
            self.io.report(f"{done} to {self.shown}: {', '.join(names)}")
        # what the refs here took as they are from the remote (e.g. what a lock kept back
        # last time); not after a stopped pair, whose lines end with its next step
        if not self.stopped and (along := self.syncer.brought_along()):
            along.sort(key=lambda b: b != self.base)  # the base first, as "pushed to" says
            self.io.report(f"brought along from {self.shown}: {', '.join(along)}")
        if merged:
            self.io.report(f"merged with it into {self.base}: {', '.join(merged)}")
        return self._outcome(not self.stopped, merged)

    # -- pushing -----------------------------------------------------------------

    def _push(self, updates: list[remotes.Update], known: Known) -> None:
        """Push (atomically, through the pre-push hook, its verdict pre-filled); Again when
        a retry can fix a rejection, PushRefused otherwise."""
        self._judge(self.pusher.push(updates, known=known))
        self.view.forget([u.dst for u in updates if u.src is None])  # (landed: see _judge)

    def _judge(self, pushed: remotes.Pushed) -> None:
        """Nothing when the push landed; Again when a retry can fix a rejection (fresh state:
        look again), PushRefused otherwise (the remote's own lines said)."""
        if pushed.ok:
            return
        failed = [row for row in pushed.rows if not row.ok]
        ours = {f"refs/heads/{b}": b for b in self.branches.values()}
        self.view.present.update(ours[row.ref] for row in failed if row.ref in ours)
        if pushed.refused_here or not all(row.retry for row in failed):
            raise PushRefused(refusal(pushed, self.remote))
        if stuck := self.remote_locks.stuck(pushed, self.io.timer()):
            raise PushRefused(refusal(pushed, self.remote) + f"\n  {stuck}")  # not transient
        refused = [row for row in failed if not row.collateral] or failed
        self.retries += 1
        if self.retries >= self.settings.attempts:
            names = ", ".join(
                row.branch for row in refused if not row.ref.startswith("refs/v")
            ) or ", ".join(f"{row.branch} {row.summary}" for row in refused)
            raise PushRefused(
                f"push to {self.shown} still rejected after {self.retries} attempts ({names})"
                + "".join(f"\n  {line}" for line in pushed.said)
            )
        names = ", ".join(f"{row.branch} {row.summary}" for row in refused)
        self.io.report(
            f"push to {self.shown} rejected ({names}): fetching and merging, retry {self.retries}"
        )
        if not self.settings.lease or locks.named_lock("\n".join(pushed.said)):
            self.io.sleep(wait_before(self.retries))  # (a lock: give its holder a moment)
        raise Again()

    # -- outcomes ----------------------------------------------------------------

    def _stop(self, agent: str, result: PairResult) -> None:
        if agent not in self.stopped:
            self.stopped[agent] = result
            self.io.show(result)

    def _give_up(self, why: str) -> PushOutcome:
        self.io.report(why)
        return self._outcome(False, message=why)

    def _outcome(
        self, pushed: bool, merged: tuple[str, ...] = (), message: str = ""
    ) -> PushOutcome:
        results = tuple(self.stopped.get(a) or self._result(a, message) for a in self.agents)
        return PushOutcome(results, pushed, self.retries, message, merged, self.lease.waited)

    def _result(self, agent: str, message: str) -> PairResult:
        done = self.results.get(agent)
        if done is not None:
            return done
        return self._pair(self.branches[agent]).refused(message or "not pushed")

    def _pair(self, branch: str) -> PairResult:
        return PairResult(self._agent_of(branch), branch, self.base, MERGED)

    def _agent_of(self, branch: str) -> str:
        return agent_config.agent_of_branch(self.repo, branch) or branch

    def _contains(self, tip: Oid | None, commit: Oid) -> bool:
        return contains(self.repo, tip, commit)

    def _base_ahead(self, snap: Snapshot) -> bool:
        local = refs.target(self.repo, self.base)
        return local is not None and not self._contains(snap.base, local)


def _retries(n: int) -> str:
    return f"{n} retr" + ("y" if n == 1 else "ies")


def left_out(result: PairResult) -> str:
    """Why an integration left a request out (its owner's own sync reports the details)."""
    if only_check_failures(result.conflicts):
        paths = ", ".join(c.path for c in result.conflicts)
        return f"merging it into {result.base} fails the checks ({paths}); its own sync reports why"
    return f"it conflicts with {result.base} (its own sync reports the conflicts)"
