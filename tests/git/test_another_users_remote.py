"""A checkout trusted through ``safe.directory`` in the environment (a CI runner's way) whose
remote is another user's repository that git refuses: what git refuses, we refuse too.
Only the checkout git accepted is opened without libgit2's owner check; the remote is read
through git, whose refusal ("dubious ownership") is said once with its fix, never retried
as a network failure, and nothing is written. Run as the user nobody, against root's
repositories."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from helpers.pre_push import TODO, commit, todo, write
from helpers.run import cli_path, run_git
from helpers.users import NOBODY, as_nobody


def test_sync_does_not_read_a_remote_git_refuses_and_says_so_once() -> None:
    if os.geteuid() != 0:
        pytest.skip("another user's repositories need root to set up")
    base = Path(tempfile.mkdtemp(prefix="vcontext-remote-owner-", dir="/tmp"))
    try:
        base.chmod(0o755)
        become = as_nobody(base)
        seed = base / "seed"
        seed.mkdir()
        run_git(seed, "init", "-q", "-b", "main")
        write(seed, TODO, todo())
        commit(seed, "a todo list")
        remote, clone = base / "remote.git", base / "clone"
        run_git(base, "clone", "-q", "--bare", str(seed), str(remote))
        run_git(base, "clone", "-q", str(remote), str(clone))
        run_git(clone, "branch", "agents/x")
        subprocess.run(["chmod", "-R", "a+rwX", str(clone)], check=True)
        subprocess.run(["chmod", "-R", "a+rX", str(remote)], check=True)
        home = base / "home"
        home.mkdir()
        os.chown(home, NOBODY, NOBODY)
        env = {
            **os.environ,
            "HOME": str(home),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "safe.directory",
            "GIT_CONFIG_VALUE_0": str(clone),  # the checkout only, not its remote
            "GIT_AUTHOR_NAME": "N",
            "GIT_AUTHOR_EMAIL": "n@example.com",
            "GIT_COMMITTER_NAME": "N",
            "GIT_COMMITTER_EMAIL": "n@example.com",
        }
        fetched = subprocess.run([*become, "git", "fetch", "origin"], cwd=clone, env=env,
                                 capture_output=True)  # fmt: skip
        assert fetched.returncode != 0
        assert b"dubious ownership" in fetched.stderr  # git's own judgement of the remote
        refs_before = run_git(clone, "for-each-ref").stdout

        started = time.monotonic()
        done = subprocess.run([*become, *cli_path(), "sync", "--all", "--push", "origin"],
                              cwd=clone, env=env, capture_output=True, timeout=300)  # fmt: skip
        took = time.monotonic() - started

        err = done.stderr.decode()
        assert done.returncode == 3, err
        assert "Traceback" not in err
        assert "belongs to another user (git: dubious ownership)" in err, err
        assert f"git config --global --add safe.directory {remote}" in err, err
        assert "trying again" not in err, err  # a refusal is no network failure
        assert took < 120, (took, err)
        assert err.count("\n") == 1, err
        assert run_git(clone, "for-each-ref").stdout == refs_before  # nothing written
    finally:
        shutil.rmtree(base, ignore_errors=True)
