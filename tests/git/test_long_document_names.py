"""Documents whose names are near the file-name limit (255 bytes) are written whole.

PRODUCT.md "Bad input": files written whole (atomic replace). The temporary a write
makes (``.NAME.PID-START.RANDOM.tmp``) is longer than the document's name: it is cut
(``fsio.temporary_name``) so that ``resolve``, a merge through the driver and an MCP write
of a 250- or 255-byte name (multibyte too) succeed and leave nothing behind.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.conflict_repos import cli_json, diverge, installed, pretty, todo, two_conflicts
from helpers.long_names import NAMES as ALL_NAMES
from helpers.mcp_support import in_process, run, text
from helpers.run import run_cli, run_git

NAMES = {k: v for k, v in ALL_NAMES.items() if not k.startswith("four-byte")}


def _debris(repo: Path) -> list[str]:
    """Temporaries anywhere in the work tree or the git directory."""
    return [str(p) for p in repo.rglob("*.tmp")]


@pytest.mark.parametrize("label", sorted(NAMES))
def test_resolve_writes_a_long_named_document(git_repo: Path, label: str) -> None:
    rel = NAMES[label]
    assert len(rel.encode()) == int(label.rsplit("-", 1)[1])
    repo = installed(git_repo)
    two_conflicts(repo, rel)
    proc = run_git(repo, "merge", "--no-edit", "feat", check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "CONFLICT" in proc.stdout, proc.stdout + proc.stderr
    code, listing = cli_json("conflicts", rel, cwd=repo)
    assert code == 1, listing
    done = run_cli("resolve", rel, "--take", "theirs", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "<<<<<<<" not in (repo / rel).read_text()
    assert run_cli("validate", rel, cwd=repo).returncode == 0
    assert _debris(repo) == []


@pytest.mark.parametrize("label", sorted(NAMES))
def test_a_merge_through_the_driver_of_a_long_named_document(git_repo: Path, label: str) -> None:
    """The driver replaces git's own %A (a short ``.merge_file_XXXXXX``): it passed before
    the cut too; kept so that a driver writing the document's own name is caught."""
    rel = NAMES[label]
    repo = installed(git_repo)
    diverge(repo, pretty(todo()), pretty(todo(t1="blocked")), pretty(todo(t2="completed")), rel)
    proc = run_git(repo, "merge", "--no-edit", "feat", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    merged = json.loads((repo / rel).read_text())
    statuses = {i["id"]: i["status"] for i in merged["todoList"]["items"]}
    assert statuses == {"t1": "blocked", "t2": "completed", "t3": "pending"}
    assert _debris(repo) == []


@pytest.mark.parametrize("label", sorted(NAMES))
def test_an_mcp_write_of_a_long_named_document(git_repo: Path, label: str) -> None:
    """The served ``.vcontext/todo.json`` is a link to the long-named document: the write
    goes to that document, its temporary named after it."""
    from helpers.mcp_support import TODO as MCP_TODO

    rel = NAMES[label]
    (git_repo / "lists").mkdir()
    (git_repo / "lists" / rel).write_text(json.dumps(MCP_TODO, indent=2) + "\n")
    (git_repo / ".vcontext").mkdir()
    (git_repo / ".vcontext/todo.json").symlink_to(f"../lists/{rel}")

    async def main() -> Any:
        async with in_process(git_repo) as client:
            return await client.call_tool("vbrief_create_todo", {"title": "long"})

    result = run(main)
    assert not result.is_error, text(result)
    assert "long" in (git_repo / "lists" / rel).read_text()
    assert _debris(git_repo) == []


@pytest.mark.parametrize("label", ["ascii-255", "two-byte-255"])
def test_a_sync_merge_of_a_long_named_document(git_repo: Path, label: str) -> None:
    """``sync`` merges the agent's and the base's edits of a 255-byte-named document and
    the checked-out base's work tree follows (git writes it: this passed before the cut
    too; the sync writes through fsio only when it finishes an interrupted update)."""
    from helpers.sync_repos import commit_all, commit_on, edit, fork_by_hand, seed, status
    from helpers.sync_repos import sync as run_sync
    from helpers.sync_repos import todo as sync_todo
    from helpers.sync_repos import write as sync_write

    rel = NAMES[label]
    seed(git_repo)
    sync_write(git_repo, rel, sync_todo(uid="u-long"))
    commit_all(git_repo, "a long name")
    fork_by_hand(git_repo, "alice")
    commit_on(git_repo, "agents/alice", {rel: status(("t1", "completed"))}, "tick")

    def add(data: Any) -> None:
        data["todoList"]["items"].append({"id": "t4", "title": "Four", "status": "pending"})
        data["todoList"]["sequence"] += 1

    edit(git_repo, rel, add)
    commit_all(git_repo, "main adds t4")

    code, out, err = run_sync(git_repo, "alice")

    assert code == 0, out + err
    # (git show main:NAME stats the whole argument as a file first: too long; cat-file does not)
    merged = json.loads(run_git(git_repo, "cat-file", "blob", f"main:{rel}").stdout)
    statuses = {i["id"]: i["status"] for i in merged["todoList"]["items"]}
    assert statuses == {"t1": "completed", "t2": "pending", "t3": "pending", "t4": "pending"}
    assert json.loads((git_repo / rel).read_text()) == merged
    assert run_git(git_repo, "status", "--porcelain").stdout == ""
    assert _debris(git_repo) == []
