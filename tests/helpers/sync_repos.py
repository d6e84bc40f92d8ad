"""Repositories for the sync and status tests: documents, agent branches with fork blocks.

Agent branches are made with plain git plus a hand-written fork block (what
``git vcontext fork`` writes: PRODUCT.md, "Branch-per-agent workflow"), so these
tests depend only on sync itself.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from helpers.run import run_cli, run_git

EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}  # 2026-01-01T00:00:00Z
FORKED_AT = "2025-12-31T00:00:00Z"


def todo(uid: str = "u-todo", sequence: int = 3, items: int = 3) -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4"},
        "todoList": {
            "id": "todo-1",
            "uid": uid,
            "sequence": sequence,
            "items": [
                {"id": f"t{i}", "title": f"Task {i}", "status": "pending"}
                for i in range(1, items + 1)
            ],
        },
    }


def plan(uid: str = "u-plan", sequence: int = 5) -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4"},
        "plan": {
            "id": "plan-1",
            "uid": uid,
            "title": "The plan",
            "status": "inProgress",
            "narratives": {"proposal": "One step at a time."},  # seed 000: required
            "sequence": sequence,
            "items": [{"id": "p1", "title": "Step one", "status": "pending"}],
        },
    }


def write(repo: Path, name: str, data: Any) -> None:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def read(repo: Path, name: str) -> Any:
    return json.loads((repo / name).read_text())


def show(repo: Path, rev: str, name: str) -> Any:
    return json.loads(run_git(repo, "show", f"{rev}:{name}").stdout)


def commit_all(repo: Path, message: str) -> str:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", message)
    return rev(repo, "HEAD")


def rev(repo: Path, name: str) -> str:
    return run_git(repo, "rev-parse", name).stdout.strip()


def edit(repo: Path, name: str, change: Any) -> None:
    """Apply ``change(data)`` to a document in the work tree."""
    data = read(repo, name)
    change(data)
    write(repo, name, data)


def clone(remote: Path, where: Path) -> Path:
    """A clone of ``remote`` at ``where`` with an identity of its own (another person)."""
    subprocess.run(["git", "clone", "-q", str(remote), str(where)], check=True)
    run_git(where, "config", "user.name", "Other")
    run_git(where, "config", "user.email", "other@example.com")
    return where


def seed(repo: Path) -> None:
    """main with two documents (with container uids) and an ordinary file."""
    write(repo, "todo.vcontext.json", todo())
    write(repo, "docs/plan.vcontext.json", plan())
    (repo / "notes.txt").write_text("line 1\nline 2\nline 3\n")
    commit_all(repo, "seed")


def fork_by_hand(repo: Path, agent: str, base: str = "main") -> str:
    """``agents/AGENT`` from ``base`` with a fork block in every document, made with plain git.

    Uses a temporary work tree so the current checkout is left alone.
    """
    branch = f"agents/{agent}"
    wt = repo.parent / f"fork-{agent}"
    run_git(repo, "worktree", "add", "-q", "-b", branch, str(wt), base)
    for name in ("todo.vcontext.json", "docs/plan.vcontext.json"):
        if not (wt / name).exists():
            continue
        data = read(wt, name)
        key = "todoList" if "todoList" in data else "plan"
        container = data[key]
        container["fork"] = {
            "parentUid": container["uid"],
            "parentSequence": container["sequence"],
            "forkedAt": FORKED_AT,
            "forkReason": f"agent {agent}",
            "mergeStatus": "unmerged",
        }
        write(wt, name, data)
    commit_all(wt, f"fork {agent}")
    run_git(repo, "worktree", "remove", "--force", str(wt))
    run_git(repo, "config", f"vcontext.agent.{agent}.base", base)
    return branch


def shared_with_alice(repo: Path, remote: Path) -> Path:
    """``remote`` made a bare repository holding ``repo``'s seeded main as ``origin``, and
    ``agents/alice`` forked in ``repo`` (not pushed): the start of a ``sync --push``."""
    run_git(remote.parent, "init", "-q", "--bare", "-b", "main", str(remote))
    seed(repo)
    run_git(repo, "remote", "add", "origin", str(remote))
    run_git(repo, "push", "-q", "origin", "main")
    fork_by_hand(repo, "alice")
    return remote


def commit_on(repo: Path, branch: str, changes: dict[str, Any], message: str) -> str:
    """Commit document edits (``{name: change(data)}``) on ``branch`` in a temporary work tree."""
    wt = repo.parent / f"edit-{branch.replace('/', '-')}"
    run_git(repo, "worktree", "add", "-q", str(wt), branch)
    try:
        for name, change in changes.items():
            if callable(change):
                edit(wt, name, change)
            elif isinstance(change, str):
                (wt / name).write_text(change)
            else:
                write(wt, name, change)
        return commit_all(wt, message)
    finally:
        run_git(repo, "worktree", "remove", "--force", str(wt))


def sync(repo: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    proc = run_cli("sync", *args, cwd=repo, env={**EPOCH, **(env or {})})
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def status(item: tuple[str, str], sequence_bump: int = 1) -> Any:
    """A change: set a todo item's status and bump the list's sequence."""

    def change(data: Any) -> None:
        todo_list = data["todoList"]
        for it in todo_list["items"]:
            if it["id"] == item[0]:
                it["status"] = item[1]
        todo_list["sequence"] += sequence_bump

    return change


def without_fork(data: Any) -> Any:
    """The document data with fork blocks removed (what base and agent must agree on)."""
    out = json.loads(json.dumps(data))
    for key in ("todoList", "plan", "playbook"):
        if isinstance(out.get(key), dict):
            out[key].pop("fork", None)
    return out


def conflicting_agents(repo: Path) -> None:
    """Seed, fork alice and bob, and give t1 a different status on each agent branch."""
    seed(repo)
    fork_by_hand(repo, "alice")
    fork_by_hand(repo, "bob")
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "a")
    commit_on(repo, "agents/bob", {"todo.vcontext.json": status(("t1", "blocked"))}, "b")


def agent_against_main(repo: Path) -> None:
    """Seed, fork alice; alice completes t1 while main cancels it (a conflict with the base)."""
    seed(repo)
    fork_by_hand(repo, "alice")
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "a")
    edit(repo, "todo.vcontext.json", status(("t1", "cancelled")))
    commit_all(repo, "main cancels t1")


def alice_ticks_t1(repo: Path) -> None:
    """Agent alice forked by hand from main, which completes t1 in the todo list on her
    branch; main is checked out again."""
    fork_by_hand(repo, "alice")
    run_git(repo, "switch", "-q", "agents/alice")
    edit(repo, "todo.vcontext.json", status(("t1", "completed")))
    commit_all(repo, "alice ticks t1")
    run_git(repo, "switch", "-q", "main")
