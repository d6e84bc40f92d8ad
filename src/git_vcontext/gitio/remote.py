"""Pushing and fetching branches with the git command (credentials, hooks, transports: git's)."""

from __future__ import annotations

from ..errors import OperationalError
from ..record import record
from . import complaint, git

_NEEDS_MERGE = ("fetch first", "non-fast-forward", "stale info")
_TRANSIENT = ("lock", "failed to update ref", "incorrect old value", "atomic transaction failed")
_ATOMIC_FAILED = "atomic push failed"  # this ref was fine; another one in the push was not


@record
class PushedRef:
    """What the remote said about one pushed branch."""

    branch: str
    ok: bool
    retry: bool  # rejected for a reason a fetch + merge (or a new attempt) can fix
    summary: str  # git's words, e.g. "[rejected] (fetch first)"

    @property
    def collateral(self) -> bool:
        """Refused only because another ref of the same atomic push was."""
        return not self.ok and _ATOMIC_FAILED in self.summary


@record
class Pushed:
    """One push: a row per branch, and whether the remote took it all-or-nothing."""

    rows: tuple[PushedRef, ...]
    atomic: bool


def push(cwd: str, remote: str, branches: list[str], *, atomic: bool = True) -> Pushed:
    """Push local ``branches`` to the same names on ``remote``; one row per branch.

    With ``atomic`` the remote moves every branch or none (``git push --atomic``);
    a remote that cannot do that gets an ordinary push (``Pushed.atomic`` says
    which happened). A failure that is not about a branch (unknown remote, a
    pre-push hook that refuses, no network) raises OperationalError with git's message.
    """
    specs = [f"refs/heads/{b}:refs/heads/{b}" for b in branches]
    flags = ["--atomic"] if atomic and len(specs) > 1 else []
    out = git(["push", "--porcelain", *flags, remote, *specs], cwd=cwd, check=False)
    rows = _porcelain(out.stdout)
    if not rows and flags and "--atomic" in out.stderr:  # e.g. "does not support --atomic"
        return push(cwd, remote, branches, atomic=False)
    if not rows:
        raise OperationalError(f"git push {remote}: {complaint(out.stderr, out.returncode)}")
    return Pushed(tuple(rows), bool(flags) or len(specs) == 1)


def _porcelain(text: str) -> list[PushedRef]:
    rows = []
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or len(parts[0]) != 1 or ":" not in parts[1]:
            continue
        flag, spec, summary = parts[0], parts[1], "\t".join(parts[2:])
        branch = spec.split(":", 1)[1].removeprefix("refs/heads/")
        ok = flag != "!"
        retry = not ok and any(w in summary for w in (*_NEEDS_MERGE, *_TRANSIENT, _ATOMIC_FAILED))
        rows.append(PushedRef(branch, ok, retry, summary))
    return rows


def fetch(cwd: str, remote: str, branches: list[str]) -> dict[str, str]:
    """Fetch ``branches`` from ``remote``; ``{branch: commit id}`` of what the remote has.

    A branch the remote does not have (an agent branch before its first push) is
    left out of the answer, not an error. (A named remote's tracking branches are
    updated too, as git does for any fetch.)
    """
    wanted = list(branches)
    while wanted:
        out = git(["fetch", "--quiet", "--no-tags", remote, *_heads(wanted)], cwd=cwd, check=False)
        if out.returncode == 0:
            return _fetched(cwd, wanted)
        missing = _missing_refs(out.stderr) & set(wanted)
        if not missing:
            raise OperationalError(f"git fetch {remote}: {complaint(out.stderr, out.returncode)}")
        wanted = [b for b in wanted if b not in missing]
    return {}


def _heads(branches: list[str]) -> list[str]:
    return [f"refs/heads/{b}" for b in branches]


def _missing_refs(stderr: str) -> set[str]:
    """The branches git says the remote lacks ("couldn't find remote ref refs/heads/X")."""
    marker = "couldn't find remote ref refs/heads/"
    return {ln.split(marker, 1)[1].strip() for ln in stderr.splitlines() if marker in ln}


def _fetched(cwd: str, branches: list[str]) -> dict[str, str]:
    """``{branch: commit id}`` from FETCH_HEAD, whose lines follow the order of the refspecs."""
    from pathlib import Path

    where = git(["rev-parse", "--git-path", "FETCH_HEAD"], cwd=cwd).stdout.strip()
    path = Path(where) if Path(where).is_absolute() else Path(cwd) / where
    found: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    for branch, line in zip(branches, lines, strict=False):
        found[branch] = line.split("\t", 1)[0]
    return found
