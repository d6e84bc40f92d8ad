"""Push retries: which rejections are retried, and how long sync waits in between."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from git_vcontext.errors import OperationalError
from git_vcontext.gitio.remote import _porcelain
from git_vcontext.remote.protocol import (
    DEFAULT_TIMEOUT,
    FIRST_WAIT,
    LONGEST_WAIT,
    settings,
    wait_before,
)
from git_vcontext.remote.refs import DEFAULT_SECONDS

PORCELAIN = """To /tmp/remote.git
=\trefs/heads/main:refs/heads/main\t[up to date]
!\trefs/heads/agents/a:refs/heads/agents/a\t[rejected] (fetch first)
!\trefs/heads/agents/b:refs/heads/agents/b\t[remote rejected] (failed to update ref)
!\trefs/heads/agents/c:refs/heads/agents/c\t[remote rejected] (pre-receive hook declined)
*\trefs/heads/agents/d:refs/heads/agents/d\t[new branch]
Done
"""


def test_rejections_that_a_fetch_and_merge_can_fix_are_retried() -> None:
    rows = {r.branch: r for r in _porcelain(PORCELAIN)}
    assert set(rows) == {"main", "agents/a", "agents/b", "agents/c", "agents/d"}
    assert rows["main"].ok
    assert rows["agents/d"].ok
    assert not rows["agents/a"].ok
    assert rows["agents/a"].retry  # someone pushed first
    assert rows["agents/b"].retry  # lost a race for the ref lock
    assert not rows["agents/c"].retry  # refused by the remote: not ours to retry
    assert "hook declined" in rows["agents/c"].summary


def test_waits_grow_with_attempts_stay_bounded_and_are_jittered() -> None:
    first = [wait_before(1) for _ in range(200)]
    assert all(FIRST_WAIT * 0.5 <= w <= FIRST_WAIT * 1.5 for w in first)
    assert len({round(w, 6) for w in first}) > 1  # jitter: racing agents spread out
    assert min(wait_before(4) for _ in range(50)) > max(first)
    assert all(w <= LONGEST_WAIT * 1.5 for w in (wait_before(30) for _ in range(50)))


def test_a_ref_refused_only_because_its_atomic_push_failed_is_retried_not_fetched() -> None:
    text = (
        "To /tmp/remote.git\n"
        "!\trefs/heads/main:refs/heads/main\t[rejected] (fetch first)\n"
        "!\trefs/heads/agents/a:refs/heads/agents/a\t[rejected] (atomic push failed)\n"
        "!\trefs/heads/agents/b:refs/heads/agents/b\t"
        "[remote rejected] (atomic transaction failed)\n"
        "Done\n"
    )
    rows = {r.branch: r for r in _porcelain(text)}
    assert not rows["main"].collateral
    assert rows["main"].retry
    assert rows["agents/a"].collateral
    assert rows["agents/a"].retry
    assert not rows["agents/a"].ok
    assert rows["agents/b"].retry  # the remote's ref transaction lost a race: try again


def test_push_settings_from_git_config_fall_back_on_a_key_without_a_value(
    tmp_path: Path,
) -> None:
    """``[vcontext] syncTimeout`` with no ``=``: pygit2 reads None; the default applies (it
    used to crash sync with a TypeError)."""
    repo = pygit2.init_repository(str(tmp_path))
    config = Path(repo.path) / "config"
    config.write_text(
        config.read_text() + "[vcontext]\n\tsyncTimeout\n\tpushAttempts = 3\n\tleaseSeconds = x\n"
    )
    found = settings(pygit2.Repository(str(tmp_path)))
    assert found.timeout == DEFAULT_TIMEOUT
    assert found.attempts == 3
    assert found.lease_seconds == DEFAULT_SECONDS


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("syncTimeout", "inf"),
        ("syncTimeout", "1e400"),
        ("leaseSeconds", "nan"),
        ("pushAttempts", "inf"),  # int(inf): an OverflowError's traceback before
        ("pushAttempts", "1e9"),
    ],
)
def test_a_push_setting_no_deadline_can_hold_is_refused_naming_its_key(
    tmp_path: Path, key: str, value: str
) -> None:
    """Command-line contract (bad input: one clear line, exit 3, no traceback): a sync
    whose ``vcontext.syncTimeout`` is ``inf`` retried for ever; ``pushAttempts = inf``
    crashed. Each is refused in one line naming the key and its default."""
    repo = pygit2.init_repository(str(tmp_path))
    repo.config[f"vcontext.{key}"] = value
    with pytest.raises(OperationalError) as refused:
        settings(pygit2.Repository(str(tmp_path)))
    line = refused.value.one_line()
    assert f"vcontext.{key} {value!r} is out of range" in line
    assert f"git config vcontext.{key} " in line
    assert line.endswith("(the default)")
    assert "\n" not in line
