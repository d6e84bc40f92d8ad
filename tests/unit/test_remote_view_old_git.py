"""A look through a git older than 2.29 (``remote.view``): it refuses negative refspecs
(``invalid refspec``), so a look fetches the lease's glob alone; once found out, every
later look of the process does so at once, not after a failed git fetch each time
(PRODUCT.md "Sync at scale": waiters look often, each look one git process).
"""

from __future__ import annotations

import pytest

from git_vcontext.errors import OperationalError
from git_vcontext.gitio import remote as remotes
from git_vcontext.remote import view
from git_vcontext.remote.view import RemoteView, lease_specs

NS = "refs/vcontext/remotes/origin/"


def test_an_old_git_refusing_negative_refspecs_is_found_out_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[list[str]] = []

    def fetch(cwd: str, remote: str, refspecs: list[str], **_: object) -> list[str]:
        calls.append(list(refspecs))
        if any(spec.startswith("^") for spec in refspecs):
            raise OperationalError("git fetch origin: fatal: invalid refspec '^refs/x'")
        return []

    monkeypatch.setattr(remotes, "fetch", fetch)
    monkeypatch.setattr(view, "_NO_NEGATIVE", [])
    look = object.__new__(RemoteView)
    look.cwd, look.remote, look.link = ".", "origin", None
    specs = [f"+refs/heads/main:{NS}heads/main"]
    lease = lease_specs("main", NS)

    assert look._fetch(specs, lease) == []
    assert look._fetch(specs, lease) == []

    assert len(calls) == 3  # the first look: refused, then the glob; the second: the glob
    assert calls[2] == [*specs, lease[0]]
