"""Where a base branch's remote copy is: the remote it tracks and its tip as last fetched
(what ``status`` counts against, and what sync's checkout and ``--push`` start from)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..branches.ancestry import contains
from ..gitio import config_value
from ..gitio.places import fetched_namespace
from ..gitio.refs import commit_of

if TYPE_CHECKING:
    from pygit2 import Oid, Repository


def upstream(repo: Repository, base: str) -> str | None:
    """The remote the base branch tracks (``branch.BASE.remote``), None for none or '.'."""
    remote = config_value(repo, f"branch.{base}.remote")
    if not remote or remote == "." or remote.startswith("-"):
        return None
    return remote


def known_tip(repo: Repository, remote: str, base: str) -> Oid | None:
    """The remote's base as last fetched: git's tracking branch or sync's own copy,
    whichever holds the other (the newer)."""
    names = [f"refs/remotes/{remote}/{base}", f"{fetched_namespace(repo, remote)}heads/{base}"]
    tips = [t for t in (commit_of(repo, n) for n in names) if t is not None]
    best: Oid | None = None
    for tip in tips:
        if best is None or contains(repo, tip, best):
            best = tip
    return best
