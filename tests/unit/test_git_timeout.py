"""A git command past its time is killed with what it started (gitio.git ``timeout``,
gitio.proctree): PRODUCT.md command-line contract (``status --fetch`` answers within
``vcontext.statusTimeout``) and "Sync at scale" (transient failures retried until the
deadline, then one line): nothing it started is left running."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from git_vcontext.gitio import TIMED_OUT, git
from git_vcontext.gitio.transport import transient


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state != b"Z"  # a zombie has ended (its parent, git, is gone)


def test_a_command_past_its_timeout_is_killed_with_the_processes_it_started(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "pid"
    hang = f"alias.hang=!echo $$ > '{pidfile}'; exec sleep 300"  # git -> sh (-> sleep)
    started = time.monotonic()

    out = git(["-c", hang, "hang"], cwd=tmp_path, check=False, timeout=1.0)

    assert time.monotonic() - started < 30
    assert out.returncode != 0
    assert f"git hang not done within 1.0 s: {TIMED_OUT}" in out.stderr, out.stderr
    assert transient(out.stderr)  # retried until the deadline, as a network timeout is
    pid = int(pidfile.read_text())
    for _ in range(50):
        if not _running(pid):
            break
        time.sleep(0.1)
    assert not _running(pid), pid  # (a zombie counts as ended: a container's init may
    # not reap what git's death left it)


def test_a_command_within_its_timeout_is_left_alone(tmp_path: Path) -> None:
    out = git(["--version"], cwd=tmp_path, timeout=30.0)
    assert out.returncode == 0
    assert out.stdout.startswith("git version")


def test_a_failing_git_command_is_named_by_its_command_not_its_first_option(
    tmp_path: Path,
) -> None:
    """PRODUCT.md command-line contract (a clear one-line error): a failure of ``git -c k=v
    fetch …`` is said as ``git fetch: …`` (as its deadline's line names it), not ``git -c``."""
    from git_vcontext.errors import OperationalError

    with pytest.raises(OperationalError) as failed:
        git(
            ["-c", "core.quotePath=false", "rev-parse", "--verify", "nothing^{commit}"],
            cwd=tmp_path,
        )

    assert str(failed.value).startswith("git rev-parse: "), str(failed.value)
