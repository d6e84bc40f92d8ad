"""Who made a commit, when and why: what ``log`` and ``blame`` print about it."""

from __future__ import annotations

import datetime as dt

from ..record import record

UNCOMMITTED = "0" * 40
"""git's id for changes not committed yet (``git blame`` shows them under it)."""


@record
class CommitMeta:
    """Who made a commit, when (author date, as ``git log`` shows it) and why."""

    commit: str
    author: str
    email: str
    date: dt.datetime  # with the author's UTC offset
    subject: str
    parents: tuple[str, ...]
    boundary: bool = False  # a shallow clone's oldest commit: its parents were not fetched

    @property
    def iso_date(self) -> str:
        """``2026-01-02T10:00:00+01:00`` (git's ``%aI``)."""
        return self.date.isoformat()

    @property
    def log_date(self) -> str:
        """``Fri Jan 2 10:00:00 2026 +0100``, as ``git log`` prints it."""
        d = self.date
        return f"{d:%a %b} {d.day} {d:%H:%M:%S %Y %z}"

    @property
    def short_date(self) -> str:
        """``2026-01-02 10:00:00 +0100``, as ``git blame`` prints it."""
        return f"{self.date:%Y-%m-%d %H:%M:%S %z}"

    @property
    def short(self) -> str:
        """The abbreviated commit id (``^`` before a shallow clone's boundary, as git
        blame marks a commit whose history is not there)."""
        return ("^" if self.boundary else "") + self.commit[:8]


def uncommitted_meta(now: dt.datetime | None = None) -> CommitMeta:
    """The stand-in ``git blame`` uses for changes in the work tree."""
    when = now or dt.datetime.now().astimezone().replace(microsecond=0)
    return CommitMeta(UNCOMMITTED, "Not Committed Yet", "not.committed.yet", when, "", ())
