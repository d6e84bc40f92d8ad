"""A ``sync AGENT --checkout`` killed (SIGKILL) while its ``git merge`` runs.

PRODUCT.md, "Resolving conflicts (agents and people)": while the merge ``--checkout``
leaves is stopped, sync says how to finish it, "whether the agent ran sync again too
early or a killed sync left the merge half done"; and "Sync at scale": an interrupted
sync is safe to run again. Found in trial 14 (three agents over HTTP): sync read the
``git merge`` it starts through pipes, so once sync was killed, git died of SIGPIPE on
its first line of output — after writing the merged files (conflict markers included),
before writing the index and MERGE_HEAD. The next sync called those files the agent's
"local changes: commit or stash them", and a commit as advised published the markers'
merge as an ordinary commit (the pre-push hook then refused it). Now git's output goes to
files that outlive sync: git finishes its merge, and the next sync names the stopped
merge and the commands that finish it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from helpers.next_steps import follow_output
from helpers.run import cli_path
from helpers.team import EPOCH, TASKS, git, read, remote_show, setup, vcx, works_on_t1


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_sync_checkout_killed_during_its_git_merge_leaves_a_merge_sync_names(
    tmp_path: Path,
) -> None:
    team = setup(tmp_path, ["al", "bo"])
    al, bo = team.agents["al"], team.agents["bo"]
    works_on_t1(al, "completed")
    landed = vcx(al, "sync", "al", "--push", "origin")
    assert landed.returncode == 0, landed.stdout + landed.stderr
    works_on_t1(bo, "cancelled")
    first = vcx(bo, "sync", "bo", "--push", "origin")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "CONFLICT" in first.stdout

    # the merge driver git runs takes a second: sync is killed while git merge waits for it
    started = tmp_path / "driver-started"
    driver = git(bo, "config", "merge.vcontext.driver").stdout.strip()
    git(bo, "config", "merge.vcontext.driver", f"touch '{started}'; sleep 1; {driver}")
    sync = subprocess.Popen(
        [*cli_path(), "sync", "bo", "--push", "origin", "--checkout"],
        cwd=bo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **EPOCH},
    )
    deadline = time.monotonic() + 60
    while not started.exists():
        assert sync.poll() is None, sync.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    merges = [p for p in _children(sync.pid) if _alive(p)]
    os.kill(sync.pid, signal.SIGKILL)  # sync alone, as a harness's kill of its pid
    sync.communicate()
    while any(_alive(p) for p in merges):  # git merge, orphaned, goes on (or dies)
        assert time.monotonic() < deadline
        time.sleep(0.05)
    git(bo, "config", "merge.vcontext.driver", driver)

    # what git left is a merge in progress, not files without one
    assert (bo / ".git" / "MERGE_HEAD").exists(), git(bo, "status").stdout
    assert not (bo / ".git" / "index.lock").exists()
    assert not list(bo.glob(".merge_file_*"))

    again = vcx(bo, "sync", "bo", "--push", "origin")
    said = again.stdout + again.stderr
    assert again.returncode != 0, said
    assert "commit or stash" not in said
    assert "git vcontext conflicts" in said, said
    done = follow_output(said, bo, take="ours")
    command, code, out = done.last
    assert command == "git vcontext sync bo --push origin", done.runs
    assert code == 0, out
    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert {i["id"]: i["status"] for i in items}["t1"] == "cancelled"
    assert read(bo, TASKS)["todoList"]["items"][0]["status"] == "cancelled"
    assert git(bo, "status", "--porcelain").stdout == ""
