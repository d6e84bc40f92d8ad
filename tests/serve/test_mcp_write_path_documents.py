"""Which document an agent's write lands in, what it reads back, and seed 003 in full.

PRODUCT.md, "The write path, as an agent and a reviewer see it": "current" documents are
stable (conventional path, else the only one, else the first by path); resources are
JSON whatever the file's format (TRON on request); ``vbrief_add_learning`` keeps the
guidance it does not replace; seed 003's categories, forks, ``VCONTEXT_FORMAT``,
readable ids, items without ids addressed by JSON Pointer; every tool argument typed.
Driven by the SDK's own client.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import git_vcontext as gv
from git_vcontext.sync.advice import PERSON
from helpers.mcp_support import in_process, prompt_text, run, text
from helpers.run import run_cli, run_git
from helpers.write_path import (
    A3_TRON,
    AGENT,
    BOM_JSON,
    EPOCH,
    MINIMAL_TRON,
    commit_all,
    copy_corpus_file,
)


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)


def _session(root: Path, body: Any, **options: Any) -> Any:
    async def main() -> Any:
        async with in_process(root, agent=options.pop("agent", AGENT), **options) as client:
            return await body(client)

    return run(main)


def _calls(root: Path, calls: list[tuple[str, dict[str, Any]]], **options: Any) -> list[Any]:
    async def body(client: Any) -> list[Any]:
        return [await client.call_tool(name, args) for name, args in calls]

    results: list[Any] = _session(root, body, **options)
    return results


def _ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, text(result)
    data: dict[str, Any] = result.structured_content
    return data


def _playbook(targets: dict[str, dict[str, str]], updated: str) -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4"},
        "playbook": {
            "version": len(targets),
            "created": "2025-01-01T00:00:00Z",
            "updated": updated,
            "items": [
                {
                    "eventId": f"e-{target}",
                    "targetId": target,
                    "operation": "append",
                    "kind": "rule",
                    "narrative": narrative,
                    "createdAt": "2025-01-01T00:00:00Z",
                    "status": "active",
                }
                for target, narrative in targets.items()
            ],
        },
    }


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


# -- "current" documents -------------------------------------------------------------------


def test_write_path_current_playbook_stays_put_when_another_playbook_is_newer(
    git_repo: Path,
) -> None:
    """The conventional ``.vcontext/playbook.json`` is the current playbook even after a
    learning goes into another (newer) playbook: ``vbrief://playbook`` and the session
    start prompt's Recent Learnings do not switch documents."""
    _write_json(
        git_repo / ".vcontext" / "playbook.json",
        _playbook({"house-rule": {"Overview": "Ours"}}, "2025-01-01T00:00:00Z"),
    )
    _write_json(
        git_repo / "team" / "other.vcontext.json",
        _playbook({"other-rule": {"Overview": "Theirs"}}, "2025-06-01T00:00:00Z"),
    )
    commit_all(git_repo)

    async def body(client: Any) -> tuple[Any, Any, Any]:
        learned = await client.call_tool(
            "vbrief_add_learning",
            {
                "playbookId": "other",
                "targetId": "fresh",
                "kind": "note",
                "narrative": {"Overview": "New"},
            },
        )
        view = await client.read_resource("vbrief://playbook")
        prompt = await client.get_prompt("vbrief_session_start", {})
        return learned, view, prompt

    learned, view, prompt = _session(git_repo, body)
    _ok(learned)
    targets = [e["targetId"] for e in json.loads(view.contents[0].text)["entries"]]
    assert targets == ["house-rule"]
    said = prompt_text(prompt)
    assert "house-rule" in said
    assert "fresh" not in said
    assert "other-rule" not in said


def test_write_path_current_todo_list_is_the_first_by_path_not_the_newest(
    git_repo: Path,
) -> None:
    """Without a conventional one, two todo lists: the first by path is current, whatever
    their ``updated``; a write to the other one does not move it."""

    def todo(updated: str, title: str) -> dict[str, Any]:
        return {
            "vContextInfo": {"version": "0.4"},
            "todoList": {
                "updated": updated,
                "items": [{"id": "t1", "title": title, "status": "pending"}],
            },
        }

    _write_json(git_repo / "a.vcontext.json", todo("2025-01-01T00:00:00Z", "Old A"))
    _write_json(git_repo / "b.vcontext.json", todo("2025-09-01T00:00:00Z", "New B"))
    commit_all(git_repo)

    async def body(client: Any) -> tuple[Any, Any]:
        first = await client.read_resource("vbrief://todos/current")
        await client.call_tool("vbrief_update_todo", {"todoListId": "b", "id": "t1", "title": "B"})
        again = await client.read_resource("vbrief://todos/current")
        return first, again

    first, again = _session(git_repo, body)
    assert json.loads(first.contents[0].text)["todoList"]["items"][0]["title"] == "Old A"
    assert json.loads(again.contents[0].text)["todoList"]["items"][0]["title"] == "Old A"


# -- resources ---------------------------------------------------------------------------------


def test_write_path_resources_are_json_whatever_the_format_tron_on_request(
    git_repo: Path, shared_dir: Path
) -> None:
    """A TRON document reads as JSON (``application/json``), its TRON text too
    (``?format=tron``); a JSON document with a BOM reads without it."""
    copy_corpus_file(shared_dir, MINIMAL_TRON, git_repo / "todo.vcontext.tron")
    copy_corpus_file(shared_dir, BOM_JSON, git_repo / "tasks.vbrief.json")
    commit_all(git_repo)

    async def body(client: Any) -> tuple[Any, ...]:
        listed = {r.uri: r.mime_type for r in (await client.list_resources()).resources}
        todo = await client.read_resource("vbrief://todos/current")
        tron = await client.read_resource("vbrief://todos/current?format=tron")
        plan = await client.read_resource("vbrief://plans/tasks")
        return listed, todo, tron, plan

    listed, todo, tron, plan = _session(git_repo, body)
    assert listed["vbrief://todos/current"] == "application/json"
    assert todo.contents[0].mime_type == "application/json"
    data = json.loads(todo.contents[0].text)
    assert data["todoList"]["items"][1]["title"] == "Write API documentation"
    assert tron.contents[0].mime_type == "text/x-tron"
    assert tron.contents[0].text.startswith("class vContextInfo: version")
    assert plan.contents[0].mime_type == "application/json"
    assert not plan.contents[0].text.startswith("\ufeff")
    assert json.loads(plan.contents[0].text)["plan"]["title"] == "agent-auto-alignment"


# -- learnings -------------------------------------------------------------------------------


def test_write_path_add_learning_keeps_the_guidance_it_does_not_replace_json(
    git_repo: Path,
) -> None:
    """Refining an entry's Overview keeps its Anti-pattern: in the event, the view, the
    query tool and the resource."""
    _write_json(
        git_repo / ".vcontext" / "playbook.json",
        _playbook(
            {"atomic": {"Overview": "Write atomically.", "Anti-pattern": "Truncate in place."}},
            "2025-01-01T00:00:00Z",
        ),
    )
    commit_all(git_repo)

    async def body(client: Any) -> tuple[Any, ...]:
        learned = await client.call_tool(
            "vbrief_add_learning",
            {"targetId": "atomic", "kind": "rule", "narrative": {"Overview": "Rename over it."}},
        )
        query = await client.call_tool("vbrief_query_playbook", {"searchText": "Truncate"})
        view = await client.read_resource("vbrief://playbook")
        return learned, query, view

    learned, query, view = _session(git_repo, body)
    event = _ok(learned)["event"]
    assert event["narrative"] == {
        "Overview": "Rename over it.",
        "Anti-pattern": "Truncate in place.",
    }
    assert _ok(query)["matched"] == 1
    (entry,) = json.loads(view.contents[0].text)["entries"]
    assert entry["narrative"]["Anti-pattern"] == "Truncate in place."
    assert entry["narrative"]["Overview"] == "Rename over it."
    shown = run_cli("view", ".vcontext/playbook.json", cwd=git_repo)
    assert b"Truncate in place." in shown.stdout


def test_write_path_add_learning_keeps_a_text_entry_text_in_tron(
    git_repo: Path, shared_dir: Path
) -> None:
    """A TRON playbook of ``text`` entries: a narrative given for one keeps its text in
    the view, and its text is not rewritten (nothing appended to it)."""
    path = copy_corpus_file(shared_dir, A3_TRON, git_repo / "playbook.vcontext.tron")
    commit_all(git_repo)
    before = gv.playbook_view(gv.load(str(path)).data).entry("pb-latency-regression-triage")
    assert before is not None
    target = "pb-latency-regression-triage"
    narrative = {"targetId": target, "kind": "strategy", "narrative": {"Caveat": "Queue first."}}
    (learned,) = _calls(git_repo, [("vbrief_add_learning", narrative)])
    _ok(learned)
    entry = gv.playbook_view(gv.load(str(path)).data).entry(target)
    assert entry is not None
    assert entry.text == before.text
    assert entry.narrative == {"Caveat": "Queue first."}
    # the seed's content for a text entry replaces its text, and only that
    content = {"targetId": target, "category": "strategies", "content": "Check saturation."}
    (learned,) = _calls(git_repo, [("vbrief_add_learning", content)])
    assert _ok(learned)["event"]["text"] == "Check saturation."
    entry = gv.playbook_view(gv.load(str(path)).data).entry(target)
    assert entry is not None
    assert entry.text == "Check saturation."
    assert entry.narrative == {"Caveat": "Queue first."}
    assert entry.kind == "strategy"


# -- seed 003: categories, the seed's own call, forks, formats, ids, pointers -----------------


def test_write_path_seed_add_learning_with_category_and_content(git_repo: Path) -> None:
    """The seed's example ``vbrief_add_learning({category, title, content, tags})``: an
    entry of the category's kind (patterns → learning), a readable targetId, and
    ``vbrief://playbook/{category}`` for all four categories."""

    async def body(client: Any) -> tuple[Any, ...]:
        learned = await client.call_tool(
            "vbrief_add_learning",
            {
                "category": "patterns",
                "title": "MCP server stdio transport pattern",
                "content": "Using stdio transport for MCP servers works well for local dev",
                "tags": ["mcp", "architecture"],
            },
        )
        gotcha = await client.call_tool(
            "vbrief_add_learning",
            {"category": "gotchas", "content": "git stash is shared between worktrees"},
        )
        sections = {
            c: await client.read_resource(f"vbrief://playbook/{c}")
            for c in ("strategies", "decisions", "patterns", "gotchas")
        }
        return learned, gotcha, sections

    learned, gotcha, sections = _session(git_repo, body)
    event = _ok(learned)["event"]
    assert event["kind"] == "learning"
    assert event["targetId"] == "mcp-server-stdio-transport-pattern"
    assert "stdio transport" in json.dumps(event)
    assert _ok(gotcha)["event"]["kind"] == "warning"
    patterns = json.loads(sections["patterns"].contents[0].text)["entries"]
    assert [e["targetId"] for e in patterns] == ["mcp-server-stdio-transport-pattern"]
    assert len(json.loads(sections["gotchas"].contents[0].text)["entries"]) == 1
    assert json.loads(sections["strategies"].contents[0].text)["entries"] == []
    assert json.loads(sections["decisions"].contents[0].text)["entries"] == []


def test_write_path_add_learning_refuses_what_a_new_entry_lacks_in_one_line(
    git_repo: Path,
) -> None:
    """Without a schema's ``required``, a new entry still needs a kind (or category), a name
    (targetId, title or content) and guidance (narrative or content): each lack is one line,
    and nothing is written; an unknown category names the ones there are."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("vbrief_add_learning", {}),
        ("vbrief_add_learning", {"category": "patterns"}),
        ("vbrief_add_learning", {"targetId": "x", "narrative": {"Overview": "y"}}),
        ("vbrief_add_learning", {"targetId": "x", "kind": "rule"}),
        ("vbrief_add_learning", {"category": "ideas", "content": "z"}),
        ("vbrief_add_learning", {"category": "gotchas", "kind": "rule", "content": "z"}),
    ]
    results = _calls(git_repo, calls)
    for result in results:
        assert result.is_error
        assert "\n" not in text(result)
    assert "title or content" in text(results[1])
    assert "needs a kind" in text(results[2])
    assert "narrative or content" in text(results[3])
    assert "strategies, decisions, patterns, gotchas" in text(results[4])
    assert "'warning'" in text(results[5])
    assert not (git_repo / ".vcontext").exists()


@pytest.mark.parametrize("how", ["env", "config"])
def test_write_path_new_documents_take_vcontext_format(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """``VCONTEXT_FORMAT=tron`` (or git config ``vcontext.format``): new documents are TRON."""
    (git_repo / "README").write_text("x\n")
    commit_all(git_repo)
    if how == "env":
        monkeypatch.setenv("VCONTEXT_FORMAT", "tron")
    else:
        run_git(git_repo, "config", "vcontext.format", "tron")
    results = _calls(
        git_repo,
        [
            ("vbrief_create_todo", {"title": "First"}),
            ("vbrief_add_learning", {"targetId": "t", "kind": "note", "narrative": {"O": "x"}}),
            ("vbrief_create_plan", {"title": "Ship it", "narratives": {"proposal": "P."}}),
        ],
    )
    for result in results:
        _ok(result)
    assert (git_repo / ".vcontext" / "todo.tron").is_file()
    assert (git_repo / ".vcontext" / "playbook.tron").is_file()
    plans = sorted(p.name for p in (git_repo / ".vcontext").glob("plan-*"))
    assert plans == ["plan-ship-it.tron"], plans
    assert gv.load(str(git_repo / ".vcontext" / "todo.tron")).format == "tron"


def test_write_path_unknown_vcontext_format_is_refused_naming_where_it_is_set(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A format the tool cannot write is not silently JSON: the create is refused in one
    line naming the variable, and nothing is written; with a document there, writes go on."""
    monkeypatch.setenv("VCONTEXT_FORMAT", "yaml")
    (made,) = _calls(git_repo, [("vbrief_create_todo", {"title": "First"})])
    assert made.is_error
    assert "\n" not in text(made)
    assert "VCONTEXT_FORMAT" in text(made)
    assert "json or tron" in text(made)
    assert not (git_repo / ".vcontext").exists()


def test_write_path_plan_ids_are_readable_and_unique(git_repo: Path) -> None:
    """``vbrief_create_plan`` ids: ``plan-<slug of the title>``, unique."""
    proposal = {"proposal": "Release the parser."}
    results = _calls(
        git_repo,
        [
            ("vbrief_create_plan", {"title": "Release 1.0: the parser!", "narratives": proposal}),
            ("vbrief_create_plan", {"title": "Release 1.0: the parser!", "narratives": proposal}),
        ],
    )
    ids = [_ok(r)["id"] for r in results]
    assert ids[0] == "plan-release-1-0-the-parser"
    assert ids[1] != ids[0]
    assert ids[1].startswith("plan-release-1-0-the-parser")
    for plan_id in ids:
        assert (git_repo / ".vcontext" / f"{plan_id}.json").is_file()


def test_write_path_items_without_ids_by_json_pointer(git_repo: Path, shared_dir: Path) -> None:
    """The spec's minimal examples have no ids: a JSON Pointer addresses an item wherever an
    id is accepted (update, delete); a pointer to nothing is refused in one line."""
    path = copy_corpus_file(shared_dir, MINIMAL_TRON, git_repo / "todo.vcontext.tron")
    commit_all(git_repo)
    results = _calls(
        git_repo,
        [
            ("vbrief_update_todo", {"id": "/todoList/items/1", "title": "Write the API docs"}),
            ("vbrief_delete_todo", {"id": "/todoList/items/0"}),
            ("vbrief_update_todo", {"id": "/todoList/items/7", "status": "completed"}),
        ],
    )
    _ok(results[0])
    _ok(results[1])
    assert results[2].is_error
    assert "\n" not in text(results[2])
    assert "/todoList/items/7" in text(results[2])
    items = gv.load(str(path)).data["todoList"]["items"]
    assert [i["title"] for i in items] == ["Write the API docs"]


def test_write_path_fork_tools_fork_and_merge_as_the_cli_does(git_repo: Path) -> None:
    """``vbrief_create_fork`` makes the serving agent's branch (as ``git vcontext fork``);
    ``vbrief_merge_fork``, with no argument, syncs that fork and its base (as ``sync``)."""
    _write_json(
        git_repo / "todo.vcontext.json",
        {
            "vContextInfo": {"version": "0.4"},
            "todoList": {
                "uid": "u-1",
                "sequence": 1,
                "items": [{"id": "t1", "title": "A", "status": "pending"}],
            },
        },
    )
    commit_all(git_repo)
    (forked,) = _calls(git_repo, [("vbrief_create_fork", {"reason": "try the parser"})])
    data = _ok(forked)
    assert data["branch"] == f"agents/{AGENT}"
    assert run_git(git_repo, "config", f"vcontext.agent.{AGENT}.base").stdout.strip() == "main"
    assert "try the parser" in run_git(git_repo, "log", "-1", "--format=%B", data["branch"]).stdout
    tree = git_repo.parent / "alice-tree"
    run_git(git_repo, "worktree", "add", "-q", str(tree), data["branch"])
    (done,) = _calls(tree, [("vbrief_update_todo", {"id": "t1", "status": "completed"})])
    _ok(done)
    (merged,) = _calls(tree, [("vbrief_merge_fork", {})])
    _ok(merged)
    shown = run_git(git_repo, "show", "main:todo.vcontext.json").stdout
    assert json.loads(shown)["todoList"]["items"][0]["status"] == "completed"


def test_write_path_merge_fork_returns_conflicts_as_data(git_repo: Path) -> None:
    """Both sides set the same status differently: ``vbrief_merge_fork`` stops with the
    conflicts as data (ids, pointers, the resolve calls to make), as ``vcontext_sync``."""
    _write_json(
        git_repo / "todo.vcontext.json",
        {
            "vContextInfo": {"version": "0.4"},
            "todoList": {
                "uid": "u-1",
                "sequence": 1,
                "items": [{"id": "t1", "title": "A", "status": "pending"}],
            },
        },
    )
    commit_all(git_repo)
    _ok(_calls(git_repo, [("vbrief_create_fork", {})])[0])
    tree = git_repo.parent / "alice-tree"
    run_git(git_repo, "worktree", "add", "-q", str(tree), f"agents/{AGENT}")
    _ok(_calls(tree, [("vbrief_update_todo", {"id": "t1", "status": "completed"})])[0])
    _ok(
        _calls(git_repo, [("vbrief_update_todo", {"id": "t1", "status": "blocked"})], commit=True)[
            0
        ]
    )
    (merged,) = _calls(tree, [("vbrief_merge_fork", {})])
    assert merged.is_error
    data = merged.structured_content
    pointers = [c["pointer"] for f in data["conflicts"] for c in f["conflicts"]]
    assert "/todoList/items/0/status" in pointers
    assert any(step["tool"] == "vcontext_resolve" for step in data["next"])
    # the way out is the calls 'next' names, as an agent would make them, in its work tree
    calls = [(step["tool"], step["arguments"]) for step in data["next"]]
    assert calls[-1] == ("vbrief_merge_fork", {})
    results = _calls(tree, calls)
    for result in results:
        _ok(result)
    assert results[-1].structured_content["ok"] is True
    shown = run_git(git_repo, "show", "main:todo.vcontext.json").stdout
    assert json.loads(shown)["todoList"]["items"][0]["status"] == "completed"  # take: ours
    assert run_cli("validate", cwd=tree).returncode == 0


# -- schemas ---------------------------------------------------------------------------------


def _untyped(schema: Any, where: str) -> list[str]:
    """Places in a JSON Schema that constrain nothing (no type, no anyOf/oneOf, no enum)."""
    if not isinstance(schema, dict):
        return [where]
    out: list[str] = []
    if not any(k in schema for k in ("type", "anyOf", "oneOf", "allOf", "enum", "const")):
        out.append(where)
    if isinstance(schema.get("type"), list):
        out.append(f"{where} (a type union)")
    for name, sub in (schema.get("properties") or {}).items():
        out += _untyped(sub, f"{where}.{name}")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key) or []):
            out += _untyped(sub, f"{where}.{key}[{i}]")
    if isinstance(schema.get("items"), dict):
        out += _untyped(schema["items"], f"{where}.items")
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        out += _untyped(extra, f"{where}.additionalProperties")
    return out


def test_write_path_every_tool_argument_is_typed(git_repo: Path) -> None:
    """Every argument of every tool has a type (``vcontext_resolve``'s ``value``: any JSON
    value, spelled as typed branches), so strict clients take the schemas as they are."""

    async def body(client: Any) -> Any:
        return (await client.list_tools()).tools

    tools = _session(git_repo, body)
    names = {t.name for t in tools}
    assert {"vbrief_create_fork", "vbrief_merge_fork", "vcontext_resolve"} <= names
    problems = [p for t in tools for p in _untyped(t.input_schema, t.name)]
    assert problems == []
    resolve = next(t for t in tools if t.name == "vcontext_resolve")
    value = resolve.input_schema["properties"]["value"]
    kinds = {branch.get("type") for branch in value["anyOf"]}
    assert kinds >= {"string", "number", "boolean", "object", "array", "null"}


OLD_PLAYBOOK_TRON = """class xBRIEFInfo: version, description
class Playbook: title, items
class PlaybookItem: title, status, content

xBRIEFInfo: xBRIEFInfo("0.4", "written before the family's present info key")

playbook: Playbook(
  "Development practices",
  [
    PlaybookItem("Use task targets", "active", "Run task targets, not raw commands.")
  ]
)
"""
"""A playbook of the corpus's kind (deftai/xBRIEF's ``warp.xbrief.tron``): items in the
pre-0.4 form, under an info key vContext does not know."""


def test_write_path_the_tron_playbook_at_the_conventional_path_is_served_never_doubled(
    git_repo: Path,
) -> None:
    """PRODUCT.md, "The write path": the current playbook is the one at the conventional
    path (``.vcontext/playbook.*``), and every writer reads the file as the CLI does (one
    truth). A pre-0.4 TRON playbook there is served (``view`` reads it), and
    ``vbrief_add_learning`` answers as ``playbook add`` does on it; before, the server
    did not serve it and made ``.vcontext/playbook.json`` beside it."""
    memory = git_repo / ".vcontext"
    memory.mkdir()
    (memory / "playbook.tron").write_text(OLD_PLAYBOOK_TRON)
    commit_all(git_repo)
    cli = run_cli(
        "playbook", "add", ".vcontext/playbook.tron", "--target", "x", "--kind", "warning",
        "--text", "A gotcha", cwd=git_repo,
    )  # fmt: skip
    assert cli.returncode != 0
    said = cli.stderr.decode().strip().removeprefix("git-vcontext: error: ")

    async def body(client: Any) -> tuple[Any, ...]:
        listed = [str(r.uri) for r in (await client.list_resources()).resources]
        view = json.loads(text(await client.read_resource("vbrief://playbook")))
        added = await client.call_tool(
            "vbrief_add_learning", {"category": "gotchas", "content": "A gotcha"}
        )
        return listed, view, added

    listed, view, added = _session(git_repo, body)
    assert "vbrief://playbooks/playbook" in listed
    assert view["playbook"]["path"] == ".vcontext/playbook.tron"
    assert [e["title"] for e in view["entries"]] == ["Use task targets"]
    assert added.is_error
    # the CLI's words, the person's step marked as every MCP answer marks it (91d0d8e)
    assert text(added) == said.replace("mend it first", PERSON + "mend it first")
    assert sorted(p.name for p in memory.iterdir()) == ["playbook.tron"]
    assert (memory / "playbook.tron").read_text() == OLD_PLAYBOOK_TRON


def test_write_path_no_second_playbook_beside_a_file_at_its_conventional_path(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PRODUCT.md, "The write path" ("current" documents are stable): a file at
    ``.vcontext/playbook.json`` that holds no playbook is not served, and the first
    learning, in TRON (``VCONTEXT_FORMAT``), is refused in one line naming it, the
    person's step marked; before, ``.vcontext/playbook.tron`` was made beside it."""
    monkeypatch.setenv("VCONTEXT_FORMAT", "tron")
    memory = git_repo / ".vcontext"
    memory.mkdir()
    (memory / "playbook.json").write_text('{"notes": []}\n')
    commit_all(git_repo)
    (added,) = _calls(git_repo, [("vbrief_add_learning", {"category": "gotchas", "content": "x"})])
    assert added.is_error
    assert "\n" not in text(added)
    assert ".vcontext/playbook.json is there but is not served as a playbook" in text(added)
    assert "A PERSON MUST DO THIS (no MCP tool can): see why (git vcontext validate" in text(added)
    assert sorted(p.name for p in memory.iterdir()) == ["playbook.json"]
