"""An atomic push that git refuses for a stale ``--force-with-lease`` is an answer, not a
network failure (PRODUCT.md: a rejected integration push is retried from the remote's new
state, never sent again unchanged).

git (2.39) prints the rows on stdout (``[rejected] (stale info)``) and, on stderr,
``atomic push failed for ref … status: 7`` then ``fatal: the remote end hung up
unexpectedly``: that last line read as a dropped connection made ``sync --push`` send the
same push again until ``vcontext.syncTimeout`` (600 s, exit 1), found by following the
README with three agents on a path remote guarded by ``install --server --guard``."""

from __future__ import annotations

import subprocess
from pathlib import Path

from git_vcontext.gitio import remote as remotes
from git_vcontext.gitio.transport import Link


def _git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def test_stale_lease_in_an_atomic_push_is_a_row_not_a_retry(tmp_path: Path) -> None:
    bare = tmp_path / "r.git"
    _git(tmp_path, "init", "-q", "--bare", str(bare))
    clone = tmp_path / "c"
    _git(tmp_path, "init", "-q", str(clone))
    _git(
        clone,
        "-c",
        "user.name=U",
        "-c",
        "user.email=u@x",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "a",
    )
    tip = _git(clone, "rev-parse", "HEAD")
    _git(clone, "push", "-q", str(bare), "HEAD:refs/heads/main")
    waits: list[str] = []
    link = Link(str(clone), str(bare), sleep=lambda _s: waits.append("slept"), share=False)
    updates = [
        remotes.Update(tip, "refs/heads/b"),
        remotes.Update(None, "refs/vcontext/sync/main/b", expect=tip),  # gone meanwhile
    ]
    pushed = remotes.push(str(clone), str(bare), updates, atomic=True, link=link)
    assert waits == []
    assert not pushed.ok
    stale = [row for row in pushed.rows if row.ref == "refs/vcontext/sync/main/b"]
    assert len(stale) == 1
    assert stale[0].retry
    assert "stale info" in stale[0].summary
