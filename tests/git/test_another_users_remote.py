"""A checkout trusted through ``safe.directory`` in the environment (a CI runner's way) whose
remote is another user's repository that git refuses: what git refuses, we refuse too.
Only the checkout git accepted is opened without libgit2's owner check; the remote is read
through git, whose refusal ("dubious ownership") is said once with its fix, never retried
as a network failure, and nothing is written. Run as the user nobody, against root's
repositories."""

from __future__ import annotations

import subprocess
import time

from helpers.pre_push import TODO, commit, todo, write
from helpers.run import cli_path, run_git
from helpers.users import nobody_env, roots_folder


def test_sync_does_not_read_a_remote_git_refuses_and_says_so_once() -> None:
    with roots_folder("vcontext-remote-owner-") as (base, become):
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
        env = nobody_env(base, str(clone))  # the checkout only, not its remote
        for role in ("AUTHOR", "COMMITTER"):
            env[f"GIT_{role}_NAME"], env[f"GIT_{role}_EMAIL"] = "N", "n@example.com"
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
