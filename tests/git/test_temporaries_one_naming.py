"""Every writer of the tool names its temporaries as ``fsio`` does, so a killed one's are
found and removed (by pid and start time) where that writer writes next.

PRODUCT.md "Bad input": files written whole (atomic replace); the MCP server's "a write
killed half way leaves nothing behind". The record of deleted refs (pre-push), the sync's
journal of interrupted updates, the MCP server's journal of pending writes and the
installed hook each went through a ``NAME.PID.tmp`` of their own that nothing ever
removed; now each uses ``write_atomic`` (the hook: ``temporary_name``, as it replaces a
link itself), and the next write in that folder removes a dead writer's temporary.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.fsio import TEMPORARY, started, temporary_name
from helpers.mcp_support import TODO as MCP_TODO
from helpers.mcp_support import in_process, run, text
from helpers.run import run_cli, run_git


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _plant(folder: Path, name: str) -> tuple[Path, Path]:
    """A dead writer's temporary of ``name`` and a live one's (this process's), half written."""
    folder.mkdir(parents=True, exist_ok=True)
    live = Path(temporary_name(str(folder), name))
    dead = folder / f".{name}.{_dead_pid()}-1.0123abcd.tmp"
    for path in (live, dead):
        path.write_text("half\n")
    return dead, live


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if TEMPORARY().match(p.name))


def _commit(repo: Path, rel: str, text_: str) -> None:
    (repo / rel).write_text(text_)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", rel)


def test_a_pushed_deletion_writes_the_record_through_fsio_and_removes_a_dead_writers(
    git_repo: Path, tmp_path: Path
) -> None:
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", str(remote))
    _commit(git_repo, "README.md", "x\n")
    installed = run_cli("install", cwd=git_repo)
    assert installed.returncode == 0, installed.stderr
    run_git(git_repo, "remote", "add", "origin", str(remote))
    run_git(git_repo, "push", "-q", "origin", "main", "main:gone")
    folder = git_repo / ".git" / "vcontext"
    dead, live = _plant(folder, "deleted-refs.json")

    pushed = run_git(git_repo, "push", "-q", "origin", "--delete", "gone", check=False)

    assert pushed.returncode == 0, pushed.stderr
    record = json.loads((folder / "deleted-refs.json").read_text())
    assert "refs/heads/gone" in record["origin"]
    assert not dead.exists()
    assert live.exists()
    assert _temporaries(folder) == [live.name]  # the write left none of its own


def test_the_sync_journal_is_written_through_fsio_and_removes_a_dead_writers(
    git_repo: Path,
) -> None:
    import pygit2

    from git_vcontext.sync import interrupted

    _commit(git_repo, "README.md", "x\n")
    repo = pygit2.Repository(str(git_repo))
    folder = interrupted.folder(repo)
    dead, live = _plant(folder, "0123456789abcdef.json")
    head = run_git(git_repo, "rev-parse", "HEAD").stdout.strip()

    interrupted.note(repo, str(git_repo), "main", head, head)

    [entry] = interrupted.entries(repo)
    assert (entry.branch, entry.old) == ("main", head)
    assert not dead.exists()
    assert live.exists()
    assert _temporaries(folder) == [live.name]


def test_the_sync_journal_unwritable_says_nothing_moved(git_repo: Path) -> None:
    import pygit2

    from git_vcontext.errors import OperationalError
    from git_vcontext.sync import interrupted

    _commit(git_repo, "README.md", "x\n")
    repo = pygit2.Repository(str(git_repo))
    folder = interrupted.folder(repo)
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("not a folder\n")  # (root writes anywhere: a file where it goes)
    with pytest.raises(OperationalError) as caught:
        interrupted.note(repo, str(git_repo), "main", "a" * 40, "b" * 40)
    said = str(caught.value)
    assert ": cannot write (File exists): nothing moved; free some space" in said
    assert said.startswith(str(folder))
    assert folder.read_text() == "not a folder\n"


def test_an_mcp_write_journals_through_fsio_and_a_dead_servers_temporary_goes(
    git_repo: Path,
) -> None:
    (git_repo / ".vcontext").mkdir()
    (git_repo / ".vcontext/todo.json").write_text(json.dumps(MCP_TODO, indent=2) + "\n")
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "todo")
    folder = git_repo / ".git" / "vcontext" / "mcp-pending"
    dead, live = _plant(folder, f"{'0' * 40}.{_dead_pid()}.json")

    async def main() -> Any:
        async with in_process(git_repo) as client:
            return await client.call_tool("vbrief_create_todo", {"title": "journaled"})

    result = run(main)
    assert not result.is_error, text(result)
    assert "journaled" in (git_repo / ".vcontext/todo.json").read_text()
    assert not dead.exists()
    assert live.exists()
    assert _temporaries(folder) == [live.name]
    assert list(folder.glob("*.json")) == []  # committed: its entry went


def test_install_removes_a_killed_installs_temporary_and_names_its_own_as_fsio(
    git_repo: Path,
) -> None:
    _commit(git_repo, "README.md", "x\n")
    folder = git_repo / ".git" / "hooks"
    dead, live = _plant(folder, "pre-push")
    installed = run_cli("install", cwd=git_repo)
    assert installed.returncode == 0, installed.stderr
    assert os.access(folder / "pre-push", os.X_OK)
    assert not dead.exists()
    assert live.exists()


def test_a_hook_replaced_by_name_gets_a_temporary_named_as_fsio_names_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``_replace_name`` (a link replaced, not written through) makes its temporary with
    ``temporary_name``: pid and start time, as ``remove_stale_temporaries`` reads them."""
    from git_vcontext.setup import hooks

    seen: list[str] = []
    real_replace = os.replace

    def spy(src: Any, dst: Any) -> None:
        seen.append(os.path.basename(src))
        real_replace(src, dst)

    target = tmp_path / "script"
    target.write_text("theirs\n")
    hook = tmp_path / "pre-push.legacy"
    hook.symlink_to(target)
    monkeypatch.setattr(os, "replace", spy)
    hooks._replace_name(hook, "#!/bin/sh\nours\n")
    monkeypatch.undo()
    [name] = seen
    found = TEMPORARY().match(name)
    assert found is not None
    assert found.group("pid") == str(os.getpid())
    start = started(os.getpid())
    assert found.group("start") == (None if start is None else str(start))
    assert not hook.is_symlink()
    assert hook.read_text() == "#!/bin/sh\nours\n"
    assert target.read_text() == "theirs\n"  # the link's target untouched
