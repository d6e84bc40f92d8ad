"""git's own diff, log, show, external diff and difftool calling git-vcontext, in real repos."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import pytest

from helpers.run import cli_path, run_git

TODO = "todo.vcontext.json"
PERSON = {"GIT_PAGER_IN_USE": "true", "NO_COLOR": "1"}  # into git's pager: the structural view


def _doc(*statuses: str) -> dict[str, Any]:
    items = [{"id": f"t{n}", "title": f"Task {n}", "status": s} for n, s in enumerate(statuses, 1)]
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}


def _write(repo: Path, name: str, data: Any, **dump: Any) -> None:
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text(json.dumps(data, indent=2, **dump) + "\n")


def _commit(repo: Path, message: str) -> None:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)


def _command() -> str:
    return " ".join(shlex.quote(part) for part in cli_path())


@pytest.fixture
def repo(git_repo: Path) -> Path:
    """A repo set up as ``install`` will set it up: textconv, difftool, attributes."""
    cmd = _command()
    run_git(git_repo, "config", "diff.vcontext.textconv", f"{cmd} textconv")
    cmd_line = f'{cmd} diff --path "$MERGED" "$LOCAL" "$REMOTE"'
    run_git(git_repo, "config", "difftool.vcontext.cmd", cmd_line)
    (git_repo / ".gitattributes").write_text(
        "*.vcontext.json diff=vcontext\n*.vcontext.tron diff=vcontext\n"
    )
    _write(git_repo, TODO, _doc("pending", "inProgress", "pending"))
    _commit(git_repo, "first")
    return git_repo


def test_git_diff_log_and_show_print_the_textconv_lines(repo: Path) -> None:
    _write(repo, TODO, _doc("pending", "completed", "pending"))
    diff = run_git(repo, "diff").stdout
    assert '-todoList.items[t2].status = "inProgress"' in diff
    assert '+todoList.items[t2].status = "completed"' in diff
    _commit(repo, "second")
    for args in (["log", "-p", "-1"], ["show", "HEAD"]):
        out = run_git(repo, *args).stdout
        assert '+todoList.items[t2].status = "completed"' in out, args
        assert '"status": "completed"' not in out, args  # not the raw JSON lines


def test_reformatting_shows_no_changed_lines(repo: Path) -> None:
    data = json.loads((repo / TODO).read_text())
    (repo / TODO).write_text(json.dumps(data, sort_keys=True, separators=(",", ":")))
    assert "\n+" not in run_git(repo, "diff").stdout


def test_the_json_and_the_tron_encoding_have_the_same_textconv(repo: Path) -> None:
    pytest.importorskip("git_vcontext.codecs.tron")
    from git_vcontext import dumps

    data = json.loads((repo / TODO).read_text())
    (repo / "todo.vcontext.tron").write_text(dumps(data, "tron"))
    _commit(repo, "tron twin")
    blobs = run_git(repo, "diff", "--textconv", f"HEAD:{TODO}", "HEAD:todo.vcontext.tron")
    assert blobs.stdout == ""  # git compares the two encodings and sees no difference
    (repo / TODO).unlink()
    _commit(repo, "json removed")
    shown = run_git(repo, "show", "HEAD~1", "HEAD", "--format=").stdout
    added = {ln[1:] for ln in shown.splitlines() if ln.startswith("+") and "=" in ln}
    removed = {ln[1:] for ln in shown.splitlines() if ln.startswith("-") and "=" in ln}
    assert added == removed
    assert added  # converting shows the same facts going and coming


def test_git_external_diff_gets_a_rename_with_nine_arguments_and_an_added_file(repo: Path) -> None:
    run_git(repo, "mv", TODO, "renamed.vcontext.json")
    _write(repo, "renamed.vcontext.json", _doc("pending", "inProgress", "completed"))
    _write(repo, "added.vcontext.json", _doc("pending"))
    run_git(repo, "add", "-A")
    env = {**os.environ, "GIT_EXTERNAL_DIFF": f"{_command()} diff", **PERSON}
    proc = _git_env(repo, env, "diff", "--cached", "-M")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "diff --vcontext /dev/null b/added.vcontext.json\nnew file\n" in out
    assert 'todoList.items[t1]: + "Task 1" [pending]' in out
    assert (
        "diff --vcontext a/todo.vcontext.json b/renamed.vcontext.json\n"
        "rename from todo.vcontext.json\nrename to renamed.vcontext.json\n"
        "todoList.items[t3].status: pending → completed\n"
    ) in out


def test_diff_command_config_is_used_for_vcontext_files_only(repo: Path) -> None:
    run_git(repo, "config", "diff.vcontext.command", f"{_command()} diff")
    (repo / "notes.txt").write_text("one\n")
    _commit(repo, "notes")
    _write(repo, TODO, _doc("pending", "completed", "pending"))
    (repo / "notes.txt").write_text("two\n")
    env = {**os.environ, **PERSON}
    out = _git_env(repo, env, "diff", "--no-color").stdout
    assert "todoList.items[t2].status: inProgress → completed" in out
    assert "-one\n+two" in out  # git's own diff for other files
    logged = _git_env(repo, env, "log", "-p", "-1", "--ext-diff", "--no-color").stdout
    assert "diff --vcontext" not in logged  # nothing changed in the last commit's vcontext file


def test_deleted_file_through_the_external_diff(repo: Path) -> None:
    run_git(repo, "rm", "-q", TODO)
    env = {**os.environ, "GIT_EXTERNAL_DIFF": f"{_command()} diff", **PERSON}
    proc = _git_env(repo, env, "diff", "--cached")
    assert proc.returncode == 0
    assert "diff --vcontext a/todo.vcontext.json /dev/null\ndeleted file\n" in proc.stdout
    assert 'todoList.items[t2]: − "Task 2" [inProgress]' in proc.stdout


def test_unmerged_path_gets_the_one_argument_form(repo: Path) -> None:
    run_git(repo, "checkout", "-q", "-b", "other")
    _write(repo, TODO, _doc("completed", "inProgress", "pending"))
    _commit(repo, "theirs")
    run_git(repo, "checkout", "-q", "main")
    _write(repo, TODO, _doc("cancelled", "inProgress", "pending"))
    _commit(repo, "ours")
    assert run_git(repo, "merge", "-q", "other", check=False).returncode != 0
    env = {**os.environ, "GIT_EXTERNAL_DIFF": f"{_command()} diff", **PERSON}
    proc = _git_env(repo, env, "diff", "--cached")  # git calls ``diff PATH`` for unmerged paths
    assert proc.returncode == 0, proc.stderr
    assert "* Unmerged path todo.vcontext.json" in proc.stdout
    markers = _git_env(repo, env, "diff", "HEAD")  # the work tree file holds conflict markers
    assert markers.returncode == 0, markers.stderr
    assert "! not a structural diff:" in markers.stdout
    assert "+<<<<<<< HEAD" in markers.stdout


def test_difftool_runs_the_structural_diff(repo: Path) -> None:
    _write(repo, TODO, _doc("pending", "completed", "pending"))
    _commit(repo, "second")
    proc = run_git(repo, "difftool", "-y", "-t", "vcontext", "HEAD~1", "HEAD")
    assert proc.returncode == 0, proc.stderr
    assert "todoList.items[t2].status: inProgress → completed" in proc.stdout


def test_difftool_header_names_the_file_git_knows_not_its_temporary_copies(repo: Path) -> None:
    """The difftool install writes passes $MERGED: the header showed /tmp/XXXX_todo... paths."""
    from git_vcontext.setup.config import config_entries

    cmd = config_entries(_command())["difftool.vcontext.cmd"]
    run_git(repo, "config", "difftool.vcontext.cmd", cmd)
    _write(repo, "sub dir/plan.vcontext.json", _doc("pending"))
    _commit(repo, "second")
    _write(repo, "sub dir/plan.vcontext.json", _doc("blocked"))
    proc = run_git(repo, "difftool", "-y", "-t", "vcontext")
    assert proc.returncode == 0, proc.stderr
    header = proc.stdout.splitlines()[0]
    assert header == "diff --vcontext a/sub dir/plan.vcontext.json b/sub dir/plan.vcontext.json"
    assert "todoList.items[t1].status: pending → blocked" in proc.stdout


def _git_env(repo: Path, env: dict[str, str], *args: str) -> Any:
    import subprocess

    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True)
