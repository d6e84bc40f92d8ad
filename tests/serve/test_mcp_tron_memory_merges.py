"""The TRON documents the MCP server makes in ``.vcontext/`` are merged by the driver.

PRODUCT.md, "MCP server": new documents take their format from ``VCONTEXT_FORMAT``
(``json``|``tron``) and a create with no document of its kind makes it in ``.vcontext/``;
"Documents: the vContext files the install patterns (and ``.gitattributes``) match"; the
driver merges documents in either encoding alike. Before, ``install`` routed
``.vcontext/*.json`` alone: two agents' ``.vcontext/todo.tron`` went through git's line
merge and conflicted on what the driver merges cleanly, and ``validate``/``doctor``'s file
set (``document.FILE_PATTERNS``, the one list) left the file out. Real ``git merge``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import git_vcontext as gv
from helpers.mcp_support import in_process, run, text
from helpers.run import run_cli, run_git
from helpers.write_path import EPOCH, commit_all

TODO = ".vcontext/todo.tron"


def _call(root: Path, name: str, args: dict[str, Any]) -> None:
    async def main() -> None:
        async with in_process(root, agent="alice") as client:
            done = await client.call_tool(name, args)
            assert not done.is_error, text(done)

    run(main)


def test_two_branches_tron_todo_list_made_by_mcp_merges_with_the_driver(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.setenv("VCONTEXT_FORMAT", "tron")
    installed = run_cli("install", "--no-hooks", cwd=git_repo)
    assert installed.returncode == 0, installed.stderr
    _call(git_repo, "vbrief_create_todo", {"title": "First"})
    assert (git_repo / TODO).is_file()
    commit_all(git_repo, "install, first todo")
    run_git(git_repo, "switch", "-q", "-c", "feat")
    _call(git_repo, "vbrief_create_todo", {"title": "From feat"})
    commit_all(git_repo, "feat: a todo")
    run_git(git_repo, "switch", "-q", "main")
    _call(git_repo, "vbrief_create_todo", {"title": "From main"})
    commit_all(git_repo, "main: a todo")

    merged = run_git(git_repo, "merge", "--no-edit", "feat", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    doc = gv.load(str(git_repo / TODO))
    assert doc.format == "tron"
    titles = sorted(i["title"] for i in doc.data["todoList"]["items"])
    assert titles == ["First", "From feat", "From main"]

    routed = run_git(git_repo, "check-attr", "merge", "--", TODO).stdout
    assert routed == f"{TODO}: merge: vcontext\n"  # install's attributes
    checked = run_cli("validate", "--format", "json", cwd=git_repo)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert TODO in json.dumps(json.loads(checked.stdout))  # in validate's file set
