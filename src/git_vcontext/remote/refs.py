"""The refs ``sync --push`` keeps on a remote besides branches: integration requests and leases.

- ``refs/vcontext/sync/<base>/<agent branch>``: an agent's request to have that commit
  merged into the base (written only by that agent: its push never races).
- ``refs/vcontext/lease/<base>``: who integrates into the base right now, until when.
  It points to a lease commit, one that changes no file: its parent is the base's tip the
  lease was taken on and its tree that tip's tree (an older version's lease, still read
  and accepted, is a root commit of the empty tree; so is a lease taken on a base the
  remote does not have yet). Its message names the holder, the expiry and when the
  holder expects its integration to have landed (``Landing:``, what waiters time their
  next look by; an older version's lease has none), and the holder's process by its pid
  and, where the system tells it, its start time (``Started:``, ``fsio.started``: a pid
  given since to another process is not the holder; an older version's lease has none,
  and reads a newer one by its pid alone) and its pid namespace (``Namespace:``,
  ``fsio.pid_namespace``: a pid recorded in a container means nothing outside it, so a
  lease from another pid namespace is judged like another machine's, by its expiry). The
  parent is there for git's fetch negotiation: a waiter's look that fetches a new lease
  ends its negotiation on the base tip it has (a root commit never lets it end early: over
  HTTP one request more per look).
  The guard, the pre-push check and sync judge a lease ref moving from one lease commit to
  another by its new commits alone, never as a forced update (``is_lease_ref``). It is
  taken and released with compare-and-swap pushes (``--force-with-lease``), and an
  expired lease may be broken by anyone, so a crashed agent blocks no one for longer.
- ``refs/vcontext/server`` (``setup.server.SERVER``): present when ``git vcontext install
  --server`` put the integrating hook in the remote (requests are then merged as they
  arrive).

``<base>`` is the branch name with ``%`` and ``/`` escaped, so no two bases' refs
collide. Everything here is pure but ``breakable`` (it asks the OS about a pid: ``fsio.alive``)
and ``this_process_holds`` (this process's pid).
"""

from __future__ import annotations

import math

from ..gitio.loose import LEASES as LEASES
from ..gitio.loose import is_lease_ref as is_lease_ref
from ..record import record, replace

REQUESTS = "refs/vcontext/sync/"
DEFAULT_SECONDS = 30.0


def encode_base(base: str) -> str:
    """A base branch as one ref component (``release/1`` → ``release%2F1``)."""
    return base.replace("%", "%25").replace("/", "%2F")


def decode_base(component: str) -> str:
    return component.replace("%2F", "/").replace("%25", "%")


def request_ref(base: str, branch: str) -> str:
    return f"{REQUESTS}{encode_base(base)}/{branch}"


def request_prefix(base: str) -> str:
    return f"{REQUESTS}{encode_base(base)}/"


def lease_ref(base: str) -> str:
    return f"{LEASES}{encode_base(base)}"


@record
class Lease:
    """Who holds a base's integration lease (from the lease commit's message)."""

    holder: str  # the agent (or agents) integrating
    host: str
    pid: int
    where: str  # the repository the holder runs in
    expires: float  # seconds since the epoch
    landing: float | None = None  # when the holder expects its round on the base (None: unsaid)
    started: int | None = None  # when the holder's process started (fsio.started; None: unsaid)
    namespace: int | None = None  # the holder's pid namespace (fsio.pid_namespace; None: unsaid)

    def message(self) -> str:
        landing = "" if self.landing is None else f"Landing: {self.landing:.3f}\n"
        started = "" if self.started is None else f"Started: {self.started}\n"
        if self.namespace is not None:
            started += f"Namespace: {self.namespace}\n"
        return (
            f"vcontext sync lease: {self.holder}\n\n"
            f"Holder: {self.holder}\nHost: {self.host}\nPid: {self.pid}\n"
            f"Repository: {self.where}\nExpires: {self.expires:.3f}\n{landing}{started}"
        )

    def expired(self, now: float) -> bool:
        return now >= self.expires

    def describe(self, now: float) -> str:
        left = self.expires - now
        return f"held by {self.holder} on {self.host} for {max(left, 0.0):.1f} s more"


def parse(message: str) -> Lease | None:
    """The lease a lease commit's message describes; None when it is not one (then it is
    treated as expired: anyone may replace it)."""
    fields = {}
    for line in message.splitlines():
        key, sep, value = line.partition(": ")
        if sep:
            fields[key] = value.strip()
    try:
        lease = Lease(
            fields["Holder"],
            fields["Host"],
            int(fields["Pid"]),
            fields["Repository"],
            float(fields["Expires"]),
        )
    except (KeyError, ValueError):
        return None
    try:  # optional (older versions do not write them); a bad one is as good as none
        landing = float(fields["Landing"])
        if math.isfinite(landing):
            lease = replace(lease, landing=landing)
    except (KeyError, ValueError):
        pass
    started = fields.get("Started", "")  # (20 digits: any 64-bit value; int() refuses 4301)
    if started.isascii() and started.isdigit() and len(started) <= 20:
        lease = replace(lease, started=int(started))
    namespace = fields.get("Namespace", "")
    if namespace.isascii() and namespace.isdigit() and len(namespace) <= 20:
        lease = replace(lease, namespace=int(namespace))
    return lease


def mine(holder: str, where: str, seconds: float, now: float, takes: float | None = None) -> Lease:
    """A lease for this process, expiring ``seconds`` from ``now``; ``takes``: how long the
    integration it is taken for should take (then said as ``Landing``)."""
    import socket  # lazy: the guard's fast path reads this module for ``is_lease_ref``

    from ..fsio import this_process

    landing = None if takes is None else now + min(takes, seconds)
    pid, start, ns = this_process()
    return Lease(holder, socket.gethostname(), pid, where, now + seconds, landing, start, ns)


def this_process_holds(lease: Lease, where: str) -> bool:
    """Whether ``lease`` was taken by this very process, in the repository ``where``: its
    host, pid, start time and pid namespace as ``mine`` writes them (one that does not
    say a start time or a namespace, an older version's, is not ours)."""
    import socket  # lazy: see ``mine``

    from ..fsio import this_process

    here = (socket.gethostname(), *this_process(), where)
    return (lease.host, lease.pid, lease.started, lease.namespace, lease.where) == here


def breakable(lease: Lease | None, where: str, now: float) -> bool:
    """Whether a lease may be taken over: none or unreadable, expired, or left behind by
    an interrupted sync in this same repository (its process is gone: ``fsio.alive``, by
    its pid and start time, so a pid given since to another process is not it; a holder
    in another pid namespace, alive for all we can tell; an older version's lease, with
    no start time, by its pid)."""
    if lease is None or lease.expired(now):
        return True
    import socket  # lazy: see ``mine``

    from ..fsio import alive

    left_here = lease.host == socket.gethostname() and lease.where == where
    return left_here and not alive(lease.pid, lease.started, lease.namespace)
