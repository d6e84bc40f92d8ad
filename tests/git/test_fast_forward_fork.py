"""An agent branch fast-forwarded onto its base: its fork block lands there as it is.

PRODUCT.md (Validation, history rules) refuses an unmerged fork block that a *merge
commit* brings onto a branch outside the agent prefix, and accepts a forked document
committed directly; a fast-forward ``git merge agents/x`` makes no merge commit, so it is
said as a note with the fix (``branches.arrived``), alike by ``validate``, ``check``, the
pre-push hook and the server guard (one truth), and the fix it names runs.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers.guard import guarded_remote
from helpers.run import run_cli, run_git
from helpers.team import TASKS, edit, identity, tasks, write

SAID = "agent bo's fork block (branch-local fork metadata, M11) is on main"


def _person(remote: Path, tmp_path: Path) -> Path:
    clone = tmp_path / "person"
    run_git(tmp_path, "clone", "-q", str(remote), str(clone))
    identity(clone, "person")
    assert run_cli("install", cwd=clone).returncode == 0
    write(clone, TASKS, tasks("t1"))
    run_git(clone, "add", "-A")
    run_git(clone, "commit", "-qm", "seed")
    run_git(clone, "push", "-q", "origin", "main")
    return clone


@pytest.fixture
def forwarded(tmp_path: Path) -> Path:
    """A guarded remote; the person's clone whose main took agents/bo by a fast-forward."""
    clone = _person(guarded_remote(tmp_path, "--guard"), tmp_path)
    _fast_forward(clone)
    return clone


def _fast_forward(clone: Path) -> None:
    """bo forks and works (its branch pushed, as sync --push does), then a person merges it
    into main with plain git, which fast-forwards."""
    assert run_cli("fork", "bo", cwd=clone).returncode == 0
    run_git(clone, "switch", "-q", "agents/bo")
    text = (clone / TASKS).read_text().replace('"pending"', '"inProgress"')
    (clone / TASKS).write_text(text)
    run_git(clone, "commit", "-qam", "bo: t1 in progress")
    run_git(clone, "push", "-q", "origin", "agents/bo")
    run_git(clone, "switch", "-q", "main")
    run_git(clone, "merge", "-q", "agents/bo")
    assert "fork" in json.loads((clone / TASKS).read_text())["todoList"]


def _text(done: subprocess.CompletedProcess[bytes]) -> str:
    return (done.stdout + done.stderr).decode()


def test_history_unmerged_fork_by_fast_forward_is_a_note_with_the_fix_everywhere(
    forwarded: Path,
) -> None:
    clone = forwarded

    validated = run_cli("validate", cwd=clone)
    assert validated.returncode == 0, _text(validated)
    assert SAID in _text(validated)
    assert "git reset --keep origin/main, then git vcontext sync bo" in _text(validated)
    assert f"delete todoList.fork from {TASKS} in a commit on main" in _text(validated)
    checked = run_cli("check", cwd=clone)
    assert checked.returncode == 0, _text(checked)
    assert SAID in _text(checked)
    assert "git reset --keep " in _text(checked)
    pushed = run_git(clone, "push", "origin", "main", check=False)
    assert pushed.returncode == 0, pushed.stderr
    hook_and_guard = [line for line in pushed.stderr.splitlines() if SAID in line]
    assert len(hook_and_guard) == 2, pushed.stderr  # the hook's, and the guard's (remote:)
    assert any(line.startswith("remote:") for line in hook_and_guard)
    assert all("git reset --keep" not in line for line in hook_and_guard)  # it goes on

    # the fix, once pushed: the fork block out of main in a commit; then nothing to say
    edit(clone, TASKS, lambda data: data["todoList"].pop("fork"))
    run_git(clone, "commit", "-qam", "main: bo's fork block is branch-local")
    fixed = run_git(clone, "push", "origin", "main", check=False)
    assert fixed.returncode == 0, fixed.stderr
    assert SAID not in fixed.stderr
    quiet = run_cli("validate", cwd=clone)
    assert quiet.returncode == 0
    assert SAID not in _text(quiet)


def test_history_unmerged_fork_by_fast_forward_undone_as_said_before_the_push(
    forwarded: Path,
) -> None:
    clone = forwarded
    run_git(clone, "reset", "-q", "--keep", "origin/main")
    synced = run_cli("sync", "bo", cwd=clone)
    assert synced.returncode == 0, _text(synced)
    assert "fork" not in json.loads((clone / TASKS).read_text())["todoList"]
    assert json.loads((clone / TASKS).read_text())["todoList"]["items"][0]["status"] == (
        "inProgress"
    )
    assert SAID not in _text(run_cli("validate", cwd=clone))


def test_a_forked_document_committed_directly_gets_no_note(tmp_path: Path) -> None:
    """PRODUCT.md: a forked document committed directly (imported) is accepted: no agent
    branch holds its fork, so nothing is said."""
    remote = guarded_remote(tmp_path, "--guard")
    clone = _person(remote, tmp_path)
    fork = {
        "parentUid": "u-elsewhere",
        "parentSequence": 1,
        "forkedAt": "2026-01-01T00:00:00Z",
        "mergeStatus": "unmerged",
    }
    edit(clone, TASKS, lambda data: data["todoList"].update(fork=fork))
    run_git(clone, "commit", "-qam", "import a forked list")
    pushed = run_git(clone, "push", "origin", "main", check=False)
    assert pushed.returncode == 0, pushed.stderr
    assert "fork block" not in pushed.stderr
    assert "fork block" not in _text(run_cli("validate", cwd=clone))
