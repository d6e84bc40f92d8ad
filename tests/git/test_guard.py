"""The remote guards itself (PRODUCT.md, "The remote guards itself"; issue 28).

A bare remote with ``git vcontext install --server`` (or ``--server --guard``) runs a
``pre-receive`` guard: every ref update (``refs/vcontext/`` included) is checked as the
pre-push hook checks it, so ``git push --no-verify`` — or an agent without the tool —
cannot drop an event, rewrite one, decrease a sequence or push an invalid document. A
refused push leaves every ref of the remote as it was, and its objects do not stay.
Real bare repositories, real ``git push``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import git_vcontext
from helpers import soak
from helpers.guard import (  # noqa: F401 (fixtures)
    clone_with_base,
    edit_json,
    guard_program,
    guarded,
    guarded_clone,
    guarded_remote,
    program,
    push,
    refs,
    remote_lines,
    sneak,
    this_checkout,
)
from helpers.pre_push import PLAYBOOK, TODO, commit, event, playbook, remote_sha, write
from helpers.run import run_cli, run_git


def _refused(proc: object, remote: Path, before: dict[str, str], bad: str, rule: str) -> None:
    """Refused by the guard with ``rule`` named on a ``file:line:col: … [rule]`` line; every
    ref of the remote as it was; the refused commit not kept there."""
    stderr: str = proc.stderr  # type: ignore[attr-defined]
    assert proc.returncode != 0, stderr  # type: ignore[attr-defined]
    said = remote_lines(stderr)
    finding = [line for line in said if line.endswith(f"[{rule}]")]
    assert finding, stderr
    path, line, column = finding[0].split(":", 3)[:3]
    assert path.endswith((".json", ".tron", ".jsonl")) or ".assignment-" in path, finding
    assert line.isdigit(), finding
    assert column.isdigit(), finding
    assert any(bad[:10] in line for line in said), stderr  # the commit is named
    assert "pre-receive hook declined" in stderr
    assert refs(remote) == before
    assert run_git(remote, "cat-file", "-e", bad, check=False).returncode != 0


# -- what install --server puts in place ---------------------------------------------------


def test_install_server_installs_the_guard_beside_the_integration(tmp_path: Path) -> None:
    remote = guarded_remote(tmp_path)
    hooks = remote / "hooks"
    for name in ("pre-receive", "post-receive"):
        text = (hooks / name).read_text()
        assert "git-vcontext-hook-marker" in text, name
    assert program() in (hooks / "post-receive").read_text()
    guard = (hooks / "pre-receive").read_text()  # this Python, from the package's folder
    assert os.path.samefile(guard_program(guard), sys.executable)
    assert str(Path(git_vcontext.__file__).resolve().parents[1]) in guard
    assert "refs/vcontext/server" in refs(remote)
    again = run_cli("install", "--server", cwd=remote)
    assert again.returncode == 0
    assert b"nothing to change" in again.stdout


def test_install_server_guard_installs_the_guard_alone(tmp_path: Path) -> None:
    remote = guarded_remote(tmp_path, "--guard")
    assert "git-vcontext-hook-marker" in (remote / "hooks" / "pre-receive").read_text()
    assert not (remote / "hooks" / "post-receive").exists()
    assert "refs/vcontext/server" not in refs(remote)  # sync --push keeps using its lease


def test_guard_without_server_is_a_usage_error(git_repo: Path) -> None:
    done = run_cli("install", "--guard", cwd=git_repo)
    assert done.returncode == 2
    assert b"--server" in done.stderr
    assert not (git_repo / ".git" / "hooks" / "pre-receive").exists()


def test_uninstall_server_removes_the_guard_and_restores_a_chained_hook(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    mine = "#!/bin/sh\necho 'my own pre-receive' >&2\nexit 0\n"
    (remote / "hooks" / "pre-receive").write_text(mine)
    (remote / "hooks" / "pre-receive").chmod(0o755)
    assert run_cli("install", "--server", cwd=remote).returncode == 0
    assert (remote / "hooks" / "pre-receive.legacy").read_text() == mine

    done = run_cli("uninstall", "--server", cwd=remote)

    assert done.returncode == 0, done.stderr
    assert (remote / "hooks" / "pre-receive").read_text() == mine
    assert not (remote / "hooks" / "pre-receive.legacy").exists()
    assert not (remote / "hooks" / "post-receive").exists()
    assert "refs/vcontext/server" not in refs(remote)


def test_a_chained_pre_receive_hook_runs_first_with_the_same_input(
    tmp_path: Path,
) -> None:
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    seen = tmp_path / "seen.txt"
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\ncat >> '{seen}'\nexit 0\n")
    hook.chmod(0o755)
    assert run_cli("install", "--server", "--guard", cwd=remote).returncode == 0
    repo = clone_with_base(remote, tmp_path / "clone", hook=False)
    assert "refs/heads/main" in seen.read_text()  # the first push went through it

    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    bad = commit(repo, "drop e2")
    before = refs(remote)
    _refused(push(repo, "origin", "main"), remote, before, bad, "history-event-removed")
    assert bad in seen.read_text()  # it ran first, with git's lines, and our check after it


def test_a_chained_pre_receive_hook_that_refuses_refuses_the_push(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\ncat >/dev/null\necho 'policy: no pushes today' >&2\nexit 1\n")
    hook.chmod(0o755)
    assert run_cli("install", "--server", "--guard", cwd=remote).returncode == 0
    repo = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(remote), str(repo))
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    commit(repo, "a good first commit")

    proc = push(repo, "origin", "HEAD:refs/heads/main")

    assert proc.returncode != 0
    assert "policy: no pushes today" in proc.stderr
    assert refs(remote) == {}


@pytest.mark.parametrize("where", ["absolute", "relative"])
def test_install_server_in_a_bare_repository_with_core_hookspath_guards_where_git_runs_hooks(
    tmp_path: Path, where: str
) -> None:
    """PRODUCT.md, "The remote guards itself": the shared remote must not depend on the
    client's hook. A bare repository whose ``core.hooksPath`` names a folder of its team's
    hooks (absolute, or relative: from the git directory, as git reads it) runs its hooks
    from there, never from ``hooks/``: install put the guard in ``hooks/``, said "every push
    here is checked", doctor said "runs: every push is checked", and a dropped changeLog
    pushed with --no-verify went in. Now the guard goes into that folder, chained after the
    team's hook; doctor and uninstall look there too."""
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    folder = tmp_path / "team-hooks" if where == "absolute" else remote / "team-hooks"
    folder.mkdir()
    seen = tmp_path / "seen.txt"
    mine = f"#!/bin/sh\ncat >> '{seen}'\nexit 0\n"
    (folder / "pre-receive").write_text(mine)
    (folder / "pre-receive").chmod(0o755)
    value = str(folder) if where == "absolute" else "team-hooks"
    run_git(remote, "config", "core.hooksPath", value)

    done = run_cli("install", "--server", "--guard", cwd=remote)

    assert done.returncode == 0, done.stderr.decode()
    assert f"core.hooksPath is {folder}" in done.stdout.decode()
    assert (folder / "pre-receive.legacy").read_text() == mine
    assert not (remote / "hooks" / "pre-receive").exists()
    doctor = run_cli("doctor", cwd=remote)
    assert b"pre-receive guard installed and runs, after pre-receive.legacy" in doctor.stdout
    repo = clone_with_base(remote, tmp_path / "clone", hook=False)
    assert "refs/heads/main" in seen.read_text()  # the team's hook still runs first
    before = refs(remote)
    edit_json(repo, TODO, lambda d: d["todoList"].update(changeLog=[]))
    bad = commit(repo, "forget the log")
    _refused(sneak(repo, "origin", "main"), remote, before, bad, "history-changelog-removed")

    assert run_cli("uninstall", "--server", cwd=remote).returncode == 0
    assert (folder / "pre-receive").read_text() == mine
    assert not (folder / "pre-receive.legacy").exists()


# -- what the guard refuses -----------------------------------------------------------------


def test_guard_refuses_a_dropped_event_pushed_with_no_verify(repo: Path, remote: Path) -> None:
    before = refs(remote)
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    bad = commit(repo, "drop the second lesson")

    proc = sneak(repo, "origin", "main")

    _refused(proc, remote, before, bad, "history-event-removed")
    assert any(line.startswith(f"{PLAYBOOK}:") for line in remote_lines(proc.stderr))


def test_guard_refuses_a_rewritten_event(repo: Path, remote: Path) -> None:
    before = refs(remote)
    write(repo, PLAYBOOK, playbook(event("e1", "rewritten"), event("e2", "second")))
    bad = commit(repo, "rewrite the first lesson")

    _refused(sneak(repo, "origin", "main"), remote, before, bad, "history-event-modified")


def test_guard_refuses_a_decreased_sequence(repo: Path, remote: Path) -> None:
    before = refs(remote)
    edit_json(repo, TODO, lambda d: d["todoList"].update(sequence=2))
    bad = commit(repo, "sequence goes back")

    _refused(sneak(repo, "origin", "main"), remote, before, bad, "history-sequence-decreased")


def test_guard_refuses_a_removed_changelog_entry(repo: Path, remote: Path) -> None:
    before = refs(remote)
    edit_json(repo, TODO, lambda d: d["todoList"].update(changeLog=[]))
    bad = commit(repo, "forget the log")

    _refused(sneak(repo, "origin", "main"), remote, before, bad, "history-changelog-removed")


def test_guard_summary_for_a_git_revert_names_the_revert_fix(repo: Path, remote: Path) -> None:
    """One truth with the hook: the guard's last line for a git revert that took a
    document's old version says what the revert's own line says (drop it, then git vcontext
    revert), not --amend."""

    def step(data: dict[str, object]) -> None:
        todo = data["todoList"]
        assert isinstance(todo, dict)
        todo["items"][0]["status"] = "completed"
        todo["sequence"] = 4
        entry = {"sequence": 4, "timestamp": "2026-01-02T00:00:00Z", "operation": "update"}
        todo["changeLog"].append({**entry, "agent": {"id": "alice", "type": "aiAgent"}})

    edit_json(repo, TODO, step)
    done = commit(repo, "t1 done")
    assert push(repo, "origin", "main").returncode == 0
    run_git(repo, "revert", "--no-edit", done)
    proc = sneak(repo, "origin", "main")
    assert proc.returncode != 0, proc.stderr
    [summary] = [line for line in remote_lines(proc.stderr) if "push refused" in line]
    assert "--amend" not in summary, summary
    assert "Drop the git revert (git reset --keep HEAD~1 when it is the last commit" in summary
    assert summary.endswith(f"and run git vcontext revert {done[:7]}, then push again."), summary


def test_guard_refuses_an_invalid_document(repo: Path, remote: Path) -> None:
    before = refs(remote)
    edit_json(repo, TODO, lambda d: d["todoList"]["items"][0].update(status="done"))
    bad = commit(repo, "a status the spec does not have")

    _refused(sneak(repo, "origin", "main"), remote, before, bad, "schema")


def test_guard_refuses_a_document_that_does_not_parse(repo: Path, remote: Path) -> None:
    before = refs(remote)
    (repo / TODO).write_text('{"vContextInfo": {"version": "0.4"}, "todoList": {')
    bad = commit(repo, "truncated")

    _refused(sneak(repo, "origin", "main"), remote, before, bad, "parse")


def test_guard_refuses_an_invalid_vermas_assignment(repo: Path, remote: Path) -> None:
    """VerMAS: ``.work/.assignment-*`` files are in the guard's file set (a bad
    ``task:wo-1`` was pushed before)."""
    before = refs(remote)
    write(repo, ".work/.assignment-worker-1", "task:wo-1\n")
    bad = commit(repo, "assign a task")

    _refused(sneak(repo, "origin", "main"), remote, before, bad, "assignment")


def test_guard_refuses_an_unmerged_fork_a_merge_brings_onto_main(repo: Path, remote: Path) -> None:
    """history-unmerged-fork on the server: a plain git merge that copies an agent's fork
    block onto main is refused (the guard's light path runs that rule too, and leaves the
    push to the full check, which says so); agent branches carry the block freely."""
    fork = {"parentUid": "u1", "parentSequence": 3, "forkedAt": "2026-01-01T00:00:00Z"}
    run_git(repo, "switch", "-q", "-c", "agents/alice")
    edit_json(repo, TODO, lambda d: d["todoList"].update(fork={**fork, "mergeStatus": "unmerged"}))
    commit(repo, "alice forks the list")
    assert sneak(repo, "origin", "agents/alice").returncode == 0  # an agent branch: fine
    run_git(repo, "switch", "-q", "main")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "main moves on")
    run_git(repo, "merge", "-q", "--no-edit", "agents/alice")
    bad = run_git(repo, "rev-parse", "HEAD").stdout.strip()
    before = refs(remote)

    _refused(sneak(repo, "origin", "main"), remote, before, bad, "history-unmerged-fork")


def test_guard_refuses_a_commit_that_undoes_a_sync_merge(repo: Path, remote: Path) -> None:
    """sync-undone on the server: a commit made on a sync merge (its trailer) that takes
    the documents back to before the merge (files an interrupted sync left behind) is
    refused, though no history rule breaks (items are not a log)."""
    run_git(repo, "switch", "-q", "-c", "agents/bob")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "bob learns")
    run_git(repo, "switch", "-q", "-c", "other", "main")
    edit_json(
        repo,
        TODO,
        lambda d: d["todoList"]["items"].append({"id": "t2", "title": "Two", "status": "pending"}),
    )
    commit(repo, "another agent adds t2")
    run_git(repo, "switch", "-q", "agents/bob")
    run_git(repo, "merge", "-q", "-m", "vcontext sync: merge main\n\nVcontext-Sync: test", "other")
    run_git(repo, "checkout", "HEAD^1", "--", TODO)
    bad = commit(repo, "commit the files the sync left behind")
    before = refs(remote)

    proc = sneak(repo, "origin", "agents/bob")

    assert proc.returncode != 0, proc.stderr
    said = remote_lines(proc.stderr)
    assert any(line.startswith(TODO) and line.endswith("[sync-undone]") for line in said), said
    assert any("item t2" in line for line in said), said
    assert refs(remote) == before
    assert run_git(remote, "cat-file", "-e", bad, check=False).returncode != 0


def test_guard_refuses_a_force_push_that_drops_an_event(repo: Path, remote: Path) -> None:
    """A forced update is compared with the ref's old tip, not only commit by commit."""
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a third lesson")
    assert sneak(repo, "origin", "main").returncode == 0
    old = remote_sha(remote, "main")
    before = refs(remote)
    run_git(repo, "switch", "-q", "--orphan", "fresh")  # a history of its own
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    bad = commit(repo, "start over with one lesson")  # a root commit: no parent to break

    proc = sneak(repo, "--force", "origin", "fresh:main")

    assert old is not None
    assert any(f"forced update from {old[:10]}" in line for line in remote_lines(proc.stderr))
    _refused(proc, remote, before, bad, "history-event-removed")


def test_guard_accepts_a_force_push_that_keeps_every_event(repo: Path, remote: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a third lesson")
    assert sneak(repo, "origin", "main").returncode == 0
    run_git(repo, "commit", "-q", "--amend", "-m", "a third lesson, reworded")
    head = run_git(repo, "rev-parse", "HEAD").stdout.strip()

    proc = sneak(repo, "--force", "origin", "main")

    assert proc.returncode == 0, proc.stderr
    assert remote_sha(remote, "main") == head


@pytest.mark.parametrize(
    "ref",
    ["refs/heads/feature", "refs/tags/v1", "refs/vcontext/sync/main/agents/mallory"],
    ids=["new branch", "tag", "sync request"],
)
def test_guard_checks_every_ref_vcontext_requests_included(
    repo: Path, remote: Path, ref: str
) -> None:
    before = refs(remote)
    write(repo, PLAYBOOK, playbook(event("e2", "second")))
    bad = commit(repo, "lose e1")

    _refused(sneak(repo, "origin", f"HEAD:{ref}"), remote, before, bad, "history-event-removed")


def test_guard_refuses_a_branch_deleted_then_pushed_rewritten(repo: Path, remote: Path) -> None:
    run_git(repo, "switch", "-q", "-c", "feature")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    old = commit(repo, "feature: a third lesson")
    assert sneak(repo, "origin", "feature").returncode == 0
    assert sneak(repo, "origin", ":feature").returncode == 0  # deleting a branch is allowed
    run_git(repo, "update-ref", "-d", "refs/remotes/origin/feature", check=False)
    run_git(repo, "reset", "-q", "--hard", "main")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e4", "4")))
    bad = commit(repo, "feature, rewritten: e2 and e3 are gone")
    before = refs(remote)

    proc = sneak(repo, "origin", "feature")

    assert any(f"forced update from {old[:10]}" in line for line in remote_lines(proc.stderr))
    _refused(proc, remote, before, bad, "history-event-removed")


def test_guard_checks_an_unrouting_push_by_the_remote_routing_too(repo: Path, remote: Path) -> None:
    """PRODUCT.md "Validation": the guard takes the stricter of the commit's routing and
    the remote's."""
    attributes = repo / ".gitattributes"
    attributes.write_text(attributes.read_text() + "vbrief/*.json merge=vcontext\n")
    write(repo, "vbrief/pb.json", playbook(event("e1", "first"), event("e2", "second")))
    commit(repo, "route vbrief/")
    assert sneak(repo, "origin", "main").returncode == 0
    before = refs(remote)
    attributes.write_text(attributes.read_text().replace("vbrief/*.json merge=vcontext\n", ""))
    write(repo, "vbrief/pb.json", playbook(event("e1", "first")))
    bad = commit(repo, "un-route vbrief/ and drop an event")

    _refused(sneak(repo, "origin", "main"), remote, before, bad, "history-event-removed")


def test_guard_reads_the_routing_a_push_brings_in_its_own_commits(repo: Path, remote: Path) -> None:
    """PRODUCT.md "Validation": which files is read at the commit being checked, so a user's
    own patterns count. The pushed commits wait in git's quarantine while the guard runs:
    the ``.gitattributes`` they bring must be read from there too (it was not: a push that
    routed ``vbrief/`` and added an invalid document there in one go was let in)."""
    before = refs(remote)
    attributes = repo / ".gitattributes"
    attributes.write_text(attributes.read_text() + "vbrief/*.json merge=vcontext\n")
    write(repo, "vbrief/plan.json", '{"vContextInfo": {"version": "0.4"}, "todoList": {')
    bad = commit(repo, "route vbrief/ and add a truncated document there")

    _refused(sneak(repo, "origin", "main"), remote, before, bad, "parse")


# -- deletions -----------------------------------------------------------------------------


def test_guard_allows_deleting_a_branch(repo: Path, remote: Path) -> None:
    assert sneak(repo, "origin", "main:refs/heads/topic").returncode == 0

    proc = sneak(repo, "origin", ":topic")

    assert proc.returncode == 0, proc.stderr
    assert remote_sha(remote, "refs/heads/topic") is None


def _kept(remote: Path) -> tuple[str, list[str]]:
    """What the guard keeps in the bare repository: its record of deleted tips, its verdicts."""
    record = remote / "vcontext" / "deleted-refs.json"
    packs = (remote / "vcontext" / "verdicts").glob("*/*.pack.json")
    return (record.read_text() if record.exists() else "", sorted(p.name for p in packs))


def test_guard_a_refused_push_leaves_no_trace(repo: Path, remote: Path) -> None:
    """A push that deletes a branch and drops an event elsewhere is refused whole: the
    deletion is not remembered (a later push re-creating the branch is not compared with a
    tip it never lost) and no verdict of the refused push is kept."""
    assert sneak(repo, "origin", "main:refs/heads/topic").returncode == 0
    kept = _kept(remote)
    before = refs(remote)
    write(repo, PLAYBOOK, playbook(event("e2", "second")))
    bad = commit(repo, "lose e1")

    proc = sneak(repo, "origin", ":topic", "main")

    _refused(proc, remote, before, bad, "history-event-removed")
    assert _kept(remote) == kept
    assert "refs/heads/topic" not in kept[0]

    allowed = sneak(repo, "origin", ":topic")  # the same deletion alone: let in, remembered
    assert allowed.returncode == 0, allowed.stderr
    assert "refs/heads/topic" in _kept(remote)[0]


def test_guard_refuses_deleting_the_default_branch_and_names_the_override(
    repo: Path, remote: Path
) -> None:
    before = refs(remote)

    proc = sneak(repo, "origin", ":main")

    assert proc.returncode != 0
    said = " ".join(remote_lines(proc.stderr))
    assert "refs/heads/main" in said
    assert "git config vcontext.guard.allowDelete true" in said
    assert refs(remote) == before

    assert "receive.denyDeleteCurrent" in said  # git's own refusal, named too
    run_git(remote, "config", "vcontext.guard.allowDelete", "true")
    run_git(remote, "config", "receive.denyDeleteCurrent", "ignore")
    allowed = sneak(repo, "origin", ":main")
    assert allowed.returncode == 0, allowed.stderr
    assert remote_sha(remote, "refs/heads/main") is None


# -- what lands ---------------------------------------------------------------------------


def test_guard_lets_good_pushes_land(repo: Path, remote: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    edit_json(repo, TODO, lambda d: d["todoList"].update(sequence=4))
    first = commit(repo, "a third lesson, the list moves on")
    run_git(repo, "switch", "-q", "-c", "topic")
    write(repo, "docs/readme.txt", "not a vContext file\n")
    second = commit(repo, "a file the guard does not judge")

    main = sneak(repo, "origin", "main")
    topic = push(repo, "origin", "topic", "refs/heads/topic:refs/tags/v1")

    assert main.returncode == 0, main.stderr
    assert topic.returncode == 0, topic.stderr
    assert remote_sha(remote, "main") == first
    assert remote_sha(remote, "refs/heads/topic") == second
    assert remote_sha(remote, "refs/tags/v1") == second


def _object(repo: Path, *args: str, data: str | None = None) -> str:
    """An object written in ``repo`` (``hash-object``/``mktree``/``write-tree`` args)."""
    import subprocess

    done = subprocess.run(
        ["git", *args], cwd=repo, input=data, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_guard_judges_a_tag_of_a_tree_as_the_files_it_holds(repo: Path, remote: Path) -> None:
    """git allows a tag of a tree; its documents are judged as a root commit's files: a tree
    holding an invalid document is refused, a good one let in."""
    good = _object(repo, "write-tree")
    assert sneak(repo, "origin", f"{good}:refs/tags/good-tree").returncode == 0
    assert remote_sha(remote, "refs/tags/good-tree") == good

    edit_json(repo, TODO, lambda d: d["todoList"]["items"][0].update(status="bogus"))
    run_git(repo, "add", "-A")
    bad = _object(repo, "write-tree")
    before = refs(remote)

    proc = sneak(repo, "origin", f"{bad}:refs/tags/bad-tree")

    assert proc.returncode != 0, proc.stderr
    said = remote_lines(proc.stderr)
    assert any(line.startswith(f"{TODO}:") and line.endswith("]") for line in said), said
    assert any(f"tree {bad[:10]}" in line for line in said), said
    assert refs(remote) == before


def test_guard_judges_a_tag_of_a_blob_that_is_a_document(repo: Path, remote: Path) -> None:
    """A tag of a blob: a document is judged like any other (a broken one refused, named by
    the tag), a blob that is no document (a key, a text) let in with a note."""
    key = _object(repo, "hash-object", "-w", "--stdin", data="-----BEGIN PGP PUBLIC KEY-----\n")
    let_in = sneak(repo, "origin", f"{key}:refs/tags/signing-key")
    assert let_in.returncode == 0, let_in.stderr
    assert any("not a vContext document" in line for line in remote_lines(let_in.stderr))

    fine = (repo / PLAYBOOK).read_text()
    good = _object(repo, "hash-object", "-w", "--stdin", data=fine)
    assert sneak(repo, "origin", f"{good}:refs/tags/playbook").returncode == 0

    broken = _object(repo, "hash-object", "-w", "--stdin", data=fine[: len(fine) // 2])
    before = refs(remote)
    proc = sneak(repo, "origin", f"{broken}:refs/tags/broken-playbook")

    assert proc.returncode != 0, proc.stderr
    said = remote_lines(proc.stderr)
    assert any(
        line.startswith("refs/tags/broken-playbook:") and line.endswith("[parse]") for line in said
    ), said
    assert refs(remote) == before


def _empty_root_commit(repo: Path, message: str) -> str:
    """A commit of the empty tree without parents, as ``sync --push`` takes its lease with."""
    tree = run_git(repo, "hash-object", "-t", "tree", "-w", "/dev/null").stdout.strip()
    return run_git(repo, "commit-tree", tree, "-m", message).stdout.strip()


def _without_pygit2(tmp_path: Path) -> dict[str, str]:
    """An environment whose Python cannot import pygit2: only a guard that never opens the
    repository can answer in it (anything else refuses: the guard could not run)."""
    fake = tmp_path / "no-pygit2" / "pygit2"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('pygit2 is not here')\n")
    here = str(Path(git_vcontext.__file__).resolve().parents[1])
    return {"PYTHONPATH": f"{fake.parent}:{here}"}


def test_guard_lets_sync_lease_in_without_opening_the_repository(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    """The guard must not slow ``sync --push`` down: taking the lease (a ref created at an
    empty root commit, also again after its release) changes no file, so the guard answers
    without importing pygit2; a push of good documents is judged by the light path (git's
    plumbing, no pygit2) and let in. A push with a finding, in the same environment, goes
    to the full check (and is refused here: the guard cannot run without pygit2)."""
    env = _without_pygit2(tmp_path)
    lease = "refs/vcontext/lease/main"
    first = _empty_root_commit(repo, "lease 1")
    taken = push(repo, "--no-verify", "origin", f"{first}:{lease}", env=env)
    assert taken.returncode == 0, taken.stderr
    released = push(repo, "--no-verify", "origin", f":{lease}", env={})  # the full guard
    assert released.returncode == 0, released.stderr
    second = _empty_root_commit(repo, "lease 2")
    again = push(repo, "--no-verify", "origin", f"{second}:{lease}", env=env)
    assert again.returncode == 0, again.stderr
    assert remote_sha(remote, lease) == second

    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    good = commit(repo, "a good commit")
    assert push(repo, "--no-verify", "origin", f":{lease}", env={}).returncode == 0
    third = _empty_root_commit(repo, "lease 3")  # with the round, as sync --push takes it
    light = push(repo, "--no-verify", "origin", "main", f"{third}:{lease}", env=env)
    assert light.returncode == 0, light.stderr
    assert remote_sha(remote, "main") == good
    assert remote_sha(remote, lease) == third

    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e3", "3")))
    commit(repo, "drop e2")
    judged = push(repo, "--no-verify", "origin", "main", env=env)
    assert judged.returncode != 0
    said = [line for line in remote_lines(judged.stderr) if line]
    assert len(said) == 1, judged.stderr  # a dependency gone: one line, refused
    assert "could not run" in said[0]
    assert "refused" in said[0]


def _lease_on(repo: Path, base: str, message: str) -> str:
    """A lease commit as ``sync --push`` takes it now: on the base's tip, with its tree."""
    tree = run_git(repo, "rev-parse", f"{base}^{{tree}}").stdout.strip()
    return run_git(repo, "commit-tree", tree, "-p", base, "-m", message).stdout.strip()


def test_guard_lets_lease_commits_of_both_shapes_in_without_opening_the_repository(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    """One truth for lease commits (remote/refs.py): a lease on the base's tip with its tree
    (this version) and a root commit of the empty tree (older versions, on the same remote)
    change no file; taken, released and taken again in any order, even after the base
    moved, the guard lets each in without importing pygit2 (nothing_to_check), and a lease
    ref is never judged as a forced update from the lease it had."""
    env = _without_pygit2(tmp_path)
    lease = "refs/vcontext/lease/main"
    taken = []
    for n, old_version in enumerate([False, True, False, False]):
        if n == 3:  # the base moves between two leases: their trees differ
            write(
                repo,
                PLAYBOOK,
                playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")),
            )
            commit(repo, "a third lesson")
            assert push(repo, "--no-verify", "origin", "main").returncode == 0
        if old_version:
            commit_id = _empty_root_commit(repo, f"lease {n}")
        else:
            commit_id = _lease_on(repo, "main", f"lease {n}")
        proc = push(repo, "--no-verify", "origin", f"{commit_id}:{lease}", env=env)
        assert proc.returncode == 0, proc.stderr
        assert remote_sha(remote, lease) == commit_id
        taken.append(commit_id)
        assert push(repo, "--no-verify", "origin", f":{lease}", env={}).returncode == 0
    assert len(set(taken)) == 4
    fsck = run_git(remote, "fsck", "--no-dangling", check=False)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr


def test_guard_judges_a_lease_on_a_commit_no_ref_holds(repo: Path, remote: Path) -> None:
    """The guard judges the commits reachable from no ref the repository had (module
    docstring of prepush.check): a lease commit whose parent is only loose in the
    repository's store (on no ref: there before the guard was installed, never judged)
    brings that parent onto a ref. The fast path (nothing_to_check) let it in unjudged;
    the full check refuses it (found in the review of 2d89178)."""
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    bad = commit(repo, "drop the second lesson")
    run_git(repo, "reset", "-q", "--hard", "HEAD~1")
    run_git(remote, "fetch", "-q", str(repo), bad)  # loose in its store, on no ref
    (remote / "FETCH_HEAD").unlink()
    assert run_git(remote, "cat-file", "-t", bad).stdout.strip() == "commit"
    lease = _lease_on(repo, bad, "a lease on it")
    before = refs(remote)

    proc = push(repo, "--no-verify", "origin", f"{lease}:refs/vcontext/lease/main")

    assert proc.returncode != 0, proc.stderr
    assert any(line.endswith("[history-event-removed]") for line in remote_lines(proc.stderr))
    assert "pre-receive hook declined" in proc.stderr
    assert refs(remote) == before


def test_guard_never_judges_a_lease_ref_as_a_forced_update(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    """A lease taken on a base that was rewritten meanwhile (its tree drops an event the
    released lease's tree had): the lease ref's old commit is no history of documents, so
    the full check (a push the light path leaves to it: a tag of a blob beside the lease)
    and the light path let it in; a lease ref set to a commit that changes files is still
    judged as any commit (a lease ref is no way around the guard)."""
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a third lesson")
    assert push(repo, "--no-verify", "origin", "main").returncode == 0
    lease = "refs/vcontext/lease/main"
    first = _lease_on(repo, "main", "lease 1")
    assert push(repo, "--no-verify", "origin", f"{first}:{lease}").returncode == 0
    assert push(repo, "--no-verify", "origin", f":{lease}").returncode == 0
    run_git(repo, "reset", "-q", "--hard", "HEAD~1")  # the base rewritten on the server
    run_git(
        remote, "update-ref", "refs/heads/main", run_git(repo, "rev-parse", "HEAD").stdout.strip()
    )
    key = _object(repo, "hash-object", "-w", "--stdin", data="-----BEGIN PGP PUBLIC KEY-----\n")
    second = _lease_on(repo, "main", "lease 2")
    full = push(repo, "--no-verify", "origin", f"{second}:{lease}", f"{key}:refs/tags/k")
    assert full.returncode == 0, full.stderr
    assert remote_sha(remote, lease) == second
    third = _empty_root_commit(repo, "an older version's lease")  # breaking it, as expired
    env = {"GIT_VCONTEXT_HOOK_VERBOSE": "1"}
    light = push(repo, "--no-verify", "--force", "origin", f"{third}:{lease}", "main", env=env)
    assert light.returncode == 0, light.stderr
    assert "guard (light)" in light.stderr
    assert remote_sha(remote, lease) == third

    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    dropped = commit(repo, "drop e2")
    before = refs(remote)
    proc = push(repo, "--no-verify", "--force", "origin", f"{dropped}:{lease}")
    assert proc.returncode != 0, proc.stderr
    assert any(line.endswith("[history-event-removed]") for line in remote_lines(proc.stderr))
    assert refs(remote) == before


def test_guard_judges_an_empty_root_commit_in_full_where_a_deleted_branch_had_documents(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    """The light path is only for what is certain: a branch deleted, then created again at
    an empty root commit, is compared with the tip it had (its events dropped: refused)."""
    run_git(repo, "switch", "-q", "-c", "feature")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "feature: a third lesson")
    assert sneak(repo, "origin", "feature").returncode == 0
    assert sneak(repo, "origin", ":feature").returncode == 0
    empty = _empty_root_commit(repo, "nothing left")
    before = refs(remote)

    proc = sneak(repo, "origin", f"{empty}:refs/heads/feature")

    assert proc.returncode != 0, proc.stderr
    assert any(line.endswith("[history-event-removed]") for line in remote_lines(proc.stderr))
    assert refs(remote) == before
    assert (
        "could not run"
        in push(
            repo,
            "--no-verify",
            "origin",
            f"{empty}:refs/heads/feature",
            env=_without_pygit2(tmp_path),
        ).stderr
    )  # not the light path


def test_guard_and_integration_share_the_verdict_cache(tmp_path: Path) -> None:
    remote = guarded_remote(tmp_path)
    clone_with_base(remote, tmp_path / "clone", hook=False)
    packs = list((remote / "vcontext" / "verdicts").glob("*/*.pack.json"))
    assert packs, "the guard kept no verdicts in the bare repository"


# -- a guard that cannot run ----------------------------------------------------------------


def _break(remote: Path) -> str:
    """The guard's program gone (the package uninstalled on the server): its path in the
    hook points nowhere now. Returns that path."""
    gone = str(remote.parent / "removed" / "bin" / "python3")
    hook = remote / "hooks" / "pre-receive"
    text = hook.read_text()
    hook.write_text(text.replace(guard_program(text), gone))
    return gone


def test_a_guard_that_cannot_run_refuses_with_one_line(repo: Path, remote: Path) -> None:
    gone = _break(remote)
    before = refs(remote)
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a good commit")

    proc = sneak(repo, "origin", "main")

    assert proc.returncode != 0
    said = [line for line in remote_lines(proc.stderr) if line]
    assert len(said) == 1, proc.stderr
    assert gone in said[0]
    assert "refused" in said[0]
    assert refs(remote) == before


def test_a_guard_whose_package_is_gone_refuses_with_one_line(
    repo: Path, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The program is there but the package it imports is not (a half-removed install: the
    folder install recorded holds it no more): Python's traceback is not shown as the
    verdict; one line says the guard did not run."""
    hook = remote / "hooks" / "pre-receive"
    package = str(Path(git_vcontext.__file__).resolve().parents[1])
    hook.write_text(hook.read_text().replace(package, str(remote.parent / "gone")))
    monkeypatch.delenv("PYTHONPATH")  # (the fixture's: the checkout, found without the hook)
    before = refs(remote)
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a good commit")

    proc = sneak(repo, "origin", "main")

    assert proc.returncode != 0
    said = [line for line in remote_lines(proc.stderr) if line]
    assert len(said) == 1, proc.stderr
    assert "could not run" in said[0]
    assert "refused" in said[0]
    assert refs(remote) == before


def test_doctor_in_the_bare_repository_says_what_is_wrong_with_the_guard(
    repo: Path, remote: Path
) -> None:
    healthy = run_cli("doctor", cwd=remote)
    out = healthy.stdout.decode()
    assert healthy.returncode == 0, out + healthy.stderr.decode()
    assert "pre-receive" in out

    gone = _break(remote)
    broken = run_cli("doctor", cwd=remote)

    said = broken.stdout.decode()
    assert broken.returncode == 1, said + broken.stderr.decode()
    problem = [line for line in said.splitlines() if line.startswith("problem:")]
    assert problem, said
    assert gone in problem[0], said
    assert "git vcontext install --server" in said
    assert "Traceback" not in broken.stderr.decode()


def test_doctor_run_by_root_runs_another_users_hook_command_as_that_user(tmp_path: Path) -> None:
    """doctor checks that the server hooks' commands run by running them: in a bare
    repository another user owns, root runs the command it reads from that user's hooks as
    that user (who runs them at every push), never as root."""
    import subprocess

    from helpers import git_servers as servers

    try:
        user = servers.other_user()
    except servers.Unavailable as exc:
        pytest.skip(str(exc))
    folder = servers.shared_tmp("vcontext-doctor-")
    try:
        remote = guarded_remote(folder)  # the guard and the integration
        spy, ran = folder / "spy", folder / "ran-as"
        spy.write_text(f"#!/bin/sh\nid -u >> {ran}\nexit 0\n")
        spy.chmod(0o755)
        ran.write_text("")
        for name in ("pre-receive", "post-receive"):
            hook = remote / "hooks" / name
            text = hook.read_text()
            real = guard_program(text) if name == "pre-receive" else program()
            hook.write_text(text.replace(real, str(spy)))
        subprocess.run(["chown", "-R", f"{user.uid}:{user.gid}", "--", str(remote)], check=True)
        os.chown(ran, user.uid, user.gid)
        env = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory"}
        env["GIT_CONFIG_VALUE_0"] = "*"

        done = run_cli("doctor", cwd=remote, env=env)

        said = done.stdout.decode() + done.stderr.decode()
        assert "Traceback" not in said
        assert ran.read_text().split() == [str(user.uid)] * 2, said  # both hooks, as the owner
        assert "guard installed and runs" in said, said
    finally:
        subprocess.run(["rm", "-rf", "--", str(folder)], check=False)


def test_doctor_in_a_bare_repository_without_the_guard_says_so(tmp_path: Path) -> None:
    remote = tmp_path / "plain.git"
    run_git(tmp_path, "init", "-q", "--bare", str(remote))

    done = run_cli("doctor", cwd=remote)

    said = done.stdout.decode()
    assert done.returncode == 1, said + done.stderr.decode()
    assert "pre-receive" in said
    assert "git vcontext install --server" in said


# -- sync --push through the guard ----------------------------------------------------------


@pytest.mark.parametrize("server", [False, True], ids=["lease", "install --server"])
def test_sync_push_lands_through_the_guard_and_check_passes_its_history(
    tmp_path: Path, server: bool
) -> None:
    """Sync at scale with the guard: agents' ``sync --push`` (with the lease, or with the
    server's integration) lands every round, nothing lost; the base's history then passes
    ``check`` in every format (what the tool writes, the guard and check accept)."""
    remote, clones = soak.setup(tmp_path, 2, hooks=True, server=server, guard=True)
    assert "git-vcontext-hook-marker" in (remote / "hooks" / "pre-receive").read_text()
    logs = [soak.AgentLog(f"agent-{i}") for i in range(len(clones))]
    for r in range(2):
        for i, clone in enumerate(clones):
            soak.work(clone, f"agent-{i}", r, logs[i])
            done = soak.sync(clone, f"agent-{i}")
            assert done["exit"] == 0, done["output"]
            assert "pre-receive hook declined" not in done["output"]
    run = soak.SoakRun(remote, clones, logs, [], 0.0)
    fresh = tmp_path / "fresh"
    docs = soak.base_documents(remote, fresh)
    assert soak.lost(run, docs) == {"items": [], "plan_items": [], "events": [], "changes": []}
    for fmt in ("text", "json", "github"):
        checked = run_cli("check", "--format", fmt, "main", cwd=fresh)  # the whole history
        assert checked.returncode == 0, (fmt, checked.stdout, checked.stderr)


# -- objects made to mislead a reader that is not git --------------------------------------


def _fed(repo: Path, data: str | bytes, *args: str) -> str:
    """git ARGS with ``data`` on stdin: its output, stripped."""
    raw = data.encode() if isinstance(data, str) else data
    done = subprocess.run(["git", *args], cwd=repo, input=raw, capture_output=True, check=True)
    return done.stdout.decode().strip()


def _invalid_todo_blob(repo: Path) -> str:
    bad = '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": "nope"}}\n'
    return _fed(repo, bad, "hash-object", "-w", "--stdin")


def _tree_of(repo: Path, entries: list[tuple[str, str, str]]) -> str:
    """A tree object written as given (no sorting, no checks: as a crafted push may)."""
    raw = b"".join(f"{mode} {name}".encode() + b"\0" + bytes.fromhex(oid)
                   for mode, name, oid in entries)  # fmt: skip
    return _fed(repo, raw, "hash-object", "-t", "tree", "-w", "--literally", "--stdin")


def test_guard_reads_a_commit_with_a_second_tree_line_as_git_does(repo: Path, remote: Path) -> None:
    """A commit whose header has another ``tree`` line after the committer: git (and the
    server's checkout of it) uses the first, the invalid document; the guard judges that
    one, not the valid tree named later."""
    before = refs(remote)
    parent = run_git(repo, "rev-parse", "HEAD").stdout.strip()
    good_tree = run_git(repo, "rev-parse", "HEAD^{tree}").stdout.strip()
    write(repo, TODO, '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": "nope"}}\n')
    run_git(repo, "add", "-A")
    bad_tree = run_git(repo, "write-tree").stdout.strip()
    run_git(repo, "reset", "-q", "--hard", parent)
    text = (f"tree {bad_tree}\nparent {parent}\nauthor P <p@e> 1700000000 +0000\n"
            f"committer P <p@e> 1700000000 +0000\ntree {good_tree}\n\nmisleading\n")  # fmt: skip
    crafted = _fed(repo, text, "hash-object", "-t", "commit", "-w", "--literally", "--stdin")
    assert run_git(repo, "rev-parse", f"{crafted}^{{tree}}").stdout.strip() == bad_tree

    pushed = sneak(repo, "origin", f"{crafted}:refs/heads/main")

    assert pushed.returncode != 0, pushed.stderr
    assert "pre-receive hook declined" in pushed.stderr
    assert refs(remote) == before


def test_guard_reads_a_tree_with_two_entries_of_one_name_as_git_does(
    repo: Path, remote: Path
) -> None:
    """A tree holding ``todo.vcontext.json`` twice, the invalid blob first: git reads the
    first; the guard must not judge the second (a dict keeps the last)."""
    before = refs(remote)
    folder, name = TODO.rsplit("/", 1)
    entries: list[tuple[str, str, str]] = []
    for row in run_git(repo, "ls-tree", f"HEAD:{folder}").stdout.splitlines():
        meta, entry = row.split("\t", 1)
        mode, _, oid = meta.split(" ")
        if entry == name:  # the invalid one first, where git looks
            entries.append(("100644", name, _invalid_todo_blob(repo)))
        entries.append((mode, entry, oid))
    inner = _tree_of(repo, entries)
    top = run_git(repo, "rev-parse", "HEAD^{tree}").stdout.strip()
    listed = run_git(repo, "ls-tree", top).stdout.splitlines()
    rows = [row if not row.endswith(f"\t{folder}") else f"040000 tree {inner}\t{folder}"
            for row in listed]  # fmt: skip
    root = _fed(repo, "\n".join(rows) + "\n", "mktree", "--missing")
    crafted = run_git(repo, "commit-tree", root, "-p", "HEAD", "-m", "two of one name").stdout
    assert run_git(repo, "cat-file", "-p", f"{crafted.strip()}:{TODO}").stdout.count("nope") == 1

    pushed = sneak(repo, "origin", f"{crafted.strip()}:refs/heads/main")

    assert pushed.returncode != 0, pushed.stderr
    assert "pre-receive hook declined" in pushed.stderr
    assert refs(remote) == before


def test_guard_reads_objects_as_pushed_whatever_replace_refs_say(repo: Path, remote: Path) -> None:
    """git's plumbing reads ``refs/replace/<id>`` as "read this other object instead"
    (``git replace``), and a replace ref is pushed like any other. A pusher who first lands
    ``refs/replace/<bad commit>`` pointing at a good commit must not get the bad commit in:
    the guard judges the objects a push holds, not what a replace ref stands in for them."""
    base = run_git(repo, "rev-parse", "HEAD").stdout.strip()
    write(repo, TODO, '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": "nope"}}\n')
    bad = commit(repo, "an invalid list")
    run_git(repo, "reset", "-q", "--hard", base)
    edit_json(repo, TODO, lambda d: d["todoList"].update(sequence=4))
    good = commit(repo, "the list moves on")
    landed = sneak(repo, "origin", f"{good}:refs/heads/good", f"{good}:refs/replace/{bad}")
    assert landed.returncode == 0, landed.stderr
    before = refs(remote)

    pushed = sneak(repo, "origin", f"{bad}:refs/heads/main")

    assert pushed.returncode != 0, pushed.stderr
    assert "pre-receive hook declined" in pushed.stderr
    assert "todoList.items" in pushed.stderr or "[" in pushed.stderr
    assert refs(remote) == before


HEAVY_FOR_THE_GUARD = {
    "pygit2", "click", "subprocess", "typing", "dataclasses", "inspect", "pathlib",
    "json", "hashlib", "_hashlib", "shutil", "tempfile",
}  # fmt: skip
LIGHT_WITHOUT = {"re", "enum", "functools", "collections", "fnmatch", "signal"}


def _guard_imports(stderr: str) -> set[str]:
    """The modules the guard's process loaded (``-X importtime`` lines, shown as ``remote:``)."""
    names = set()
    for line in remote_lines(stderr):
        if line.startswith("import time:") and line.count("|") == 2:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def test_guard_light_path_and_lease_load_no_heavy_module(repo: Path, remote: Path) -> None:
    """The guard must not slow ``sync --push`` down (issue 28): every push a server
    receives starts it, so the light path that judges an ordinary push, and the lease
    taken alone, load neither pygit2 nor subprocess (git's plumbing is started with
    posix_spawn), typing, dataclasses, pathlib, the json package, hashlib or shutil."""
    env = {"PYTHONPROFILEIMPORTTIME": "1", "GIT_VCONTEXT_HOOK_VERBOSE": "1"}
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a good commit")
    lease = "refs/vcontext/lease/main"
    light = push(repo, "--no-verify", "origin", "main", f"{_empty_root_commit(repo, 'l')}:{lease}",
                 env=env)  # fmt: skip
    assert light.returncode == 0, light.stderr
    assert "guard (light)" in light.stderr
    loaded = _guard_imports(light.stderr)
    assert "git_vcontext.prepush.light" in loaded, light.stderr
    assert not loaded & HEAVY_FOR_THE_GUARD, sorted(loaded & HEAVY_FOR_THE_GUARD)
    # re (with enum, functools, collections) costs ~5-8 ms of each run: clean documents are
    # judged without it (timestamps read by hand, findings located only when there are some)
    assert not loaded & LIGHT_WITHOUT, sorted(loaded & LIGHT_WITHOUT)

    assert push(repo, "--no-verify", "origin", f":{lease}").returncode == 0
    alone = push(repo, "--no-verify", "origin", f"{_empty_root_commit(repo, 'm')}:{lease}", env=env)
    assert alone.returncode == 0, alone.stderr
    loaded = _guard_imports(alone.stderr)
    assert "git_vcontext.commands.pre_receive" in loaded, alone.stderr
    assert "git_vcontext.prepush.light" not in loaded  # nothing to check: not even that
    assert not loaded & (HEAVY_FOR_THE_GUARD | {"re", "enum"}), sorted(loaded)


def test_guard_refuses_a_force_push_beside_a_branch_built_on_the_old_tip(
    repo: Path, remote: Path
) -> None:
    """The light path finds a ref's old tip in the push's own new commits (no git
    merge-base): only along that ref's new tip. A forced update pushed together with
    another branch whose new commit sits on the old tip is still a forced update."""
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a third lesson")
    assert sneak(repo, "origin", "main").returncode == 0
    old = remote_sha(remote, "main")
    run_git(repo, "switch", "-q", "-c", "other")
    edit_json(repo, TODO, lambda d: d["todoList"].update(sequence=4))
    commit(repo, "other builds on main's tip")
    run_git(repo, "switch", "-q", "--orphan", "fresh")
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    bad = commit(repo, "start over with one lesson")
    before = refs(remote)

    proc = sneak(repo, "--force", "origin", "other:refs/heads/other", "fresh:main")

    assert old is not None
    assert any(f"forced update from {old[:10]}" in line for line in remote_lines(proc.stderr))
    _refused(proc, remote, before, bad, "history-event-removed")
