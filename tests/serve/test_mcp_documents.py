"""Which documents the server serves and how it names them (PRODUCT.md, "MCP server").

Documents: the vContext files the install patterns and ``.gitattributes`` match;
"current": pinned, else the only one, else the most recently ``updated`` (ties: path
order); ids from clients are ids, never paths; nothing outside the served folder is
served, also through symlinks.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.mcp_server import startup as setup
from git_vcontext.mcp_server.service import Options, Service
from git_vcontext.mcp_server.tools.dispatch import call
from helpers.mcp_support import TODO, documents_repo, write_documents
from helpers.run import run_git


def _service(root: Path, **options: Any) -> Service:
    where, repo = setup.find_root(str(root))
    pinned = setup.pins(where, repo, options.pop("given", {}))
    return setup.service(Options(root=where, pinned=pinned, **options), repo)


def _todo(items: int = 1, **container: Any) -> dict[str, Any]:
    body = {
        "items": [
            {"id": f"t{i}", "title": f"T{i}", "status": "pending"} for i in range(1, items + 1)
        ],
        **container,
    }
    return {"vContextInfo": {"version": "0.4"}, "todoList": body}


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def test_mcp_serves_the_file_set_of_validate_not_ignored_folders_or_other_json(
    git_repo: Path, tmp_path: Path
) -> None:
    for root in (git_repo, tmp_path / "plain"):
        _write(root / "a.vcontext.json", _todo(id="a"))
        _write(root / ".vcontext/b.json", _todo(id="b"))
        _write(root / "notes/c.json", _todo(id="c"))  # no pattern, no attribute
        _write(root / "build/d.vcontext.json", _todo(id="d"))
        _write(root / "package.json", {"name": "not a document"})
        _write(root / ".vcontext/config.json", {"editor": "vim"})
    (git_repo / ".gitignore").write_text("build/\n")
    in_repo = [(e.rel, e.id) for e in _service(git_repo).catalog.entries()]
    assert in_repo == [(".vcontext/b.json", "b"), ("a.vcontext.json", "a")]
    plain = [e.rel for e in _service(tmp_path / "plain").catalog.entries()]  # sniffed there
    assert plain == [".vcontext/b.json", "a.vcontext.json", "build/d.vcontext.json", "notes/c.json"]


def test_mcp_gitattributes_declare_documents_the_patterns_miss(git_repo: Path) -> None:
    _write(git_repo / "memory/tasks.json", _todo(3))
    assert _service(git_repo).catalog.entries() == []
    (git_repo / ".gitattributes").write_text("memory/*.json merge=vcontext diff=vcontext\n")
    assert [e.rel for e in _service(git_repo).catalog.entries()] == ["memory/tasks.json"]


def _current_id(service: Any) -> str:
    entry = service.catalog.current("todoList")
    assert entry is not None
    return str(entry.id)


def test_mcp_current_is_pinned_else_only_else_latest_updated_ties_path_order(
    git_repo: Path,
) -> None:
    _write(git_repo / "b.vcontext.json", _todo(id="b", updated="2025-01-02T00:00:00Z"))
    _write(git_repo / "a.vcontext.json", _todo(id="a", updated="2025-01-01T23:00:00-02:00"))
    assert _current_id(_service(git_repo)) == "a"  # 01:00Z on the 2nd
    _write(git_repo / "c.vcontext.json", _todo(id="c", updated="2025-01-02T01:00:00Z"))
    assert _current_id(_service(git_repo)) == "a"  # same instant: path order
    assert _current_id(_service(git_repo, given={"todoList": "c.vcontext.json"})) == "c"
    run_git(git_repo, "config", "vcontext.mcp.todo", "b.vcontext.json")
    assert _current_id(_service(git_repo)) == "b"


def test_mcp_a_pin_written_without_a_value_pins_nothing(git_repo: Path) -> None:
    """``[vcontext "mcp"] todo`` with no ``=``: git reads it as true, not as a path named
    "None"; the current document is chosen as if no pin were set."""
    _write(git_repo / "a.vcontext.json", _todo(id="a"))
    with (git_repo / ".git/config").open("a") as config:
        config.write('[vcontext "mcp"]\n\ttodo\n')
    assert _current_id(_service(git_repo)) == "a"


def test_mcp_ids_from_the_container_else_the_file_name_repeats_numbered(
    git_repo: Path,
) -> None:
    _write(git_repo / "x/one.vcontext.json", _todo())
    _write(git_repo / "y/one.vcontext.json", _todo())
    _write(git_repo / "z.vbrief.json", _todo(id="../../etc"))  # not a plain id: the name is
    ids = [(e.rel, e.id) for e in _service(git_repo).catalog.entries()]
    assert ids == [
        ("x/one.vcontext.json", "one"),
        ("y/one.vcontext.json", "one~2"),
        ("z.vbrief.json", "z"),
    ]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this system")
def test_mcp_never_serves_or_writes_outside_the_root_through_symlinks(
    git_repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    _write(outside / "secret.vcontext.json", _todo(id="secret"))
    _write(outside / "dir/more.vcontext.json", _todo(id="more"))
    repo = documents_repo(git_repo)
    (repo / "leak.vcontext.json").symlink_to(outside / "secret.vcontext.json")
    (repo / "linked").symlink_to(outside / "dir")
    (repo / "alias.vcontext.json").symlink_to(repo / "todo.vcontext.json")
    svc = _service(repo)
    served = [e.rel for e in svc.catalog.entries()]
    assert "leak.vcontext.json" not in served
    assert not any("more" in r for r in served)
    assert served.count("todo.vcontext.json") == 1
    assert "alias.vcontext.json" not in served
    assert svc.catalog.outside == ("leak.vcontext.json",)
    refused = call(svc, "vbrief_update_todo", {"id": "t1", "todoListId": "secret"})
    assert refused.error
    assert "no todo list with id 'secret'" in refused.text
    before = (outside / "secret.vcontext.json").read_bytes()
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / ".vcontext").symlink_to(outside)
    made = call(_service(empty), "vbrief_create_todo", {"title": "x"})
    assert made.error
    assert "outside" in made.text
    assert (outside / "secret.vcontext.json").read_bytes() == before
    assert not (outside / "todo.json").exists()


def test_mcp_plain_directory_without_git_is_served_and_written(tmp_path: Path) -> None:
    write_documents(tmp_path, {"todo.vcontext.json": TODO})
    svc = _service(tmp_path)
    assert svc.git is None
    done = call(svc, "vbrief_create_todo", {"title": "no git here"})
    assert not done.error
    assert "commit" not in done.data
    refused = call(svc, "vcontext_status", {})
    assert refused.error
    assert "git repository" in refused.text


def test_mcp_changes_seen_first_by_a_tool_still_reach_the_watcher(git_repo: Path) -> None:
    """PRODUCT.md MCP: subscribers hear of a change by anyone. A tool that looks at the disk
    first (a write through this server, the walk after a sync or a resolve) must not take
    the change away from the watcher that notifies them."""
    from git_vcontext.mcp_server.notify import uris_of

    repo = documents_repo(git_repo)
    svc = _service(repo)
    assert not svc.catalog.changes()  # the first look only learns what is there
    assert not call(svc, "vbrief_update_todo", {"id": "t3", "status": "blocked"}).error
    _write(repo / "more.vcontext.json", _todo(id="more"))
    svc.catalog.refresh(rescan=True)  # what vcontext_sync and vcontext_resolve do after
    changes = svc.catalog.changes()
    assert changes.list_changed
    assert {e.rel for e in changes.changed} == {"todo.vcontext.json", "more.vcontext.json"}
    assert {"vbrief://todos/main", "vbrief://todos/more", "vbrief://todos"} <= uris_of(changes, svc)
    assert not svc.catalog.changes()  # told once
    (repo / "more.vcontext.json").unlink()  # a checkout of a branch without it
    svc.catalog.refresh(rescan=True)
    gone = svc.catalog.changes()
    assert gone.list_changed
    assert "vbrief://todos/more" in uris_of(gone, svc)  # its subscribers hear it went
