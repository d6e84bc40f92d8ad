"""A criss-cross history: main and an agent branch merged each other, then edited."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.run import run_git
from helpers.sync_repos import commit_all, write

DOC = "todo.vcontext.json"


def todo(**statuses: str) -> dict[str, Any]:
    items = [{"id": i, "title": i.upper(), "status": s} for i, s in statuses.items()]
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}


def crossed(repo: Path) -> tuple[str, str]:
    """main and agents/x merged each other's first commit; returns those two commits."""
    write(repo, DOC, todo(t1="pending", t2="pending"))
    commit_all(repo, "base")
    run_git(repo, "config", "vcontext.agent.x.base", "main")
    run_git(repo, "checkout", "-q", "-b", "agents/x")
    write(repo, DOC, todo(t1="completed", t2="pending"))
    agent_first = commit_all(repo, "x completes t1")
    run_git(repo, "checkout", "-q", "main")
    write(repo, DOC, todo(t1="pending", t2="completed"))
    main_first = commit_all(repo, "main completes t2")
    run_git(repo, "merge", "-q", "--no-edit", "agents/x")
    run_git(repo, "checkout", "-q", "agents/x")
    run_git(repo, "merge", "-q", "--no-edit", main_first)
    write(repo, DOC, todo(t1="inProgress", t2="completed"))
    commit_all(repo, "x reopens t1")
    run_git(repo, "checkout", "-q", "main")
    write(repo, DOC, todo(t1="completed", t2="inProgress"))
    commit_all(repo, "main reopens t2")
    return agent_first, main_first
