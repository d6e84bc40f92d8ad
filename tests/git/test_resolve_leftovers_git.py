"""Leftovers and noise (issue 36 point 6; PRODUCT.md "Resolving conflicts"): the choices
``resolve`` keeps under ``.git/vcontext/resolve/`` belong to one stopped attempt — after
``git merge --abort``, ``git reset --hard`` of a failed ``stash pop`` or ``checkout -m``,
the same conflict met again starts afresh (no choice re-applied, no false "changed since"
warning, nothing of the old attempt kept); and with ``rerere.enabled`` the driver says
nothing beside git's "Resolved … using previous resolution"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.conflict_repos import TODO, installed, status_of, todo, write
from helpers.run import run_cli, run_git


def commit(repo: Path, message: str) -> str:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)
    return run_git(repo, "rev-parse", "HEAD").stdout.strip()


OURS = todo(t1="blocked", t2={"title": "Main"})
THEIRS = todo(t1="completed", t2={"title": "Feat"})


@pytest.fixture
def repo(git_repo: Path) -> Path:
    repo = installed(git_repo)
    write(repo, TODO, todo())
    commit(repo, "base")
    return repo


def state_files(repo: Path) -> list[Path]:
    folder = repo / ".git" / "vcontext" / "resolve"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def take_theirs_for_t1(repo: Path) -> None:
    proc = run_cli("resolve", TODO, "--conflict", "todoList.items[t1].status", "--take",
                   "theirs", cwd=repo)  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # t2's title is left


def fresh_attempt(repo: Path) -> None:
    """The conflict met again: both conflicts open, ``--take ours`` gives ours' values."""
    listing = json.loads(run_cli("conflicts", "--format", "json", cwd=repo).stdout)
    [f] = listing["files"]
    assert f["resolved"] == 0
    assert len(f["conflicts"]) == 2
    proc = run_cli("resolve", TODO, "--take", "ours", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert b"changed since" not in proc.stderr
    items = json.loads((repo / TODO).read_text())["todoList"]["items"]
    assert (items[0]["status"], items[1]["title"]) == ("blocked", "Main")
    assert state_files(repo) == []  # nothing left of either attempt


def test_choices_do_not_survive_merge_abort(repo: Path) -> None:
    run_git(repo, "switch", "-q", "-c", "feat")
    write(repo, TODO, THEIRS)
    commit(repo, "feat")
    run_git(repo, "switch", "-q", "main")
    write(repo, TODO, OURS)
    commit(repo, "main")
    assert run_git(repo, "merge", "feat", check=False).returncode == 1
    take_theirs_for_t1(repo)
    run_git(repo, "merge", "--abort")
    assert run_git(repo, "merge", "feat", check=False).returncode == 1
    fresh_attempt(repo)


def test_choices_do_not_survive_a_stash_pop_undone(repo: Path) -> None:
    """A failed ``stash pop`` keeps the stash; ``reset --hard`` and popping again meets the
    same stages — and no head file tells the attempts apart."""
    write(repo, TODO, THEIRS)
    run_git(repo, "stash", "-q")
    write(repo, TODO, OURS)
    commit(repo, "main")
    assert run_git(repo, "stash", "pop", check=False).returncode == 1
    take_theirs_for_t1(repo)
    run_git(repo, "reset", "-q", "--hard")
    assert run_git(repo, "stash", "pop", check=False).returncode == 1
    fresh_attempt(repo)


def test_choices_do_not_survive_a_checkout_m_undone(repo: Path) -> None:
    run_git(repo, "switch", "-q", "-c", "cm1")
    write(repo, TODO, OURS)
    commit(repo, "cm1")
    run_git(repo, "switch", "-q", "main")
    for attempt in range(2):
        write(repo, TODO, THEIRS)  # the local edit
        run_git(repo, "checkout", "-m", "cm1")
        assert status_of(repo) == "UU"
        if attempt == 0:
            take_theirs_for_t1(repo)
            run_git(repo, "reset", "-q", "--hard")
            run_git(repo, "switch", "-q", "main")
    fresh_attempt(repo)


def test_rerere_resolution_is_replayed_without_noise_from_the_driver(repo: Path) -> None:
    run_git(repo, "config", "rerere.enabled", "true")
    run_git(repo, "switch", "-q", "-c", "feat")
    write(repo, TODO, THEIRS)
    commit(repo, "feat")
    run_git(repo, "switch", "-q", "main")
    write(repo, TODO, OURS)
    commit(repo, "main")
    assert run_git(repo, "merge", "feat", check=False).returncode == 1
    proc = run_cli("resolve", TODO, "--take", "theirs", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    resolved = (repo / TODO).read_text()
    run_git(repo, "commit", "-q", "--no-edit")
    run_git(repo, "reset", "-q", "--hard", "HEAD~1")
    again = run_git(repo, "merge", "feat", check=False)
    said = again.stdout + again.stderr
    assert "using previous resolution" in said
    assert "holds git conflict markers" not in said
    assert "merged by lines" not in said
    assert (repo / TODO).read_text() == resolved
    assert run_cli("validate", TODO, cwd=repo).returncode == 0
