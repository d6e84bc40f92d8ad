"""A document renamed, moved or converted (JSON ⇄ TRON) on one side is one document (issue 26,
point 10; issue 34; PRODUCT.md "Branch-per-agent workflow"): sync (both merge directions),
the integration and an agent's MCP server follow it; the other side's edits land in the
new file in its format, and the old name is never revived.

Real git, a real bare remote, separate clones with the pre-push hook installed; the agent
writes through the MCP SDK's own stdio client on its branch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import git_vcontext
import git_vcontext as gv
from helpers.mcp_support import run, stdio_params, text
from helpers.run import run_cli, run_git
from helpers.sync_repos import EPOCH, rev, sync

UID = "u-todo"


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


def _todo() -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4"},
        "todoList": {
            "id": "todo-1",
            "uid": UID,
            "sequence": 3,
            "items": [
                {"id": f"t{i}", "title": f"Task {i}", "status": "pending"} for i in range(1, 4)
            ],
        },
    }


def _write(where: Path, name: str, data: Any) -> None:
    text_ = gv.dumps(data, "tron") if name.endswith(".tron") else json.dumps(data, indent=2) + "\n"
    (where / name).write_text(text_)


def _read(where: Path, name: str) -> Any:
    return gv.load(str(where / name)).data


def _show(repo: Path, rev_: str, name: str) -> Any:
    raw = run_git(repo, "show", f"{rev_}:{name}").stdout.encode()
    return gv.loads(raw, path=name).data


def _files(repo: Path, rev_: str) -> list[str]:
    return run_git(repo, "ls-tree", "-r", "--name-only", rev_).stdout.split()


def _clone(remote: Path, where: Path, name: str) -> Path:
    run_git(where.parent, "clone", "-q", str(remote), str(where))
    run_git(where, "config", "user.name", name)
    run_git(where, "config", "user.email", f"{name}@example.com")
    installed = run_cli("install", cwd=where)
    assert installed.returncode == 0, installed.stderr
    return where


def _remote(tmp_path: Path, name: str) -> Path:
    """A bare remote whose main holds the todo list as ``name``."""
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    seed = tmp_path / "seed"
    run_git(tmp_path, "init", "-q", "-b", "main", str(seed))
    for key, value in (("user.name", "Seed"), ("user.email", "seed@example.com")):
        run_git(seed, "config", key, value)
    _write(seed, name, _todo())
    run_git(seed, "add", "-A")
    run_git(seed, "commit", "-qm", "seed")
    run_git(seed, "push", "-q", str(bare), "main")
    return bare


def _agent(remote: Path, tmp_path: Path, name: str) -> tuple[Path, Path]:
    """(the agent's clone, its work tree with agents/NAME checked out), forked as the README
    says: git vcontext fork NAME --worktree PATH."""
    clone = _clone(remote, tmp_path / name, name)
    wt = tmp_path / f"{name}-wt"
    done = run_cli("fork", name, "--worktree", str(wt), cwd=clone, env=EPOCH)
    assert done.returncode == 0, done.stderr
    return clone, wt


def _convert_on_main(person: Path, old: str, new: str) -> None:
    """The person converts the document, removes the old file, commits and pushes through
    the hook (which accepts the move)."""
    fmt = "tron" if new.endswith(".tron") else "json"
    done = run_cli("convert", old, "--to", fmt, "-o", new, cwd=person)
    assert done.returncode == 0, done.stderr
    run_git(person, "rm", "-q", old)
    run_git(person, "add", new)
    run_git(person, "commit", "-qm", f"convert {old} to {fmt}")
    pushed = run_git(person, "push", "-q", "origin", "main", check=False)
    assert pushed.returncode == 0, pushed.stderr


async def _write_todo(wt: Path, title: str) -> None:
    from mcp import Client

    async with Client(stdio_params(wt)) as client:
        made = await client.call_tool("vbrief_create_todo", {"title": title})
        assert not made.is_error, text(made)
        assert made.structured_content["commit"]


@pytest.mark.parametrize(
    ("old", "new", "pinned"),
    [
        ("todo.vcontext.json", "todo.vcontext.tron", False),
        ("todo.vcontext.tron", "todo.vcontext.json", True),
    ],
    ids=["json-to-tron", "tron-to-json-pinned"],
)
def test_sync_push_follows_a_conversion_on_main_with_mcp_writes_on_the_agent_branch(
    tmp_path: Path, old: str, new: str, pinned: bool
) -> None:
    """``pinned``: ann's server was told its todo list by its old name (git config
    vcontext.mcp.todo, as the README says); it follows the conversion too."""
    remote = _remote(tmp_path, old)
    person = _clone(remote, tmp_path / "person", "person")
    ann, ann_wt = _agent(remote, tmp_path, "ann")
    if pinned:
        run_git(ann, "config", "vcontext.mcp.todo", old)
    run(lambda: _write_todo(ann_wt, "ann before the conversion"))
    _convert_on_main(person, old, new)

    code, out, err = sync(ann, "ann", "--push", "origin")

    assert code == 0, out + err
    assert "CONFLICT" not in out
    for where in ("main", "agents/ann"):
        files = _files(remote, where)
        assert new in files, (where, files)
        assert old not in files, (where, files)  # never revived
    titles = [i["title"] for i in _show(remote, "main", new)["todoList"]["items"]]
    assert "ann before the conversion" in titles
    # ann's work tree followed: one document, in the new format, her fork block kept
    assert not (ann_wt / old).exists()
    assert (ann_wt / new).exists()
    assert _read(ann_wt, new)["todoList"]["fork"]["parentUid"] == UID
    assert "fork" not in _show(remote, "main", new)["todoList"]  # M11

    # her MCP server writes to the document under its new name, and sees one document
    async def after() -> None:
        from mcp import Client

        async with Client(stdio_params(ann_wt)) as client:
            listed = json.loads(text(await client.read_resource("vbrief://todos")))
            assert [d["path"] for d in listed["todoLists"]] == [new], listed
            made = await client.call_tool("vbrief_create_todo", {"title": "ann after it"})
            assert not made.is_error, text(made)
            assert made.structured_content["document"]["path"] == new

    run(after)
    assert not (ann_wt / old).exists()
    code, out, err = sync(ann, "ann", "--push", "origin")
    assert code == 0, out + err
    assert old not in _files(remote, "main")
    titles = [i["title"] for i in _show(remote, "main", new)["todoList"]["items"]]
    assert {"ann before the conversion", "ann after it"} <= set(titles)
    # the result validates, and the person's next push through the hook is accepted
    run_git(person, "pull", "-q", "--no-rebase", "origin", "main")
    assert run_cli("validate", cwd=person).returncode == 0
    assert not (person / old).exists()
    data = _read(person, new)
    data["todoList"]["items"][0]["status"] = "completed"
    data["todoList"]["sequence"] += 1
    _write(person, new, data)
    run_git(person, "commit", "-qam", "t1 done")
    pushed = run_git(person, "push", "-q", "origin", "main", check=False)
    assert pushed.returncode == 0, pushed.stderr


def test_an_agents_conversion_reaches_the_base_with_the_bases_edits_in_the_new_file(
    tmp_path: Path,
) -> None:
    """The agent converts (the other direction of the merge): the base's own edits made
    meanwhile land in the agent's new file, in its format; the base loses the old name."""
    remote = _remote(tmp_path, "todo.vcontext.json")
    person = _clone(remote, tmp_path / "person", "person")
    ann, ann_wt = _agent(remote, tmp_path, "ann")
    done = run_cli(
        "convert", "todo.vcontext.json", "--to", "tron", "-o", "todo.vcontext.tron", cwd=ann_wt
    )
    assert done.returncode == 0, done.stderr
    run_git(ann_wt, "rm", "-q", "todo.vcontext.json")
    run_git(ann_wt, "add", "todo.vcontext.tron")
    run_git(ann_wt, "commit", "-qm", "ann converts the todo list")
    data = _read(person, "todo.vcontext.json")
    data["todoList"]["items"][1]["status"] = "blocked"
    data["todoList"]["sequence"] += 1
    _write(person, "todo.vcontext.json", data)
    run_git(person, "commit", "-qam", "t2 blocked")
    assert run_git(person, "push", "-q", "origin", "main", check=False).returncode == 0

    code, out, err = sync(ann, "ann", "--push", "origin")

    assert code == 0, out + err
    assert _files(remote, "main") == ["todo.vcontext.tron"]
    on_main = _show(remote, "main", "todo.vcontext.tron")["todoList"]
    assert on_main["items"][1]["status"] == "blocked"
    assert "fork" not in on_main
    assert _files(remote, "agents/ann") == ["todo.vcontext.tron"]
    assert _read(ann_wt, "todo.vcontext.tron")["todoList"]["items"][1]["status"] == "blocked"
    assert rev(ann, "main") == rev(remote, "main")


def _publish(clone: Path, agent: str) -> None:
    """What an interrupted sync --push leaves: the agent branch and its request pushed."""
    tip = rev(clone, f"agents/{agent}")
    run_git(clone, "push", "-q", "origin", f"agents/{agent}")
    run_git(clone, "push", "-q", "origin", f"{tip}:refs/vcontext/sync/main/agents/{agent}")


def test_an_integration_follows_a_conversion_made_after_a_request_was_published(
    tmp_path: Path,
) -> None:
    """bob's request edits the JSON file; the person converts it to TRON; alice's sync
    --push integrates bob's request too: his edit lands in the TRON file, and main never
    gets the JSON file back."""
    remote = _remote(tmp_path, "todo.vcontext.json")
    person = _clone(remote, tmp_path / "person", "person")
    bob, bob_wt = _agent(remote, tmp_path, "bob")
    data = _read(bob_wt, "todo.vcontext.json")
    data["todoList"]["items"].append({"id": "b1", "title": "bob's task", "status": "pending"})
    data["todoList"]["sequence"] += 1
    _write(bob_wt, "todo.vcontext.json", data)
    run_git(bob_wt, "commit", "-qam", "b1")
    _publish(bob, "bob")
    alice, alice_wt = _agent(remote, tmp_path, "alice")
    _convert_on_main(person, "todo.vcontext.json", "todo.vcontext.tron")
    run(lambda: _write_todo(alice_wt, "alice's task"))

    code, out, err = sync(alice, "alice", "--push", "origin")

    assert code == 0, out + err
    assert "merged with it into main: agents/bob" in out
    assert _files(remote, "main") == ["todo.vcontext.tron"]
    ids = [i["id"] for i in _show(remote, "main", "todo.vcontext.tron")["todoList"]["items"]]
    assert "b1" in ids
    titles = [i["title"] for i in _show(remote, "main", "todo.vcontext.tron")["todoList"]["items"]]
    assert "alice's task" in titles
    # bob's own sync then finds his round on the base and follows the conversion; the
    # document it lists is named as the base has it now (the new file), not as he wrote it
    code, out, err = sync(bob, "bob", "--push", "origin")
    assert code == 0, out + err
    assert "agents/bob <-> main: merged into main on the remote (1 document)" in out, out
    assert [line.strip() for line in out.splitlines() if line.startswith("  ")] == [
        "todo.vcontext.tron"
    ], out
    assert not (bob_wt / "todo.vcontext.json").exists()
    assert _files(bob, "agents/bob") == ["todo.vcontext.tron"]
    assert "b1" in [i["id"] for i in _read(bob_wt, "todo.vcontext.tron")["todoList"]["items"]]


def _repo_with_agent(tmp_path: Path, name: str) -> Path:
    """A repository (no remote) with the todo list at ``name`` and agents/alice forked."""
    repo = tmp_path / "repo"
    run_git(tmp_path, "init", "-q", "-b", "main", str(repo))
    for key, value in (("user.name", "Person"), ("user.email", "person@example.com")):
        run_git(repo, "config", key, value)
    (repo / "docs").mkdir()
    _write(repo, name, _todo())
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "seed")
    done = run_cli("fork", "alice", "--worktree", str(tmp_path / "alice"), cwd=repo, env=EPOCH)
    assert done.returncode == 0, done.stderr
    return repo


def _alice_completes_t1(tmp_path: Path, name: str) -> None:
    wt = tmp_path / "alice"
    data = _read(wt, name)
    data["todoList"]["items"][0]["status"] = "completed"
    data["todoList"]["sequence"] += 1
    _write(wt, name, data)
    run_git(wt, "commit", "-qam", "t1 done")


def test_a_document_moved_to_another_folder_takes_the_agents_edits_along(tmp_path: Path) -> None:
    """A plain move (JSON to JSON) on main while alice edits the old file: status predicts
    no conflict, sync puts her edit in the moved file on both branches."""
    repo = _repo_with_agent(tmp_path, "todo.vcontext.json")
    _alice_completes_t1(tmp_path, "todo.vcontext.json")
    run_git(repo, "mv", "todo.vcontext.json", "docs/todo.vcontext.json")
    data = _read(repo, "docs/todo.vcontext.json")
    data["todoList"]["items"][2]["status"] = "blocked"
    data["todoList"]["sequence"] += 1
    _write(repo, "docs/todo.vcontext.json", data)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "move the todo list, t3 blocked")

    status = run_cli("status", "--format", "json", cwd=repo, env=EPOCH)
    assert status.returncode == 0, status.stdout
    (row,) = json.loads(status.stdout)["agents"]
    assert row["state"] == "needs sync"
    assert row["conflicts"] == []
    code, out, err = sync(repo, "alice")

    assert code == 0, out + err
    for branch in ("main", "agents/alice"):
        assert _files(repo, branch) == ["docs/todo.vcontext.json"], branch
        items = _show(repo, branch, "docs/todo.vcontext.json")["todoList"]["items"]
        assert [i["status"] for i in items] == ["completed", "pending", "blocked"], branch
    assert run_cli("validate", cwd=repo).returncode == 0


def test_a_document_renamed_differently_on_both_sides_is_a_conflict(tmp_path: Path) -> None:
    repo = _repo_with_agent(tmp_path, "todo.vcontext.json")
    wt = tmp_path / "alice"
    run_git(wt, "mv", "todo.vcontext.json", "mine.vcontext.json")
    run_git(wt, "commit", "-qm", "alice renames it")
    run_git(repo, "mv", "todo.vcontext.json", "ours.vcontext.json")
    run_git(repo, "commit", "-qm", "main renames it")
    before = (rev(repo, "main"), rev(repo, "agents/alice"))

    code, out, _ = sync(repo, "alice")

    assert code == 1
    assert "todo.vcontext.json: rename/rename" in out
    assert "mine.vcontext.json" in out
    assert "ours.vcontext.json" in out
    assert (rev(repo, "main"), rev(repo, "agents/alice")) == before


def test_a_playbook_converted_on_main_keeps_the_agents_new_learning(tmp_path: Path) -> None:
    """The events of both sides end in the TRON playbook; the merge passes the hook (a move
    whose events all reappear) and validates."""
    playbook = {
        "vContextInfo": {"version": "0.4"},
        "playbook": {
            "version": 1,
            "items": [
                {
                    "eventId": "e1",
                    "targetId": "r1",
                    "operation": "append",
                    "kind": "rule",
                    "text": "first",
                    "createdAt": "2026-01-01T00:00:00Z",
                }
            ],
        },
    }
    repo = tmp_path / "repo"
    run_git(tmp_path, "init", "-q", "-b", "main", str(repo))
    for key, value in (("user.name", "Person"), ("user.email", "person@example.com")):
        run_git(repo, "config", key, value)
    _write(repo, "playbook.vcontext.json", playbook)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "seed")
    done = run_cli("fork", "alice", "--worktree", str(tmp_path / "alice"), cwd=repo, env=EPOCH)
    assert done.returncode == 0, done.stderr
    learned = run_cli(
        "playbook", "add", "playbook.vcontext.json", "--target", "r2", "--kind", "rule",
        "--text", "alice learned", cwd=tmp_path / "alice", env=EPOCH,
    )  # fmt: skip
    assert learned.returncode == 0, learned.stderr
    run_git(tmp_path / "alice", "commit", "-qam", "alice learns")
    converted = run_cli(
        "convert", "playbook.vcontext.json", "--to", "tron", "-o", "playbook.vcontext.tron",
        cwd=repo,
    )  # fmt: skip
    assert converted.returncode == 0, converted.stderr
    run_git(repo, "rm", "-q", "playbook.vcontext.json")
    run_git(repo, "add", "playbook.vcontext.tron")
    run_git(repo, "commit", "-qm", "convert the playbook")

    code, out, err = sync(repo, "alice")

    assert code == 0, out + err
    assert _files(repo, "main") == ["playbook.vcontext.tron"]
    events = _show(repo, "main", "playbook.vcontext.tron")["playbook"]["items"]
    assert {e["targetId"] for e in events} == {"r1", "r2"}
    assert run_cli("validate", cwd=repo).returncode == 0
    checked = run_cli("hook", "pre-push", "origin", "url", cwd=repo, input=_push_lines(repo))
    assert checked.returncode == 0, checked.stderr


def _push_lines(repo: Path) -> bytes:
    """git's pre-push input for pushing main and agents/alice to a remote that has neither."""
    zero = "0" * 40
    lines = [
        f"refs/heads/{b} {rev(repo, b)} refs/heads/{b} {zero}" for b in ("main", "agents/alice")
    ]
    return ("\n".join(lines) + "\n").encode()


def test_a_real_conflict_in_a_converted_document_is_resolved_as_the_messages_say(
    tmp_path: Path,
) -> None:
    """main converts the todo list and cancels t1; ann completes t1 in the old file. sync
    stops on one document, the new one; the way out it prints (sync --checkout, resolve,
    commit, sync) keeps the new name only."""
    remote = _remote(tmp_path, "todo.vcontext.json")
    person = _clone(remote, tmp_path / "person", "person")
    ann, ann_wt = _agent(remote, tmp_path, "ann")
    data = _read(ann_wt, "todo.vcontext.json")
    data["todoList"]["items"][0]["status"] = "completed"
    _write(ann_wt, "todo.vcontext.json", data)
    run_git(ann_wt, "commit", "-qam", "ann completes t1")
    _convert_on_main(person, "todo.vcontext.json", "todo.vcontext.tron")
    data = _read(person, "todo.vcontext.tron")
    data["todoList"]["items"][0]["status"] = "cancelled"
    _write(person, "todo.vcontext.tron", data)
    run_git(person, "commit", "-qam", "main cancels t1")
    assert run_git(person, "push", "-q", "origin", "main", check=False).returncode == 0

    code, out, _ = sync(ann, "ann", "--push", "origin")

    assert code == 1
    assert "todo.vcontext.tron: 1 conflict(s)" in out
    assert "todo.vcontext.json" not in out
    step = next(line for line in out.splitlines() if line.strip().startswith("next:"))
    command = step.split("next:", 1)[1].strip()
    assert command == "git vcontext sync ann --push origin --checkout"
    code, out, err = sync(ann, *command.split()[3:])
    assert "conflicted: todo.vcontext.tron" in out, out + err
    assert not (ann_wt / "todo.vcontext.json").exists()
    conflicts = run_cli("conflicts", "--format", "json", cwd=ann_wt)
    assert [f["path"] for f in json.loads(conflicts.stdout)["files"]] == ["todo.vcontext.tron"]
    resolved = run_cli("resolve", "todo.vcontext.tron", "--take", "ours", cwd=ann_wt)
    assert resolved.returncode == 0, resolved.stderr
    run_git(ann_wt, "commit", "-q", "--no-edit")
    assert "todo.vcontext.json" not in _files(ann, "agents/ann")

    code, out, err = sync(ann, "ann", "--push", "origin")

    assert code == 0, out + err
    assert _files(remote, "main") == ["todo.vcontext.tron"]
    assert _show(remote, "main", "todo.vcontext.tron")["todoList"]["items"][0]["status"] == (
        "completed"
    )


def test_sync_says_the_agent_branch_took_the_bases_conversion_as_a_document_it_updated(
    tmp_path: Path,
) -> None:
    """Branch-per-agent workflow: a document converted on the base is one document; when
    sync brings the conversion to the agent branch, that branch's document changed (its
    name and format): sync said "update 0 documents on agents/ann" and its merge commit
    listed none (a list without a ``uid``, as the corpus's are: no fork block; the remote
    integrates: install --server)."""
    remote = _remote(tmp_path, "todo.vcontext.json")
    assert run_cli("install", "--server", cwd=remote).returncode == 0
    person = _clone(remote, tmp_path / "person", "person")
    plain = _read(person, "todo.vcontext.json")
    del plain["todoList"]["uid"]
    _write(person, "todo.vcontext.json", plain)
    run_git(person, "commit", "-qam", "no uid")
    assert run_git(person, "push", "-q", "origin", "main", check=False).returncode == 0
    ann, ann_wt = _agent(remote, tmp_path, "ann")
    _convert_on_main(person, "todo.vcontext.json", "todo.vcontext.tron")
    data = _read(ann_wt, "todo.vcontext.json")
    data["todoList"]["items"][1]["status"] = "blocked"
    _write(ann_wt, "todo.vcontext.json", data)
    run_git(ann_wt, "commit", "-qam", "t2 blocked")

    code, out, err = sync(ann, "ann", "--push", "origin")

    assert code == 0, out + err
    assert "update 1 document on agents/ann" in out, out
    message = run_git(ann, "log", "-1", "--format=%B", "agents/ann").stdout
    assert "- todo.vcontext.tron" in message
    assert _files(ann, "agents/ann") == ["todo.vcontext.tron"]
