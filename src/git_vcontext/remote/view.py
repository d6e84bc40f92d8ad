"""What ``sync --push`` knows of a remote: one base, some agent branches, the requests waiting
to be merged into the base, who holds its lease, whether a server integrates.

Fetched into ``refs/vcontext/remotes/<remote>/`` (``heads/``, ``sync/``, ``lease/``,
``server``), so the objects stay reachable and the next fetch sends only what is new.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..errors import OperationalError
from ..gitio import remote as remotes
from ..gitio.httpremote import HttpRemote
from ..gitio.localremote import LocalRemote
from ..gitio.objects import commit_at, commit_named
from ..gitio.places import common_dir, fetched_namespace
from ..gitio.refs import delete_ref, ref_names, ref_target
from ..record import record
from ..setup.server import SERVER
from . import refs as leases

if TYPE_CHECKING:
    from collections.abc import Callable

    from pygit2 import Oid, Repository

    from ..gitio.transport import Link


@record
class Snapshot:
    """The remote's refs for one base, as last fetched (commit ids; None: not there)."""

    base: Oid | None
    branches: dict[str, Oid]  # agent branch -> its tip on the remote
    lease_id: Oid | None  # the lease commit, None when nobody holds the lease
    lease: leases.Lease | None  # what it says (None: unreadable, or no lease)
    server: bool
    requests: dict[str, Oid]  # agent branch -> the commit it asks to merge (when fetched)
    complete: bool  # every agent's request, as the remote has it now, fetched by
    # the look that made it (False: ours alone, see fetch; or not a look: see read)


FOLLOWS = [chr(c) for c in range(0x21, 0x7F) if chr(c) not in "~^:?*[\\"] + [
    chr(0xDC00 + b)
    for b in range(0x80, 0x100)  # (a name's bytes past ASCII, as os.fsencode)
]
"""Every byte that may follow a base's encoded name in a longer lease ref's name (another
base's whose name starts with it: ``main`` and ``mainline``; ``/`` too): what git's ref
names allow (``git check-ref-format``)."""


def lease_specs(base: str, ns: str) -> list[str]:
    """The refspecs of a look through git that fetch ``base``'s lease and no other base's.

    A glob, because git fails a fetch of a ref the remote lacks (and the lease is mostly
    absent: a second fetch without it would cost a round trip), and negative refspecs for
    every longer name the glob would match: a lease commit sits on its base's tip, so
    another base's lease (``mainline``'s for ``main``) would bring that base's history into
    every clone that syncs this one. (Negative refspecs: git 2.29 and later.)"""
    return exact_specs(leases.lease_ref(base), f"{ns}lease/{leases.encode_base(base)}")


def exact_specs(source: str, destination: str) -> list[str]:
    """Refspecs that fetch the ref ``source`` into ``destination`` when the remote has it
    and fetch nothing, without failing, when it has not: a glob ending the name, and a
    negative refspec for every longer name it would match (``FOLLOWS``). With ``--prune``,
    ``destination`` goes when ``source`` has gone, and our copies of those longer names
    stay (git 2.29 and later)."""
    # (after a name ending in "@", "{" makes "@{", which no ref name holds and git refuses in
    # a refspec: "invalid refspec", then every look would fetch twice)
    follows = [c for c in FOLLOWS if not (c == "{" and source.endswith("@"))]
    return [f"+{source}*:{destination}*", *(f"^{source}{c}*" for c in follows)]


def fetch_branches(
    repo: Repository, cwd: str, remote: str, branches: list[str], link: Link | None = None
) -> list[str]:
    """One look at ``remote`` for ``branches`` (agent branches this clone has not fetched):
    those it has are fetched as a sync's look fetches an agent branch (into sync's own
    refs, ``refs/vcontext/remotes/<remote>/heads/``, and git's remote-tracking branches by
    the remote's fetch refspecs, as any ``git fetch`` of that remote moves them); in process
    where a look may be, else with git (through ``link``, which retries what is transient,
    when given). The branches it lacks are returned."""
    ns = fetched_namespace(repo, remote)
    specs = [f"+refs/heads/{b}:{ns}heads/{b}" for b in branches]
    local = LocalRemote.find(repo, remote)
    http = None if local is not None else HttpRemote.find(repo, remote)
    if http is not None and link is not None:
        http.left = link.left  # (libgit2 gives up at the link's deadline too)
    missing = None
    if local is not None:
        missing = local.fetch(specs)
    elif http is not None:
        missing = http.fetch(specs)
    if missing is None:
        missing = remotes.fetch(cwd, remote, specs, link=link)
    return [b for b in branches if f"refs/heads/{b}" in missing]


_NO_NEGATIVE: list[bool] = []
"""Not empty once git refused negative refspecs (older than 2.29): the git this process
runs does not change."""


class RemoteView:
    """Fetches (and polls) one remote's refs for one base and the given agent branches."""

    def __init__(
        self,
        repo: Repository,
        cwd: str,
        remote: str,
        base: str,
        branches: list[str],
        link: Link | None = None,
    ) -> None:
        self.repo, self.cwd, self.remote, self.base = repo, cwd, remote, base
        self.branches = branches
        self.link = link  # the sync's connection (retries, a shared ssh connection)
        self.ns = fetched_namespace(repo, remote)
        self.local = LocalRemote.find(repo, remote)  # read in process (None: with git)
        # over HTTP(S), looked at in process where git would do nothing else (None: git)
        self.http = None if self.local is not None else HttpRemote.find(repo, remote)
        if self.http is not None and link is not None:
            self.http.left = link.left  # (libgit2 gives up at the sync's deadline too)
        self.present: set[str] = set()  # agent branches the remote was found to have
        self._latest: Snapshot | None = None  # what the last poll fetched (see latest())
        self.looked = 0.0  # when the last look (fetch) ended (the Link's timer: monotonic)
        # what the looks said of remote-tracking refs they left as git's fetch leaves them
        # (a rewritten branch under a refspec without "+", a lock in the way), once each
        self.notes: dict[str, None] = {}

    def fetch(self, *, light: bool = False, waiting: bool = False) -> Snapshot:
        """Fetch the base, the agent branches, its lease, the server mark and every request
        to merge into the base (what an integration needs, so that the look that finds the
        lease free serves the integration too); OperationalError when the remote cannot be
        reached.

        ``light``: a look that may leave out other agents' requests when another sync
        holds the lease (and may keep it), or (``waiting``: a look of a sync waiting for
        its requests to be merged) when none of ours is left: such a sync merges none
        of them, and each is a commit with whole documents the server packs again for
        every look that brings it (``tests/bench/bench_soak.py --transport http
        --processes``: pack-objects under upload-pack the server's largest cost). In
        process over HTTP the remote's refs are listed before any pack is asked for
        (``HttpRemote.fetch``'s ``choose``); through git (SSH, or HTTP where libgit2 is
        not used) the look leaves the others' requests out, and fetches them in a second
        command when the lease it brought proves free (``_light_fetch``). Left out, the
        snapshot says
        ``complete=False`` and holds our requests alone (our copies of the others' stay
        as the last full look left them: ``read`` gives them, as what was last seen, to
        the estimate of an integration's length, never to a merge): an integration from
        it looks again first.

        Through git, an agent branch is asked for only when the remote is known to have
        it (fetched or pushed before, or said so by a rejected push: ``present``): git
        fails a fetch of a ref the remote lacks, and a second fetch without it costs a
        round trip (a push of a branch the remote has is rejected, and the next look
        fetches it)."""
        self._latest = None
        ns, enc = self.ns, leases.encode_base(self.base)

        def specs(branches: list[str]) -> list[str]:
            found = [f"+refs/heads/{b}:{ns}heads/{b}" for b in [self.base, *branches]]
            found += [f"+{SERVER}*:{ns}server*"]
            found.append(f"+{leases.request_prefix(self.base)}*:{ns}sync/{enc}/*")  # every agent's
            return found

        lease = f"+{leases.lease_ref(self.base)}:{ns}lease/{enc}"  # (absent: simply missing)
        missing = None
        notes: list[str] = []
        complete = [True]
        if self.local is not None:
            missing = self.local.fetch([*specs(self.branches), lease], prune=True, notes=notes)
        elif self.http is not None:  # (a ref it lacks is no failure here)
            every = [*specs(self.branches), lease]
            choose = self._chooser(every, complete, waiting=waiting) if light else None
            missing = self.http.fetch(every, prune=True, notes=notes, choose=choose)
        if missing is None:  # not on this machine, or more than a copy should bring
            branches = self.branches if self.local is not None else self._known_branches()
            notes = []
            complete[0] = True
            found = specs(branches)
            light_look = self._light_fetch(found, waiting, notes) if light else None
            if light_look is not None:
                missing, complete[0] = light_look
            else:
                missing = self._fetch(found, lease_specs(self.base, ns), notes)
        self.notes.update(dict.fromkeys(notes))
        self.looked = self.link.timer() if self.link is not None else time.monotonic()
        for source in missing:  # gone from the remote: forget what an earlier fetch saw
            if source.startswith("refs/heads/"):
                self._drop(ns + "heads/" + source.removeprefix("refs/heads/"))
        return self.read(complete=True) if complete[0] else self.read(requests=False)

    def _chooser(
        self, every: list[str], complete: list[bool], *, waiting: bool
    ) -> Callable[[dict[str, Oid]], list[str]]:
        """What a light look fetches, given the remote's refs (see ``fetch``): ``every``
        refspec, or all but the other agents' requests (``complete[0]`` says which)."""
        glob = f"+{leases.request_prefix(self.base)}"
        ns, enc = self.ns, leases.encode_base(self.base)
        ours = {leases.request_ref(self.base, b): f"{ns}sync/{enc}/{b}" for b in self.branches}
        light = [s for s in every if not s.startswith(glob)]
        light += [f"+{src}:{dst}" for src, dst in ours.items()]

        def choose(heads: dict[str, Oid]) -> list[str]:
            free = not self._held_by_another(heads.get(leases.lease_ref(self.base)))
            complete[0] = free and (not waiting or any(ref in heads for ref in ours))
            return every if complete[0] else light

        return choose

    def _light_fetch(
        self, every: list[str], waiting: bool, notes: list[str]
    ) -> tuple[list[str], bool] | None:
        """A light look through git (see ``fetch``): git lists the remote's refs only as it
        fetches, so the lease as the last look left it decides. Held by another sync then
        (as through most of a wait), it fetches ``every`` refspec but the other agents'
        requests (ours each exactly: ``exact_specs``), judges the lease it brought as
        ``_chooser`` judges it, and when the look should be complete (the lease found free
        with our request waiting: once per release, not at every look) fetches the
        requests too, in a second command (over ssh a session on the sync's connection).
        (missing sources, complete); None: the full look (the lease free when last seen,
        or a git without negative refspecs)."""
        ns, enc = self.ns, leases.encode_base(self.base)
        if _NO_NEGATIVE or not self._held_by_another(self._tip(f"{ns}lease/{enc}")):
            return None
        glob = f"+{leases.request_prefix(self.base)}"
        ours = [f"{ns}sync/{enc}/{b}" for b in self.branches]
        light = [s for s in every if not s.startswith(glob)]
        for branch, copy in zip(self.branches, ours, strict=True):
            light += exact_specs(leases.request_ref(self.base, branch), copy)
        try:
            missing = remotes.fetch(
                self.cwd, self.remote, [*light, *lease_specs(self.base, ns)], prune=True,
                link=self.link, notes=notes,
            )  # fmt: skip
        except OperationalError as exc:
            if "invalid refspec" not in exc.message:
                raise
            _NO_NEGATIVE.append(True)
            return None
        lease_id = self._tip(f"{ns}lease/{enc}")
        mine = any(self._tip(copy) is not None for copy in ours)
        if self._held_by_another(lease_id) or (waiting and not mine):
            return missing, False
        requests = [s for s in every if s.startswith(glob)]
        missing += remotes.fetch(
            self.cwd, self.remote, requests, prune=True, link=self.link, notes=notes
        )
        return missing, True

    def _held_by_another(self, lease_id: Oid | None) -> bool:
        """Whether the lease commit ``lease_id`` (as the remote lists it) is held by another
        sync that may keep it: False when there is none, when it is this process's own, or
        when it may be taken over (``breakable``); True when it is not here yet (the look
        brings it, and ``choose`` is asked again)."""
        if lease_id is None:
            return False
        commit = commit_named(self.repo, str(lease_id))
        if commit is None:
            return True  # (not here yet: it comes with the light look, judged then)
        said, where = leases.parse(commit.message), str(common_dir(self.repo))
        if said is None or leases.breakable(said, where, time.time()):
            return False
        return not leases.this_process_holds(said, where)

    def _fetch(
        self, specs: list[str], lease: list[str], notes: list[str] | None = None
    ) -> list[str]:
        """Fetch ``specs`` and the lease's (``lease_specs``) through git; a git older than
        2.29 refuses the negative refspecs (``invalid refspec``): then the glob alone, in
        this look and every later one of this process (``_NO_NEGATIVE``: not a failed git
        fetch before each)."""
        if not _NO_NEGATIVE:
            try:
                return remotes.fetch(
                    self.cwd, self.remote, [*specs, *lease], prune=True, link=self.link,
                    notes=notes,
                )  # fmt: skip
            except OperationalError as exc:
                if "invalid refspec" not in exc.message:
                    raise
            _NO_NEGATIVE.append(True)
        return remotes.fetch(
            self.cwd, self.remote, [*specs, lease[0]], prune=True, link=self.link, notes=notes
        )

    def latest(self) -> Snapshot | None:
        """What the last look while waiting fetched, once (None: nothing since, or that look
        read refs without fetching): the next step starts from it instead of fetching again."""
        latest, self._latest = self._latest, None
        return latest

    def read(self, *, requests: bool = True, complete: bool = False) -> Snapshot:
        """The refs as last fetched (``requests``: every agent's; else only ours); what a
        look just fetched says ``complete`` (every request as the remote has it now), any
        other reading does not (the others' requests as the last full look left them)."""
        ns = self.ns
        lease_id = self._tip(ns + "lease/" + leases.encode_base(self.base))
        lease = None if lease_id is None else leases.parse(commit_at(self.repo, lease_id).message)
        prefix = f"{ns}sync/{leases.encode_base(self.base)}/"
        tips = {n[len(prefix) :]: self._tip(n) for n in self._names(prefix)}
        found = {b: c for b, c in tips.items() if c is not None}  # None: deleted meanwhile
        if not requests:
            found = {b: c for b, c in found.items() if b in self.branches}
        return Snapshot(
            self._tip(ns + "heads/" + self.base),
            {b: t for b in self.branches if (t := self._tip(ns + "heads/" + b)) is not None},
            lease_id,
            lease,
            self._tip(ns + "server") is not None,
            found,
            complete,
        )

    def poll(self) -> tuple[str | None, int, leases.Lease | None]:
        """(the lease commit, how many of our requests, what the lease says when it was
        fetched) on the remote now: a request that is gone was merged by whoever held the
        lease.

        A remote on this machine has its refs read in process. Any other is fetched (as
        ``fetch``): a fetch that finds nothing new costs what ``git ls-remote`` costs (one
        ref listing), and the look that ends the wait has brought what the next step needs
        (``latest``), so no second command follows it."""
        if self.local is not None:
            lease_ref = leases.lease_ref(self.base)
            ours = [leases.request_ref(self.base, b) for b in self.branches]
            found = self.local.list_refs([lease_ref, *ours])
            return found.get(lease_ref), sum(1 for r in ours if r in found), None
        snap = self.fetch(light=True, waiting=True)
        self.keep(snap)
        lease = None if snap.lease_id is None else str(snap.lease_id)
        return lease, sum(1 for b in self.branches if b in snap.requests), snap.lease

    def forget(self, removed: list[str]) -> None:
        """Delete our copies of the remote's refs a push of ours just removed there (this
        base's requests, its lease): a fetch would prune them (``--prune`` over this
        namespace's refspecs alone), but a clone that does not fetch again would keep
        them, and the commits they name, until it does. Only refs under this namespace
        (``refs/vcontext/remotes/<remote>/``): never a remote-tracking branch of git's."""
        enc = leases.encode_base(self.base)
        requests, lease = leases.request_prefix(self.base), leases.lease_ref(self.base)
        for ref in removed:
            if ref.startswith(requests):
                self._drop(f"{self.ns}sync/{enc}/{ref.removeprefix(requests)}")
            elif ref == lease:
                self._drop(f"{self.ns}lease/{enc}")

    def keep(self, snap: Snapshot) -> None:
        """Have the next step start from ``snap`` (a look just taken) instead of looking."""
        self._latest = snap

    def _known_branches(self) -> list[str]:
        """The agent branches the remote is known to have (see ``fetch``)."""
        tracking = f"refs/remotes/{self.remote}/"
        return [
            b
            for b in self.branches
            if b in self.present
            or self._tip(f"{self.ns}heads/{b}") is not None
            or self._tip(tracking + b) is not None
        ]

    def _tip(self, name: str) -> Oid | None:
        return ref_target(self.repo, name)

    def _names(self, prefix: str) -> list[str]:
        return sorted(ref_names(self.repo, prefix))

    def _drop(self, name: str) -> None:
        delete_ref(self.repo, name)
