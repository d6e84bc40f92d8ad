"""A fork block spelled with escapes is the same fork block (one truth, M16).

PRODUCT.md (Validation, history rules): an unmerged fork block a merge commit brings onto a
branch outside the agent prefix is refused (``history-unmerged-fork``); one a fast-forward
brings is a note (``branches.arrived``). JSON reads ``"\\u0066ork"`` as ``"fork"`` and
``"\\u0075nmerged"`` as ``"unmerged"``: the byte pre-tests before those rules (the guard's
light path, the full check, ``validate``) must not skip them for an escaped spelling.
Real pushes with ``--no-verify`` into a bare repository with ``install --server --guard``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.guard import (  # noqa: F401 (fixtures)
    clone_with_base,
    guarded,
    guarded_clone,
    guarded_remote,
    push,
    refs,
    remote_lines,
    sneak,
    this_checkout,
)
from helpers.pre_push import PLAYBOOK, TODO, commit, event, playbook
from helpers.run import run_cli, run_git

FORK = {"parentUid": "u1", "parentSequence": 3, "forkedAt": "2026-01-01T00:00:00Z"}
ESCAPED_KEY = ('"fork', '"\\u0066ork')  # the keys fork and forkedAt: no byte says fork
ESCAPED_STATUS = ('"unmerged"', '"\\u0075nmerged"')


def _forked_todo(repo: Path, escape: tuple[str, str]) -> None:
    """The todo list with an unmerged fork block, one word of it written escaped."""
    path = repo / TODO
    data = json.loads(path.read_text())
    data["todoList"]["fork"] = {**FORK, "mergeStatus": "unmerged"}
    text = json.dumps(data, indent=2) + "\n"
    assert escape[0] in text
    path.write_text(text.replace(*escape))
    assert b"fork" not in path.read_bytes() or b"unmerged" not in path.read_bytes()
    assert json.loads(path.read_text())["todoList"]["fork"]["mergeStatus"] == "unmerged"


@pytest.mark.parametrize("escape", [ESCAPED_KEY, ESCAPED_STATUS], ids=["key", "status"])
def test_guard_refuses_a_merge_bringing_an_escaped_fork_block(
    repo: Path, remote: Path, escape: tuple[str, str]
) -> None:
    """history-unmerged-fork: main merges an agent branch whose fork block is escaped; the
    guard refuses it as the full check (``check``) does, and leaves the refs alone."""
    run_git(repo, "switch", "-q", "-c", "agents/alice", "main")
    _forked_todo(repo, escape)
    commit(repo, "alice forks the list")
    run_git(repo, "switch", "-q", "main")
    (repo / PLAYBOOK).write_text(
        json.dumps(playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    )
    commit(repo, "main moves on")
    run_git(repo, "merge", "-q", "--no-edit", "agents/alice")
    before = refs(remote)

    checked = run_cli("check", cwd=repo)
    proc = sneak(repo, "origin", "main")

    assert checked.returncode != 0
    assert b"[history-unmerged-fork]" in checked.stdout + checked.stderr
    assert proc.returncode != 0, proc.stderr
    assert any(line.endswith("[history-unmerged-fork]") for line in remote_lines(proc.stderr))
    assert refs(remote) == before


@pytest.mark.parametrize("escape", [ESCAPED_KEY, ESCAPED_STATUS], ids=["key", "status"])
def test_guard_notes_a_fast_forwarded_escaped_fork_block(
    repo: Path, escape: tuple[str, str]
) -> None:
    """branches.arrived: main fast-forwarded onto an agent branch (pushed) whose fork block
    is escaped; the guard says the note the full check says, and takes the push."""
    run_git(repo, "switch", "-q", "-c", "agents/bo", "main")
    _forked_todo(repo, escape)
    commit(repo, "bo forks the list")
    assert sneak(repo, "origin", "agents/bo").returncode == 0
    run_git(repo, "switch", "-q", "main")
    run_git(repo, "merge", "-q", "--ff-only", "agents/bo")
    said = "agent bo's fork block (branch-local fork metadata, M11) is on main"

    checked = run_cli("check", cwd=repo)
    proc = push(repo, "--no-verify", "origin", "main")

    assert checked.returncode == 0
    assert said in (checked.stdout + checked.stderr).decode()
    assert proc.returncode == 0, proc.stderr
    assert any(said in line for line in remote_lines(proc.stderr)), proc.stderr
