"""Server-side integration (``git vcontext install --server``): the bare repository's
post-receive hook merges the agents' requests into their bases, one hook at a time.

A push that writes a request (``refs/vcontext/sync/BASE/BRANCH``) starts the hook; it
takes a lock in the repository and merges every request not yet in its base (its
own and any that arrived meanwhile), with the same engine and merge commits as
``sync``, checks the new commits as the pre-push hook would, and moves the base with a
compare-and-swap (a push to the base meanwhile: merge again). The pushing agent waits
for the hook, so when its push returns its work is on the base, unless it conflicts:
then the hook says so and the agent's ``sync`` integrates (and reports) it itself.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..branches.agents import agent_of_branch
from ..branches.ancestry import has_work
from ..errors import OperationalError, RefMoved
from ..gitio import git, git_dir, refs
from ..gitio.objects import descends, signature, signatures
from ..gitio.outgoing import RefUpdate
from ..gitio.places import common_dir
from ..gitio.refs import ref_names, ref_target
from ..prepush.cache import VerdictCache
from ..prepush.check import check_updates
from ..sync.syncer import MERGED, UP_TO_DATE, Syncer
from . import refs as leases

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from typing import IO

    from pygit2 import Oid, Repository, Signature

    from ..sync.syncer import PairResult

LOCK_WAIT = 60.0  # seconds to wait for another hook's integration before going ahead anyway
IDENTITY = ("git-vcontext", "git-vcontext@localhost")


def bases_requested(text: str) -> list[str]:
    """The bases that post-receive input (``<old> <new> <ref>`` lines) wrote requests for."""
    found = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 3 or not parts[2].startswith(leases.REQUESTS) or set(parts[1]) == {"0"}:
            continue
        component = parts[2][len(leases.REQUESTS) :].split("/", 1)[0]
        found.append(leases.decode_base(component))
    return list(dict.fromkeys(found))


def integrate(repo: Repository, bases: list[str]) -> list[str]:
    """Merge the waiting requests into each of ``bases``; report lines."""
    lines: list[str] = []
    with _locked(common_dir(repo)):
        for base in bases:
            lines += _integrate_base(repo, base)
    return lines


def _integrate_base(repo: Repository, base: str, tries: int = 5) -> list[str]:
    lines: list[str] = []
    for _ in range(tries):
        tip = refs.target(repo, base)
        if tip is None:
            return [f"git-vcontext: no branch {base}: its requests were not merged"]
        syncer = Syncer(repo)
        syncer.use_identity(_identity(repo))
        _, others = syncer.batch([], list(_requests(repo, base, tip)), combine=True)
        lines = [
            f"git-vcontext: {o.branch} not merged into {base}: " + _why(o)
            for o in others
            if o.state not in (MERGED, UP_TO_DATE)
        ]
        merged = [o.branch for o in others if o.state == MERGED and o.base_moves]
        new = syncer.tip(base)
        if new is None or new == tip:  # (None: never, the base exists)
            _remove_landed(repo, base, tip)  # a request naming work the base holds already
            return lines  # (a killed sync's push that landed late): nothing waits for it
        if findings := _check(repo, base, tip, new):
            return [*lines, f"git-vcontext: the merge into {base} was not kept:", *findings]
        try:
            syncer.commit()
        except RefMoved:
            continue  # someone pushed the base meanwhile: merge again on top of it
        _remove_landed(repo, base, new)
        shown = ", ".join(merged)
        return [*lines, f"git-vcontext: merged into {base} ({str(new)[:12]}): {shown}"]
    return [*lines, f"git-vcontext: {base} kept moving: its requests wait for the next push"]


def _requests(repo: Repository, base: str, tip: Oid) -> Iterator[tuple[str, str, str, Oid]]:
    prefix = leases.request_prefix(base)
    for name in sorted(ref_names(repo, prefix)):
        commit = ref_target(repo, name)
        if commit is None:  # removed since it was listed (another round took it)
            continue
        if commit == tip or descends(repo, tip, commit):
            continue
        branch = name[len(prefix) :]
        yield agent_of_branch(repo, branch) or branch, branch, base, commit


def _remove_landed(repo: Repository, base: str, tip: Oid) -> None:
    """Remove the requests that hold no work the base lacks now (``has_work``: merged, or
    only merges of the base), each only if it still names that commit."""
    prefix = leases.request_prefix(base)
    for name in ref_names(repo, prefix):
        commit = ref_target(repo, name)
        if commit is None:  # removed since it was listed (another round took it)
            continue
        if not has_work(repo, commit, tip):
            git(["update-ref", "-d", "--", name, str(commit)], cwd=git_dir(repo), check=False)


def _why(result: PairResult) -> str:
    if result.conflicts:
        return "; ".join(c.describe() for c in result.conflicts)
    return str(result.message or result.state)


def _check(repo: Repository, base: str, old: Oid, new: Oid) -> list[str]:
    """The pre-push hook's findings on the new commits of ``base`` (none expected)."""
    update = RefUpdate(str(new), str(new), f"refs/heads/{base}", str(old))
    cache = VerdictCache.open(common_dir(repo))
    report, _ = check_updates(repo, [update], "(server)", cache)
    cache.save()
    return list(report.lines) if report.problems else []


def _identity(repo: Repository) -> Signature:
    """Who commits the merges: as git would (``GIT_COMMITTER_*``, then the repository's
    user.name/email), else git-vcontext."""
    try:
        return signatures(repo)[1]
    except OperationalError:
        return signature(*IDENTITY)


class _locked:
    """An exclusive lock on the repository's integration (flock where there is one)."""

    def __init__(self, common: Path) -> None:
        self.path = common / "vcontext" / "integrate.lock"
        self.fh: IO[bytes] | None = None

    def __enter__(self) -> None:
        try:
            import fcntl
        except ImportError:  # no flock here: the compare-and-swap alone keeps it safe
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(self.path, "a+b")  # closed in __exit__
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(self.fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.02)

    def __exit__(self, *exc: object) -> None:
        if self.fh is not None:
            self.fh.close()  # releases the lock
