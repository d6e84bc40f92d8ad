"""One truth (issue 26; PRODUCT.md "Branch-per-agent workflow"): whatever one part of the tool
writes — MCP writes, sync's merges, the integration, a conversion the hook accepts — every
other part (validate, the pre-push hook) accepts, and no agent blocks another.

A team through real git: a bare remote, a person on main and three agents in their own
clones, each with the pre-push hook installed and its branch in a work tree (``git vcontext
fork NAME --worktree``), writing through the MCP SDK's stdio client or by hand. Each actor
does only what the README and the tool's own messages say.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import git_vcontext
import git_vcontext as gv
from helpers.mcp_support import run, stdio_params, text
from helpers.run import run_cli, run_git
from helpers.sync_repos import EPOCH, sync

TODO = "todo.vcontext.json"
PLAN_TRON = "plans/release.vcontext.tron"
PLAN_JSON = "plans/release.vcontext.json"
PLAYBOOK = "playbook.vcontext.json"
AGENTS = ("ann", "bob", "cat")


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


def _documents() -> dict[str, Any]:
    item = {"status": "pending", "sequence": 1}
    todo = {
        "vContextInfo": {"version": "0.4"},
        "todoList": {
            "id": "team",
            "uid": "u-team",
            "sequence": 1,
            "items": [{"id": f"t{n}", "title": f"Task {n}", **item} for n in (1, 2, 3)],
        },
    }
    plan = {
        "vContextInfo": {"version": "0.4"},
        "plan": {
            "id": "release",
            "uid": "u-release",
            "title": "Release",
            "status": "inProgress",
            "sequence": 1,
            "narratives": {"proposal": "Ship it."},
            "items": [{"id": f"p{n}", "title": f"Step {n}", **item} for n in (1, 2)],
        },
    }
    event = {"operation": "append", "kind": "rule", "createdAt": "2026-01-01T00:00:00Z"}
    playbook = {
        "vContextInfo": {"version": "0.4"},
        "playbook": {
            "version": 1,
            "items": [{"eventId": "e1", "targetId": "r1", "text": "first", **event}],
        },
    }
    return {TODO: todo, PLAN_TRON: plan, PLAYBOOK: playbook}


def _remote(tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    seed = tmp_path / "seed"
    run_git(tmp_path, "init", "-q", "-b", "main", str(seed))
    for key, value in (("user.name", "Seed"), ("user.email", "seed@example.com")):
        run_git(seed, "config", key, value)
    for name, data in _documents().items():
        path = seed / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            gv.dumps(data, "tron") if name.endswith(".tron") else json.dumps(data, indent=2) + "\n"
        )
    run_git(seed, "add", "-A")
    run_git(seed, "commit", "-qm", "the team's memory")
    run_git(seed, "push", "-q", str(bare), "main")
    return bare


def _clone(remote: Path, where: Path, name: str) -> Path:
    run_git(where.parent, "clone", "-q", str(remote), str(where))
    run_git(where, "config", "user.name", name)
    run_git(where, "config", "user.email", f"{name}@example.com")
    assert run_cli("install", cwd=where).returncode == 0
    return where


def _sync(clone: Path, agent: str) -> str:
    code, out, err = sync(clone, agent, "--push", "origin")
    assert code == 0, out + err
    assert "Traceback" not in out + err
    return out


async def _mcp(wt: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    from mcp import Client

    answers = []
    async with Client(stdio_params(wt)) as client:
        for tool, args in calls:
            answer = await client.call_tool(tool, args)
            assert not answer.is_error, (tool, text(answer))
            answers.append(answer.structured_content)
    return answers


def _read(where: Path, name: str) -> Any:
    return gv.load(str(where / name)).data


def _show(repo: Path, rev: str, name: str) -> Any:
    raw = run_git(repo, "show", f"{rev}:{name}").stdout.encode()
    return gv.loads(raw, path=name).data


def _without_forks(data: Any) -> Any:
    out = json.loads(json.dumps(data))
    for key in ("todoList", "plan", "playbook"):
        if isinstance(out.get(key), dict):
            out[key].pop("fork", None)
    return out


def test_a_team_through_real_git_ends_on_one_truth(tmp_path: Path) -> None:
    remote = _remote(tmp_path)
    person = _clone(remote, tmp_path / "person", "person")
    clones, trees = {}, {}
    for agent in AGENTS:
        clones[agent] = _clone(remote, tmp_path / agent, agent)
        trees[agent] = tmp_path / f"{agent}-wt"
        forked = run_cli("fork", agent, "--worktree", str(trees[agent]), cwd=clones[agent])
        assert forked.returncode == 0, forked.stderr

    # round 1: ann and bob edit one item concurrently by hand, each advancing its own
    # sequence (M8 at item level), and write through their MCP servers; cat lowers an
    # item's sequence by hand
    for agent, field, value in (("ann", "status", "inProgress"), ("bob", "title", "Task 1, bob")):
        data = _read(trees[agent], TODO)
        t1 = data["todoList"]["items"][0]
        t1[field], t1["sequence"] = value, t1["sequence"] + 1
        data["todoList"]["sequence"] += 1
        (trees[agent] / TODO).write_text(json.dumps(data, indent=2) + "\n")
        run_git(trees[agent], "commit", "-qam", f"{agent} edits t1")
    run(
        lambda: _mcp(
            trees["ann"],
            [("vbrief_add_learning", {"targetId": "ann-1", "kind": "learning",
                                      "narrative": {"Overview": "ann learned"}})],
        )
    )  # fmt: skip
    run(
        lambda: _mcp(
            trees["bob"],
            [
                ("vbrief_create_todo", {"title": "bob's task"}),
                ("vbrief_update_plan_item", {"planId": "release", "itemId": "p1",
                                             "status": "inProgress"}),
            ],
        )
    )  # fmt: skip
    cat_todo = _read(trees["cat"], TODO)
    cat_todo["todoList"]["items"][1]["sequence"] = 0  # t2: 1 -> 0, a history violation
    cat_todo["todoList"]["items"][2]["status"] = "blocked"
    (trees["cat"] / TODO).write_text(json.dumps(cat_todo, indent=2) + "\n")
    run_git(trees["cat"], "commit", "-qam", "cat blocks t3")
    # the person converts the plan (TRON -> JSON) and pushes through the hook
    converted = run_cli("convert", PLAN_TRON, "--to", "json", "-o", PLAN_JSON, cwd=person)
    assert converted.returncode == 0, converted.stderr
    run_git(person, "rm", "-q", PLAN_TRON)
    run_git(person, "add", PLAN_JSON)
    run_git(person, "commit", "-qm", "the plan in JSON")
    assert run_git(person, "push", "-q", "origin", "main", check=False).returncode == 0

    _sync(clones["ann"], "ann")
    _sync(clones["bob"], "bob")
    code, out, err = sync(clones["cat"], "cat", "--push", "origin")
    assert code == 1, out + err  # the merge would break the history: stopped, told why
    assert "[history-sequence-decreased]" in out
    assert "git commit --amend" in out  # cat's commit is not on the remote: rewrite it
    # cat does what the message says: restore the sequence in that commit, sync again
    cat_todo = _read(trees["cat"], TODO)
    cat_todo["todoList"]["items"][1]["sequence"] = 1
    (trees["cat"] / TODO).write_text(json.dumps(cat_todo, indent=2) + "\n")
    run_git(trees["cat"], "commit", "-qa", "--amend", "--no-edit")
    _sync(clones["cat"], "cat")

    # round 2: ann's server writes the plan under its new name; bob learns more
    answers = run(
        lambda: _mcp(
            trees["ann"],
            [("vbrief_update_plan_item", {"planId": "release", "itemId": "p2",
                                          "status": "completed"})],
        )
    )  # fmt: skip
    assert answers[0]["document"]["path"] == PLAN_JSON
    assert not (trees["ann"] / PLAN_TRON).exists()
    run(
        lambda: _mcp(
            trees["bob"],
            [("vbrief_add_learning", {"targetId": "bob-1", "kind": "rule",
                                      "narrative": {"Overview": "bob learned"}})],
        )
    )  # fmt: skip
    for agent in AGENTS:
        _sync(clones[agent], agent)
    for agent in AGENTS:  # everyone brings its branch along to the last round
        _sync(clones[agent], agent)

    # one truth: the remote's main validates and is clean, holds every value published
    check = tmp_path / "check"
    run_git(tmp_path, "clone", "-q", str(remote), str(check))
    validated = run_cli("validate", cwd=check)
    assert validated.returncode == 0, validated.stdout
    assert run_git(remote, "fsck", "--no-progress", check=False).returncode == 0
    files = run_git(remote, "ls-tree", "-r", "--name-only", "main").stdout.split()
    assert PLAN_JSON in files
    assert PLAN_TRON not in files
    todo = _show(remote, "main", TODO)["todoList"]
    by_id = {i["id"]: i for i in todo["items"]}
    assert by_id["t1"]["status"] == "inProgress"
    assert by_id["t1"]["title"] == "Task 1, bob"
    assert by_id["t1"]["sequence"] == 3  # both advanced it from 1 to 2: max + 1 (M8)
    assert by_id["t2"]["sequence"] == 1
    assert by_id["t3"]["status"] == "blocked"
    assert "bob's task" in [i["title"] for i in todo["items"]]
    plan = {i["id"]: i for i in _show(remote, "main", PLAN_JSON)["plan"]["items"]}
    assert (plan["p1"]["status"], plan["p2"]["status"]) == ("inProgress", "completed")
    targets = {e["targetId"] for e in _show(remote, "main", PLAYBOOK)["playbook"]["items"]}
    assert {"r1", "ann-1", "bob-1"} <= targets
    # every agent branch holds the base's data (its own fork blocks aside)
    for agent in AGENTS:
        for name in (TODO, PLAN_JSON, PLAYBOOK):
            mine = _without_forks(_show(clones[agent], f"agents/{agent}", name))
            assert mine == _show(remote, "main", name), (agent, name)
        status = run_cli("status", "--format", "json", cwd=clones[agent], env=EPOCH)
        assert status.returncode == 0, status.stdout
        (row,) = json.loads(status.stdout)["agents"]
        assert row["state"] == "up to date", row
    # and the person's own next push through the hook is accepted
    run_git(person, "pull", "-q", "--no-rebase", "origin", "main")
    assert run_cli("validate", cwd=person).returncode == 0
    data = _read(person, TODO)
    data["todoList"]["items"][0]["status"] = "completed"
    data["todoList"]["sequence"] += 1
    (person / TODO).write_text(json.dumps(data, indent=2) + "\n")
    run_git(person, "commit", "-qam", "t1 done")
    pushed = run_git(person, "push", "origin", "main", check=False)
    assert pushed.returncode == 0, pushed.stderr
    assert not re.search(r"Traceback", pushed.stderr)
