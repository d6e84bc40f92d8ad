"""The installed pre-push hook against a real bare remote: what reaches the shared remote."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import git_vcontext
from helpers.pre_push import (
    PLAYBOOK,
    TODO,
    ZERO,
    bare_remote,
    commit,
    event,
    installed_and_pushed,
    playbook,
    push,
    remote_sha,
    sha,
    todo,
    write,
)
from helpers.run import cli_path, run_cli, run_git
from helpers.seed_examples import seed_example


def hook(repo: Path, text: str, *args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    """The hook body as the shim calls it, with git's ref lines on stdin."""
    return run_cli("hook", "pre-push", *args, cwd=repo, input=text.encode(), env=env)


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return bare_remote(tmp_path)


@pytest.fixture
def repo(git_repo: Path, remote: Path) -> Path:
    return installed_and_pushed(git_repo, remote)


def rewrite_event(repo: Path) -> str:
    write(repo, PLAYBOOK, playbook(event("e1", "rewritten")))
    return commit(repo, "Rewrite the first lesson")


def test_valid_commits_are_pushed(repo: Path, remote: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second")))
    head = commit(repo, "Append a lesson")
    proc = push(repo, "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert remote_sha(remote, "main") == head


def test_rewriting_a_playbook_event_is_refused_naming_file_commit_and_rule(
    repo: Path, remote: Path
) -> None:
    before = remote_sha(remote, "main")
    bad = rewrite_event(repo)
    proc = push(repo, "origin", "main")
    assert proc.returncode != 0
    assert remote_sha(remote, "main") == before
    assert f"{PLAYBOOK}:" in proc.stderr
    assert "playbook.items[e1]" in proc.stderr
    assert "[history-event-modified]" in proc.stderr
    assert bad[:10] in proc.stderr
    assert "Rewrite the first lesson" in proc.stderr
    assert "refs/heads/main" in proc.stderr
    assert "--no-verify" not in proc.stderr  # findings: the bypass is not advertised


def test_deleting_an_event_is_refused_naming_the_event(repo: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e2", "other")))
    commit(repo, "Replace the lessons")
    proc = push(repo, "origin", "main")
    assert proc.returncode != 0
    assert "'e1'" in proc.stderr
    assert "[history-event-removed]" in proc.stderr
    assert "--no-verify" not in proc.stderr  # pushing findings anyway loses others' work


def test_no_verify_bypasses_the_hook(repo: Path, remote: Path) -> None:
    bad = rewrite_event(repo)
    proc = push(repo, "--no-verify", "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert remote_sha(remote, "main") == bad


def test_a_forced_push_dropping_pushed_events_is_refused(repo: Path, remote: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second")))
    pushed = commit(repo, "Append e2")
    assert push(repo, "origin", "main").returncode == 0
    run_git(repo, "reset", "-q", "--hard", "HEAD~1")
    write(repo, TODO, todo())
    commit(repo, "Other work")  # every new commit is fine on its own
    proc = push(repo, "--force", "origin", "main")
    assert proc.returncode != 0
    assert "forced update from " + pushed[:10] in proc.stderr
    assert "'e2'" in proc.stderr
    assert "[history-event-removed]" in proc.stderr
    assert remote_sha(remote, "main") == pushed


def test_a_forced_push_keeping_every_event_passes(repo: Path) -> None:
    write(repo, TODO, todo(sequence=1))
    commit(repo, "Todo")
    assert push(repo, "origin", "main").returncode == 0
    run_git(repo, "commit", "-q", "--amend", "-m", "Todo, reworded")
    proc = push(repo, "--force", "origin", "main")
    assert proc.returncode == 0, proc.stderr


def test_an_unparseable_document_is_refused(repo: Path) -> None:
    write(repo, TODO, '{"vContextInfo": {"version": "0.4"}, "todoList": {')
    commit(repo, "Half a document")
    proc = push(repo, "origin", "main")
    assert proc.returncode != 0
    assert f"{TODO}:1:" in proc.stderr
    assert "[parse]" in proc.stderr


def test_a_new_branch_checks_only_commits_the_remote_lacks(repo: Path, remote: Path) -> None:
    rewrite_event(repo)
    assert push(repo, "--no-verify", "origin", "main").returncode == 0  # already on the remote
    run_git(repo, "checkout", "-q", "-b", "feature")
    write(repo, TODO, todo(sequence=1))
    head = commit(repo, "Add a todo list")
    proc = push(repo, "origin", "feature", GIT_VCONTEXT_HOOK_VERBOSE="1")
    assert proc.returncode == 0, proc.stderr
    assert "checked 1 commit(s)" in proc.stderr
    assert remote_sha(remote, "feature") == head


def test_a_new_branch_with_a_bad_commit_is_refused(repo: Path, remote: Path) -> None:
    run_git(repo, "checkout", "-q", "-b", "feature")
    rewrite_event(repo)
    proc = push(repo, "origin", "feature")
    assert proc.returncode != 0
    assert "[history-event-modified]" in proc.stderr
    assert remote_sha(remote, "feature") is None


def test_deleting_a_remote_branch_passes(repo: Path, remote: Path) -> None:
    run_git(repo, "checkout", "-q", "-b", "feature")
    rewrite_event(repo)
    assert push(repo, "--no-verify", "origin", "feature").returncode == 0
    proc = push(repo, "origin", "--delete", "feature")
    assert proc.returncode == 0, proc.stderr
    assert remote_sha(remote, "feature") is None


def test_a_remote_sha_unknown_here_falls_back_and_says_so(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(remote), str(other)], check=True)
    run_git(other, "config", "user.email", "o@example.com")
    run_git(other, "config", "user.name", "Other")
    write(other, TODO, todo(sequence=1))
    commit(other, "Someone else's work")
    assert push(other, "origin", "main").returncode == 0
    rewrite_event(repo)  # not fetched: the remote's main is unknown here
    proc = push(repo, "--force", "origin", "main")
    assert proc.returncode != 0
    assert "is not known here" in proc.stderr
    assert "[history-event-modified]" in proc.stderr


def test_unknown_remote_sha_with_good_commits_passes(repo: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second")))
    head = commit(repo, "Append")
    line = f"refs/heads/main {head} refs/heads/main {'1234abcd' * 5}\n"
    proc = hook(repo, line, "origin", "url", GIT_VCONTEXT_HOOK_VERBOSE="1")
    assert proc.returncode == 0, proc.stderr
    assert b"is not known here" in proc.stderr
    assert b"checked 1 commit(s)" in proc.stderr


def test_tags_are_checked_at_the_commit_they_point_to(repo: Path, remote: Path) -> None:
    run_git(repo, "tag", "-a", "-m", "good", "v1", "main")
    assert push(repo, "origin", "v1").returncode == 0
    assert remote_sha(remote, "v1") is not None
    rewrite_event(repo)
    run_git(repo, "tag", "-a", "-m", "bad", "v2")
    proc = push(repo, "origin", "v2")
    assert proc.returncode != 0
    assert "refs/tags/v2" in proc.stderr
    assert "[history-event-modified]" in proc.stderr
    assert remote_sha(remote, "v2") is None


def test_a_multi_ref_push_checks_every_ref(repo: Path, remote: Path) -> None:
    run_git(repo, "checkout", "-q", "-b", "feature")
    rewrite_event(repo)
    run_git(repo, "checkout", "-q", "main")
    write(repo, TODO, todo(sequence=1))
    commit(repo, "Good")
    proc = push(repo, "origin", "main", "feature")
    assert proc.returncode != 0
    assert "refs/heads/feature -> origin refs/heads/feature" in proc.stderr
    assert "refs/heads/main ->" not in proc.stderr


def test_a_branch_not_checked_out_is_checked_from_its_commits(repo: Path, remote: Path) -> None:
    run_git(repo, "checkout", "-q", "-b", "feature")
    rewrite_event(repo)
    run_git(repo, "checkout", "-q", "main")
    write(repo, PLAYBOOK, "not even json")  # the working tree is not what is pushed
    proc = push(repo, "origin", "feature")
    assert proc.returncode != 0
    assert "[history-event-modified]" in proc.stderr
    assert "[parse]" not in proc.stderr
    write(repo, TODO, todo())
    run_git(repo, "add", TODO)
    run_git(repo, "commit", "-q", "-m", "Good", "--", TODO)
    proc = push(repo, "origin", "main")
    assert proc.returncode == 0, proc.stderr


def test_a_merge_commit_is_checked_against_every_parent(repo: Path) -> None:
    run_git(repo, "checkout", "-q", "-b", "feature")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "from feature")))
    commit(repo, "Feature lesson")
    run_git(repo, "checkout", "-q", "main")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e3", "from main")))
    commit(repo, "Main lesson")
    run_git(repo, "merge", "-q", "-s", "ours", "--no-edit", "-m", "Merge dropping e2", "feature")
    proc = push(repo, "origin", "main")
    assert proc.returncode != 0
    assert "Merge dropping e2" in proc.stderr
    assert "'e2'" in proc.stderr
    assert "[history-event-removed]" in proc.stderr
    assert "'e3'" not in proc.stderr


def test_a_merge_keeping_both_parents_events_passes(repo: Path) -> None:
    run_git(repo, "checkout", "-q", "-b", "feature")
    write(repo, TODO, todo(sequence=1))
    commit(repo, "Feature todo")
    run_git(repo, "checkout", "-q", "main")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e3", "from main")))
    commit(repo, "Main lesson")
    run_git(repo, "merge", "-q", "--no-edit", "feature")
    proc = push(repo, "origin", "main")
    assert proc.returncode == 0, proc.stderr


FORK = {
    "parentUid": "u1",
    "parentSequence": 1,
    "forkedAt": "2026-01-01T00:00:00Z",
    "mergeStatus": "unmerged",
}


def _alice_forks_the_todo(repo: Path) -> None:
    """main holds a todo list (pushed); agents/alice adds its fork block (pushed)."""
    write(repo, TODO, todo(uid="u1", sequence=1))
    commit(repo, "Todo")
    assert push(repo, "origin", "main").returncode == 0
    run_git(repo, "checkout", "-q", "-b", "agents/alice")
    write(repo, TODO, todo(uid="u1", sequence=2, fork=FORK))
    commit(repo, "Fork for alice")
    assert push(repo, "origin", "agents/alice").returncode == 0
    run_git(repo, "checkout", "-q", "main")


def test_history_unmerged_fork_a_merge_commit_brings_onto_main_is_refused(
    repo: Path, remote: Path
) -> None:
    """PRODUCT.md "Validation", history rules: a merge commit that brings a fork block in
    from an agent parent that had it, while main's own parent did not (a plain git merge
    copies the document verbatim), is refused; agent branches carry it freely.

    (Before issue 26 the rule judged main's two tips, so a fast-forward onto the fork
    commit was refused too; a fork block committed directly is now accepted, and the test
    makes the merge commit the rule is about.)"""
    _alice_forks_the_todo(repo)
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "main moves on")))
    commit(repo, "main moves on")
    run_git(repo, "merge", "-q", "--no-edit", "agents/alice")
    merge = sha(repo, "HEAD")
    proc = push(repo, "origin", "main")
    assert proc.returncode != 0
    assert "todoList.fork" in proc.stderr
    assert "[history-unmerged-fork]" in proc.stderr
    assert f"merge commit {merge[:10]}" in proc.stderr


def test_history_unmerged_fork_committed_directly_is_accepted(repo: Path, remote: Path) -> None:
    """An imported forked document (as the spec's A2 example is) is no merge of an agent."""
    write(repo, TODO, todo(uid="u1", sequence=2, fork=FORK))
    head = commit(repo, "Import a forked todo list")
    proc = push(repo, "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert remote_sha(remote, "main") == head
    # and a later merge of an ordinary branch does not make it "arrive"
    run_git(repo, "checkout", "-q", "-b", "feature")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "feature")))
    commit(repo, "Feature")
    run_git(repo, "checkout", "-q", "main")
    write(repo, "notes.txt", "main\n")
    commit(repo, "main note")
    run_git(repo, "merge", "-q", "--no-edit", "feature")
    proc = push(repo, "origin", "main")
    assert proc.returncode == 0, proc.stderr


def test_the_seeds_a2_plan_committed_on_main_is_pushed(
    repo: Path, remote: Path, shared_dir: Path
) -> None:
    """Issue 26, point 9: seed 000's Appendix A2 plan (a fork block with mergeStatus
    "unmerged"), imported on main as written, validates and passes the hook."""
    text = seed_example(shared_dir, "000", "A2. Plan", "json")
    write(repo, "plans/webhooks.vcontext.json", text)
    assert run_cli("validate", "plans/webhooks.vcontext.json", cwd=repo).returncode == 0
    head = commit(repo, "Import the A2 plan")
    proc = push(repo, "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert remote_sha(remote, "main") == head


def _items(*sequences: int) -> list[dict[str, Any]]:
    return [
        {"id": f"t{n}", "title": f"Task {n}", "status": "pending", "sequence": s}
        for n, s in enumerate(sequences, 1)
    ]


@pytest.mark.parametrize(
    ("where", "before", "after"),
    [
        ("todoList.items[t2].sequence", todo(items=_items(1, 3)), todo(items=_items(1, 1))),
        (
            "todoList.items[t1].subItems[t1.1].sequence",
            todo(items=[{**_items(1)[0], "subItems": [{**_items(4)[0], "id": "t1.1"}]}]),
            todo(items=[{**_items(1)[0], "subItems": [{**_items(2)[0], "id": "t1.1"}]}]),
        ),
        ("todoList.sequence", todo(sequence=3), todo(sequence=1)),
        (
            "vContextInfo.sequence",
            {"vContextInfo": {"version": "0.4", "sequence": 3}, "todoList": {"items": []}},
            {"vContextInfo": {"version": "0.4", "sequence": 1}, "todoList": {"items": []}},
        ),
    ],
    ids=["item", "sub-item", "container", "info"],
)
def test_history_sequence_decreased_at_every_level_is_refused(
    repo: Path, remote: Path, where: str, before: dict[str, Any], after: dict[str, Any]
) -> None:
    """Issue 26, point 8: an item's sequence going 3 -> 1 was pushed (only containers and
    playbook.version were judged). Every level is checked."""
    write(repo, TODO, before)
    commit(repo, "Todo")
    assert push(repo, "origin", "main").returncode == 0
    write(repo, TODO, after)
    bad = commit(repo, "Sequence goes down")
    proc = push(repo, "origin", "main")
    assert proc.returncode != 0
    assert remote_sha(remote, "main") != bad
    assert f"{where}: sequence went down" in proc.stderr
    assert "[history-sequence-decreased]" in proc.stderr


def _verdict_pack(repo: Path, head: str) -> tuple[Path, dict[str, Any]]:
    """The verdict cache's pack file that holds commit ``head``, and its entries."""
    (current,) = (repo / ".git" / "vcontext" / "verdicts").iterdir()
    (pack,) = [p for p in current.glob("*.pack.json") if head in p.read_text()]
    return pack, json.loads(pack.read_text())


def test_second_push_of_the_same_objects_uses_the_cache(repo: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second")))
    head = commit(repo, "Append")
    line = f"refs/heads/main {head} refs/heads/main {sha(repo, 'origin/main')}\n"
    assert hook(repo, line, "origin", "url").returncode == 0
    pack, verdicts = _verdict_pack(repo, head)
    blob = sha(repo, f"{head}:{PLAYBOOK}")
    assert verdicts[f"b-json-{blob}"] == []
    assert verdicts[f"c-{head}"] == {}
    # Prove the second run reads the verdict instead of checking again: plant one.
    planted = ["planted", "", "verdict from the cache", None, None, ""]
    verdicts[f"c-{head}"] = {PLAYBOOK: [planted]}
    pack.write_text(json.dumps(verdicts))
    again = hook(repo, line, "origin", "url", GIT_VCONTEXT_HOOK_VERBOSE="1")
    assert again.returncode == 1
    assert b"verdict from the cache [planted]" in again.stderr
    assert b"misses 0" in again.stderr


@pytest.mark.parametrize(
    "damage",
    [{"README.md": 5}, "not rows", [["too", "short"]], [[1, 2, 3, 4, 5, 6, 7, 8]]],
    ids=["not-a-list", "a-string", "short-row", "long-row"],
)
def test_a_damaged_verdict_cache_entry_is_checked_again_not_a_crash(
    repo: Path, damage: Any
) -> None:
    write(repo, PLAYBOOK, "{not json")
    head = commit(repo, "Break the playbook")
    line = f"refs/heads/main {head} refs/heads/main {sha(repo, 'origin/main')}\n"
    assert hook(repo, line, "origin", "url").returncode == 1
    pack, verdicts = _verdict_pack(repo, head)
    pack.write_text(json.dumps({key: damage for key in verdicts}))
    again = hook(repo, line, "origin", "url")
    assert again.returncode == 1, again.stderr
    assert b"[parse]" in again.stderr
    assert b"internal error" not in again.stderr


def test_concurrent_hooks_share_the_cache_safely(repo: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second")))
    head = commit(repo, "Append")
    line = f"refs/heads/main {head} refs/heads/main {sha(repo, 'origin/main')}\n"
    procs = [
        subprocess.Popen(
            [*cli_path(), "hook", "pre-push", "origin", "url"],
            cwd=repo,
            stdin=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(4)
    ]
    for proc in procs:  # all of them start checking before any is waited for
        assert proc.stdin is not None
        proc.stdin.write(line.encode())
        proc.stdin.close()
    for proc in procs:
        assert proc.wait() == 0
        assert proc.stderr is not None
        assert proc.stderr.read() == b""
    folder = repo / ".git" / "vcontext" / "verdicts"
    packs = list(folder.glob("*/*.pack.json"))
    loaded = [json.loads(p.read_text()) for p in packs]  # every pack whole
    assert any(f"c-{head}" in pack for pack in loaded)
    assert not list(folder.glob("*/.*"))  # no temporary file left behind


def test_a_chained_legacy_hook_still_runs_first(git_repo: Path, remote: Path) -> None:
    run_git(git_repo, "remote", "add", "origin", str(remote))
    legacy = git_repo / ".git" / "hooks" / "pre-push"
    seen = git_repo.parent / "legacy-saw.txt"
    legacy.write_text(f'#!/bin/sh\ncat > "{seen}"\nexit "${{LEGACY_EXIT:-0}}"\n')
    legacy.chmod(0o755)
    assert run_cli("install", cwd=git_repo).returncode == 0
    assert (git_repo / ".git" / "hooks" / "pre-push.before-vcontext").exists()
    assert not (git_repo / ".git" / "hooks" / "pre-push.legacy").exists()  # pre-commit's name
    write(git_repo, PLAYBOOK, playbook(event("e1", "first")))
    head = commit(git_repo, "base")
    assert push(git_repo, "origin", "main").returncode == 0
    assert f"refs/heads/main {head} refs/heads/main {ZERO}" in seen.read_text()
    rewrite_event(git_repo)
    proc = push(git_repo, "origin", "main")
    assert proc.returncode != 0
    assert "[history-event-modified]" in proc.stderr
    write(git_repo, TODO, todo())
    run_git(git_repo, "reset", "-q", "--hard", "origin/main")
    write(git_repo, TODO, todo())
    commit(git_repo, "Good")
    refused = push(git_repo, "origin", "main", LEGACY_EXIT="1")
    assert refused.returncode != 0  # the legacy hook still has its say


def test_empty_input_passes_without_opening_a_repository(tmp_path: Path) -> None:
    proc = hook(tmp_path, "", "origin", "url")
    assert proc.returncode == 0
    assert proc.stderr == b""


def test_an_object_that_cannot_be_read_refuses_the_push(repo: Path) -> None:
    line = f"refs/heads/main {'ab' * 20} refs/heads/main {sha(repo, 'HEAD')}\n"
    proc = hook(repo, line, "origin", "url")
    assert proc.returncode == 3
    assert b"push refused" in proc.stderr
    assert b"Traceback" not in proc.stderr


def test_malformed_input_refuses_the_push(repo: Path) -> None:
    proc = hook(repo, "what is this\n", "origin", "url")
    assert proc.returncode == 3
    assert b"push refused" in proc.stderr
    assert b"--no-verify skips this check" in proc.stderr  # a hook that cannot run


def test_pre_commit_framework_variables_describe_the_push(repo: Path) -> None:
    base = sha(repo, "HEAD")
    bad = rewrite_event(repo)
    env = {
        "PRE_COMMIT_FROM_REF": base,
        "PRE_COMMIT_TO_REF": bad,
        "PRE_COMMIT_REMOTE_NAME": "origin",
        "PRE_COMMIT_REMOTE_BRANCH": "refs/heads/main",
        "PRE_COMMIT_LOCAL_BRANCH": "refs/heads/main",
    }
    proc = hook(repo, "", **env)
    assert proc.returncode == 1
    assert b"[history-event-modified]" in proc.stderr
    assert bad[:10].encode() in proc.stderr
    good = hook(repo, "", **{**env, "PRE_COMMIT_TO_REF": base})
    assert good.returncode == 0, good.stderr


def test_pre_commit_framework_root_push_names_only_the_branches(
    git_repo: Path, remote: Path
) -> None:
    """Pushing history that starts with a root commit: no FROM/TO refs, whole history."""
    run_git(git_repo, "remote", "add", "origin", str(remote))
    write(git_repo, PLAYBOOK, playbook(event("e1", "first")))
    commit(git_repo, "base")
    bad = rewrite_event(git_repo)
    env = {"PRE_COMMIT_LOCAL_BRANCH": "refs/heads/main", "PRE_COMMIT_REMOTE_BRANCH": "main"}
    proc = hook(git_repo, "", **env)
    assert proc.returncode == 1
    assert bad[:10].encode() in proc.stderr
    assert b"whole history" in proc.stderr


def test_doctor_checks_the_hook_runs_and_uninstall_removes_the_cache(repo: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second")))
    commit(repo, "Append")
    assert push(repo, "origin", "main").returncode == 0
    doctor = run_cli("doctor", cwd=repo)
    assert b"ok: pre-push hook installed and runs" in doctor.stdout, doctor.stdout
    shim = repo / ".git" / "hooks" / "pre-push"
    shim.write_text(shim.read_text().replace("hook pre-push", "hook pre-push --nope"))
    assert b"ok: pre-push hook" not in run_cli("doctor", cwd=repo).stdout
    assert (repo / ".git" / "vcontext" / "verdicts").is_dir()
    assert run_cli("uninstall", cwd=repo).returncode == 0
    assert not (repo / ".git" / "vcontext").exists()


def test_installing_never_breaks_git_a_hook_whose_program_is_gone_lets_the_push_through_and_says_so(
    repo: Path,
) -> None:
    """A moved or removed installation: git's own push goes on (as without the tool),
    saying that nothing was checked and the fix; doctor names it too."""
    from git_vcontext.setup.hooks import hook_text

    shim = repo / ".git" / "hooks" / "pre-push"
    shim.write_text(hook_text("'/nonexistent dir/git-vcontext'"))
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second")))
    head = commit(repo, "Append")
    proc = push(repo, "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert "pushed WITHOUT the vContext check" in proc.stderr
    assert "fix: git vcontext install" in proc.stderr
    assert remote_sha(repo / ".." / "remote.git", "refs/heads/main") == head
    doctor = run_cli("doctor", cwd=repo).stdout.decode()
    assert "problem: the pre-push hook's command does not run" in doctor


def test_empty_input_loads_neither_click_nor_pygit2() -> None:
    probe = (
        "import io, sys; sys.stdin = io.StringIO('');"
        "from git_vcontext.entry import main;"
        "code = main(['hook', 'pre-push', 'origin', 'url']);"
        "print(code, ' '.join(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    code, modules = out.stdout.split(" ", 1)
    assert code == "0", out.stderr
    assert not {"click", "pygit2", "json", "dataclasses"} & set(modules.split())


PATHS = [
    "todo.vcontext.json",
    "deep/dir/plan.vcontext.tron",
    "a.vbrief.json",
    ".vcontext/notes.json",
    "sub/.vcontext/notes.json",
    ".vcontext/deeper/notes.json",
    ".work/events.jsonl",
    "x/.work/events.jsonl",
    "package.json",
    "vcontext.json",
    "todo.vcontext.json.bak",
]


def test_hook_paths_are_the_ones_gitattributes_sends_to_the_driver(git_repo: Path) -> None:
    """One matcher: the hook checks exactly the files install's attribute lines cover."""
    from git_vcontext.document import matches_file_patterns

    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    out = run_git(git_repo, "check-attr", "merge", "--", *PATHS).stdout.splitlines()
    by_git = {line.split(": ")[0]: line.endswith(": vcontext") for line in out}
    assert {p: matches_file_patterns(p) for p in PATHS} == by_git
    assert by_git["todo.vcontext.json"]
    assert not by_git["package.json"]
