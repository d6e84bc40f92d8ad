"""The agent's write path as a reviewer reads it: ``git diff --no-textconv`` after each tool.

PRODUCT.md, "MCP server", "The write path, as an agent and a reviewer see it": every
write is a minimal edit in the file's own style (TRON classes kept, new members on
lines of their own in the neighbours' indentation), one status change is one changed
row besides the container's bookkeeping, a write that changes nothing writes nothing,
item-level metadata follows an item edit, and messages say what changed. The server is
driven by the SDK's own client.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import git_vcontext as gv
from helpers.mcp_support import in_process, run, text
from helpers.run import run_git
from helpers.write_path import (
    A1_TRON,
    A3_TRON,
    AGENT,
    BOM_JSON,
    COMPACT_JSON,
    COMPACT_PLAN,
    COMPACT_PLAN_TRON,
    EPOCH,
    MINIMAL_PLAN_TRON,
    MINIMAL_PLAYBOOK_TRON,
    MINIMAL_TRON,
    WHEN,
    assert_one_row_changed,
    assert_only_the_item_changed,
    commit_all,
    copy_corpus_file,
    raw_diff,
)

CLASS_ROW = re.compile(r"^\s*[A-Z][A-Za-z0-9_]*\(")


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)


def _call(root: Path, calls: list[tuple[str, dict[str, Any]]], **options: Any) -> list[Any]:
    """Each tool call through the SDK client connected to a server on ``root``."""

    async def main() -> list[Any]:
        async with in_process(root, agent=options.pop("agent", AGENT), **options) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    results: list[Any] = run(main)
    return results


def _ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, text(result)
    data: dict[str, Any] = result.structured_content
    return data


def _valid(path: Path) -> None:
    report = gv.validate(gv.load(str(path)), path=str(path))
    assert report.valid, [f.message for f in report.findings]


# -- TRON class style ------------------------------------------------------------------------


def test_write_path_tron_status_change_is_one_class_row_in_the_spec_minimal_todo_list(
    git_repo: Path, shared_dir: Path
) -> None:
    """The spec's minimal TRON todo list (class rows, no ids): the item addressed by JSON
    Pointer, its row the only row changed, ``todoList: TodoList(`` kept, the bookkeeping
    written with classes (the TodoList class gains its new fields at the end)."""
    path = copy_corpus_file(shared_dir, MINIMAL_TRON, git_repo / "todo.vcontext.tron")
    commit_all(git_repo)
    before = path.read_text()
    (result,) = _call(
        git_repo, [("vbrief_update_todo", {"id": "/todoList/items/0", "status": "inProgress"})]
    )
    _ok(result)
    after = path.read_text()
    diff = raw_diff(git_repo, "todo.vcontext.tron")
    markers = ["Implement authentication", "Write API documentation"]
    assert_one_row_changed(before, after, diff, markers, "Implement authentication")
    assert 'TodoItem("Implement authentication", "inProgress")' in after
    assert "todoList: TodoList([" in after  # the container stays a class instance
    assert not [line for _, line in diff.added if "{" in line], after  # no {} among classes
    assert [n for n, line in diff.removed if line.startswith("todoList:")] == []
    entry = [line for _, line in diff.added if f'"{WHEN}"' in line and "update" in line]
    assert len(entry) == 1, after
    assert CLASS_ROW.match(entry[0]), after  # the Change: one class row
    assert "status pending → inProgress" in entry[0]
    data = gv.load(str(path)).data
    assert data["todoList"]["sequence"] == 1
    assert data["todoList"]["lastModifiedBy"] == {"id": AGENT, "type": "aiAgent"}
    _valid(path)


def test_write_path_tron_adding_a_todo_keeps_the_header_and_writes_a_class_row(
    git_repo: Path, shared_dir: Path
) -> None:
    """Adding one todo to the spec's minimal TRON list: the ``todoList: TodoList(…)`` header
    and every row stay; the new item is a class row (a class added to the header when
    none fits), the list stays laid out one row a line."""
    path = copy_corpus_file(shared_dir, MINIMAL_TRON, git_repo / "todo.vcontext.tron")
    commit_all(git_repo)
    (result,) = _call(git_repo, [("vbrief_create_todo", {"title": "Add rate limiting"})])
    _ok(result)
    after = path.read_text()
    diff = raw_diff(git_repo, "todo.vcontext.tron")
    removed = [line for _, line in diff.removed if not line.startswith("class ")]
    # the old last row gains its comma; of the header, classes gain fields at their end
    assert removed[0] == '  TodoItem("Write API documentation", "pending")', after
    assert removed[1:] in ([], ["])"]), after
    for _, line in diff.removed:
        if line.startswith("class "):
            assert any(added.startswith(line + ", ") for _, added in diff.added), line
    assert "todoList: TodoList([" in after
    new_row = [ln for _, ln in diff.added if "Add rate limiting" in ln and "created" not in ln]
    assert len(new_row) == 1, after
    assert CLASS_ROW.match(new_row[0]), after
    assert not [line for _, line in diff.added if "{" in line], after
    lines = after.splitlines()
    assert max(map(len, lines)) < 200, after  # well laid out: no list on one line
    _valid(path)


def test_write_path_tron_completing_a_class_row_changes_that_row_alone(
    git_repo: Path, shared_dir: Path
) -> None:
    """``completed`` (a field TodoItem lacks) set with the status: that one row changes (a
    class row, or that one instance as a one-line object); the other row never does."""
    path = copy_corpus_file(shared_dir, MINIMAL_TRON, git_repo / "todo.vcontext.tron")
    commit_all(git_repo)
    before = path.read_text()
    (result,) = _call(
        git_repo, [("vbrief_update_todo", {"id": "/todoList/items/1", "status": "completed"})]
    )
    _ok(result)
    after = path.read_text()
    diff = raw_diff(git_repo, "todo.vcontext.tron")
    markers = ["Implement authentication", "Write API documentation"]
    assert_one_row_changed(before, after, diff, markers, "Write API documentation")
    assert 'TodoItem("Implement authentication", "pending"),' in after
    data = gv.load(str(path)).data
    assert data["todoList"]["items"][1]["completed"] == WHEN
    _valid(path)


def test_write_path_tron_one_argument_a_line_keeps_every_class(
    git_repo: Path, shared_dir: Path
) -> None:
    """The spec's complete TRON todo list (one argument a line): a status change edits lines
    of that item alone (its status and the metadata it carries), the container and the
    item stay class instances, the new changeLog entry is a class row among class rows."""
    path = copy_corpus_file(shared_dir, A1_TRON, git_repo / "todo.vcontext.tron")
    commit_all(git_repo)
    before = path.read_text()
    (result,) = _call(git_repo, [("vbrief_update_todo", {"id": "t2", "status": "blocked"})])
    _ok(result)
    after = path.read_text()
    diff = raw_diff(git_repo, "todo.vcontext.tron")
    markers = ['"t1",', '"t2",', '"t3",']
    assert_only_the_item_changed(before, diff, markers, '"t2",', most=2)
    assert "todoList: TodoList(" in after
    assert after.count("TodoItem(") == 3
    assert not [line for _, line in diff.added if re.match(r"\s*\{", line)], after
    entry = [line for _, line in diff.added if f'"{WHEN}"' in line and "blocked" in line]
    assert len(entry) == 1, after
    assert CLASS_ROW.match(entry[0]), after
    assert diff.size <= 18, after  # the bookkeeping stays a few lines
    _valid(path)


@pytest.mark.parametrize("source", [MINIMAL_PLAYBOOK_TRON, A3_TRON], ids=["minimal", "a3"])
def test_write_path_tron_new_learning_is_a_class_row_among_class_rows(
    git_repo: Path, shared_dir: Path, source: str
) -> None:
    """A new playbook event among ``PlaybookItem(…)`` rows is a class instance too (the
    header gains a class when the event has a field PlaybookItem lacks, e.g. a narrative
    among ``text`` entries); no existing event row changes."""
    path = copy_corpus_file(shared_dir, source, git_repo / "playbook.vcontext.tron")
    commit_all(git_repo)
    learning = {"targetId": "small-commits", "kind": "rule", "narrative": {"Overview": "Commit"}}
    (result,) = _call(git_repo, [("vbrief_add_learning", learning)])
    _ok(result)
    after = path.read_text()
    diff = raw_diff(git_repo, "playbook.vcontext.tron")
    assert "playbook: Playbook(" in after
    opened = [line for _, line in diff.added if re.fullmatch(r"\s+[A-Z][A-Za-z0-9_]*\(", line)]
    assert len(opened) == 1, after  # the event: a class instance, laid out like its neighbours
    assert not [line for _, line in diff.added if re.fullmatch(r"\s+\{", line)], after
    assert [line for _, line in diff.removed if "PlaybookItem(" in line] == []
    assert [line for _, line in diff.removed if '"evt-' in line] == []
    _valid(path)


def test_write_path_tron_compact_plan_keeps_its_lines_and_indentation(git_repo: Path) -> None:
    """A hand-laid-out TRON plan: the edited line stays one line (``sequence: 5`` where 4
    was), new members go on lines of their own in the neighbours' indentation."""
    path = git_repo / "plan.vcontext.tron"
    path.write_text(COMPACT_PLAN_TRON)
    commit_all(git_repo)
    (result,) = _call(
        git_repo,
        [("vbrief_update_plan_item", {"planId": "release", "itemId": "p2", "status": "blocked"})],
    )
    _ok(result)
    after = path.read_text()
    assert (
        'plan: {id: "release", title: "Release 1.0", status: "inProgress", sequence: 5,\n'
        '  narratives: {proposal: "Ship the parser and its docs."},\n'
        "  items: [\n"
        '   PlanItem("p1", "Parser", "completed"),\n'
        '   PlanItem("p2", "Docs", "blocked")],\n'
        f'  updated: "{WHEN}",\n'
    ) in after, after
    assert not re.search(r"^ \S", after, re.MULTILINE), after  # no one-space indent
    assert re.search(r"^  lastModifiedBy: ", after, re.MULTILINE), after
    assert re.search(r"^  changeLog: \[", after, re.MULTILINE), after
    _valid(path)


def test_write_path_tron_plan_status_in_the_spec_minimal_plan(
    git_repo: Path, shared_dir: Path
) -> None:
    """The spec's minimal TRON plan: a plan item addressed by pointer, one row changed."""
    path = copy_corpus_file(shared_dir, MINIMAL_PLAN_TRON, git_repo / "plan.vcontext.tron")
    commit_all(git_repo)
    before = path.read_text()
    args = {"planId": "plan", "itemId": "/plan/items/1", "status": "inProgress"}
    (result,) = _call(git_repo, [("vbrief_update_plan_item", args)])
    _ok(result)
    after = path.read_text()
    diff = raw_diff(git_repo, "plan.vcontext.tron")
    assert_one_row_changed(
        before, after, diff, ["Database schema", "JWT implementation"], "JWT implementation"
    )
    assert "plan: Plan(" in after
    _valid(path)


# -- hand-formatted JSON -------------------------------------------------------------------


def test_write_path_json_compact_plan_new_members_on_their_own_lines(git_repo: Path) -> None:
    """After ``vbrief_update_plan_item`` on a plan laid out by hand, the new members are not
    glued after the items' closing bracket: each on a line of its own, indented like
    ``"items"``; the changeLog laid out like its neighbour array; the row one line."""
    path = git_repo / "plan.vcontext.json"
    path.write_text(COMPACT_PLAN)
    commit_all(git_repo)
    (result,) = _call(
        git_repo,
        [("vbrief_update_plan_item", {"planId": "release", "itemId": "p2", "status": "blocked"})],
    )
    _ok(result)
    agent = f'{{"id": "{AGENT}", "type": "aiAgent"}}'
    assert path.read_text() == (
        '{"vContextInfo": {"version": "0.4"},\n'
        ' "plan": {"id": "release", "title": "Release 1.0", "status": "inProgress", '
        '"sequence": 5,\n'
        '  "narratives": {"proposal": "Ship the parser and its docs."},\n'
        '  "items": [\n'
        '   {"id": "p1", "title": "Parser", "status": "completed"},\n'
        '   {"id": "p2", "title": "Docs", "status": "blocked"}],\n'
        f'  "updated": "{WHEN}",\n'
        f'  "lastModifiedBy": {agent},\n'
        '  "changeLog": [\n'
        f'   {{"sequence": 5, "timestamp": "{WHEN}", "agent": {agent}, "operation": "update", '
        '"path": "$.plan.items[1].status", "description": "updated p2: status pending → blocked"}'
        "]}}\n"
    )


def test_write_path_json_corpus_compact_plan_one_row_and_bookkeeping(
    git_repo: Path, shared_dir: Path
) -> None:
    """A real hand-laid-out plan (one item a line): one row changed, the new members each
    on a line of their own at the plan's indentation."""
    path = copy_corpus_file(shared_dir, COMPACT_JSON, git_repo / "plan.vbrief.json")
    commit_all(git_repo)
    before = path.read_text()
    plan_id = json.loads(before)["plan"]["id"]
    args = {"planId": plan_id, "itemId": "411-3", "status": "completed"}
    (result,) = _call(git_repo, [("vbrief_update_plan_item", args)])
    _ok(result)
    after = path.read_text()
    diff = raw_diff(git_repo, "plan.vbrief.json")
    titles = [i["title"] for i in json.loads(before)["plan"]["items"]]
    assert_one_row_changed(before, after, diff, titles, titles[2])
    for key in ("sequence", "updated", "lastModifiedBy", "changeLog"):
        assert re.search(rf'^    "{key}": ', after, re.MULTILINE), (key, after)
    assert "}], " not in after
    assert '], "' not in after
    assert diff.size <= 10, after


def test_write_path_json_bom_keeps_bom_and_layout(git_repo: Path, shared_dir: Path) -> None:
    """PowerShell's output (BOM, aligned indentation): the status line alone among the
    items, the BOM kept, new members at the plan's own indentation and key separator."""
    path = copy_corpus_file(shared_dir, BOM_JSON, git_repo / "tasks.vbrief.json")
    commit_all(git_repo)
    before = path.read_text(encoding="utf-8-sig")
    args = {"planId": "tasks", "itemId": "t2", "status": "blocked"}
    (result,) = _call(git_repo, [("vbrief_update_plan_item", args)])
    _ok(result)
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    diff = raw_diff(git_repo, "tasks.vbrief.json")
    ids = ['"id":  "t1"', '"id":  "t2"', '"id":  "t3"']
    assert_only_the_item_changed(before, diff, ids, '"id":  "t2"', most=1)
    assert re.search(r'^                 "sequence":  1,', raw.decode("utf-8-sig"), re.MULTILINE)


def test_write_path_json_crlf_every_line_keeps_its_crlf(git_repo: Path, shared_dir: Path) -> None:
    """A CRLF checkout of a hand-laid-out plan: one row, every line still CRLF."""
    source = (shared_dir / "corpus" / COMPACT_JSON).read_text()
    path = git_repo / "plan.vbrief.json"
    path.write_bytes(source.replace("\n", "\r\n").encode())
    (git_repo / ".gitattributes").write_text("*.json -text\n")
    commit_all(git_repo)
    plan_id = json.loads(source)["plan"]["id"]
    args = {"planId": plan_id, "itemId": "411-2", "status": "blocked"}
    (result,) = _call(git_repo, [("vbrief_update_plan_item", args)])
    _ok(result)
    raw = path.read_bytes()
    assert raw.count(b"\n") == raw.count(b"\r\n")
    diff = raw_diff(git_repo, "plan.vbrief.json")
    titles = [i["title"] for i in json.loads(source)["plan"]["items"]]
    before = source
    after = raw.decode().replace("\r\n", "\n")
    stripped = type(diff)(
        [(n, s.rstrip("\r")) for n, s in diff.removed], [(n, s.rstrip("\r")) for n, s in diff.added]
    )
    assert_one_row_changed(before, after, stripped, titles, titles[1])


def test_write_path_minified_json_stays_one_line(git_repo: Path, shared_dir: Path) -> None:
    """A minified document stays minified: one line changed, no newline added."""
    from helpers.write_path import A2_JSON

    data = json.loads((shared_dir / "corpus" / A2_JSON).read_text())
    path = git_repo / "plan.vcontext.json"
    path.write_text(json.dumps(data, separators=(",", ":"), ensure_ascii=False))
    commit_all(git_repo)
    item = data["plan"]["items"][1]["id"]
    args = {"planId": data["plan"]["id"], "itemId": item, "status": "blocked"}
    (result,) = _call(git_repo, [("vbrief_update_plan_item", args)])
    _ok(result)
    raw = path.read_bytes()
    assert b"\n" not in raw
    diff = raw_diff(git_repo, "plan.vcontext.json")
    assert len(diff.removed) == len(diff.added) == 1
    assert json.loads(raw)["plan"]["items"][1]["status"] == "blocked"


# -- what a write writes ------------------------------------------------------------------


def test_write_path_a_write_that_changes_nothing_writes_and_commits_nothing(
    git_repo: Path,
) -> None:
    """A status set to the value it has: no sequence bump, no changeLog entry, no commit
    (on an agent branch, where writes commit); said so, as a success."""
    path = git_repo / "todo.vcontext.json"
    path.write_text(
        json.dumps(
            {
                "vContextInfo": {"version": "0.4"},
                "todoList": {
                    "sequence": 2,
                    "items": [{"id": "t1", "title": "Write it", "status": "inProgress"}],
                },
            },
            indent=2,
        )
        + "\n"
    )
    commit_all(git_repo)
    run_git(git_repo, "checkout", "-q", "-b", "agents/alice")
    before, head = path.read_bytes(), run_git(git_repo, "rev-parse", "HEAD").stdout
    plan = git_repo / "plan.vcontext.json"
    plan.write_text(COMPACT_PLAN)
    commit_all(git_repo, "plan")
    plan_before, head = plan.read_bytes(), run_git(git_repo, "rev-parse", "HEAD").stdout
    results = _call(
        git_repo,
        [
            ("vbrief_update_todo", {"id": "t1", "status": "inProgress"}),
            ("vbrief_update_todo", {"id": "t1", "title": "Write it"}),
            (
                "vbrief_update_plan_item",
                {"planId": "release", "itemId": "p1", "status": "completed"},
            ),
            ("vbrief_update_plan", {"id": "release", "status": "inProgress"}),
        ],
    )
    for result in results:
        data = _ok(result)
        assert "no change" in text(result).lower() or "already" in text(result).lower(), text(
            result
        )
        assert data.get("changed") is False, data
        assert "commit" not in data
    assert path.read_bytes() == before
    assert plan.read_bytes() == plan_before
    assert run_git(git_repo, "rev-parse", "HEAD").stdout == head


def test_write_path_item_metadata_follows_an_item_edit(git_repo: Path) -> None:
    """An item that carries ``updated``, ``lastModifiedBy`` and ``sequence`` gets them
    refreshed by each tool edit of that item (todo items and plan items)."""
    stale = {
        "updated": "2025-12-28T07:30:00Z",
        "lastModifiedBy": {"id": "human-jt", "type": "human"},
        "sequence": 3,
    }
    todo = git_repo / "todo.vcontext.json"
    todo.write_text(
        json.dumps(
            {
                "vContextInfo": {"version": "0.4"},
                "todoList": {
                    "sequence": 7,
                    "items": [
                        {"id": "t1", "title": "One", "status": "pending", **stale},
                        {"id": "t2", "title": "Two", "status": "pending", **stale},
                    ],
                },
            },
            indent=2,
        )
    )
    plan = git_repo / "plan.vcontext.json"
    plan.write_text(
        json.dumps(
            {
                "vContextInfo": {"version": "0.4"},
                "plan": {
                    "id": "p",
                    "title": "P",
                    "status": "draft",
                    "sequence": 9,
                    "narratives": {"proposal": "Do A."},
                    "items": [{"id": "a", "title": "A", "status": "pending", **stale}],
                },
            },
            indent=2,
        )
    )
    commit_all(git_repo)
    results = _call(
        git_repo,
        [
            ("vbrief_update_todo", {"id": "t1", "status": "inProgress"}),
            ("vbrief_update_todo", {"id": "t1", "title": "One, renamed"}),
            ("vbrief_update_plan_item", {"planId": "p", "itemId": "a", "status": "blocked"}),
        ],
    )
    for result in results:
        _ok(result)
    items = json.loads(todo.read_text())["todoList"]["items"]
    fresh = {"updated": WHEN, "lastModifiedBy": {"id": AGENT, "type": "aiAgent"}}
    assert {k: items[0][k] for k in fresh} == fresh
    assert items[0]["sequence"] == 9  # the list's sequence after the second write
    assert items[1]["updated"] == stale["updated"]
    assert items[1]["sequence"] == 3
    item = json.loads(plan.read_text())["plan"]["items"][0]
    assert {k: item[k] for k in fresh} == fresh
    assert item["sequence"] == 10


def test_write_path_messages_say_what_changed_from_what(git_repo: Path) -> None:
    """``status inProgress → completed``, not just ``status``, for todos and plans."""
    (git_repo / "plan.vcontext.json").write_text(COMPACT_PLAN)
    (git_repo / "todo.vcontext.json").write_text(
        json.dumps(
            {
                "vContextInfo": {"version": "0.4"},
                "todoList": {"items": [{"id": "t1", "title": "A", "status": "inProgress"}]},
            }
        )
    )
    commit_all(git_repo)
    results = _call(
        git_repo,
        [
            ("vbrief_update_todo", {"id": "t1", "status": "completed", "title": "B"}),
            ("vbrief_update_plan_item", {"planId": "release", "itemId": "p2", "status": "blocked"}),
            ("vbrief_update_plan", {"id": "release", "status": "completed", "title": "Done"}),
        ],
    )
    said = [text(r) for r in results]
    assert "status inProgress → completed" in said[0], said
    assert "title A → B" in said[0], said
    assert "status pending → blocked" in said[1], said
    assert "status inProgress → completed" in said[2], said
    assert "title Release 1.0 → Done" in said[2], said
    changes = [r.structured_content["change"]["description"] for r in results]
    assert "status pending → blocked" in changes[1], changes
