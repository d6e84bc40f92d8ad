"""What ``vcontext_sync`` tells a person about lock files: only git's, only while there.

PRODUCT.md, "MCP server" (a way out of every stop, with tool calls alone; nothing read
from outside is trusted) and "Where agents' platforms run it": a lock file the server
cannot prove stale is a person's step (``tools/sync._add_locks``). Pure logic on files in a
temporary folder (no git, no server): the lines a sync said come partly from a remote
(a refused push's ``remote: …`` lines, a hook's output), so the file they name is only a
person's step when it is a git lock in a git folder on this machine; a lock named by an
error that is gone since is no person's step at all (sync again is the way on).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from git_vcontext.errors import OperationalError
from git_vcontext.mcp_server.service import Service
from git_vcontext.mcp_server.tools import sync as tool


def _git_folder(where: Path) -> Path:
    (where / "objects").mkdir(parents=True)
    (where / "refs/heads").mkdir(parents=True)
    (where / "HEAD").write_text("ref: refs/heads/main\n")
    return where


def test_a_remote_naming_any_lock_file_here_gets_no_persons_step(tmp_path: Path) -> None:
    """A hostile remote's line naming a file of the user's that ends in ``.lock`` (no git
    folder's) must not become "A PERSON MUST DO THIS: rm -f" it."""
    mine = tmp_path / "home/.config/app/session.lock"
    mine.parent.mkdir(parents=True)
    mine.write_text("")
    line = f"remote: error: Unable to create '{mine}': File exists."
    assert tool._named_locks([line]) == ()


@pytest.mark.parametrize("inside", ["refs/heads/main.lock", "index.lock", "packed-refs.lock"])
def test_a_git_lock_named_in_a_line_is_a_persons_step(tmp_path: Path, inside: str) -> None:
    git_dir = _git_folder(tmp_path / "remote.git")
    lock = git_dir / inside
    lock.write_text("")
    line = f"remote: error: Unable to create '{lock}': File exists."
    assert tool._named_locks([line]) == (str(lock),)


def test_a_lock_the_error_named_but_gone_since_is_no_persons_step(tmp_path: Path) -> None:
    """The lock went (its git finished) between the error and the answer: the way on is
    the same ``vcontext_sync``, never a person removing a file "on the remote's machine"
    that is not there."""
    gone = _git_folder(tmp_path / "repo/.git") / "refs/heads/main.lock"
    exc = OperationalError(f"could not update main: {gone} is in the way", lock_files=(str(gone),))
    svc = cast(Service, SimpleNamespace(git=None))
    args: dict[str, Any] = {"push": "origin"}
    answer = tool._failed(svc, args, exc, ["bo: merged"], [], [], tool.SYNC)
    assert answer.error
    assert "person" not in answer.data
    assert answer.data["error"]["kind"] == "sync"
    assert answer.data["next"] == [{"tool": "vcontext_sync", "arguments": {"push": "origin"}}]
    assert "A PERSON MUST DO THIS" not in answer.text


def test_a_warned_lock_adds_to_a_diverged_bases_steps_never_replaces_them(tmp_path: Path) -> None:
    """PRODUCT.md, "MCP server" (a way out of every stop): a ``sync --push`` can both warn
    of a diverged local base (its person's steps, or another agent's ``vcontext_sync`` in
    ``next``) and name an ``index.lock`` in its way. The lock's steps are added after
    those; before, they replaced ``person`` and ``next``, and the way to publish the
    base's commits was lost from the answer's data (its text still said it)."""
    lock = _git_folder(tmp_path / "repo/.git") / "index.lock"
    lock.write_text("")
    publish = {"tool": "vcontext_sync", "arguments": {"agents": ["cy"], "push": "origin"}}
    data: dict[str, Any] = {
        "lines": [],
        "warnings": [f"could not move main: Unable to create '{lock}': File exists."],
        "next": [publish],
        "person": {"why": "main here has 1 commit", "steps": ["git -C x pull"]},
    }
    text = tool._warned_locks("synced", data, {"push": "origin"}, None, tool.SYNC)
    again = {"tool": "vcontext_sync", "arguments": {"push": "origin"}, "after": "person"}
    assert data["next"] == [publish, again]
    assert data["person"]["steps"][0] == "git -C x pull"
    assert data["person"]["steps"][-1] == f"rm -f '{lock}'"
    assert data["person"]["lockFiles"] == [str(lock)]
    assert data["person"]["why"].startswith("main here has 1 commit; lock files are in the way")
    assert text.endswith(
        'next, once the person has done it: vcontext_sync {"push": "origin"} '
        "(it brings the local branches along)"
    )
