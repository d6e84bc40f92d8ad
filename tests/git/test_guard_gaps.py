"""The guard's remaining gaps (issue 28, second trial), each pushed with ``--no-verify`` into a
real bare repository with ``install --server``, and judged alike by the guard, ``check`` and
the pre-push hook where the three judge the same thing (PRODUCT.md "Validation": the history
rules; "The remote guards itself"; DEVELOPERS.md "One truth").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import git_vcontext
from helpers.guard import clone_with_base, guarded_remote, refs, remote_lines, sneak
from helpers.pre_push import PLAYBOOK, TODO, commit, event, playbook, write
from helpers.run import run_cli, run_git


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return guarded_remote(tmp_path)


@pytest.fixture
def repo(tmp_path: Path, remote: Path) -> Path:
    return clone_with_base(remote, tmp_path / "clone")


def _refused_by_all(repo: Path, remote: Path, rule: str, target: str = "HEAD:main") -> str:
    """The guard refuses the push (rule named, remote untouched), ``check`` over the same
    range finds it, and so does the pre-push hook (a push without ``--no-verify``). The
    guard's lines."""
    before = refs(remote)
    done = sneak(repo, "origin", target)
    assert done.returncode != 0, done.stderr
    assert any(line.endswith(f"[{rule}]") for line in remote_lines(done.stderr)), done.stderr
    assert refs(remote) == before
    checked = run_cli("check", "origin/main..HEAD", cwd=repo)
    assert checked.returncode == 1, checked.stdout.decode() + checked.stderr.decode()
    assert f"[{rule}]" in checked.stdout.decode()
    hooked = run_git(repo, "push", "origin", target, check=False)
    assert hooked.returncode != 0
    assert f"[{rule}]" in hooked.stderr
    assert refs(remote) == before
    return done.stderr


def _landed_by_all(repo: Path, remote: Path) -> None:
    """``check`` and the pre-push hook find nothing, and the guard lets the push in."""
    checked = run_cli("check", "origin/main..HEAD", cwd=repo)
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()
    done = sneak(repo, "origin", "HEAD:main")
    assert done.returncode == 0, done.stderr
    assert refs(remote)["refs/heads/main"] == run_git(repo, "rev-parse", "HEAD").stdout.strip()


# -- 1. a document holding only changeLog entries -------------------------------------------


def test_history_deleting_a_document_with_only_changelog_entries_is_refused_by_all(
    repo: Path, remote: Path
) -> None:
    """The todo list holds a changeLog entry and no event: deleting it removes that entry
    (PRODUCT.md history rules: a pushed commit must not remove a changeLog entry)."""
    (repo / TODO).unlink()
    commit(repo, "delete the todo list")
    out = _refused_by_all(repo, remote, "history-changelog-removed")
    assert "deleted with its 1 changeLog entry" in out


def test_history_moving_a_changelog_document_out_of_the_routed_set_is_refused_by_all(
    repo: Path, remote: Path
) -> None:
    (repo / "notes").mkdir()
    run_git(repo, "mv", TODO, "notes/todo.json")
    commit(repo, "move the todo list where no check looks")
    _refused_by_all(repo, remote, "history-changelog-removed")


def test_history_moving_a_changelog_document_within_the_routed_set_is_a_move(
    repo: Path, remote: Path
) -> None:
    """A move git may not pair (the content changes too) keeps every entry: no loss."""
    data = json.loads((repo / TODO).read_text())
    data["todoList"]["items"].append({"id": "t2", "title": "Another", "status": "pending"})
    data["todoList"]["sequence"] = 4
    (repo / TODO).unlink()
    write(repo, "memory/moved/list.vcontext.json", data)
    commit(repo, "move and edit the todo list")
    _landed_by_all(repo, remote)


def test_history_a_playbook_without_a_changelog_is_judged_as_before(
    repo: Path, remote: Path
) -> None:
    """Deleting a document with events still names the events (one finding per log)."""
    (repo / PLAYBOOK).unlink()
    commit(repo, "delete the playbook")
    out = _refused_by_all(repo, remote, "history-event-removed")
    assert "history-changelog-removed" not in out


# -- 4. what the refusal counts -------------------------------------------------------------


def test_guard_and_hook_count_commits_forced_updates_and_tagged_trees_as_what_they_are(
    repo: Path, remote: Path
) -> None:
    """One push: a forced update whose own commit drops an event (1 commit, 1 forced update)
    and a tag of a tree holding an invalid document. The refusal says so, not "3 commits"."""
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a third lesson")
    assert sneak(repo, "origin", "main").returncode == 0
    run_git(repo, "reset", "-q", "--hard", "HEAD~1")
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    commit(repo, "drop e2 (and, over the remote's tip, e3)")
    data = json.loads((repo / TODO).read_text())
    data["todoList"]["items"][0]["status"] = "bogus"
    (repo / TODO).write_text(json.dumps(data))
    run_git(repo, "add", "-A")
    tree = run_git(repo, "write-tree").stdout.strip()
    run_git(repo, "reset", "-q", "--hard")
    before = refs(remote)

    done = sneak(repo, "origin", "+HEAD:main", f"{tree}:refs/tags/bad-tree")

    assert done.returncode != 0
    said = remote_lines(done.stderr)
    assert any(
        "in 1 commit, 1 forced update and 1 tagged tree or blob." in line for line in said
    ), said
    assert refs(remote) == before
    hooked = run_git(repo, "push", "origin", "+HEAD:main", check=False)
    assert "in 1 commit and 1 forced update." in hooked.stderr, hooked.stderr


# -- 3. doctor in a clone runs the hook's command as a push does -----------------------------


def _without_pygit2(tmp_path: Path, hook: Path) -> None:
    """Make ``hook`` run its program in an environment where pygit2 cannot be imported (as
    after ``pip uninstall pygit2``)."""
    fake = tmp_path / "no-pygit2" / "pygit2"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError(\"No module named 'pygit2'\")\n")
    here = str(Path(git_vcontext.__file__).resolve().parents[1])
    text = hook.read_text()
    line = next(line for line in text.splitlines() if line.startswith("PROGRAM="))
    real = line.split("=", 1)[1].strip().strip("'\"")
    wrapper = tmp_path / "bin" / "git-vcontext"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{fake.parent}:{here}" exec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    hook.write_text(text.replace(real, str(wrapper)))


def test_doctor_in_a_clone_runs_the_pre_push_check_and_says_it_cannot_import_pygit2(
    repo: Path, tmp_path: Path
) -> None:
    """Its empty-input run imported nothing, so it said "installed and runs" while every
    push was refused."""
    _without_pygit2(tmp_path, repo / ".git" / "hooks" / "pre-push")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a third lesson")
    pushed = run_git(repo, "push", "origin", "HEAD:main", check=False)
    assert pushed.returncode != 0
    assert "pygit2" in pushed.stderr, pushed.stderr

    done = run_cli("doctor", cwd=repo)
    said = done.stdout.decode()
    assert done.returncode == 1, said + done.stderr.decode()
    problem = [line for line in said.splitlines() if line.startswith("problem:")]
    assert any("pre-push" in line and "pygit2" in line for line in problem), said
    assert "pre-push hook installed and runs" not in said


def test_doctor_in_a_clone_with_a_working_hook_says_it_runs(repo: Path) -> None:
    done = run_cli("doctor", cwd=repo)
    assert "ok: pre-push hook installed and runs" in done.stdout.decode(), done.stdout.decode()
