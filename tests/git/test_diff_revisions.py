"""``git vcontext diff [REV [REV]] [--cached] [-- PATHS]`` in real repositories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.errors import ExitCode
from helpers.run import run_cli, run_git

TODO = "todo.vcontext.json"
LINE_T2 = "todoList.items[t2].status: inProgress → completed"


def _doc(*statuses: str) -> dict[str, Any]:
    items = [{"id": f"t{n}", "title": f"Task {n}", "status": s} for n, s in enumerate(statuses, 1)]
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}


def _write(repo: Path, name: str, data: Any) -> None:
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text(json.dumps(data, indent=2) + "\n")


def _commit(repo: Path, message: str) -> None:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)


def _diff(repo: Path, *args: str) -> tuple[int, str]:
    proc = run_cli("diff", *args, cwd=repo)
    assert b"Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, proc.stdout.decode()


@pytest.fixture
def repo(git_repo: Path) -> Path:
    _write(git_repo, TODO, _doc("pending", "inProgress"))
    (git_repo / "notes.txt").write_text("notes\n")
    _write(git_repo, "package.json", {"name": "not vcontext", "version": "1.0.0"})
    _commit(git_repo, "first")
    return git_repo


def test_no_arguments_is_work_tree_against_index(repo: Path) -> None:
    _write(repo, TODO, _doc("pending", "completed"))
    assert _diff(repo)[1] == f"diff --vcontext a/{TODO} b/{TODO}\n{LINE_T2}\n"
    run_git(repo, "add", TODO)
    assert _diff(repo)[1] == ""


def test_cached_is_index_against_head(repo: Path) -> None:
    _write(repo, TODO, _doc("pending", "completed"))
    assert _diff(repo, "--cached")[1] == ""
    run_git(repo, "add", TODO)
    assert LINE_T2 in _diff(repo, "--cached")[1]
    assert LINE_T2 in _diff(repo, "--staged")[1]


def test_one_revision_is_work_tree_against_it_including_new_staged_files(repo: Path) -> None:
    _write(repo, TODO, _doc("pending", "completed"))
    _write(repo, "new.vcontext.json", _doc("pending"))
    run_git(repo, "add", "new.vcontext.json")
    out = _diff(repo, "HEAD")[1]
    assert LINE_T2 in out
    assert "diff --vcontext /dev/null b/new.vcontext.json\nnew file\n" in out


def test_two_revisions_and_range_forms(repo: Path) -> None:
    _write(repo, TODO, _doc("pending", "completed"))
    _commit(repo, "second")
    for args in (["HEAD~1", "HEAD"], ["HEAD~1..HEAD"], ["HEAD~1...HEAD"], ["main~1..main"]):
        assert _diff(repo, *args)[1] == f"diff --vcontext a/{TODO} b/{TODO}\n{LINE_T2}\n", args
    assert "inProgress" in _diff(repo, "HEAD", "HEAD~1")[1].split("→")[1]


def test_only_vcontext_files_by_pattern_attribute_or_content(repo: Path) -> None:
    (repo / "notes.txt").write_text("changed\n")
    _write(repo, "package.json", {"name": "changed"})
    _write(repo, "docs/plain.json", _doc("pending"))  # no telling name, recognised by content
    _write(repo, ".vcontext/memory.json", _doc("pending"))
    _write(repo, "custom/agent.mem", _doc("pending"))
    (repo / ".gitattributes").write_text("*.mem diff=vcontext\n")
    run_git(repo, "add", "-A")
    out = _diff(repo, "--cached")[1]
    headers = [line for line in out.splitlines() if line.startswith("diff --vcontext")]
    assert headers == [
        "diff --vcontext /dev/null b/.vcontext/memory.json",
        "diff --vcontext /dev/null b/custom/agent.mem",
        "diff --vcontext /dev/null b/docs/plain.json",
    ]


def test_paths_after_double_dash_limit_the_files(repo: Path) -> None:
    _write(repo, TODO, _doc("pending", "completed"))
    _write(repo, "sub dir/other.vcontext.json", _doc("pending"))
    run_git(repo, "add", "-A")
    assert "other.vcontext.json" not in _diff(repo, "--cached", "--", TODO)[1]
    only_sub = _diff(repo, "--cached", "--", "sub dir")[1]
    assert "other.vcontext.json" in only_sub
    assert TODO not in only_sub
    assert "other.vcontext.json" in _diff(repo, "--cached", "--", "*/other.*")[1]
    proc = run_cli("diff", "--cached", "--", "other.vcontext.json", cwd=repo / "sub dir")
    assert b"other.vcontext.json" in proc.stdout  # paths are relative to the current directory


def test_a_path_without_double_dash_as_git_does(repo: Path) -> None:
    _write(repo, TODO, _doc("pending", "completed"))
    assert LINE_T2 in _diff(repo, "HEAD", TODO)[1]
    proc = run_cli("diff", "HEAD", "missing.json", cwd=repo)
    assert proc.returncode == ExitCode.OPERATIONAL
    assert b"missing.json: no such file or revision" in proc.stderr


def test_exit_code_and_stat(repo: Path) -> None:
    assert _diff(repo, "--exit-code")[0] == 0
    _write(repo, TODO, _doc("pending", "completed", "pending"))
    run_git(repo, "mv", "notes.txt", "n.txt")
    code, out = _diff(repo, "--exit-code", "--stat")
    assert code == 1
    assert out == f" {TODO} | 2 changes: 1 added, 1 changed\n"


def test_rename_and_delete_between_revisions(repo: Path) -> None:
    run_git(repo, "mv", TODO, "moved.vcontext.json")
    _write(repo, "moved.vcontext.json", _doc("pending", "completed"))
    _write(repo, "gone.vcontext.json", _doc("pending"))
    _commit(repo, "second")
    run_git(repo, "rm", "-q", "gone.vcontext.json")
    _commit(repo, "third")
    out = _diff(repo, "HEAD~2", "HEAD", "--stat")[1]
    assert out == f" {TODO} => moved.vcontext.json | 1 change: 1 changed\n"
    gone = _diff(repo, "HEAD~1", "HEAD")[1]
    assert gone.startswith("diff --vcontext a/gone.vcontext.json /dev/null\ndeleted file\n")


def test_json_output_names_each_file(repo: Path) -> None:
    _write(repo, TODO, _doc("pending", "completed"))
    data = json.loads(_diff(repo, "--format", "json")[1])
    assert data["files"] == [{"path": TODO, "status": "modified", "changes": 1}]
    assert data["changes"][0]["file"] == TODO
    assert data["changes"][0]["id"] == "t2"


def test_unparsable_file_in_a_revision_diff_gets_a_line_diff(repo: Path) -> None:
    (repo / TODO).write_text('{"vContextInfo": {"version": "0.4"}, "todoList": ')
    out = _diff(repo)[1]
    assert "! not a structural diff:" in out
    assert '+{"vContextInfo"' in out


def test_before_the_first_commit(git_repo: Path) -> None:
    _write(git_repo, TODO, _doc("pending"))
    run_git(git_repo, "add", "-A")
    assert "new file" in _diff(git_repo, "--cached")[1]


def test_outside_a_repository_is_an_operational_error(tmp_path: Path) -> None:
    proc = run_cli("diff", cwd=tmp_path)
    assert proc.returncode == ExitCode.OPERATIONAL
    assert b"not a git repository" in proc.stderr


def test_bad_revision_and_too_many(repo: Path) -> None:
    proc = run_cli("diff", "nope..HEAD", cwd=repo)
    assert proc.returncode == ExitCode.OPERATIONAL
    proc = run_cli("diff", "HEAD", "HEAD", "HEAD", cwd=repo)
    assert proc.returncode == ExitCode.USAGE
    assert b"at most two revisions" in proc.stderr


def test_a_name_holding_a_newline_is_quoted_as_git_quotes_it(repo: Path) -> None:
    """Like git diff (command-line contract): a file name with a newline or a quote is
    C-quoted in the header, so one header stays one line."""
    name = 'odd\nname "x".vcontext.json'
    _write(repo, name, _doc("pending"))
    _commit(repo, "odd name")
    _write(repo, name, _doc("completed"))

    out = _diff(repo)[1]

    quoted = '"a/odd\\nname \\"x\\".vcontext.json" "b/odd\\nname \\"x\\".vcontext.json"'
    assert out.splitlines()[0] == f"diff --vcontext {quoted}", out
    assert "todoList.items[t1].status: pending → completed" in out
