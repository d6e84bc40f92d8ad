"""The stale-request race, with real git and the two holders put in order.

PRODUCT.md, "Sync at scale": many agents pushing to one remote never give up, and a
rejected integration push is retried from the remote's new state, never sent again
unchanged. A clone syncs two agents, al and cy (``sync al cy --push``): it takes the
lease, publishes both requests and integrates; its integration push waits (a pre-receive
hook on the remote holds it) while its lease expires and agent bo, the next holder,
merges al's request and removes it, leaving cy's out (cy and bo changed the same title).
Then the held push goes on and is rejected (the base moved); the clone looks again and
integrates cy anew. al's request is gone: the integration push must not remove it again
expecting what was published (git refuses that as stale at every retry: "still rejected
after 10 attempts", the bug a trial found, fixed in ``BaseRound._branch_updates``).
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

from helpers.run import cli_path
from helpers.team import TASKS, edit, git, remote_show, setup, vcx

HOOK = """#!/bin/sh
input=$(cat)
if [ -e '{hold}' ] && printf '%s\\n' "$input" | grep -q ' refs/heads/main$' \\
   && printf '%s\\n' "$input" | grep -q ' refs/heads/agents/al$'; then
  rm -f '{hold}'
  : > '{arrived}'
  n=0
  while [ ! -e '{go}' ] && [ $n -lt 2400 ]; do sleep 0.05; n=$((n + 1)); done
fi
exit 0
"""
"""Holds the first integration push of al's clone (it moves main and agents/al) until GO."""

REQUEST = "refs/vcontext/sync/main/agents/{}"


def _add(clone: Path, item: str) -> None:
    def add(data: Any) -> None:
        data["todoList"]["items"].append({"id": item, "title": item, "status": "pending"})
        data["todoList"]["sequence"] += 1

    edit(clone, TASKS, add)
    git(clone, "commit", "-q", "-am", f"adds {item}")


def _retitle(clone: Path, title: str) -> None:
    def retitle(data: Any) -> None:
        data["todoList"]["items"][0]["title"] = title
        data["todoList"]["sequence"] += 1

    edit(clone, TASKS, retitle)
    git(clone, "commit", "-q", "-am", f"t1: {title}")


def _has(remote: Path, ref: str) -> bool:
    return git(remote, "rev-parse", "-q", "--verify", ref, check=False).returncode == 0


def _wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the integration push never came"
        time.sleep(0.05)


def test_sync_at_scale_a_request_the_next_holder_merged_and_removed_is_not_removed_again(
    tmp_path: Path,
) -> None:
    team = setup(tmp_path, ["al", "bo"])
    al, bo = team.agents["al"], team.agents["bo"]
    assert vcx(al, "fork", "cy", "--from", "main", "--reason", "agent cy").returncode == 0
    for clone in (al, bo):
        git(clone, "config", "vcontext.leaseSeconds", "3")  # al's lease expires while held
    hold, arrived, go = tmp_path / "hold", tmp_path / "arrived", tmp_path / "go"
    hook = team.remote / "hooks" / "pre-receive"
    hook.write_text(HOOK.format(hold=hold, arrived=arrived, go=go))
    hook.chmod(0o755)
    hold.touch()
    _add(al, "from-al")
    git(al, "switch", "-q", "agents/cy")
    _retitle(al, "cy's title")
    git(al, "switch", "-q", "agents/al")
    _retitle(bo, "bo's title")

    both = [*cli_path(), "sync", "al", "cy", "--push", "origin"]
    first = subprocess.Popen(
        both, cwd=al, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        _wait_for(arrived, first)
        # both requests are out, the integration push is held: bo becomes the next holder
        assert _has(team.remote, REQUEST.format("al"))
        assert _has(team.remote, REQUEST.format("cy"))
        second = subprocess.run(
            [*cli_path(), "sync", "bo", "--push", "origin"], cwd=bo, capture_output=True, text=True
        )
        assert second.returncode == 0, second.stdout + second.stderr
        assert "merged with it into main: agents/al" in second.stdout
        assert "left agents/cy out" in second.stdout
        assert not _has(team.remote, REQUEST.format("al"))  # merged and removed by bo
        assert _has(team.remote, REQUEST.format("cy"))
    finally:
        go.touch()
    said, _ = first.communicate(timeout=300)
    assert "still rejected" not in said
    assert first.returncode == 1, said  # cy's conflict with bo's title: said, nothing lost
    assert "agents/cy <-> main: CONFLICT" in said

    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert [i["id"] for i in items].count("from-al") == 1
    assert items[0]["title"] == "bo's title"
    assert not _has(team.remote, REQUEST.format("al"))
    assert git(team.remote, "fsck", "--no-progress").returncode == 0
