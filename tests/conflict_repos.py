"""Documents and repositories where two branches really disagree (conflicts, resolve, mergetool)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli, run_git

TODO = "todo.vcontext.json"


def todo(**changes: Any) -> dict[str, Any]:
    """t1..t3 pending; ``t1="completed"`` sets a status, ``t2=None`` deletes, a dict updates."""
    data: dict[str, Any] = {
        "vContextInfo": {"version": "0.4"},
        "todoList": {
            "items": [{"id": f"t{i}", "title": f"Task {i}", "status": "pending"} for i in (1, 2, 3)]
        },
    }
    items = data["todoList"]["items"]
    for ident, change in changes.items():
        found = [i for i in items if i["id"] == ident]
        if not found:
            items.append(
                {"id": ident, "title": f"Task {ident}", "status": "pending", **(change or {})}
            )
        elif change is None:
            items.remove(found[0])
        elif isinstance(change, dict):
            found[0].update(change)
        else:
            found[0]["status"] = change
    return data


def write(repo: Path, rel: str, data: Any, text: str | None = None) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if text is not None else json.dumps(data, indent=2) + "\n")


def commit(repo: Path, message: str) -> None:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)


def installed(repo: Path) -> Path:
    proc = run_cli("install", "--no-hooks", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    commit(repo, "install")
    return repo


def diverge(repo: Path, base: str, ours: str, theirs: str, rel: str = TODO) -> None:
    """``rel`` holds ``base`` on main; branch ``feat`` changes it to ``theirs``, main to ``ours``
    (texts, so any format and layout can be used)."""
    write(repo, rel, None, base)
    commit(repo, "base")
    run_git(repo, "switch", "-q", "-c", "feat")
    write(repo, rel, None, theirs)
    commit(repo, "feat: theirs")
    run_git(repo, "switch", "-q", "main")
    write(repo, rel, None, ours)
    commit(repo, "main: ours")


def pretty(data: Any) -> str:
    return json.dumps(data, indent=2) + "\n"


def two_conflicts(repo: Path, rel: str = TODO) -> None:
    """main blocks t1 and deletes t2; feat completes t1, renames t2 and adds t4."""
    theirs = todo(t1="completed", t2={"title": "Docs"}, t4={})
    diverge(repo, pretty(todo()), pretty(todo(t1="blocked", t2=None)), pretty(theirs), rel)


def cli_json(*args: str, cwd: Path) -> tuple[int, Any]:
    proc = run_cli(*args, "--format", "json", cwd=cwd)
    return proc.returncode, json.loads(proc.stdout)


def status_of(repo: Path, rel: str = TODO) -> str:
    """``git status --porcelain`` letters of one path (``UU``, ``M ``…)."""
    line = run_git(repo, "status", "--porcelain", "--", rel).stdout
    return line[:2]
