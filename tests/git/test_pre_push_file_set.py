"""The pre-push hook against a real remote: which files it checks, moves, configs, conflicts.

PRODUCT.md "Validation": the hook checks the vContext file set read at the pushed commit
(install's patterns plus what its .gitattributes routes to the driver); a document
removed by a commit that adds its events elsewhere was moved; a structured conflict
and a config file are told apart from a merged document.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_pre_push_hook import (
    PLAYBOOK,
    bare_remote,
    commit,
    event,
    installed_and_pushed,
    playbook,
    push,
    remote_sha,
    todo,
    write,
)

import git_vcontext
from conftest import run_cli, run_git


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return bare_remote(tmp_path)


@pytest.fixture
def repo(git_repo: Path, remote: Path) -> Path:
    """git-vcontext installed, a playbook on main, pushed to ``origin``."""
    return installed_and_pushed(git_repo, remote)


def convert_to_tron(repo: Path, rel: str, data: object) -> None:
    """Write ``data`` as TRON at ``rel`` with the real ``convert`` command."""
    (repo / rel).parent.mkdir(parents=True, exist_ok=True)
    proc = run_cli(
        "convert",
        "--to",
        "tron",
        "-o",
        str(repo / rel),
        "-",
        cwd=repo,
        input=json.dumps(data).encode(),
    )
    assert proc.returncode == 0, proc.stderr


BAD_TODO = {
    "vContextInfo": {"version": "0.4"},
    "todoList": {"items": [{"title": "A", "status": "done"}]},
}


def test_a_file_the_pushed_commit_routes_to_the_driver_is_checked(repo: Path) -> None:
    """A user's own pattern (vbrief/**/*.json) counts, read at the commit being pushed."""
    write(
        repo,
        ".gitattributes",
        (repo / ".gitattributes").read_text() + "vbrief/**/*.json merge=vcontext\n",
    )
    write(repo, "vbrief/deep/plan.json", BAD_TODO)
    bad = commit(repo, "A plan under the user's pattern")
    proc = push(repo, "origin", "main")
    assert proc.returncode == 1, proc.stderr
    assert "vbrief/deep/plan.json:" in proc.stderr and "[schema]" in proc.stderr
    assert bad[:10] in proc.stderr


def test_the_work_tree_attributes_do_not_change_what_a_commit_is_judged_by(
    repo: Path, remote: Path
) -> None:
    write(repo, "other/plan.json", BAD_TODO)  # not routed by the committed attributes
    head = commit(repo, "A JSON file git merges by lines")
    attributes = repo / ".gitattributes"
    attributes.write_text(attributes.read_text() + "other/*.json merge=vcontext\n")  # not committed
    proc = push(repo, "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert remote_sha(remote, "main") == head


def test_converting_a_playbook_from_json_to_tron_is_a_move(repo: Path, remote: Path) -> None:
    """PRODUCT.md history rules: a removal whose events all reappear in a document the same
    commit adds (a JSON -> TRON conversion) removes nothing."""
    run_git(repo, "rm", "-q", PLAYBOOK)
    tron = PLAYBOOK.replace(".json", ".tron")
    convert_to_tron(repo, tron, playbook(event("e1", "first")))
    head = commit(repo, "Convert the playbook to TRON")
    proc = push(repo, "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert remote_sha(remote, "main") == head


def test_moving_a_playbook_to_another_directory_with_edits_is_a_move(repo: Path) -> None:
    run_git(repo, "rm", "-q", PLAYBOOK)
    events = [event("e1", "first")] + [event(f"e{i}", f"lesson {i}") for i in range(2, 12)]
    write(repo, "archive/2026/lessons.vcontext.json", playbook(*events))
    commit(repo, "Move the playbook and add ten lessons")
    proc = push(repo, "origin", "main")
    assert proc.returncode == 0, proc.stderr


def test_a_conversion_that_drops_or_edits_an_event_is_still_refused(repo: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second")))
    commit(repo, "Second lesson")
    assert push(repo, "origin", "main").returncode == 0
    run_git(repo, "rm", "-q", PLAYBOOK)
    tron = PLAYBOOK.replace(".json", ".tron")
    edited = playbook(event("e1", "first, rewritten"), event("e2", "second"))
    convert_to_tron(repo, tron, edited)
    commit(repo, "Convert, rewriting a lesson on the way")
    proc = push(repo, "origin", "main")
    assert proc.returncode == 1
    assert "[history-event-modified]" in proc.stderr and tron in proc.stderr
    run_git(repo, "reset", "-q", "--hard", "origin/main")
    run_git(repo, "rm", "-q", PLAYBOOK)
    write(repo, "memory/other.vcontext.json", playbook(event("e1", "first")))  # e2 is gone
    commit(repo, "Keep only the first lesson")
    proc = push(repo, "origin", "main")
    assert proc.returncode == 1, proc.stderr
    assert "'e2'" in proc.stderr and "[history-event-removed]" in proc.stderr


def test_a_structured_conflict_committed_as_merged_is_refused(repo: Path) -> None:
    """PRODUCT.md "Validation" (conflict-unresolved), from a real merge with
    merge.vcontext.conflictStyle structured."""
    run_git(repo, "config", "merge.vcontext.conflictStyle", "structured")
    item = {"id": "t1", "title": "T1", "status": "pending"}
    write(repo, "memory/todo.vcontext.json", todo(items=[item]))
    commit(repo, "A todo list")
    run_git(repo, "checkout", "-q", "-b", "agent")
    write(repo, "memory/todo.vcontext.json", todo(items=[{**item, "status": "completed"}]))
    commit(repo, "Agent completes t1")
    run_git(repo, "checkout", "-q", "main")
    write(repo, "memory/todo.vcontext.json", todo(items=[{**item, "status": "blocked"}]))
    commit(repo, "Main blocks t1")
    assert run_git(repo, "merge", "--no-edit", "agent", check=False).returncode == 1
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "--no-edit")  # as if the conflict were resolved
    proc = push(repo, "origin", "main")
    assert proc.returncode == 1
    assert "[conflict-unresolved]" in proc.stderr and "$.todoList.items[0].status" in proc.stderr
    done = run_cli("validate", "memory/todo.vcontext.json", cwd=repo)
    assert done.returncode == 1 and b"[conflict-unresolved]" in done.stdout


def test_a_config_among_the_documents_is_pushed_with_a_note(repo: Path, remote: Path) -> None:
    """PRODUCT.md "Validation": a JSON file in the patterns that is not a vContext document
    is skipped with a note, not refused."""
    write(repo, ".vcontext/config.json", {"agents": ["alice"], "theme": "dark"})
    head = commit(repo, "Tool configuration")
    proc = push(repo, "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert remote_sha(remote, "main") == head
    assert ".vcontext/config.json: not a vContext document (" in proc.stderr
    assert "git-vcontext: note:" in proc.stderr


@pytest.mark.parametrize("value", [{}, {"version": 0.4}])
def test_a_document_without_a_proper_version_is_refused(repo: Path, value: object) -> None:
    """PRODUCT.md "Validation": an empty vContextInfo or a numeric version turned every
    schema check off, so the bad status below went through."""
    doc = {"vContextInfo": value, "todoList": {"items": [{"title": "A", "status": "done"}]}}
    write(repo, "memory/todo.vcontext.json", doc)
    commit(repo, "No proper version")
    proc = push(repo, "origin", "main")
    assert proc.returncode == 1
    assert "[version]" in proc.stderr and "[schema]" in proc.stderr


def test_doctor_uses_the_same_set_and_notes_configs(repo: Path) -> None:
    """doctor alike (PRODUCT.md "Validation"): routed files count as covered, a config is a
    note, not a problem."""
    attributes = repo / ".gitattributes"
    attributes.write_text(attributes.read_text() + "vbrief/**/*.json merge=vcontext\n")
    write(repo, "vbrief/deep/plan.json", todo())
    write(repo, ".vcontext/config.json", {"theme": "dark"})
    commit(repo, "A routed plan and a config")
    proc = run_cli("doctor", cwd=repo)
    out = proc.stdout.decode()
    assert proc.returncode == 0, out
    assert "ok: 2 vContext file(s) covered by the attributes" in out
    assert "note: 1 file(s) among the vContext files are not vContext documents" in out
    assert ".vcontext/config.json" in out
