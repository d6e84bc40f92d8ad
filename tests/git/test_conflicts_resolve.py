"""``conflicts`` and ``resolve`` on real stopped merges, rebases and cherry-picks.

PRODUCT.md "Resolving conflicts": conflicts come from the index stages whatever the work
tree shows; each has a stable id; resolving some leaves the others as they were written;
the last one writes a valid document in ours' style and stages it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers.conflict_repos import (
    TODO,
    cli_json,
    diverge,
    installed,
    pretty,
    status_of,
    todo,
    two_conflicts,
)
from helpers.run import run_cli, run_git


@pytest.fixture
def repo(git_repo: Path) -> Path:
    return installed(git_repo)


def merge_stops(repo: Path, what: str = "feat") -> None:
    proc = run_git(repo, "merge", "--no-edit", what, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "CONFLICT" in proc.stdout, proc.stdout + proc.stderr


def conflict_ids(repo: Path, rel: str = TODO) -> list[str]:
    code, listing = cli_json("conflicts", rel, cwd=repo)
    assert code == 1
    return [c["id"] for c in listing["files"][0]["conflicts"]]


def committed(repo: Path, *args: str) -> None:
    proc = run_git(repo, *args, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert run_cli("validate", TODO, cwd=repo).returncode == 0


def test_merge_conflicts_as_json_resolve_one_then_the_rest_then_commit(repo: Path) -> None:
    two_conflicts(repo)
    merge_stops(repo)
    code, listing = cli_json("conflicts", cwd=repo)
    assert code == 1
    assert listing["others"] == []
    [f] = listing["files"]
    assert (f["path"], f["labels"], f["operation"]) == (
        TODO,
        {"ours": "main", "theirs": "feat"},
        "merge",
    )
    status, item = f["conflicts"]
    assert status["where"] == "todoList.items[t1].status"
    assert status["kind"] == "status"
    assert (status["base"], status["ours"], status["theirs"], status["absent"]) == (
        "pending", "blocked", "completed", [],
    )  # fmt: skip
    assert item["pointer"] == "/todoList/items/1"
    assert item["absent"] == ["ours"]

    one = run_cli("resolve", TODO, "--conflict", status["id"], "--take", "theirs", cwd=repo)
    assert one.returncode == 1, one.stderr
    text = (repo / TODO).read_text()
    assert text.count("<<<<<<< main") == 1
    assert '"status": "completed"' in text
    assert status_of(repo) == "UU"  # not staged while a conflict is left
    code, again = cli_json("conflicts", TODO, cwd=repo)
    assert [c["id"] for c in again["files"][0]["conflicts"]] == [item["id"]]  # stable id
    assert again["files"][0]["resolved"] == 1

    rest = run_cli("resolve", TODO, "--take", "theirs", cwd=repo)
    assert rest.returncode == 0, rest.stderr
    assert b"resolved, staged" in rest.stdout
    assert status_of(repo) == "M "
    data = json.loads((repo / TODO).read_text())
    assert [i["id"] for i in data["todoList"]["items"]] == ["t1", "t2", "t3", "t4"]
    assert data["todoList"]["items"][1]["title"] == "Docs"
    assert not list((repo / ".git" / "vcontext" / "resolve").glob("*.json"))
    committed(repo, "commit", "-q", "--no-edit")
    assert run_cli("conflicts", cwd=repo).returncode == 0


def test_rebase_labels_say_which_side_is_yours_and_the_rebase_continues(repo: Path) -> None:
    two_conflicts(repo)
    run_git(repo, "switch", "-q", "feat")
    stopped = run_git(repo, "rebase", "main", check=False)
    assert stopped.returncode != 0
    _code, listing = cli_json("conflicts", cwd=repo)
    [f] = listing["files"]
    assert f["operation"] == "rebase"
    assert f["labels"]["ours"].startswith("main (upstream")  # git's "ours" is the upstream
    assert "replayed from feat" in f["labels"]["theirs"]
    assert "feat: theirs" in f["labels"]["theirs"]
    assert run_cli("resolve", TODO, "--take", "theirs", cwd=repo).returncode == 0
    env = {**os.environ, "GIT_EDITOR": "true"}
    import subprocess

    done = subprocess.run(["git", "rebase", "--continue"], cwd=repo, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    data = json.loads((repo / TODO).read_text())
    assert data["todoList"]["items"][0]["status"] == "completed"  # the replayed commit's
    assert run_cli("validate", TODO, cwd=repo).returncode == 0


def test_cherry_pick_conflicts_are_listed_resolved_and_committed(repo: Path) -> None:
    two_conflicts(repo)
    stopped = run_git(repo, "cherry-pick", "feat", check=False)
    assert stopped.returncode != 0
    _code, listing = cli_json("conflicts", cwd=repo)
    [f] = listing["files"]
    assert f["operation"] == "cherry-pick"
    assert "cherry-picked" in f["labels"]["theirs"]
    ids = [c["id"] for c in f["conflicts"]]
    assert (
        run_cli("resolve", TODO, "--conflict", ids[1], "--take", "base", cwd=repo).returncode == 1
    )
    assert (
        run_cli("resolve", TODO, "--conflict", ids[0], "--take", "ours", cwd=repo).returncode == 0
    )
    data = json.loads((repo / TODO).read_text())
    assert [i["status"] for i in data["todoList"]["items"]][:2] == ["blocked", "pending"]
    committed(repo, "commit", "-q", "--no-edit")


@pytest.mark.parametrize("style", ["diff3", "structured"])
def test_every_conflict_style_resolves_from_the_same_stages(repo: Path, style: str) -> None:
    key = "merge.conflictStyle" if style == "diff3" else "merge.vcontext.conflictStyle"
    run_git(repo, "config", key, style)
    two_conflicts(repo)
    merge_stops(repo)
    first, second = conflict_ids(repo)
    assert (
        run_cli("resolve", TODO, "--conflict", first, "--take", "theirs", cwd=repo).returncode == 1
    )
    text = (repo / TODO).read_text()
    if style == "diff3":
        assert text.count("||||||| ") == 1
    else:
        record = json.loads(text)["vContextInfo"]["metadata"]["conflictResolution"]
        assert [c["status"] for c in record["conflicts"]] == ["resolved", "unresolved"]
    assert conflict_ids(repo) == [second]
    assert (
        run_cli("resolve", TODO, "--conflict", second, "--take", "ours", cwd=repo).returncode == 0
    )
    data = json.loads((repo / TODO).read_text())
    if style == "structured":
        record = data["vContextInfo"]["metadata"]["conflictResolution"]
        assert {c["status"] for c in record["conflicts"]} == {"resolved"}
        assert record["resolvedBy"]["type"] == "human"
        assert record["resolvedAt"].endswith("Z")
    committed(repo, "commit", "-q", "--no-edit")


def test_a_tron_document_is_resolved_in_its_own_style(repo: Path) -> None:
    def tron(status: str) -> str:
        return (
            "class vContextInfo: version\nclass TodoList: items\n"
            "class TodoItem: id, title, status\n\n"
            'vContextInfo: vContextInfo("0.4")\n\n'
            "# the work of today\n"
            f'todoList: TodoList([TodoItem("t1", "Auth", "{status}"), '
            'TodoItem("t2", "Docs", "pending")])\n'
        )

    rel = "todo.vcontext.tron"
    diverge(repo, tron("pending"), tron("blocked"), tron("completed"), rel)
    merge_stops(repo)
    [ident] = conflict_ids(repo, rel)
    assert (
        run_cli("resolve", rel, "--conflict", ident, "--value", '"inProgress"', cwd=repo).returncode
        == 0
    )
    # a minimal edit of ours' text (issue 12): the comment and the one-line list kept
    assert (repo / rel).read_text() == tron("inProgress")
    assert run_git(repo, "commit", "-q", "--no-edit", check=False).returncode == 0


def test_jsonl_records_conflict_per_record_and_resolve(repo: Path) -> None:
    def orders(status: str) -> str:
        return f'{{"id": "w1", "status": "{status}"}}\n{{"id": "w2", "status": "open"}}\n'

    rel = ".work/work_orders.jsonl"
    diverge(repo, orders("open"), orders("done"), orders("failed"), rel)
    merge_stops(repo)
    _code, listing = cli_json("conflicts", cwd=repo)
    [c] = listing["files"][0]["conflicts"]
    assert (c["pointer"], c["ours"], c["theirs"]) == ("/0/status", "done", "failed")
    assert run_cli("resolve", rel, "--take", "theirs", cwd=repo).returncode == 0
    assert (repo / rel).read_text() == orders("failed")


def test_a_minified_document_marks_only_the_value_and_stays_one_line(repo: Path) -> None:
    def mini(status: str) -> str:
        return json.dumps(todo(t1=status), separators=(",", ":")) + "\n"

    diverge(repo, mini("pending"), mini("blocked"), mini("completed"))
    merge_stops(repo)
    lines = (repo / TODO).read_text().splitlines()
    assert lines[1:6] == ["<<<<<<< main", '"blocked"', "=======", '"completed"', ">>>>>>> feat"]
    assert run_cli("resolve", TODO, "--take", "theirs", cwd=repo).returncode == 0
    assert (repo / TODO).read_text() == mini("completed")


# -- bad input ---------------------------------------------------------------------------


def test_resolve_on_a_file_without_conflicts_is_an_operational_error_that_touches_nothing(
    repo: Path,
) -> None:
    (repo / TODO).write_text(pretty(todo()))
    before = (repo / TODO).read_bytes()
    proc = run_cli("resolve", TODO, "--take", "ours", cwd=repo)
    assert proc.returncode == 3
    assert proc.stderr.count(b"\n") == 1
    assert b"no conflict to resolve" in proc.stderr
    assert (repo / TODO).read_bytes() == before


@pytest.mark.parametrize("keep", ["mid-line opener", "no opener", "a broken side"])
def test_stray_markers_validate_refuses_are_named_by_conflicts_and_resolve_with_the_way_out(
    repo: Path, keep: str
) -> None:
    """A document whose markers form no complete block (a hand edit that dropped or glued
    the ``<<<<<<<`` line), or a complete block one of whose sides a hand edit broke:
    ``validate`` refuses it (``conflict-markers``, "resolve the conflict first"), so
    ``conflicts`` may not answer "no vContext conflicts" with exit 0, nor ``resolve`` "no
    markers" or only "cannot be merged as data" (PRODUCT.md, command-line contract:
    ``conflicts`` exits 1 when there are any; one truth: what validate calls markers,
    conflicts calls markers). Both say why and the way out, and touch nothing (trial9)."""
    text = pretty(todo())
    if keep == "a broken side":
        item = '      {\n        "id": "t1",'
        broken = f"<<<<<<< ours\n{item}\n=======\n      {{{{\n>>>>>>> theirs\n"
        stray = text.replace(item, broken, 1)
        reason = "a side of its conflict markers cannot be merged as data"
    else:
        opener = "<<<<<<< ours\n" if keep == "mid-line opener" else ""
        glued = '{"id": "t1", ' if keep == "mid-line opener" else ""
        stray = text.replace(
            '      {\n        "id": "t1",',
            f"      {{{glued}{opener}=======\n>>>>>>> theirs\n" + '        "id": "t1",',
            1,
        )
        reason = "is a conflict marker outside a complete"
    assert stray != text
    (repo / TODO).write_text(text)
    run_git(repo, "add", TODO)
    run_git(repo, "commit", "-qm", "todo")
    (repo / TODO).write_text(stray)
    before = (repo / TODO).read_bytes()
    assert b"conflict-markers" in run_cli("validate", TODO, cwd=repo).stdout

    listed = run_cli("conflicts", cwd=repo)
    resolved = run_cli("resolve", TODO, "--take", "ours", cwd=repo)

    assert listed.returncode == 1, listed.stderr
    out = listed.stdout.decode()
    assert reason in out
    assert f"edit it by hand (git vcontext validate {TODO} says when it is whole)" in out
    assert b"no vContext conflicts" not in listed.stderr
    data = json.loads(run_cli("conflicts", "--format", "json", cwd=repo).stdout)
    assert [f["path"] for f in data["files"]] == [TODO]
    assert reason in data["files"][0]["error"]
    assert resolved.returncode == 3
    assert resolved.stderr.count(b"\n") == 1
    assert b"no markers" not in resolved.stderr
    assert b"edit it by hand" in resolved.stderr
    assert (repo / TODO).read_bytes() == before


def test_resolve_refusals_list_the_ids_or_the_finding_and_leave_the_file_alone(repo: Path) -> None:
    two_conflicts(repo)
    merge_stops(repo)
    before = (repo / TODO).read_bytes()
    ids = conflict_ids(repo)
    unknown = run_cli("resolve", TODO, "--conflict", "nope", "--take", "ours", cwd=repo)
    assert unknown.returncode == 2
    assert all(i.encode() in unknown.stderr for i in ids)
    not_json = run_cli("resolve", TODO, "--conflict", ids[0], "--value", "{completed", cwd=repo)
    assert not_json.returncode == 2
    assert b"--value is not JSON" in not_json.stderr
    invalid = run_cli("resolve", TODO, "--conflict", ids[0], "--value", '"doing"', cwd=repo)
    assert invalid.returncode == 2
    assert b"is not allowed here" in invalid.stderr
    assert b"todoList.items[t1].status" in invalid.stderr
    assert b"[schema]" in invalid.stderr
    several = run_cli("resolve", TODO, "--value", '"completed"', cwd=repo)
    assert several.returncode == 2
    assert b"--conflict" in several.stderr
    both = run_cli("resolve", TODO, "--take", "ours", "--value", "1", cwd=repo)
    assert both.returncode == 2
    for proc in (unknown, not_json, invalid, several, both):
        assert proc.stderr.count(b"\n") == 1
        assert b"Traceback" not in proc.stderr
    assert (repo / TODO).read_bytes() == before
    assert status_of(repo) == "UU"
    assert not (repo / ".git" / "vcontext" / "resolve").exists() or not list(
        (repo / ".git" / "vcontext" / "resolve").glob("*.json")
    )


def test_a_file_edited_by_hand_is_resolved_from_the_stages_and_the_user_is_told(repo: Path) -> None:
    two_conflicts(repo)
    merge_stops(repo)
    text = (repo / TODO).read_text()
    half = text.replace("<<<<<<< main", "", 1).replace('"blocked"', '"oops', 1)  # half edited
    (repo / TODO).write_text(half)
    _code, listing = cli_json("conflicts", cwd=repo)
    assert listing["files"][0]["edited"] is True
    assert len(listing["files"][0]["conflicts"]) == 2
    proc = run_cli("resolve", TODO, "--take", "theirs", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert b"changed since the merge stopped" in proc.stderr
    assert b"index stages" in proc.stderr
    data = json.loads((repo / TODO).read_text())
    assert data["todoList"]["items"][0]["status"] == "completed"
    assert "oops" not in (repo / TODO).read_text()


def test_the_hand_edited_text_resolve_says_it_keeps_is_still_there_after_the_last_conflict(
    repo: Path,
) -> None:
    """PRODUCT.md "Resolving conflicts" / never lose data: resolve replaces a text edited
    by hand with the stages' merge and names where that text is kept; the copy must
    outlive the resolution (the user's hand-added item lives only there), and a second
    hand edit must not overwrite the first one's copy."""
    two_conflicts(repo)
    merge_stops(repo)
    ids = conflict_ids(repo)
    copies = []
    for n, ref in enumerate(ids):
        text = (repo / TODO).read_text()
        (repo / TODO).write_text(text.replace('"id": "t1"', f'"id": "t1", "note{n}": "mine{n}"'))
        proc = run_cli("resolve", TODO, "--conflict", ref, "--take", "theirs", cwd=repo)
        kept = proc.stderr.decode().split("your text is kept in ", 1)[1].split(")")[0]
        copies.append(Path(kept))
    assert status_of(repo, TODO) == "M "
    assert len(set(copies)) == 2
    for n, copy in enumerate(copies):
        assert copy.is_file(), f"the promised copy {copy} is gone"
        assert f'"note{n}": "mine{n}"' in copy.read_text()


def test_dry_run_prints_the_result_and_no_add_leaves_it_unstaged(repo: Path) -> None:
    two_conflicts(repo, "my docs/todo.vcontext.json")  # a path with a space
    rel = "my docs/todo.vcontext.json"
    merge_stops(repo)
    before = (repo / rel).read_bytes()
    dry = run_cli("resolve", rel, "--take", "theirs", "--dry-run", cwd=repo)
    assert dry.returncode == 0
    assert json.loads(dry.stdout)["todoList"]["items"][0]["status"] == "completed"
    assert (repo / rel).read_bytes() == before
    assert status_of(repo, rel) == "UU"
    kept = run_cli("resolve", TODO, "--take", "theirs", "--no-add", cwd=repo / "my docs")
    assert kept.returncode == 0
    assert status_of(repo, rel) == "UU"
    assert b"<<<<<<<" not in (repo / rel).read_bytes()


def test_other_conflicted_files_are_named_but_not_vcontext_conflicts(repo: Path) -> None:
    diverge(repo, "a\n", "b\n", "c\n", "notes.txt")
    merge_stops(repo)
    code, listing = cli_json("conflicts", cwd=repo)
    assert code == 1
    assert listing == {"files": [], "others": ["notes.txt"]}


# -- outside a stopped merge ----------------------------------------------------------


def test_a_file_with_markers_or_a_structured_record_outside_a_merge(tmp_path: Path) -> None:
    for name, status in (("base", "pending"), ("ours", "blocked"), ("theirs", "completed")):
        (tmp_path / f"{name}.json").write_text(pretty(todo(t1=status)))
    for style in ("markers", "structured"):
        out = tmp_path / f"{style}.vcontext.json"
        run_cli("merge", "base.json", "ours.json", "theirs.json", "-o", str(out),
                "--conflict-style", style, cwd=tmp_path)  # fmt: skip
        code, listing = cli_json("conflicts", out.name, cwd=tmp_path)
        assert code == 1
        assert listing["files"][0]["source"] == style
        [c] = listing["files"][0]["conflicts"]
        assert (c["where"], c["ours"], c["theirs"]) == (
            "todoList.items[t1].status",
            "blocked",
            "completed",
        )
        done = run_cli("resolve", out.name, "--take", "theirs", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        data = json.loads(out.read_text())
        assert data["todoList"]["items"][0]["status"] == "completed"
        assert run_cli("validate", out.name, cwd=tmp_path).returncode == 0
        assert run_cli("conflicts", out.name, cwd=tmp_path).returncode == 0


def test_m15_a_side_the_structured_record_holds_as_null_is_absent_and_taking_it_removes(
    tmp_path: Path,
) -> None:
    """M15 writes null for a side without a value (a deleted item or field); read back, that
    side is absent: taking it removes the item or field, never writes null into the list."""
    base = todo(t2={"description": "the docs"})
    ours = todo(t2={"title": "Docs on main", "description": "the docs, updated"})
    theirs = todo(t2=None)  # deleted the whole item
    theirs_field = todo(t2={"description": "the docs, updated"})
    del theirs_field["todoList"]["items"][1]["description"]  # deleted one field
    ours_field = todo(t2={"description": "the docs, rewritten"})
    for name, sides in (("item", (ours, theirs)), ("field", (ours_field, theirs_field))):
        for side, data in zip(("base", "ours", "theirs"), (base, *sides), strict=True):
            (tmp_path / f"{side}.json").write_text(pretty(data))
        out = tmp_path / f"{name}.vcontext.json"
        run_cli("merge", "base.json", "ours.json", "theirs.json", "-o", str(out),
                "--conflict-style", "structured", cwd=tmp_path)  # fmt: skip
        code, listing = cli_json("conflicts", out.name, cwd=tmp_path)
        assert code == 1
        [c] = listing["files"][0]["conflicts"]
        assert (c["kind"], c["theirs"], c["absent"]) == ("delete/modify", None, ["theirs"]), name
        done = run_cli("resolve", out.name, "--take", "theirs", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert b"warning" not in done.stderr
        items = json.loads(out.read_text())["todoList"]["items"]
        if name == "item":
            assert [i["id"] for i in items] == ["t1", "t3"]
        else:
            assert "description" not in items[1]
        assert run_cli("validate", out.name, cwd=tmp_path).returncode == 0


def test_markers_without_a_base_section_have_no_base_to_take(tmp_path: Path) -> None:
    """Outside a merge, markers without a diff3 base section do not say what the base was:
    ``conflicts`` says the base is unknown, and ``--take base`` is refused (it would
    otherwise remove the value as if the base had none), the file untouched."""
    for name, status in (("base", "pending"), ("ours", "blocked"), ("theirs", "completed")):
        (tmp_path / f"{name}.json").write_text(pretty(todo(t1=status)))
    out = tmp_path / "marked.vcontext.json"
    run_cli("merge", "base.json", "ours.json", "theirs.json", "-o", str(out), cwd=tmp_path)
    before = out.read_bytes()
    code, listing = cli_json("conflicts", out.name, cwd=tmp_path)
    assert code == 1
    assert listing["files"][0]["baseKnown"] is False
    text = run_cli("conflicts", out.name, cwd=tmp_path)
    assert b"base:   (unknown" in text.stdout
    refused = run_cli("resolve", out.name, "--take", "base", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.count(b"\n") == 1
    assert b"no base section" in refused.stderr
    assert out.read_bytes() == before
    tool = run_cli("mergetool", "B", "L", "R", out.name, cwd=tmp_path, input=b"b\nq\n")
    assert b"[b]ase" not in tool.stdout
    assert b"base: (unknown" in tool.stdout
    assert b"refused" in tool.stdout
    assert out.read_bytes() == before
    assert run_cli("resolve", out.name, "--take", "ours", cwd=tmp_path).returncode == 0
    assert json.loads(out.read_text())["todoList"]["items"][0]["status"] == "blocked"


def test_an_invalid_value_is_refused_naming_each_finding_once(repo: Path) -> None:
    two_conflicts(repo)
    merge_stops(repo)
    [_first, second] = conflict_ids(repo)  # t2: deleted on main, renamed on feat
    item = '{"id": "t2", "title": null, "status": "pending"}'
    proc = run_cli("resolve", TODO, "--conflict", second, "--value", item, cwd=repo)
    assert proc.returncode == 2
    finding = b"todoList.items[t2].title: must be a string, not null [schema]"
    assert proc.stderr.count(finding) == 1, proc.stderr


def test_a_line_conflict_without_the_driver_is_no_conflict_as_data_and_resolve_finishes_it(
    git_repo: Path,
) -> None:
    """Merged without the driver (not installed): git's line merge stops on neighbouring
    fields that the engine merges cleanly; conflicts says so and resolve writes the merge."""

    def one_line_items(t1: str, t2: str) -> str:
        data = todo(t1=t1, t2=t2)
        lines = [json.dumps(i) for i in data["todoList"]["items"]]
        return (
            '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": [\n'
            + ",\n".join(lines)
            + "\n]}}\n"
        )

    diverge(git_repo, one_line_items("pending", "pending"), one_line_items("blocked", "pending"),
            one_line_items("pending", "completed"))  # fmt: skip
    merge_stops(git_repo)
    code, listing = cli_json("conflicts", cwd=git_repo)
    assert code == 1
    assert listing["files"][0]["conflicts"] == []
    assert "no conflict left as data" in run_cli("conflicts", cwd=git_repo).stdout.decode()
    done = run_cli("resolve", TODO, cwd=git_repo)
    assert done.returncode == 0, done.stderr
    items = json.loads((git_repo / TODO).read_text())["todoList"]["items"]
    assert [i["status"] for i in items] == ["blocked", "completed", "pending"]
    assert status_of(git_repo) == "M "


def test_a_side_that_does_not_parse_is_listed_as_an_error_and_not_resolved_as_data(
    repo: Path,
) -> None:
    diverge(repo, pretty(todo()), pretty(todo(t1="blocked")), '{"vContextInfo": {\n')
    merge_stops(repo)
    before = (repo / TODO).read_bytes()
    code, listing = cli_json("conflicts", cwd=repo)
    assert code == 1
    assert "cannot be merged as data" in listing["files"][0]["error"]
    text = run_cli("conflicts", cwd=repo).stdout.decode()
    assert "resolve it by hand" in text
    proc = run_cli("resolve", TODO, "--take", "ours", cwd=repo)
    assert proc.returncode == 3
    assert proc.stderr.count(b"\n") == 1
    assert (repo / TODO).read_bytes() == before


def test_conflicts_of_the_top_folder_or_a_parent_folder_are_listed(repo: Path) -> None:
    """PRODUCT.md: conflicts [PATHS…] exits 1 while any are left; a folder names the
    files under it, also '.' at the top and '..' from a subfolder (an agent asking
    `conflicts .` must not be told there are none)."""
    two_conflicts(repo, "my docs/todo.vcontext.json")
    merge_stops(repo)
    (repo / "sub").mkdir()
    for arg, cwd in ((".", repo), ("..", repo / "sub"), ("my docs", repo), (str(repo), repo)):
        code, listing = cli_json("conflicts", arg, cwd=cwd)
        assert code == 1, (arg, listing)
        assert [f["path"] for f in listing["files"]] == ["my docs/todo.vcontext.json"]


def test_conflicts_of_a_path_that_does_not_exist_is_an_operational_error(repo: Path) -> None:
    """PRODUCT.md command-line contract: a missing file is exit 3 with one line, never
    'no vContext conflicts' (a typo must not read as 'all resolved')."""
    two_conflicts(repo)
    merge_stops(repo)
    proc = run_cli("conflicts", "nope.vcontext.json", cwd=repo)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert proc.stderr.count(b"\n") == 1
    assert b"nope.vcontext.json" in proc.stderr


def test_operational_errors_are_one_line(repo: Path, tmp_path: Path) -> None:
    (repo / "docs").mkdir()
    for args, cwd, words in (
        (("resolve", "docs", "--take", "ours"), repo, b"is a directory"),
        (("resolve", "missing.vcontext.json", "--take", "ours"), repo, b"no such file"),
        (("conflicts",), tmp_path, b"not a git repository"),
    ):
        proc = run_cli(*args, cwd=cwd)
        assert proc.returncode == 3
        assert proc.stderr.count(b"\n") == 1
        assert words in proc.stderr


def test_choices_of_an_aborted_merge_do_not_come_back_when_it_is_redone(repo: Path) -> None:
    two_conflicts(repo)
    merge_stops(repo)
    first = conflict_ids(repo)[0]
    assert run_cli("resolve", TODO, "--conflict", first, "--take", "ours", cwd=repo).returncode == 1
    run_git(repo, "merge", "--abort")
    import time

    time.sleep(0.01)  # the redone merge stops later
    merge_stops(repo)
    _code, listing = cli_json("conflicts", cwd=repo)
    assert listing["files"][0]["resolved"] == 0
    assert len(listing["files"][0]["conflicts"]) == 2
    assert "edited" not in listing["files"][0]


def test_the_library_the_mcp_tools_call_lists_and_resolves_in_process(repo: Path) -> None:
    """vcontext_conflicts / vcontext_resolve (issue 14) call these, with JSON values as data."""
    from git_vcontext.conflicts.listing import list_conflicts
    from git_vcontext.conflicts.session import open_file

    two_conflicts(repo)
    merge_stops(repo)
    listing = list_conflicts(cwd=repo).to_json()
    status, item = listing["files"][0]["conflicts"]
    session = open_file(TODO, cwd=repo)
    value = {"id": "t2", "title": "Docs, merged", "status": "inProgress"}
    outcome = session.apply(session.asked(item["where"], value=value), dry_run=True)
    assert [c["id"] for c in outcome.to_json()["remaining"]] == [status["id"]]
    assert not outcome.written
    assert status_of(repo) == "UU"
    outcome = session.apply({**session.asked(item["id"], value=value),
                             **session.asked(status["pointer"], take="base")})  # fmt: skip
    assert outcome.done
    assert outcome.staged
    items = json.loads((repo / TODO).read_text())["todoList"]["items"]
    assert items[0]["status"] == "pending"
    assert items[1] == value


LONG = "3.141592653589793238462643383279"


def test_numbers_keep_their_spelling_through_conflicts_and_resolve(repo: Path) -> None:
    """PRODUCT.md Formats: no digit is rounded away; a value given to ``resolve --value`` is
    kept as spelled while other conflicts wait (the choice is stored between calls)."""

    def doc(one: str, two: str) -> str:
        return (
            '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": [\n'
            f'  {{"id": "t1", "title": "A", "status": "pending", "estimate": {one}}},\n'
            f'  {{"id": "t2", "title": "B", "status": "pending", "estimate": {two}}}\n'
            "]}}\n"
        )

    diverge(repo, doc("1", "1"), doc("2.50", "2"), doc("1e2", "3.0"))
    merge_stops(repo)
    listing = run_cli("conflicts", TODO, cwd=repo).stdout.decode()
    assert "2.50" in listing, listing
    assert "1e2" in listing, listing
    assert "3.0" in listing, listing
    first, _second = conflict_ids(repo)
    given = run_cli("resolve", TODO, "--conflict", first, "--value", LONG, cwd=repo)
    assert given.returncode == 1, given.stderr  # one conflict left
    assert run_cli("resolve", TODO, "--take", "theirs", cwd=repo).returncode == 0
    assert (repo / TODO).read_text() == doc(LONG, "3.0")


def test_conflicts_and_resolve_quote_a_name_holding_a_newline(repo: Path) -> None:
    """One conflict, one line per fact: a file name with a newline is C-quoted in the text
    output of conflicts and resolve, as validate and git quote it (json keeps it raw)."""
    rel = "odd\nname.vcontext.json"
    diverge(repo, pretty(todo()), pretty(todo(t1="blocked")), pretty(todo(t1="completed")), rel)
    merge_stops(repo)

    listing = run_cli("conflicts", cwd=repo)
    code, data = cli_json("conflicts", cwd=repo)
    assert code == 1
    resolved = run_cli("resolve", rel, "--take", "theirs", cwd=repo)

    assert listing.returncode == 1
    assert listing.stdout.decode().splitlines()[0].startswith('"odd\\nname.vcontext.json": 1 ')
    assert data["files"][0]["path"] == rel
    assert resolved.returncode == 0, resolved.stderr
    *named, step = resolved.stdout.decode().splitlines()
    assert step == "next: git commit --no-edit"  # the merge's last conflict settled
    for line in named:
        assert line.startswith('"odd\\nname.vcontext.json": '), line


def test_the_advised_resolve_command_works_for_a_name_starting_with_a_dash(repo: Path) -> None:
    """Every conflict message ends with a command that works: for a file whose name starts
    with '-', the command conflicts names (and sync --checkout's next steps) must not
    pass it where resolve reads it as an option."""
    from git_vcontext.conflicts.stopped import Stopped
    from git_vcontext.workflow.sync import stopped_commands

    rel = "-x.vcontext.json"
    diverge(repo, pretty(todo()), pretty(todo(t1="blocked")), pretty(todo(t1="completed")), rel)
    merge_stops(repo)

    listing = run_cli("conflicts", cwd=repo)
    hint = listing.stderr.decode()
    assert "git vcontext resolve ./-x.vcontext.json" in hint, hint
    advised = stopped_commands(Stopped(str(repo), "agents/a", "main", (rel,)), "a", None)
    command = next(c for c in advised if c.startswith("git vcontext resolve"))
    argv = command.replace("<ours|theirs>", "theirs").split()[2:]

    resolved = run_cli(*argv, cwd=repo)

    assert resolved.returncode == 0, resolved.stderr
    assert status_of(repo, rel) == "M "
    assert json.loads((repo / rel).read_text())["todoList"]["items"][0]["status"] == "completed"


def test_a_structured_record_with_an_escaped_status_is_still_listed(tmp_path: Path) -> None:
    """``"\\u0075nresolved"`` reads ``unresolved`` (as ``validate``'s conflict-unresolved
    rule reads it): the listing's byte pre-test must not skip the file."""
    for name, status in (("base", "pending"), ("ours", "blocked"), ("theirs", "completed")):
        (tmp_path / f"{name}.json").write_text(pretty(todo(t1=status)))
    out = tmp_path / "structured.vcontext.json"
    run_cli("merge", "base.json", "ours.json", "theirs.json", "-o", str(out),
            "--conflict-style", "structured", cwd=tmp_path)  # fmt: skip
    out.write_text(out.read_text().replace('"unresolved"', '"\\u0075nresolved"'))
    assert b"unresolved" not in out.read_bytes()
    assert run_cli("validate", out.name, cwd=tmp_path).returncode == 1
    code, listing = cli_json("conflicts", out.name, cwd=tmp_path)
    assert code == 1
    [c] = listing["files"][0]["conflicts"]
    assert c["where"] == "todoList.items[t1].status"


def test_the_last_file_resolved_names_what_the_stopped_merge_waits_on(repo: Path) -> None:
    """PRODUCT.md "Resolving conflicts": every message ends with the exact next commands.
    ``resolve`` said "resolved, staged" and stopped there (trial13b: a person in ``git
    pull`` was left to know git's next step): with another file still conflicted it names
    ``git vcontext conflicts``, once none is left the command that finishes the merge,
    which pasted concludes it."""
    other = "other.vcontext.json"
    diverge(repo, pretty(todo()), pretty(todo(t1="blocked")), pretty(todo(t1="completed")))
    run_git(repo, "switch", "-q", "feat")
    diverge_other = pretty(todo(t1="cancelled"))
    (repo / other).write_text(pretty(todo()))
    run_git(repo, "add", other)
    run_git(repo, "commit", "-q", "-m", "feat: other")
    (repo / other).write_text(diverge_other)
    run_git(repo, "commit", "-q", "-am", "feat: other cancelled")
    run_git(repo, "switch", "-q", "main")
    run_git(repo, "checkout", "-q", "feat~1", "--", other)
    run_git(repo, "commit", "-q", "-m", "main: other")
    (repo / other).write_text(pretty(todo(t1="blocked")))
    run_git(repo, "commit", "-q", "-am", "main: other blocked")
    merge_stops(repo)

    first = run_cli("resolve", TODO, "--take", "ours", cwd=repo)
    assert first.returncode == 0, first.stderr
    assert first.stdout.decode().splitlines()[-1] == "next: git vcontext conflicts"
    last = run_cli("resolve", other, "--take", "theirs", cwd=repo)
    assert last.returncode == 0, last.stderr
    assert last.stdout.decode().splitlines()[-1] == "next: git commit --no-edit"

    run_git(repo, "commit", "--no-edit", "-q")  # as printed
    assert not (repo / ".git" / "MERGE_HEAD").exists()
    assert run_cli("conflicts", cwd=repo).returncode == 0


def test_a_side_that_leaves_the_document_invalid_is_written_never_staged(repo: Path) -> None:
    """PRODUCT.md M19 One truth: no resolve produces a commit ``validate`` or the pre-push
    hook refuses ("``resolve`` writes a valid document"). Taking ours' delete in a
    delete/reference conflict leaves ``t1``'s dependency on ``t2`` dangling: the side is
    the person's choice and is written (with the finding as a warning), but it was staged
    and ``next: git commit --no-edit`` printed, a commit the hook then refused. Now git
    keeps the path unmerged (no commit follows) and ``next:`` says to mend it; the other
    side taken instead is staged and the merge commits."""
    theirs = todo(t1={"dependencies": ["t2"]})
    diverge(repo, pretty(todo()), pretty(todo(t2=None)), pretty(theirs))
    merge_stops(repo)

    done = run_cli("resolve", TODO, "--take", "ours", cwd=repo)
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 0, err
    assert "[dependency-missing]" in err, err
    assert f"{TODO}: resolved, written (not staged: validate rejects the result" in out, out
    assert out.splitlines()[-1] == (
        f"next: mend {TODO} (git vcontext validate {TODO} shows where), git add {TODO}"
    )
    assert run_git(repo, "diff", "--name-only", "--diff-filter=U").stdout.split() == [TODO]
    assert run_git(repo, "commit", "--no-edit", "-q", check=False).returncode != 0
    assert run_cli("validate", TODO, cwd=repo).returncode == 1

    again = run_cli("resolve", TODO, "--take", "theirs", cwd=repo)
    assert again.returncode == 0, again.stderr
    assert again.stdout.decode().splitlines()[-1] == "next: git commit --no-edit"
    run_git(repo, "commit", "--no-edit", "-q")
    assert run_cli("validate", TODO, cwd=repo).returncode == 0


def test_resolve_as_json_names_the_same_next_step_as_its_text(repo: Path) -> None:
    """PRODUCT.md "Resolving conflicts": every message ends with the exact next commands.
    ``resolve --format json`` had no ``next`` (the text ends with ``next: git commit
    --no-edit`` once the last conflict of a stopped merge is settled): the JSON says the
    same steps (one source), ``[]`` while conflicts remain or on a dry run."""
    two_conflicts(repo)
    merge_stops(repo)
    first, *_ = conflict_ids(repo)

    dry = run_cli("resolve", TODO, "--take", "ours", "--dry-run", "--format", "json", cwd=repo)
    assert json.loads(dry.stdout)["next"] == []
    some = run_cli("resolve", TODO, "--conflict", first, "--take", "ours", "--format", "json",
                   cwd=repo)  # fmt: skip
    assert some.returncode == 1, some.stderr
    assert json.loads(some.stdout)["next"] == []
    last = run_cli("resolve", TODO, "--take", "theirs", "--format", "json", cwd=repo)
    assert last.returncode == 0, last.stderr
    assert json.loads(last.stdout)["next"] == ["git commit --no-edit"]
    run_git(repo, "commit", "--no-edit", "-q")  # as said
    assert not (repo / ".git" / "MERGE_HEAD").exists()


def test_resolve_judges_a_value_as_validate_does_a_note_is_no_finding(repo: Path) -> None:
    """PRODUCT.md M19 and "Validation": resolve's check of a value given (the findings it
    adds to the merge's inputs) is the one judge's, which counts what ``validate`` counts.
    A plan narrative given as a ``{title, content}`` object (validate: valid, a note) was
    refused by resolve's own comparison ("the value makes the document invalid"): it is
    taken now, staged, and the merge commits through the pre-push hook's judge."""
    rel = "plan.vcontext.json"

    def plan(proposal: str) -> str:
        return pretty({"vContextInfo": {"version": "0.4"},
                       "plan": {"id": "p", "title": "P", "status": "draft",
                                "narratives": {"proposal": proposal}, "items": []}})  # fmt: skip

    diverge(repo, plan("A"), plan("B"), plan("C"), rel)
    merge_stops(repo)
    given = json.dumps({"title": "Proposal", "content": "Do it"})

    done = run_cli("resolve", rel, "--value", given, cwd=repo)

    assert done.returncode == 0, done.stderr.decode()
    assert status_of(repo, rel) == "M "
    checked = run_cli("validate", rel, cwd=repo)
    assert checked.returncode == 0, checked.stdout.decode()
    assert "[narrative-object]" in checked.stdout.decode()  # a note, as validate says it
    run_git(repo, "commit", "--no-edit", "-q")
    assert run_cli("check", "main~1..main", cwd=repo).returncode == 0  # the hook's checks
