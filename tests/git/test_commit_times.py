"""Every commit the tool writes takes its time from one place (``clock.commit_time``).

PRODUCT.md M8/M17: timestamps written by the tool use ``SOURCE_DATE_EPOCH`` when set, so
merges can be made reproducible (same inputs and ``SOURCE_DATE_EPOCH`` → same bytes); git's
own ``GIT_AUTHOR_DATE``/``GIT_COMMITTER_DATE`` come first, as for a ``git commit``. The fork
commit and sync's merges took the wall clock (and ignored git's variables) while the MCP
server's commits read git's variables: three clocks for one repository's history.
"""

from __future__ import annotations

import re
from pathlib import Path

import pygit2
import pytest

from git_vcontext.branches.agents import agent_signatures
from helpers.run import REPO_ROOT, run_cli, run_git
from helpers.sync_repos import commit_all, edit, seed, status

EPOCH = "1767225600"  # 2026-01-01T00:00:00Z


def _times(repo: Path, *revs: str) -> set[str]:
    """The author and committer times (``%at %ct``) of the commits ``revs`` select."""
    out = run_git(repo, "log", "--format=%at %ct", *revs).stdout.split("\n")
    return {line for line in out if line}


def test_fork_and_sync_commits_take_source_date_epoch(git_repo: Path) -> None:
    seed(git_repo)
    env = {"SOURCE_DATE_EPOCH": EPOCH}
    forked = run_cli("fork", "alice", cwd=git_repo, env=env)
    assert forked.returncode == 0, forked.stderr
    assert _times(git_repo, "-1", "agents/alice") == {f"{EPOCH} {EPOCH}"}

    run_git(git_repo, "switch", "-q", "agents/alice")
    edit(git_repo, "todo.vcontext.json", status(("t1", "completed")))
    commit_all(git_repo, "alice ticks t1")  # git's own commits: the wall clock
    run_git(git_repo, "switch", "-q", "main")
    edit(git_repo, "todo.vcontext.json", status(("t2", "blocked")))
    commit_all(git_repo, "main blocks t2")
    before = run_git(git_repo, "rev-parse", "main", "agents/alice").stdout.split()

    synced = run_cli("sync", "alice", cwd=git_repo, env=env)

    assert synced.returncode == 0, synced.stdout + synced.stderr
    made = _times(git_repo, "main", "agents/alice", *(f"^{c}" for c in before))
    assert made == {f"{EPOCH} {EPOCH}"}, made  # every merge (and the fork's mark) sync made


def test_git_s_own_dates_come_first_for_every_commit_the_tool_writes(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``git commit`` takes ``GIT_AUTHOR_DATE``/``GIT_COMMITTER_DATE`` (the MCP server's
    commits did, the fork commit and sync's merges did not)."""
    seed(git_repo)
    env = {
        "SOURCE_DATE_EPOCH": EPOCH,
        "GIT_AUTHOR_DATE": "@1700000000 +0100",
        "GIT_COMMITTER_DATE": "2024-02-03T04:05:06+00:00",
    }
    assert run_cli("fork", "alice", cwd=git_repo, env=env).returncode == 0
    shown = run_git(git_repo, "log", "-1", "--format=%at %ai|%ct", "agents/alice").stdout
    assert shown.strip() == "1700000000 2023-11-14 23:13:20 +0100|1706933106"

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    repo = pygit2.Repository(str(git_repo))
    author, committer = agent_signatures(repo, "alice")
    assert (author.time, author.offset, committer.time) == (1700000000, 60, 1706933106)


def test_an_mcp_commit_takes_source_date_epoch_too(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The MCP server's commits (``agent_signatures``) read git's variables only."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.delenv("GIT_AUTHOR_DATE", raising=False)
    monkeypatch.delenv("GIT_COMMITTER_DATE", raising=False)
    author, committer = agent_signatures(pygit2.Repository(str(git_repo)), "alice")
    assert (author.time, committer.time, author.offset) == (int(EPOCH), int(EPOCH), 0)


def test_one_place_makes_signatures() -> None:
    """No commit signature is made anywhere but ``gitio.objects.signature`` (which takes
    its time from ``clock.commit_time``): a new commit cannot pick a clock of its own."""
    src = REPO_ROOT / "src" / "git_vcontext"
    made = [
        str(path.relative_to(src))
        for path in sorted(src.rglob("*.py"))
        if re.search(r"\bSignature\(", path.read_text())
    ]
    assert made == ["gitio/objects.py"], made


@pytest.mark.parametrize(
    "value",
    [
        "1700000000 +0100",
        "@1700000000 -0130",
        "1700000000 +05:30",
        "1700000000 +12",  # two digits: hours (was: unreadable, the commit took now)
        "1700000000 junk",  # no zone: UTC, the time kept (was: now)
        "1700000000 +2400",  # hours past 23: no zone (was: a day's offset)
        "1700000000 +9999",  # (was: 6039 minutes)
        "1700000000 -0060",  # minutes past 59: no zone (was: -60)
    ],
)
def test_git_s_date_variable_is_read_as_git_reads_it(
    value: str, git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One truth: a commit the tool writes and one git writes under the same
    ``GIT_COMMITTER_DATE`` say the same time and zone (git's ``date.c``, asked here through
    ``git var GIT_COMMITTER_IDENT``)."""
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("GIT_COMMITTER_DATE", value)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    ident = run_git(git_repo, "var", "GIT_COMMITTER_IDENT").stdout.split()
    from git_vcontext.gitio.objects import signature

    made = signature("a", "b@example.com")
    zone = (
        f"{'-' if made.offset < 0 else '+'}{abs(made.offset) // 60:02d}{abs(made.offset) % 60:02d}"
    )
    assert [str(made.time), zone] == ident[-2:], value


def test_a_date_no_commit_can_hold_falls_back_never_an_internal_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PRODUCT.md "Bad input": no traceback, no internal error. A ``GIT_COMMITTER_DATE``
    past 64 bits (git: "invalid date format") made every commit of the tool an
    ``internal error: OverflowError``; a ``SOURCE_DATE_EPOCH`` past 9999 did so for every
    timestamp, and one past 2^33 wrote a five-digit year that validate refuses (M8)."""
    from git_vcontext.clock import now_rfc3339
    from git_vcontext.gitio.objects import signature

    monkeypatch.setenv("GIT_COMMITTER_DATE", "99999999999999999999 +0000")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    assert signature("a", "b@example.com").time == int(EPOCH)
    for huge in ("300000000000", "100000000000000000000", "-5"):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", huge)
        stamp = now_rfc3339()
        assert re.fullmatch(r"(19[7-9]\d|2\d{3})-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp), (huge, stamp)
