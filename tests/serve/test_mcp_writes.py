"""Writes under pressure: changed underneath, concurrent, mid-merge, TRON, staged by the user.

PRODUCT.md, "MCP server (seed 003)": writes hold a lock per document and re-check its
bytes just before replacing it (a changed document is re-read and the write redone,
or refused with expectedSequence); during a stopped merge a conflicted document is
refused; the file keeps its format and style; a commit leaves the user's index alone.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import git_vcontext as gv
from git_vcontext.mcp_server import startup as setup
from git_vcontext.mcp_server import writer
from git_vcontext.mcp_server.service import Options, Service
from git_vcontext.mcp_server.tools.dispatch import call
from helpers.mcp_support import TODO, documents_repo, read_any, read_json
from helpers.run import run_git


def _service(root: Path, **options: Any) -> Service:
    where, repo = setup.find_root(str(root))
    return setup.service(Options(root=where, **options), repo)


@pytest.fixture
def repo(git_repo: Path) -> Path:
    return documents_repo(git_repo)


def _meddle_once(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """Just before the first replace, someone else adds an item (a checkout, a merge)."""
    original = writer._same_file
    done: list[bool] = []

    def still(fd: int, loaded: Any) -> bool:
        if not done:
            done.append(True)
            data = read_json(path)
            data["todoList"]["items"].append({"id": "t9", "title": "theirs", "status": "pending"})
            data["todoList"]["sequence"] = 4
            path.write_text(json.dumps(data, indent=2) + "\n")
        return bool(original(fd, loaded))

    monkeypatch.setattr(writer, "_same_file", still)


def test_mcp_write_redone_when_the_document_changed_before_the_replace(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _meddle_once(monkeypatch, repo / "todo.vcontext.json")
    done = call(_service(repo), "vbrief_create_todo", {"title": "ours"})
    assert not done.error, done.text
    todo = read_json(repo / "todo.vcontext.json")["todoList"]
    assert [i["title"] for i in todo["items"]][-2:] == ["theirs", "ours"]
    assert todo["sequence"] == 5
    assert todo["changeLog"][-1]["sequence"] == 5


def test_mcp_write_with_expected_sequence_refused_when_changed_before_the_replace(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _meddle_once(monkeypatch, repo / "todo.vcontext.json")
    refused = call(_service(repo), "vbrief_create_todo", {"title": "ours", "expectedSequence": 3})
    assert refused.error
    assert "sequence 4, not the expectedSequence 3" in refused.text
    titles = [i["title"] for i in read_json(repo / "todo.vcontext.json")["todoList"]["items"]]
    assert "ours" not in titles
    assert "theirs" in titles


def test_mcp_concurrent_writes_from_two_servers_lose_nothing(repo: Path) -> None:
    servers = [_service(repo), _service(repo)]

    def create(n: int) -> Any:
        return call(servers[n % 2], "vbrief_create_todo", {"title": f"task {n}"})

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(create, range(16)))
    assert not any(a.error for a in answers), [a.text for a in answers if a.error]
    todo = read_json(repo / "todo.vcontext.json")["todoList"]
    assert {f"task {n}" for n in range(16)} <= {i["title"] for i in todo["items"]}
    assert todo["sequence"] == 3 + 16
    assert sorted(c["sequence"] for c in todo["changeLog"]) == list(range(4, 20))


def test_mcp_stopped_merge_conflicted_document_is_refused(repo: Path) -> None:
    path = repo / "todo.vcontext.json"
    for branch, title in (("side", "theirs"), ("main", "ours")):
        if branch == "side":
            run_git(repo, "checkout", "-q", "-b", "side")
        else:
            run_git(repo, "checkout", "-q", "main")
        data = read_json(path)
        data["todoList"]["items"][0]["title"] = title
        path.write_text(json.dumps(data, indent=2) + "\n")
        run_git(repo, "commit", "-q", "-am", title)
    assert run_git(repo, "merge", "side", check=False).returncode != 0
    svc = _service(repo, commit=True)
    markers = call(svc, "vbrief_update_todo", {"id": "t2", "status": "completed"})
    assert markers.error
    assert "todo.vcontext.json has unresolved conflicts" in markers.text
    assert "vcontext_resolve" in markers.text
    path.write_text(json.dumps(TODO, indent=2) + "\n")  # fixed by hand, not yet added
    refused = call(svc, "vbrief_update_todo", {"id": "t2", "status": "completed"})
    assert refused.error
    assert "unresolved conflicts from the stopped merge" in refused.text
    other = call(
        svc,
        "vbrief_add_learning",
        {"targetId": "x", "kind": "note", "narrative": {"Overview": "mid-merge"}},
    )
    assert not other.error
    assert "commit" not in other.data  # staged into the merge (issue 37, finding 3 b)
    assert "staged into the merge" in other.data["notes"][0]
    assert read_json(path) == TODO


@pytest.mark.parametrize("layout", ["minified", "indented"])
def test_mcp_a_create_during_a_stopped_merge_never_starts_a_second_todo_list(
    repo: Path, layout: str
) -> None:
    """PRODUCT.md MCP: a conflicted document is refused; a create must not pass it by and
    write a new .vcontext/todo.json (the agent's tasks would split over two lists)."""
    path = repo / "todo.vcontext.json"
    indent = None if layout == "minified" else 2
    for branch, title in (("side", "theirs"), ("main", "ours")):
        run_git(repo, "checkout", "-q", *(["-b"] if branch == "side" else []), branch)
        data = read_json(path)
        data["todoList"]["items"][0]["title"] = title
        path.write_text(json.dumps(data, indent=indent) + "\n")
        run_git(repo, "commit", "-q", "-am", title)
    assert run_git(repo, "merge", "side", check=False).returncode != 0
    svc = _service(repo)
    created = call(svc, "vbrief_create_todo", {"title": "mid-merge"})
    assert created.error
    assert "todo.vcontext.json" in created.text
    assert not (repo / ".vcontext").exists()


def test_mcp_a_broken_one_line_todo_list_is_not_replaced_by_a_new_one(repo: Path) -> None:
    """A document that no longer parses is refused with its place, whatever its layout."""
    path = repo / "todo.vcontext.json"
    path.write_text(json.dumps(TODO)[:-1] + "\n")
    svc = _service(repo)
    created = call(svc, "vbrief_create_todo", {"title": "lost?"})
    assert created.error
    assert "todo.vcontext.json:" in created.text
    assert not (repo / ".vcontext").exists()


def test_mcp_tron_document_keeps_its_format_and_comments(git_repo: Path) -> None:
    tron = gv.dumps(TODO, "tron")
    text = "# our todo list: keep this comment\n" + tron
    (git_repo / "todo.vcontext.tron").write_text(text)
    svc = _service(git_repo)
    assert not call(svc, "vbrief_create_todo", {"title": "in TRON"}).error
    assert not call(svc, "vbrief_update_todo", {"id": "t3", "status": "blocked"}).error
    out = (git_repo / "todo.vcontext.tron").read_text()
    assert out.startswith("# our todo list: keep this comment\n")
    data = read_any(git_repo / "todo.vcontext.tron")["todoList"]
    assert [i["status"] for i in data["items"]] == ["completed", "inProgress", "blocked", "pending"]
    assert data["sequence"] == 5


def test_mcp_commit_leaves_a_version_the_user_staged_alone(repo: Path) -> None:
    path = repo / "todo.vcontext.json"
    staged = read_json(path)
    staged["todoList"]["items"][0]["title"] = "staged by the user"
    path.write_text(json.dumps(staged, indent=2) + "\n")
    run_git(repo, "add", "todo.vcontext.json")
    path.write_text(json.dumps(TODO, indent=2) + "\n")  # and then changed back, unstaged
    done = call(
        _service(repo, commit=True), "vbrief_update_todo", {"id": "t3", "status": "inProgress"}
    )
    assert not done.error, done.text
    assert done.data["commit"], done.text
    # the person's staged version keeps their edit and gains the agent's change, as
    # ``git commit --only`` keeps the index in step (issue 37, finding 3 a)
    cached = json.loads(run_git(repo, "show", ":todo.vcontext.json").stdout)
    assert cached["todoList"]["items"][0]["title"] == "staged by the user"
    assert cached["todoList"]["items"][2]["status"] == "inProgress"
    head = json.loads(run_git(repo, "show", "HEAD:todo.vcontext.json").stdout)
    assert head["todoList"]["items"][2]["status"] == "inProgress"


HAND_WRITTEN_TRON = """class vContextInfo: version
class TodoList: id, sequence, items
class TodoItem: id, title, status

vContextInfo: vContextInfo("0.4")

# the work of today
todoList: TodoList("main", 3, [
  TodoItem("t1", "Write the parser", "completed"),  # done monday
  # next up
  TodoItem("t2", "Test the parser", "inProgress"),
  {id: "t3", title: "Document it", status: "pending", dependencies: ["t2"]}
])
"""


def test_mcp_writes_a_minimal_edit_of_a_hand_written_tron_document(git_repo: Path) -> None:
    """PRODUCT.md Formats (TRON), issue 12 and "The write path": the MCP tools edit ours'
    text; comments, bare keys and untouched lines stay as written, ours' class lines are
    kept (the container's class gains the fields it lacks at the end; a class the new
    parts need is added after them), the changed value is edited in place."""
    path = git_repo / "todo.vcontext.tron"
    path.write_text(HAND_WRITTEN_TRON)
    svc = _service(git_repo)
    assert not call(svc, "vbrief_update_todo", {"id": "t2", "status": "blocked"}).error
    out = path.read_text()
    kept = HAND_WRITTEN_TRON.replace('"inProgress"', '"blocked"').splitlines()
    lines = out.splitlines()
    assert lines[0] == kept[0]  # ours' classes, in place
    assert lines[2] == kept[2]
    assert lines[1].startswith(kept[1] + ", ")  # TodoList gains fields at its end
    assert 'todoList: TodoList("main", 4, [' in lines  # the container stays a class instance
    assert all(line.startswith("class ") for line in lines[3 : lines.index("")])
    for line in kept[4:7] + kept[8:12]:  # comments, instances, bare keys: byte for byte
        assert line in lines, (line, out)
    # the sequence changes and the changeLog is new, after the items
    assert read_any(path)["todoList"]["sequence"] == 4
