"""A bare remote that guards itself (``git vcontext install --server [--guard]``) and clones
that push to it, with or without ``--no-verify`` (PRODUCT.md, "The remote guards itself")."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import git_vcontext
from helpers.pre_push import PLAYBOOK, TODO, commit, event, playbook, write
from helpers.run import cli_path, run_cli, run_git

SEQUENCED = {
    "vContextInfo": {"version": "0.4"},
    "todoList": {
        "id": "todo-1",
        "sequence": 3,
        "items": [{"id": "t1", "title": "Task one", "status": "pending"}],
        "changeLog": [
            {
                "sequence": 1,
                "timestamp": "2026-01-01T00:00:00Z",
                "agent": {"id": "alice", "type": "aiAgent"},
                "operation": "create",
            }
        ],
    },
}
"""The todo list every guarded remote starts with (sequence 3, one changeLog entry)."""


def program() -> str:
    """The git-vcontext program the hooks run (the console script of this Python)."""
    return str(Path(cli_path()[0]).resolve())


def guard_program(text: str) -> str:
    """The program a server hook's shim checks for (its ``PROGRAM=`` line): the guard's
    Python (the current form), or the git-vcontext program (an older one)."""
    import shlex

    line = next(line for line in text.splitlines() if line.startswith("PROGRAM="))
    return shlex.split(line.split("=", 1)[1])[0]


def guarded_remote(tmp_path: Path, *options: str, name: str = "remote.git") -> Path:
    """A bare repository (default branch main) with ``install --server`` and ``options``."""
    remote = tmp_path / name
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    done = run_cli("install", "--server", *options, cwd=remote)
    assert done.returncode == 0, done.stderr.decode()
    return remote


def clone_with_base(remote: Path, where: Path, *, hook: bool = True) -> Path:
    """A clone of ``remote`` (``origin``) whose main holds a playbook with events e1, e2 and
    the sequenced todo list, pushed; ``hook``: git-vcontext installed there (the pre-push
    hook a ``--no-verify`` push skips)."""
    run_git(where.parent, "init", "-q", "-b", "main", str(where))
    for key, value in (("user.name", "Pusher"), ("user.email", "pusher@example.com")):
        run_git(where, "config", key, value)
    run_git(where, "config", "commit.gpgsign", "false")
    run_git(where, "remote", "add", "origin", str(remote))
    if hook:
        done = run_cli("install", cwd=where)
        assert done.returncode == 0, done.stderr.decode()
    write(where, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second")))
    write(where, TODO, SEQUENCED)
    commit(where, "base documents")
    pushed = push(where, "-u", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    return where


def push(
    repo: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``git push`` (not quiet: the remote's lines are what the tests read)."""
    import os

    return subprocess.run(
        ["git", "push", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def sneak(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A push that skips the client-side hook, as an agent without the tool's does."""
    return push(repo, "--no-verify", *args)


def refs(remote: Path) -> dict[str, str]:
    """Every ref of the remote and its object (what a refused push must leave alone)."""
    out = run_git(remote, "for-each-ref", "--format=%(refname) %(objectname)").stdout
    return dict(line.split(" ", 1) for line in out.splitlines())


def remote_lines(stderr: str) -> list[str]:
    """What the remote's hooks said (git prefixes their lines with ``remote:``)."""
    return [
        line[len("remote:") :].strip() for line in stderr.splitlines() if line.startswith("remote:")
    ]


def edit_json(repo: Path, rel: str, change: Any) -> None:
    """Apply ``change`` to the parsed JSON document and write it back."""
    path = repo / rel
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2) + "\n")


# The fixtures of the guard's git tests (import them into a test module by name:
# ``from helpers.guard import guarded, guarded_clone, this_checkout``).


@pytest.fixture(autouse=True)
def this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.fixture(name="remote")
def guarded(tmp_path: Path) -> Path:
    """A bare remote with the guard alone (``install --server --guard``)."""
    return guarded_remote(tmp_path, "--guard")


@pytest.fixture(name="repo")
def guarded_clone(tmp_path: Path, remote: Path) -> Path:
    """A clone with git-vcontext installed (so ``--no-verify`` has a hook to skip), whose
    main (playbook e1, e2; todo list at sequence 3) is on the remote."""
    return clone_with_base(remote, tmp_path / "clone")
