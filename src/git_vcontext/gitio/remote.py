"""Pushing, fetching and listing a remote's refs with the git command (credentials, hooks,
transports: git's)."""

from __future__ import annotations

import re

from ..errors import OperationalError, shown_text, shown_url
from ..record import record
from . import GitResult, complaint, git, locks
from .operands import plain
from .transport import Link, TransportError, explained, transient

_NEEDS_MERGE = ("fetch first", "non-fast-forward", "stale info")
_TRANSIENT = ("lock", "failed to update ref", "incorrect old value", "atomic transaction failed")
_FOR_GOOD = (  # what the remote says when a ref cannot be written by anyone's retry
    "unable to create directory",
    "Permission denied",
    "insufficient permission",
    "Read-only file system",
    "No space left on device",
    "Disk quota exceeded",
    "unable to write",
    "unable to migrate objects",
    "unable to create temporary",
)
_ATOMIC_FAILED = "atomic push failed"  # this ref was fine; another one in the push was not
_NOISE = ("To ", "error: failed to push some refs", "hint: ", "Done")


@record
class Update:
    """One ref a push writes: ``src`` (a commit id; None deletes ``dst``) to the remote's ``dst``.

    ``expect``: the value ``dst`` must hold on the remote (``--force-with-lease``; ""
    = must not exist), which also allows a forced update; ``force``: any value.
    """

    src: str | None
    dst: str
    force: bool = False
    expect: str | None = None

    def refspec(self) -> str:
        plus = "+" if self.force and self.expect is None else ""
        return f"{plus}{self.src or ''}:{self.dst}"


@record
class PushedRef:
    """What the remote said about one pushed ref."""

    ref: str  # the remote's full ref name
    ok: bool
    retry: bool  # rejected for a reason a fetch + merge (or a new attempt) can fix
    summary: str  # git's words, e.g. "[rejected] (fetch first)"

    @property
    def branch(self) -> str:
        """The short name of a branch (other refs keep their full name)."""
        return self.ref.removeprefix("refs/heads/")

    @property
    def collateral(self) -> bool:
        """Refused only because another ref of the same atomic push was."""
        return not self.ok and _ATOMIC_FAILED in self.summary


@record
class Pushed:
    """One push: a row per ref, whether the remote took it all-or-nothing, and what git, the
    pre-push hook and the remote said (``remote:`` lines, the hook's findings)."""

    rows: tuple[PushedRef, ...]
    atomic: bool
    said: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return bool(self.rows) and all(row.ok for row in self.rows)

    @property
    def refused_here(self) -> bool:
        """Nothing reached the remote: the pre-push hook (or another local check) refused."""
        return not self.rows


def push(
    cwd: str,
    remote: str,
    updates: list[Update],
    *,
    atomic: bool = True,
    verify: bool = True,
    link: Link | None = None,
    notes: list[str] | None = None,
) -> Pushed:
    """Push ``updates``; one row per ref.

    With ``atomic`` the remote moves every ref or none (``git push --atomic``); a
    remote that cannot do that gets an ordinary push (``Pushed.atomic`` says which
    happened). ``verify`` False skips the pre-push hook (``--no-verify``): only for
    refs that carry no content of the user's. A failure that is not about a ref
    (unknown remote, no network) raises a TransportError with git's words (``transient``
    when trying again may work: the caller looks at the remote again first, since a
    push whose connection dropped may have landed); a push the pre-push hook refused is
    a ``Pushed`` without rows and with the hook's words. A ref the remote cannot write
    for good (a permission, a full disk: its own ``remote:`` lines say so) is no retry.
    ``notes``: a remote-tracking ref here that git could not move after the push landed
    (a lock file in its way, ``_local_locks``), one line each; never the remote's words.
    """
    flags = ["--atomic"] if atomic and len(updates) > 1 else []
    flags += [] if verify else ["--no-verify"]
    flags += [f"--force-with-lease={u.dst}:{u.expect}" for u in updates if u.expect is not None]
    specs = [u.refspec() for u in updates]
    command = ["--porcelain", *flags, "--", plain(remote, "remote"), *specs]
    out = _run(link, cwd, remote, "push", command, again=False)
    rows = _porcelain(out.stdout)
    if not rows and "--atomic" in flags and "--atomic" in out.stderr:  # not supported there
        return push(cwd, remote, updates, atomic=False, verify=verify, link=link)
    said = tuple(_said(_local_locks(cwd, remote, out.stderr, notes)))
    if not rows and (out.returncode == 0 or _fatal(out.stderr)):
        raise _failure("push", remote, out)
    if any(w in line for line in said for w in _FOR_GOOD):
        rows = [row if row.ok else PushedRef(row.ref, False, False, row.summary) for row in rows]
    return Pushed(tuple(rows), bool(flags and "--atomic" in flags) or len(specs) == 1, said)


_LOCAL_UPDATE_FAILED = "error: update_ref failed for ref "
"""How git's push starts the line of a remote-tracking ref here it could not move once the
remote took the push (``refs/remotes/origin/main``): the remote's own lines start with
``remote:``."""
_GITS_OWN = ("remote:", "error:", "fatal:", "hint:", "warning:", "To ", " ", "\t", "!")
"""How a line of git's push that is not the paragraph after a lock message starts."""


def _local_locks(cwd: str, remote: str, stderr: str, notes: list[str] | None) -> str:
    """``stderr`` of a push without what git says of a remote-tracking ref here that a lock
    file kept it from moving after the push landed (its ``error: update_ref failed`` line
    and the paragraph after it): said in ``notes`` instead (``localremote.locked_move``,
    the line a look says of it), for the lock is this clone's, not the remote's. Left in
    ``said``, ``RemoteLocks`` took it for the remote's lock of a rejected ref (the lease a
    running integration holds), and the sync gave up where it waits."""
    from .localremote import locked_move

    kept: list[str] = []
    after = False  # in the paragraph git writes after a lock's line
    common = None
    for line in stderr.splitlines():
        if after and not line.startswith(_GITS_OWN):  # (a blank line opens the paragraph)
            continue
        after = False
        lock = locks.named_lock(line) if line.startswith(_LOCAL_UPDATE_FAILED) else None
        common = common or (None if lock is None else _common(cwd))
        ref = None if lock is None else locks.ref_of(lock, common)
        if lock is None or ref is None:
            kept.append(line)
            continue
        after = True
        if notes is not None and locks.age(lock) is not None:  # (still there)
            notes.append(locked_move(remote, ref, lock, pushed=True))
    return "\n".join(kept)


def _run(
    link: Link | None, cwd: str, remote: str, verb: str, args: list[str], *, again: bool = True
) -> GitResult:
    """One git command that talks to the remote: through the sync's ``link`` (retries,
    shared connections), else once."""
    if link is not None:
        return link.run(verb, args, again=again)
    return git([verb, *args], cwd=cwd, check=False)


def _failure(verb: str, remote: str, out: GitResult) -> TransportError:
    """A git command that could not talk to the remote, in git's words (the lines that say
    why included: ssh's, the remote's)."""
    return TransportError(
        f"git {verb} {shown_url(remote)}: {explained(out.stderr, out.returncode)}",
        transient=transient(out.stderr),
        lines=out.stderr,
    )


def _fatal(stderr: str) -> bool:
    return any(line.startswith("fatal: ") for line in stderr.splitlines())


def _said(stderr: str) -> list[str]:
    """stderr without git's generic lines: the hook's findings, the remote's reasons."""
    lines = [line.rstrip() for line in stderr.splitlines()]
    return [line for line in lines if line.strip() and not line.startswith(_NOISE)]


def _porcelain(text: str) -> list[PushedRef]:
    rows = []
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or len(parts[0]) != 1 or ":" not in parts[1]:
            continue
        flag, spec, summary = parts[0], parts[1], "\t".join(parts[2:])
        ref = spec.split(":", 1)[1]
        ok = flag != "!"
        retry = not ok and any(w in summary for w in (*_NEEDS_MERGE, *_TRANSIENT, _ATOMIC_FAILED))
        rows.append(PushedRef(ref, ok, retry, summary))
    return rows


def fetch(
    cwd: str,
    remote: str,
    refspecs: list[str],
    *,
    prune: bool = False,
    link: Link | None = None,
    notes: list[str] | None = None,
) -> list[str]:
    """Fetch ``refspecs`` (``+SRC:DST``) from ``remote``; the SRCs it does not have are left
    out (an agent branch before its first push) and returned.

    A named remote's tracking branches are updated too, as git does for any fetch. One git
    refuses to move (a rewritten branch where the remote's fetch refspec has no ``+``; a
    lock file that stays in its way) fails git's fetch (exit 1) though every ref asked for
    was fetched: that is no failure here, but a line in ``notes`` saying it, as the look in
    process says it (``localremote.update_tracking``).
    """
    wanted = list(refspecs)
    missing: list[str] = []
    unlocked = 0
    while wanted:
        flags = ["--prune"] if prune else []
        # (not --quiet: its summary lines name the refs git refused to move)
        command = ["--no-tags", "--no-write-fetch-head", *flags]
        out = _run(link, cwd, remote, "fetch", [*command, "--", plain(remote, "remote"), *wanted])
        if out.returncode == 0:
            return missing
        lacking = _missing_refs(out.stderr)
        dropped = [s for s in wanted if _source(s) in lacking]
        if not dropped:
            lock = locks.named_lock(out.stderr)
            if lock is not None and unlocked < 3 and locks.settle(lock, _common(cwd)):
                unlocked += 1  # a lock of a ref here that went away (or was ours, stale)
                continue
            aside = _tracking_refused(cwd, remote, wanted, out.stderr, lock)
            if aside is not None:
                if notes is not None:
                    notes += aside
                return missing
            if lock is None:
                raise _failure("fetch", remote, out)
            why = complaint(out.stderr, out.returncode)
            here = locks.age(lock) is not None
            if here:
                why += f"; {locks.advice(lock)}"
            raise OperationalError(
                f"git fetch {shown_url(remote)}: {why}", lock_files=(lock,) if here else ()
            )
        missing += [_source(s) for s in dropped]
        wanted = [s for s in wanted if s not in dropped]
    return missing


_REFUSED_LINE = re.compile(r"^ ! (?:\[rejected\]|\S+)\s+(\S+)\s+-> (\S+)\s+\((.+)\)$")
"""A summary line of a ref git's fetch did not update: `` ! [rejected]  main -> origin/main
(non-fast-forward)``, `` ! 1a2b..3c4d  main -> origin/main  (unable to update local ref)``
(the SRC and the DST as git shows them: ``localremote.shown_ref``)."""


def _tracking_refused(
    cwd: str, remote: str, wanted: list[str], stderr: str, lock: str | None
) -> list[str] | None:
    """When a failed fetch refused only refs none of ``wanted`` names as its DST — the
    remote-tracking refs git updates of its own accord for a named remote, by its fetch
    refspecs — the lines that say so (``localremote.refused_move``, ``locked_move``: the
    texts the look in process says); None when anything else failed (a ``fatal:``, an error
    other than a lock, a ref sync asked for)."""
    from .localremote import (
        full_refs,
        locked_move,
        refspec_match,
        refused_move,
        shown_ref,
        split_refspec,
    )

    common = _common(cwd)
    locked = None if lock is None else locks.ref_of(lock, common)
    targets = [split_refspec(s)[1] for s in wanted]

    def asked(shown: str) -> bool:  # a DST of ours, as git shows it
        return any(refspec_match(t, n) is not None for t in targets for n in full_refs(shown))

    said: list[str] = []
    for line in stderr.splitlines():
        if line.startswith("fatal: "):
            return None
        if line.startswith("error: ") and not line.startswith("error: cannot lock ref "):
            return None
        found = _REFUSED_LINE.match(line)
        if found is None:
            continue
        src, dst, why = found.groups()
        if asked(dst):
            return None
        full_src, full_dst = _tracking_names(cwd, remote, wanted, src, dst)
        if why == "non-fast-forward" and full_src is not None and full_dst is not None:
            said.append(refused_move(remote, full_src, full_dst))
        elif (
            why == "unable to update local ref"
            and lock is not None
            and locked is not None
            and shown_ref(locked) == dst
        ):
            said.append(locked_move(remote, locked, lock))
        else:
            said.append(f"git fetch {shown_url(remote)}: {shown_text(line.strip())}")
    if locked is not None and (asked(locked) or not said):
        return None  # (a lock on a ref of ours, or one git named on no line of its summary)
    return said or None


def _tracking_names(
    cwd: str, remote: str, wanted: list[str], src: str, dst: str
) -> tuple[str | None, str | None]:
    """The full names of the remote's ref ``src`` and of its remote-tracking ref ``dst``, as
    a summary line of git's fetch shows them (``localremote.shown_ref``): the SRC of
    ``wanted`` it is, and the ref the remote's fetch refspecs give it
    (``localremote.tracking_refs``); None for one that is not found."""
    from . import open_repo
    from .localremote import full_refs, refspec_match, shown_ref, split_refspec, tracking_refs

    sources = [split_refspec(s)[0] for s in wanted]
    full = full_refs(src)
    ref = next((n for n in full for s in sources if refspec_match(s, n) is not None), None)
    if ref is None:
        return None, None
    try:
        dsts = [d for d, _ in tracking_refs(open_repo(cwd), remote, ref)]
    except OperationalError:
        return ref, None
    return ref, next((d for d in dsts if shown_ref(d) == dst), None)


def _common(cwd: str) -> str | None:
    """The git common directory of the repository at ``cwd`` (a fetch writes its refs
    there: the locks in its way are its), None when it cannot be opened."""
    from . import open_repo
    from .places import common_dir

    try:
        return str(common_dir(open_repo(cwd)))
    except OperationalError:
        return None


def _source(refspec: str) -> str:
    return refspec.lstrip("+").split(":", 1)[0]


def _missing_refs(stderr: str) -> set[str]:
    """The refs git says the remote lacks ("couldn't find remote ref refs/heads/X")."""
    marker = "couldn't find remote ref "
    return {ln.split(marker, 1)[1].strip() for ln in stderr.splitlines() if marker in ln}


def list_refs(
    cwd: str, remote: str, refs: list[str], *, link: Link | None = None
) -> dict[str, str]:
    """``{ref: object id}`` of the exact ``refs`` the remote has (``git ls-remote``; no objects
    are transferred: cheap enough to ask while waiting)."""
    out = _run(link, cwd, remote, "ls-remote", ["--", plain(remote, "remote"), *refs])
    if out.returncode != 0:
        raise _failure("ls-remote", remote, out)
    found = {}
    for line in out.stdout.splitlines():
        sha, _, name = line.partition("\t")
        if name in refs:
            found[name] = sha
    return found
