"""A team sharing one bare remote, set up as the README says: a person's clone with main
checked out, and one clone per agent with ``agents/NAME`` forked and checked out, each
with ``git vcontext install`` (the pre-push hook included).

Everything runs the real command line and real git (``helpers.run``); nothing here
decides what an actor does after a conflict: that is the tool's own messages
(``helpers.next_steps``).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from helpers.run import cli_path

TASKS = "tasks.vcontext.json"
PLAYBOOK = "playbook.vcontext.json"
EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}


def tasks(*ids: str) -> dict[str, Any]:
    """The shared todo list (a container ``uid``, so forks carry a fork block)."""
    return {
        "vContextInfo": {"version": "0.4"},
        "todoList": {
            "id": "tasks",
            "uid": "u-tasks",
            "sequence": 1,
            "items": [{"id": i, "title": f"Shared task {i}", "status": "pending"} for i in ids],
        },
    }


def playbook() -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4"},
        "playbook": {
            "uid": "u-playbook",
            "version": 1,
            "created": "2026-01-01T00:00:00Z",
            "updated": "2026-01-01T00:00:00Z",
            "items": [
                {
                    "eventId": "e-seed",
                    "targetId": "seed-rule",
                    "operation": "append",
                    "kind": "rule",
                    "title": "Seed rule",
                    "narrative": {"Overview": "Keep the week honest."},
                    "createdAt": "2026-01-01T00:00:00Z",
                }
            ],
        },
    }


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} in {cwd}: {proc.stdout}{proc.stderr}")
    return proc


def vcx(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``git vcontext ARGS`` in ``cwd`` (the installed console script)."""
    full = {**os.environ, **EPOCH, **(env or {})}
    return subprocess.run([*cli_path(), *args], cwd=cwd, capture_output=True, text=True, env=full)


def identity(repo: Path, name: str) -> None:
    git(repo, "config", "user.name", name)
    git(repo, "config", "user.email", f"{name}@example.com")
    git(repo, "config", "commit.gpgsign", "false")


def write(repo: Path, rel: str, data: Any) -> None:
    (repo / rel).write_text(json.dumps(data, indent=2) + "\n")


def read(repo: Path, rel: str) -> Any:
    return json.loads((repo / rel).read_text())


def edit(repo: Path, rel: str, change: Callable[[Any], None]) -> None:
    data = read(repo, rel)
    change(data)
    write(repo, rel, data)


def remote_show(remote: Path, rev: str, rel: str) -> Any:
    return json.loads(git(remote, "show", f"{rev}:{rel}").stdout)


def tip(repo: Path, rev: str) -> str:
    return git(repo, "rev-parse", "--verify", "-q", rev).stdout.strip()


def setup(root: Path, agents: list[str], *, items: tuple[str, ...] = ("t1", "t2")) -> Team:
    """The remote with the seed documents on main, the person's clone, the agents' clones."""
    remote = root / "remote.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(remote))
    person = root / "person"
    git(root, "clone", "-q", str(remote), str(person))
    identity(person, "person")
    installed = vcx(person, "install")
    assert installed.returncode == 0, installed.stderr
    write(person, TASKS, tasks(*items))
    write(person, PLAYBOOK, playbook())
    git(person, "add", "-A")
    git(person, "commit", "-q", "-m", "seed")
    git(person, "push", "-q", "origin", "main")
    clones = {}
    for name in agents:
        clone = root / name
        git(root, "clone", "-q", str(remote), str(clone))
        identity(clone, name)
        for args in (("install",), ("fork", name, "--reason", f"agent {name}")):
            done = vcx(clone, *args)
            assert done.returncode == 0, done.stderr
        git(clone, "switch", "-q", f"agents/{name}")
        clones[name] = clone
    return Team(remote, person, clones)


class Team:
    """The remote, the person's clone, and each agent's clone by name."""

    def __init__(self, remote: Path, person: Path, agents: dict[str, Path]) -> None:
        self.remote, self.person, self.agents = remote, person, agents

    def base(self) -> str:
        return tip(self.remote, "main")

    def local_only(self, clone: Path) -> list[str]:
        """Commits the clone's main has and the remote's main lacks."""
        remote_main = self.base()
        git(clone, "fetch", "-q", str(self.remote), "main")  # (FETCH_HEAD only)
        out = git(clone, "rev-list", "main", "--not", remote_main).stdout
        return out.split()


def person_deletes_t1(team: Team) -> None:
    """The person pulls, deletes task t1 (sequence + 1) and pushes main (through the
    pre-push hook): an agent working on t1 then conflicts with it."""

    def drop(data: Any) -> None:
        data["todoList"]["items"] = [i for i in data["todoList"]["items"] if i["id"] != "t1"]
        data["todoList"]["sequence"] += 1

    git(team.person, "pull", "-q", "--no-rebase", "origin", "main")
    edit(team.person, TASKS, drop)
    git(team.person, "commit", "-q", "-am", "person: t1 is not needed")
    git(team.person, "push", "-q", "origin", "main")


def works_on_t1(clone: Path, status: str = "inProgress") -> None:
    """An agent sets task t1's status (sequence + 1) in ``clone`` and commits it: after
    ``person_deletes_t1``, a modify/delete conflict on t1."""

    def work(data: Any) -> None:
        data["todoList"]["items"][0]["status"] = status
        data["todoList"]["sequence"] += 1

    edit(clone, TASKS, work)
    git(clone, "commit", "-q", "-am", f"work on t1: {status}")


def bo_stopped_at_checkout(
    root: Path, person_deletes: Callable[[Team], None] = person_deletes_t1
) -> tuple[Team, Path, subprocess.CompletedProcess[str]]:
    """The team (agent bo), the person's delete (``person_deletes``: of t1, by default) on
    the remote, bo's work on t1, and bo's ``sync bo --push origin --checkout`` stopped on
    the delete/modify conflict (exit 1, the merge left in bo's clone): the team, bo's
    clone, that sync's run."""
    team = setup(root, ["bo"])
    bo = team.agents["bo"]
    person_deletes(team)
    works_on_t1(bo)
    stopped = vcx(bo, "sync", "bo", "--push", "origin", "--checkout")
    assert stopped.returncode == 1, stopped.stdout + stopped.stderr
    return team, bo, stopped


def person_diverges_local_base(team: Team, agent: str, root: Path) -> Path:
    """A person's own commit on ``agent``'s clone's local main (in a work tree of its own,
    returned) renames task t2, while the remote's main renames it otherwise: the local base
    has diverged from the remote's with a commit of the person's that conflicts."""
    at_main = root / f"{agent}-main"
    git(team.agents[agent], "worktree", "add", "-q", str(at_main), "main")

    def title(words: str) -> Callable[[Any], None]:
        def change(data: Any) -> None:
            data["todoList"]["items"][1]["title"] = words
            data["todoList"]["sequence"] += 1

        return change

    edit(at_main, TASKS, title("the person's title, here"))
    git(at_main, "commit", "-q", "-am", f"a person's own commit on {agent}'s clone")
    edit(team.person, TASKS, title("the person's title, there"))
    git(team.person, "commit", "-q", "-am", "t2 renamed")
    git(team.person, "push", "-q", "origin", "main")
    return at_main
