"""An agent with MCP tools alone after a sync was killed holding ref locks.

PRODUCT.md, "Where agents' platforms run it" and "Resolving conflicts" (a way out of every
stop ``vcontext_sync`` reports, with tool calls alone), "Sync at scale" (an interrupted sync
is safe to run again). Through the SDK's own stdio client and real git:

- the server itself is killed (SIGKILL, the product's kill points) while its sync holds
  the local branches' locks: the next server's ``vcontext_sync`` proves the locks the
  killed sync's (``gitio.locks``), removes them and lands; nobody runs ``rm -f``;
- a lock no sync claimed (a git process's) is never removed by the server: the answer
  says what a person must do, marked as such, and still carries the conflict the sync
  found (its paths, the next tool); once the person did it, the named tools land;
- git's own ``index.lock`` in the way of the work tree (the work landed, the branches
  stayed behind: a warning) is a person's step too, said the same way.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from helpers.faults import kill_env
from helpers.mcp_support import run, stdio_params, text
from helpers.team import TASKS, edit, git, person_deletes_t1, remote_show, setup, vcx


def _work(clone: Path, item: str) -> None:
    def add(data: Any) -> None:
        data["todoList"]["items"].append({"id": item, "title": item, "status": "pending"})
        data["todoList"]["sequence"] += 1

    edit(clone, TASKS, add)
    git(clone, "commit", "-q", "-am", f"adds {item}")


def _branch_locks(clone: Path) -> list[Path]:
    return sorted((clone / ".git/refs/heads").rglob("*.lock"))


def test_a_server_killed_holding_branch_locks_the_next_vcontext_sync_lands(
    tmp_path: Path,
) -> None:
    from mcp import Client

    team = setup(tmp_path, ["bo", "al"])
    bo, al = team.agents["bo"], team.agents["al"]
    _work(al, "from-al")
    assert vcx(al, "sync", "al", "--push", "origin").returncode == 0
    _work(bo, "from-bo")  # bo's sync merges al's round: it moves main and agents/bo here
    env = kill_env(at="refs locked@2", log=tmp_path / "steps")  # the local branches' move

    async def killed() -> None:
        async with Client(stdio_params(bo, env=env)) as client:
            await client.call_tool("vcontext_sync", {"push": "origin"})

    with pytest.raises(ExceptionGroup):  # the server died under the call (the SDK says so)
        run(killed)
    assert [p.name for p in _branch_locks(bo)] == ["bo.lock", "main.lock"]

    async def again() -> Any:
        async with Client(stdio_params(bo)) as client:
            return await client.call_tool("vcontext_sync", {"push": "origin"})

    landed = run(again)
    assert not landed.is_error, text(landed)
    assert landed.structured_content["ok"] is True
    assert "rm -f" not in text(landed)
    assert _branch_locks(bo) == []
    left = [p.name for p in (bo / ".git/vcontext/reflocks").iterdir()]
    assert left == ["remover.lock"]  # no claim, nothing set aside (the removers' turn stays)
    ids = [i["id"] for i in remote_show(team.remote, "main", TASKS)["todoList"]["items"]]
    assert {"from-al", "from-bo"} <= set(ids)
    assert git(bo, "rev-parse", "main").stdout == git(team.remote, "rev-parse", "main").stdout
    assert git(bo, "status", "--porcelain").stdout == ""
    assert git(bo, "fsck", "--no-progress").returncode == 0


def test_an_unclaimed_lock_is_a_persons_to_remove_and_the_conflict_stays_in_view(
    tmp_path: Path,
) -> None:
    from mcp import Client

    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    person_deletes_t1(team)
    lock = bo / ".git/refs/heads/main.lock"  # as a killed git leaves it: no sync claimed it
    lock.write_text("")
    old = time.time() - 60
    os.utime(lock, (old, old))

    async def main() -> None:
        async with Client(stdio_params(bo)) as client:
            r = await client.call_tool("vbrief_update_todo", {"id": "t1", "status": "blocked"})
            assert not r.is_error, text(r)
            stopped = await client.call_tool("vcontext_sync", {"push": "origin"})
            assert stopped.is_error
            said, data = text(stopped), stopped.structured_content
            # what the command line prints: the conflict, with its document
            assert "agents/bo <-> main: CONFLICT, nothing moved" in said
            assert f"  {TASKS}: 1 conflict(s)" in said
            assert data["conflicted"] == [
                {"agent": "bo", "branch": "agents/bo", "base": "main", "paths": [TASKS]}
            ]
            # the lock: never removed by the server, a person's step, said as such
            assert lock.exists()
            assert data["error"]["kind"] == "locked"
            assert "A PERSON MUST DO THIS (no MCP tool can)" in said
            assert data["person"]["lockFiles"] == [str(lock)]
            assert data["person"]["steps"] == [
                f"make sure no git command (and no other sync) is running in {bo}",
                f"rm -f '{lock}'",
            ]
            assert data["next"] == [
                {"tool": "vcontext_sync", "arguments": {"push": "origin"}, "after": "person"}
            ]
            lock.unlink()  # the person does it
            step = data["next"][0]
            answer = await client.call_tool(step["tool"], step["arguments"])
            # now the conflict comes back as data, left where the agent resolves it
            assert answer.is_error
            assert [f["path"] for f in answer.structured_content["conflicts"]] == [TASKS]
            for step in answer.structured_content["next"]:
                args = dict(step["arguments"])
                answer = await client.call_tool(step["tool"], args)
            assert not answer.is_error, text(answer)
            assert answer.structured_content["ok"] is True

    run(main)
    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert [(i["id"], i["status"]) for i in items] == [("t1", "blocked"), ("t2", "pending")]
    assert team.local_only(bo) == []


def test_gits_own_index_lock_is_a_persons_step_and_the_next_sync_brings_the_branches_along(
    tmp_path: Path,
) -> None:
    """An ``index.lock`` (git's own: nothing proves it stale) in the served work tree: the
    work lands, the local branches stay behind with a warning; the answer marks removing
    it as a person's step, and after it ``vcontext_sync`` brings the branches along."""
    from mcp import Client

    team = setup(tmp_path, ["bo", "al"])
    bo, al = team.agents["bo"], team.agents["al"]
    _work(al, "from-al")
    assert vcx(al, "sync", "al", "--push", "origin").returncode == 0
    _work(bo, "from-bo")
    lock = bo / ".git/index.lock"
    lock.write_text("")
    old = time.time() - 60
    os.utime(lock, (old, old))

    async def main() -> None:
        async with Client(stdio_params(bo)) as client:
            landed = await client.call_tool("vcontext_sync", {"push": "origin"})
            assert not landed.is_error, text(landed)  # the work is on the remote
            data = landed.structured_content
            assert "A PERSON MUST DO THIS (no MCP tool can)" in text(landed)
            assert data["person"]["steps"][1:] == [f"rm -f '{lock}'"]
            assert lock.exists()
            assert (
                git(bo, "rev-parse", "main").stdout != git(team.remote, "rev-parse", "main").stdout
            )
            lock.unlink()  # the person does it
            step = data["next"][0]
            assert step == {
                "tool": "vcontext_sync",
                "arguments": {"push": "origin"},
                "after": "person",
            }
            again = await client.call_tool(step["tool"], step["arguments"])
            assert not again.is_error, text(again)
            assert "person" not in again.structured_content

    run(main)
    assert git(bo, "rev-parse", "main").stdout == git(team.remote, "rev-parse", "main").stdout
    assert git(bo, "status", "--porcelain").stdout == ""


def test_a_lock_on_the_remote_on_this_machine_names_the_remote_to_the_person(
    tmp_path: Path,
) -> None:
    """A push the remote refuses for a lock file left there (a path remote: on this
    machine, no claim): the person's steps name that repository, not the served one."""
    from mcp import Client

    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    _work(bo, "from-bo")
    lock = team.remote / "refs/heads/main.lock"
    lock.write_text("")
    old = time.time() - 60
    os.utime(lock, (old, old))

    async def main() -> Any:
        async with Client(stdio_params(bo)) as client:
            return await client.call_tool("vcontext_sync", {"push": "origin"})

    stopped = run(main)
    assert stopped.is_error
    data = stopped.structured_content
    assert "cannot lock ref 'refs/heads/main'" in text(stopped)  # git's own lines
    [step, removal] = data["person"]["steps"]
    assert step == f"make sure no git command (and no other sync) is running in {team.remote}"
    assert removal.startswith("rm -f '")
    assert Path(removal[7:-1]).samefile(lock)
    assert data["next"] == [
        {"tool": "vcontext_sync", "arguments": {"push": "origin"}, "after": "person"}
    ]
    assert "A PERSON MUST DO THIS (no MCP tool can)" in text(stopped)
    assert lock.exists()
