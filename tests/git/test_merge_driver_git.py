"""Real git merges through the installed driver: what agents do to shared documents."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from helpers.run import run_cli, run_git

TODO = "memory/todo.vcontext.json"


def doc(*items: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"vContextInfo": {"version": "0.4"}, "todoList": {**extra, "items": list(items)}}


def item(i: str, **fields: Any) -> dict[str, Any]:
    return {"id": i, "title": i.upper(), "status": "pending", **fields}


def write(repo: Path, rel: str, data: Any) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def commit(repo: Path, message: str) -> None:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)


def read(repo: Path, rel: str = TODO) -> Any:
    return json.loads((repo / rel).read_text())


@pytest.fixture
def repo(git_repo: Path) -> Path:
    """A repository with the driver installed and a base todo list on main."""
    proc = run_cli("install", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    write(git_repo, TODO, doc(item("t1"), item("t2")))
    commit(git_repo, "base")
    return git_repo


def branch_edit(repo: Path, branch: str, data: Any, rel: str = TODO, start: str = "main") -> None:
    run_git(repo, "checkout", "-q", "-b", branch, start)
    write(repo, rel, data)
    commit(repo, f"{branch} edits")
    run_git(repo, "checkout", "-q", "main")


def test_m3_both_agents_append_items(repo: Path) -> None:
    branch_edit(repo, "agent-a", doc(item("t1"), item("t2"), item("a1")))
    write(repo, TODO, doc(item("t1"), item("t2"), item("b1")))
    commit(repo, "main appends")
    merge = run_git(repo, "merge", "-q", "--no-edit", "agent-a", check=False)
    assert merge.returncode == 0, merge.stderr
    assert [i["id"] for i in read(repo)["todoList"]["items"]] == ["t1", "t2", "b1", "a1"]


def test_m3_repeated_ids_merge_by_alignment_through_git(repo: Path) -> None:
    """The issue's reproduction in a real merge: ours completes the first of two t1s,
    theirs deletes the second; the completion stays where it was made."""
    first, second = item("t1", title="first"), item("t1", title="second")
    write(repo, TODO, doc(first, second, item("t2")))
    commit(repo, "twins")
    branch_edit(repo, "agent-a", doc(first, item("t2")))
    write(repo, TODO, doc(item("t1", title="first", status="completed"), second, item("t2")))
    commit(repo, "main completes the first t1")
    merge = run_git(repo, "merge", "-q", "--no-edit", "agent-a", check=False)
    assert merge.returncode == 0, merge.stderr
    assert read(repo)["todoList"]["items"] == [
        item("t1", title="first", status="completed"),
        item("t2"),
    ]


def test_m2_neighbouring_fields_merge_where_lines_would_conflict(repo: Path) -> None:
    branch_edit(repo, "agent-a", doc(item("t1", status="completed"), item("t2")))
    write(repo, TODO, doc(item("t1", title="Auth"), item("t2")))
    commit(repo, "main renames")
    assert run_git(repo, "merge", "-q", "--no-edit", "agent-a", check=False).returncode == 0
    assert read(repo)["todoList"]["items"][0] == item("t1", title="Auth", status="completed")


def test_m15_same_field_changed_differently_leaves_markers_and_fails(repo: Path) -> None:
    branch_edit(repo, "agent-a", doc(item("t1", status="completed"), item("t2")))
    write(repo, TODO, doc(item("t1", status="blocked"), item("t2")))
    commit(repo, "main blocks")
    merge = run_git(repo, "merge", "--no-edit", "agent-a", check=False)
    assert merge.returncode == 1
    assert "CONFLICT" in merge.stdout
    assert "/todoList/items/0/status (status)" in merge.stderr
    text = (repo / TODO).read_text()
    assert text.count("<<<<<<< ") == 1
    assert '"status": "blocked"' in text
    assert "UU " + TODO in run_git(repo, "status", "--porcelain").stdout


def test_m15_diff3_conflict_style_adds_the_base_section(repo: Path) -> None:
    run_git(repo, "config", "merge.conflictStyle", "diff3")
    branch_edit(repo, "agent-a", doc(item("t1", status="completed"), item("t2")))
    write(repo, TODO, doc(item("t1", status="blocked"), item("t2")))
    commit(repo, "main blocks")
    run_git(repo, "merge", "--no-edit", "agent-a", check=False)
    text = (repo / TODO).read_text()
    assert "||||||| " in text.replace("|||||||\n", "||||||| \n")
    assert text.count('"status": "pending"') == 2  # t2, and t1's base section


def test_m15_structured_conflicts_from_git_config(repo: Path) -> None:
    run_git(repo, "config", "merge.vcontext.conflictStyle", "structured")
    branch_edit(repo, "agent-a", doc(item("t1", status="completed"), item("t2")))
    write(repo, TODO, doc(item("t1", status="blocked"), item("t2")))
    commit(repo, "main blocks")
    assert run_git(repo, "merge", "--no-edit", "agent-a", check=False).returncode == 1
    merged = read(repo)  # still valid JSON
    conflicts = merged["vContextInfo"]["metadata"]["conflictResolution"]["conflicts"]
    assert conflicts[0]["path"] == "$.todoList.items[0].status"
    assert merged["todoList"]["items"][0]["status"] == "blocked"  # ours' value


def _playbook(*events: dict[str, Any]) -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4"},
        "playbook": {
            "version": 1,
            "created": "2025-01-01T00:00:00Z",
            "updated": "2025-01-01T00:00:00Z",
            "items": list(events),
        },
    }


def _event(eid: str, target: str, day: int, **fields: Any) -> dict[str, Any]:
    return {
        "eventId": eid,
        "targetId": target,
        "operation": "append",
        "kind": "rule",
        "narrative": {"Overview": eid},
        "createdAt": f"2025-01-{day:02d}T00:00:00Z",
        **fields,
    }


def test_m6_playbook_events_from_both_agents(repo: Path) -> None:
    rel = ".vcontext/playbook.json"
    write(repo, rel, _playbook(_event("e1", "x", 1)))
    commit(repo, "playbook")
    branch_edit(repo, "agent-a", _playbook(_event("e1", "x", 1), _event("a1", "y", 3)), rel)
    write(repo, rel, _playbook(_event("e1", "x", 1), _event("b1", "z", 2)))
    commit(repo, "main learns")
    assert run_git(repo, "merge", "-q", "--no-edit", "agent-a", check=False).returncode == 0
    assert [e["eventId"] for e in read(repo, rel)["playbook"]["items"]] == ["e1", "b1", "a1"]


def test_m11_fork_merged_into_parent_leaves_no_fork_block(repo: Path) -> None:
    plan = {
        "vContextInfo": {"version": "0.4"},
        "plan": {
            "uid": "u-1",
            "title": "P",
            "status": "draft",
            "sequence": 3,
            "items": [item("p1")],
        },
    }
    rel = "plan.vcontext.json"
    write(repo, rel, plan)
    commit(repo, "plan")
    forked = json.loads(json.dumps(plan))
    forked["plan"]["fork"] = {
        "parentUid": "u-1",
        "parentSequence": 3,
        "forkedAt": "2025-01-01T00:00:00Z",
        "mergeStatus": "unmerged",
    }
    forked["plan"]["items"].append(item("p2"))
    forked["plan"]["sequence"] = 4
    branch_edit(repo, "agents/bob", forked, rel)
    parent = json.loads(json.dumps(plan))
    parent["plan"]["status"] = "approved"
    parent["plan"]["sequence"] = 4
    write(repo, rel, parent)
    commit(repo, "approve")
    assert run_git(repo, "merge", "-q", "--no-edit", "agents/bob", check=False).returncode == 0
    merged = read(repo, rel)["plan"]
    assert "fork" not in merged
    assert merged["status"] == "approved"
    assert [i["id"] for i in merged["items"]] == ["p1", "p2"]
    assert merged["sequence"] == 5


def test_m11_two_edits_of_one_fork_keep_its_parent_sequence(repo: Path) -> None:
    """Two worktrees of one agent (or an agent and its helper) edit the forked plan."""
    fork = {"parentUid": "u-1", "parentSequence": 3, "forkedAt": "2025-01-01T00:00:00Z"}
    plan: dict[str, Any] = {
        "vContextInfo": {"version": "0.4"},
        "plan": {"uid": "u-1", "title": "P", "status": "draft", "sequence": 4, "fork": fork},
    }
    rel = "plan.vcontext.json"
    write(repo, rel, plan)
    commit(repo, "forked plan")
    helper = json.loads(json.dumps(plan))
    helper["plan"].update(title="P2", sequence=5)
    branch_edit(repo, "helper", helper, rel)
    plan["plan"].update(status="approved", sequence=5)
    write(repo, rel, plan)
    commit(repo, "approve")
    assert run_git(repo, "merge", "-q", "--no-edit", "helper", check=False).returncode == 0
    merged = read(repo, rel)["plan"]
    assert merged["fork"] == fork  # not rewritten to the helper's sequence 5
    assert (merged["title"], merged["status"], merged["sequence"]) == ("P2", "approved", 6)


def test_m1_add_add_with_no_base(repo: Path) -> None:
    rel = "new.vcontext.json"
    branch_edit(repo, "agent-a", doc(item("a1")), rel)
    write(repo, rel, doc(item("b1")))
    commit(repo, "main adds")
    assert run_git(repo, "merge", "-q", "--no-edit", "agent-a", check=False).returncode == 0
    assert [i["id"] for i in read(repo, rel)["todoList"]["items"]] == ["b1", "a1"]


def test_rebase_and_cherry_pick_go_through_the_driver(repo: Path) -> None:
    branch_edit(repo, "agent-a", doc(item("t1", status="completed"), item("t2")))
    write(repo, TODO, doc(item("t1"), item("t2", status="inProgress")))
    commit(repo, "main edits t2")
    run_git(repo, "checkout", "-q", "-b", "picked", "main")
    assert run_git(repo, "cherry-pick", "agent-a", check=False).returncode == 0
    items = read(repo)["todoList"]["items"]
    assert [i["status"] for i in items] == ["completed", "inProgress"]
    run_git(repo, "checkout", "-q", "agent-a")
    assert run_git(repo, "rebase", "-q", "main", check=False).returncode == 0
    assert [i["status"] for i in read(repo)["todoList"]["items"]] == ["completed", "inProgress"]


def test_criss_cross_merge_with_a_virtual_base(repo: Path) -> None:
    """Two merges crossing: git merges the two bases first (through the driver)."""
    branch_edit(repo, "a", doc(item("t1"), item("t2"), item("a1")))
    branch_edit(repo, "b", doc(item("t1"), item("t2"), item("b1")))
    run_git(repo, "checkout", "-q", "a")
    run_git(repo, "merge", "-q", "--no-edit", "b")
    run_git(repo, "checkout", "-q", "b")
    run_git(repo, "merge", "-q", "--no-edit", "a~1")
    write(repo, TODO, {**read(repo), "todoList": {**read(repo)["todoList"], "tags": ["b"]}})
    commit(repo, "b tags")
    run_git(repo, "checkout", "-q", "a")
    write(repo, TODO, doc(*read(repo)["todoList"]["items"], item("a2")))
    commit(repo, "a adds a2")
    merge = run_git(repo, "merge", "--no-edit", "b", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    merged = read(repo)["todoList"]
    assert {i["id"] for i in merged["items"]} == {"t1", "t2", "a1", "b1", "a2"}
    assert merged["tags"] == ["b"]


def test_a_tracked_symlink_to_a_document_stays_a_link_through_a_merge(repo: Path) -> None:
    """git stores the link as a link (mode 120000) and merges the document it points to:
    the driver gets the target's path as %P and a temporary regular file as %A."""
    link = repo / "todo.vcontext.json"
    link.symlink_to(TODO)
    commit(repo, "link")
    run_git(repo, "checkout", "-q", "-b", "agent-a")
    write(repo, "todo.vcontext.json", doc(item("t1"), item("t2"), item("a1")))  # through it
    commit(repo, "a appends")
    run_git(repo, "checkout", "-q", "main")
    write(repo, "todo.vcontext.json", doc(item("t1", status="completed"), item("t2")))
    commit(repo, "main completes")
    merge = run_git(repo, "merge", "--no-edit", "agent-a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert f"Auto-merging {TODO}" in merge.stdout
    assert link.is_symlink()
    assert os.readlink(link) == TODO
    items = read(repo, "todo.vcontext.json")["todoList"]["items"]
    assert [(i["id"], i["status"]) for i in items] == [
        ("t1", "completed"),
        ("t2", "pending"),
        ("a1", "pending"),
    ]
    assert run_git(repo, "ls-files", "-s", "todo.vcontext.json").stdout.startswith("120000")


def test_a_symlink_retargeted_on_both_sides_is_git_s_own_conflict(repo: Path) -> None:
    """git never hands a link to a merge driver: retargeted differently, it conflicts."""
    link = repo / "todo.vcontext.json"
    link.symlink_to(TODO)
    commit(repo, "link")
    run_git(repo, "checkout", "-q", "-b", "agent-a")
    link.unlink()
    link.symlink_to("a.vcontext.json")
    commit(repo, "a retargets")
    run_git(repo, "checkout", "-q", "main")
    link.unlink()
    link.symlink_to("b.vcontext.json")
    commit(repo, "main retargets")
    merge = run_git(repo, "merge", "--no-edit", "agent-a", check=False)
    assert merge.returncode == 1
    assert "git-vcontext" not in merge.stderr
    stages = run_git(repo, "ls-files", "-s", "todo.vcontext.json").stdout.splitlines()
    assert [line.split()[0] for line in stages] == ["120000"] * 3
    assert link.is_symlink()


def test_path_with_spaces_and_quotes(repo: Path) -> None:
    rel = "agent's notes/my todo.vcontext.json"
    write(repo, rel, doc(item("t1")))
    commit(repo, "notes")
    branch_edit(repo, "agent-a", doc(item("t1"), item("a1")), rel)
    write(repo, rel, doc(item("t1", status="completed")))
    commit(repo, "main completes")
    assert run_git(repo, "merge", "-q", "--no-edit", "agent-a", check=False).returncode == 0
    assert read(repo, rel)["todoList"]["items"][1]["id"] == "a1"


def test_m16_unparsable_side_gives_a_line_merge_and_a_conflict(repo: Path) -> None:
    run_git(repo, "checkout", "-q", "-b", "broken")
    (repo / TODO).write_text((repo / TODO).read_text().replace('"t2",', '"t2"'))
    commit(repo, "broken json")
    run_git(repo, "checkout", "-q", "main")
    write(repo, TODO, doc(item("t1", status="completed"), item("t2")))
    commit(repo, "main completes")
    merge = run_git(repo, "merge", "--no-edit", "broken", check=False)
    assert merge.returncode == 1
    assert "merged by lines" in merge.stderr
    text = (repo / TODO).read_text()
    assert '"status": "completed"' in text  # ours' change is still there


def test_jsonl_event_logs_merge_by_event_id(repo: Path) -> None:
    rel = ".work/events.jsonl"

    def line(i: int) -> str:
        return json.dumps(
            {
                "event_id": f"evt-{i}",
                "event_type": "x",
                "timestamp": f"2026-01-06T12:0{i}:00.000Z",
                "actor": "a",
                "data": {},
            }
        )

    (repo / ".work").mkdir()
    (repo / rel).write_text(line(1) + "\n")
    commit(repo, "events")
    run_git(repo, "checkout", "-q", "-b", "agent-a")
    (repo / rel).write_text(line(1) + "\n" + line(3) + "\n")
    commit(repo, "a")
    run_git(repo, "checkout", "-q", "main")
    (repo / rel).write_text(line(1) + "\n" + line(2) + "\n")
    commit(repo, "main")
    assert run_git(repo, "merge", "-q", "--no-edit", "agent-a", check=False).returncode == 0
    ids = [json.loads(x)["event_id"] for x in (repo / rel).read_text().splitlines()]
    assert ids == ["evt-1", "evt-2", "evt-3"]


def test_tron_documents_merge_through_the_driver_and_keep_their_header(repo: Path) -> None:
    from git_vcontext.codecs import dumps, parse

    rel = "memory/todo.vcontext.tron"
    (repo / rel).write_text("# our classes\n" + dumps(doc(item("t1"), item("t2")), "tron"))
    commit(repo, "tron todo")
    header = (repo / rel).read_text().split("\n\n")[0]

    def edit(data: Any) -> None:
        current = parse((repo / rel).read_bytes(), path=rel)
        (repo / rel).write_text(current.render(data))

    run_git(repo, "checkout", "-q", "-b", "agent-a")
    edit(doc(item("t1", status="completed"), item("t2"), item("a1")))
    commit(repo, "a")
    run_git(repo, "checkout", "-q", "main")
    edit(doc(item("t1", title="Auth"), item("t2"), item("b1")))
    commit(repo, "main")
    assert run_git(repo, "merge", "-q", "--no-edit", "agent-a", check=False).returncode == 0
    text = (repo / rel).read_text()
    assert text.startswith(header)
    merged = parse(text.encode(), path=rel).data["todoList"]["items"]
    assert [(i["id"], i["title"], i["status"]) for i in merged] == [
        ("t1", "Auth", "completed"),
        ("t2", "T2", "pending"),
        ("b1", "B1", "pending"),
        ("a1", "A1", "pending"),
    ]


LONG = "3.141592653589793238462643383279"
NUMBER_SIDES = {
    "json": (
        '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": [\n'
        '  {"id": "t1", "title": "T1", "status": "%s"},\n'
        '  {"id": "t2", "title": "T2", "status": "pending"%s}\n'
        "]}}\n",
        ', "estimate": ' + LONG,
    ),
    "tron": (
        "class vContextInfo: version\nclass TodoList: items\nclass TodoItem: id, title, status\n\n"
        'vContextInfo: vContextInfo("0.4")\ntodoList: TodoList([\n'
        '  TodoItem("t1", "T1", "%s"),\n'
        '  {"id": "t2", "title": "T2", "status": "pending"%s}\n'
        "])\n",
        ', "estimate": ' + LONG,
    ),
}


@pytest.mark.parametrize("suffix", ["json", "tron"])
def test_a_long_number_theirs_adds_is_merged_with_its_spelling(repo: Path, suffix: str) -> None:
    """PRODUCT.md Formats: a number keeps its spelling from the side it came from (a double
    would round 3.141592653589793238462643383279 to 3.141592653589793)."""
    rel = f"memory/numbers.vcontext.{suffix}"
    template, estimate = NUMBER_SIDES[suffix]
    (repo / rel).write_text(template % ("pending", ""))
    commit(repo, "base")
    run_git(repo, "checkout", "-q", "-b", "agent-a")
    (repo / rel).write_text(template % ("pending", estimate))
    commit(repo, "theirs: an estimate")
    run_git(repo, "checkout", "-q", "main")
    (repo / rel).write_text(template % ("completed", ""))
    commit(repo, "ours: t1 done")
    assert run_git(repo, "merge", "-q", "--no-edit", "agent-a", check=False).returncode == 0
    assert (repo / rel).read_text() == template % ("completed", estimate)


# -- labels and favor (PRODUCT.md "Resolving conflicts", M15) ----------------------------


def _status_conflict(repo: Path) -> None:
    branch_edit(repo, "agent-a", doc(item("t1", status="completed"), item("t2")))
    write(repo, TODO, doc(item("t1", status="blocked"), item("t2")))
    commit(repo, "main blocks")


def test_m15_markers_name_the_branches_when_git_passes_no_labels(repo: Path) -> None:
    _status_conflict(repo)
    run_git(repo, "merge", "--no-edit", "agent-a", check=False)
    text = (repo / TODO).read_text()
    # git < 2.44 passes no labels: HEAD's branch and the merged branch; later gits say HEAD
    assert "<<<<<<< main\n" in text or "<<<<<<< HEAD\n" in text
    assert ">>>>>>> agent-a\n" in text
    assert "<<<<<<< ours" not in text


def test_m15_a_commit_merged_by_its_id_is_named_by_the_branch_at_it(repo: Path) -> None:
    """``git merge <commit id>``: MERGE_HEAD's branch names theirs, in the markers (when git
    passes no labels) and in ``conflicts``' labels, rather than a bare commit id."""
    _status_conflict(repo)
    sha = run_git(repo, "rev-parse", "agent-a").stdout.strip()
    run_git(repo, "merge", "--no-edit", sha, check=False)
    text = (repo / TODO).read_text()
    assert ">>>>>>> agent-a\n" in text or f">>>>>>> {sha}\n" in text  # git >= 2.44: as given
    listing = json.loads(run_cli("conflicts", "--format", "json", cwd=repo).stdout)
    assert listing["files"][0]["labels"] == {"ours": "main", "theirs": "agent-a"}


def test_m15_markers_during_a_rebase_say_which_side_is_the_replayed_commit(repo: Path) -> None:
    _status_conflict(repo)
    run_git(repo, "switch", "-q", "agent-a")
    run_git(repo, "rebase", "main", check=False)
    text = (repo / TODO).read_text()
    opening = next(line for line in text.splitlines() if line.startswith("<<<<<<< "))
    closing = next(line for line in text.splitlines() if line.startswith(">>>>>>> "))
    assert opening in ("<<<<<<< main (upstream: rebasing agent-a onto it)", "<<<<<<< HEAD")
    assert "agent-a edits" in closing  # the replayed commit, by its subject


def test_m15_labels_given_as_s_x_y_are_written_as_given(repo: Path, tmp_path: Path) -> None:
    """git >= 2.44 passes %S %X %Y; older gits cannot, so the driver is run as such a git would."""
    run_git(repo, "config", "merge.conflictStyle", "diff3")
    files = []
    for name, status in (("O", "pending"), ("A", "blocked"), ("B", "completed")):
        path = tmp_path / name
        path.write_text(json.dumps(doc(item("t1", status=status)), indent=2) + "\n")
        files.append(str(path))
    proc = run_cli("merge-driver", *files, "-p", TODO, "-l", "9", "-s", "common ancestor",
                   "-x", "HEAD", "-y", "agent-a", cwd=repo)  # fmt: skip
    assert proc.returncode == 1
    lines = (tmp_path / "A").read_text().splitlines()
    assert "<<<<<<<<< HEAD" in lines
    assert "||||||||| common ancestor" in lines
    assert ">>>>>>>>> agent-a" in lines


def test_favor_from_git_config_settles_the_merge_and_says_so(repo: Path) -> None:
    run_git(repo, "config", "merge.vcontext.favor", "theirs")
    _status_conflict(repo)
    merged = run_git(repo, "merge", "--no-edit", "agent-a", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "1 conflict(s) resolved to theirs (favor)" in merged.stderr
    assert read(repo)["todoList"]["items"][0]["status"] == "completed"


def test_favor_from_the_environment_wins_over_git_config(repo: Path) -> None:
    import os
    import subprocess

    run_git(repo, "config", "merge.vcontext.favor", "theirs")
    _status_conflict(repo)
    env = {**os.environ, "GIT_VCONTEXT_FAVOR": "ours"}
    merged = subprocess.run(["git", "merge", "--no-edit", "agent-a"], cwd=repo, env=env,
                            capture_output=True, text=True)  # fmt: skip
    assert merged.returncode == 0, merged.stderr
    assert read(repo)["todoList"]["items"][0]["status"] == "blocked"


def test_a_bad_favor_is_ignored_and_the_driver_says_so_once(repo: Path) -> None:
    """The git layer returns the warning (gitio/settings); the driver command says it."""
    run_git(repo, "config", "merge.vcontext.favor", "mine")
    _status_conflict(repo)
    merged = run_git(repo, "merge", "--no-edit", "agent-a", check=False)
    assert merged.returncode == 1  # the conflict stays: nothing settled it
    warning = "git-vcontext: warning: ignoring favor 'mine' (merge.vcontext.favor"
    assert merged.stderr.count(warning) == 1, merged.stderr
