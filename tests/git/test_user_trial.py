"""Defects a new user met following the README literally (a trial round): each with the
command that showed it, run against real git."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from helpers.run import run_cli, run_git

TODO = {
    "vContextInfo": {"version": "0.4"},
    "todoList": {"items": [{"id": "t1", "title": "A", "status": "pending"}]},
}


def _installed(repo: Path) -> None:
    done = run_cli("install", cwd=repo)
    assert done.returncode == 0, done.stderr.decode()


def _write(repo: Path, name: str, value: object) -> None:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")


def _titled(title: str) -> dict[str, object]:
    return {**TODO, "todoList": {"items": [{"id": "t1", "title": title, "status": "pending"}]}}


def test_advice_for_a_conflicted_path_with_a_newline_stays_on_one_line(git_repo: Path) -> None:
    """``conflicts`` ends with the resolve command to copy; the merge driver names the file:
    a newline in the name splits neither line."""
    name = "a\nb.vcontext.json"
    _installed(git_repo)
    _write(git_repo, name, _titled("A"))
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-qm", "base")
    run_git(git_repo, "switch", "-qc", "x")
    _write(git_repo, name, _titled("X"))
    run_git(git_repo, "commit", "-qam", "x")
    run_git(git_repo, "switch", "-q", "main")
    _write(git_repo, name, _titled("Y"))
    run_git(git_repo, "commit", "-qam", "y")
    merged = run_git(git_repo, "merge", "x", check=False)
    assert merged.returncode == 1
    said = [line for line in merged.stderr.splitlines() if line.startswith("git-vcontext:")]
    assert said
    assert said[0].startswith('git-vcontext: "a\\nb.vcontext.json": 1 conflict(s)')
    listed = run_cli("conflicts", cwd=git_repo)
    assert listed.returncode == 1
    last = listed.stderr.decode().splitlines()[-1]
    assert "resolve $'a\\nb.vcontext.json' [--conflict ID]" in last


def test_case_collision_is_one_note_in_validate_hook_guard_and_check(tmp_path: Path) -> None:
    """A copy of a document beside it under a name differing only in case (one file on a
    case-insensitive file system) is accepted with the same note, naming both paths, by
    validate, the pre-push hook, the server's guard and check in every format."""
    from helpers.guard import clone_with_base, guarded_remote, push, remote_lines, sneak
    from helpers.pre_push import TODO as BASE_TODO

    remote = guarded_remote(tmp_path)
    clone = clone_with_base(remote, tmp_path / "clone")
    copy = BASE_TODO.replace("todo.", "TODO.")
    (clone / copy).write_bytes((clone / BASE_TODO).read_bytes())
    run_git(clone, "add", "-A")
    run_git(clone, "commit", "-qm", "a copy beside it")
    said = "differs from this path only in case: on a case-insensitive file system"

    valid = run_cli("validate", cwd=clone)
    assert valid.returncode == 0
    notes = [ln for ln in valid.stdout.decode().splitlines() if "[case-collision]" in ln]
    assert sorted(ln.split(": note: ")[0] for ln in notes) == sorted([BASE_TODO, copy])
    assert all(said in ln for ln in notes)

    github = run_cli("check", "--format", "github", "origin/main..HEAD", cwd=clone)
    assert github.returncode == 0, github.stdout
    assert (
        f"::warning file={copy},title=case-collision::{BASE_TODO} {said}" in github.stdout.decode()
    )
    for fmt, marker in (("text", "git-vcontext: note: "), ("json", "")):
        checked = run_cli("check", "--format", fmt, "origin/main..HEAD", cwd=clone)
        assert checked.returncode == 0, checked.stdout
        out = checked.stdout.decode()
        line = f"{copy}: {BASE_TODO} {said}"
        if fmt == "json":
            assert any(n.startswith(line) for n in json.loads(out)["notes"])
        else:
            assert f"{marker}{line}" in out

    hooked = push(clone, "--dry-run", "origin", "main")  # the pre-push hook runs on a dry run
    assert hooked.returncode == 0, hooked.stderr
    assert f"git-vcontext: note: {copy}: {BASE_TODO} {said}" in hooked.stderr

    guarded = sneak(clone, "origin", "main")
    assert guarded.returncode == 0, guarded.stderr
    assert any(f"{copy}: {BASE_TODO} {said}" in ln for ln in remote_lines(guarded.stderr))


def test_a_document_renamed_and_edited_in_one_commit_names_the_event_it_lost(
    git_repo: Path,
) -> None:
    """git does not pair a document renamed and rewritten in one commit (a delete and an add):
    the check pairs it by its events and names the one dropped, at the new path, instead of
    calling the file deleted."""
    from helpers.pre_push import event, playbook

    old, new = "notes/pläybook one.vcontext.json", "notes/pläybook twö.vcontext.json"
    (git_repo / "notes").mkdir()
    (git_repo / old).write_text(json.dumps(playbook(event("e1", "one"), event("e2", "two"))))
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-qm", "base")
    run_git(git_repo, "mv", old, new)
    _write(git_repo, new, playbook(event("e1", "one")))
    run_git(git_repo, "commit", "-qam", "rename and drop e2")
    checked = run_cli("check", "--format", "json", "HEAD~1..HEAD", cwd=git_repo)
    assert checked.returncode == 1
    findings = json.loads(checked.stdout)["findings"]
    assert [(f["path"], f["rule"], f["pointer"]) for f in findings] == [
        (new, "history-event-removed", "/playbook/items/1")
    ]
    assert "'e2' was removed" in findings[0]["message"]


def _advised_check(stderr: bytes) -> str:
    import re

    found = re.search(r"\(git vcontext check ([^ :;)]+)", stderr.decode())
    assert found is not None, stderr
    return found.group(1)


def test_check_with_no_upstream_and_no_other_branch_advises_a_range_that_runs(
    git_repo: Path,
) -> None:
    """A first repository (no remote, one branch): the advice named origin/main..HEAD, an
    unknown revision here; it names the whole history, which runs. No commit yet: said."""
    unborn = run_cli("check", cwd=git_repo)
    assert unborn.returncode == 3
    assert (
        unborn.stderr.decode().strip()
        == "git-vcontext: error: main has no commits yet: nothing to check"
    )
    _write(git_repo, "todo.vcontext.json", TODO)
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-qm", "first")
    alone = run_cli("check", cwd=git_repo)
    assert alone.returncode == 3
    assert "origin/main" not in alone.stderr.decode()
    again = run_cli("check", _advised_check(alone.stderr), cwd=git_repo)
    assert again.returncode == 0, again.stderr


def test_check_in_a_bare_repository_advises_a_revision_not_an_upstream(
    git_repo: Path, tmp_path: Path
) -> None:
    """A server with no hook installed: check in the bare repository names a revision's
    history (no 'git branch --set-upstream-to', which a bare repository has no use for)."""
    _write(git_repo, "todo.vcontext.json", TODO)
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-qm", "first")
    bare = tmp_path / "server.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(git_repo), str(bare))
    run_git(git_repo, "switch", "-qc", "topic")
    run_git(git_repo, "push", "-q", str(bare), "topic")
    told = run_cli("check", cwd=bare)
    assert told.returncode == 3
    said = told.stderr.decode()
    assert "a bare repository has no upstream" in said
    assert "set-upstream" not in said
    again = run_cli("check", _advised_check(told.stderr), cwd=bare)
    assert again.returncode == 0, again.stderr


def test_the_way_out_of_an_interrupted_syncs_conflict_runs_with_spaces_in_paths(
    tmp_path: Path,
) -> None:
    """The command an interrupted sync's conflicting edit is told to run quotes the work tree
    and the files (a space split them: 'git -C work tree checkout HEAD -- my notes.txt')."""
    import subprocess

    from git_vcontext.errors import Unfinished
    from git_vcontext.gitio import open_repo
    from git_vcontext.sync.catchup import merge_edits

    work = tmp_path / "work tree"
    run_git(tmp_path, "init", "-q", "-b", "main", str(work))
    name = "my notes.txt"
    (work / name).write_text("a\n")
    run_git(work, "add", "-A")
    run_git(work, "commit", "-qm", "old")
    old = run_git(work, "rev-parse", "HEAD").stdout.strip()
    (work / name).write_text("b\n")
    run_git(work, "commit", "-qam", "new")
    new = run_git(work, "rev-parse", "HEAD").stdout.strip()
    (work / name).write_text("c\n")  # an edit of the file from before the update
    try:
        merge_edits(open_repo(work), str(work), old, new, [name], branch="main")
    except Unfinished as exc:
        said = exc.one_line()
    else:
        raise AssertionError("a conflicting edit must stop the update")
    command = said.split("run: ", 1)[1].split(";", 1)[0]
    subprocess.run(["sh", "-c", command], cwd=tmp_path, check=True)
    assert (work / name).read_text() == "b\n"


def test_install_server_guard_after_a_full_install_says_the_integration_stays(
    tmp_path: Path,
) -> None:
    """``install --server --guard`` ("the guard alone") on a remote that has the integration
    said only "nothing to change": it now says the integration stays, and the commands that
    leave the guard alone, which do."""
    from helpers.guard import guarded_remote

    remote = guarded_remote(tmp_path)
    again = run_cli("install", "--server", "--guard", cwd=remote)
    assert again.returncode == 0
    said = again.stdout.decode()
    assert "The integration installed earlier stays" in said
    advised = said.split("For the guard alone: ", 1)[1].rstrip().rstrip(".").split(", then ")
    assert advised == ["git vcontext uninstall --server", "git vcontext install --server --guard"]
    for command in advised:
        assert run_cli(*command.split()[2:], cwd=remote).returncode == 0
    assert not (remote / "hooks" / "post-receive").exists()
    assert (remote / "hooks" / "pre-receive").exists()
    assert run_git(remote, "for-each-ref", "refs/vcontext/").stdout == ""
    alone = run_cli("install", "--server", "--guard", cwd=remote).stdout.decode()
    assert "stays" not in alone


def test_file_lists_of_doctor_and_validate_keep_a_newline_in_a_name_on_one_line(
    git_repo: Path,
) -> None:
    """doctor's problem and validate's note list file names: C-quoted as git shows them, so
    a newline in a name does not split the line."""
    _installed(git_repo)
    _write(git_repo, "sub/x\ny.json", TODO)
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-qm", "unrouted")
    doctor = run_cli("doctor", cwd=git_repo).stdout.decode().splitlines()
    assert any(
        ln.startswith("problem: 1 vContext file(s) outside the attribute patterns")
        and ln.endswith('"sub/x\\ny.json"; add to .gitattributes (and commit it):')
        for ln in doctor
    ), doctor
    noted = run_cli("validate", cwd=git_repo).stderr.decode().splitlines()
    assert any(
        ln.startswith("git-vcontext: note: 1 tracked file(s)") and '"sub/x\\ny.json"' in ln
        for ln in noted
    ), noted


def test_check_of_a_tag_of_a_tree_or_a_blob_judges_what_it_names(git_repo: Path) -> None:
    """``check TAG`` where the tag names a tree or a blob said "unknown revision", then
    "not a commit" (exit 3); it now judges what the tag holds as the hook and the guard
    judge such a tag when it is pushed (README "Tags of trees and blobs")."""
    _write(git_repo, "todo.vcontext.json", TODO)
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-qm", "first")
    run_git(git_repo, "tag", "a-tree", "HEAD^{tree}")
    run_git(git_repo, "tag", "-a", "-m", "annotated", "a-tree-too", "HEAD^{tree}")
    run_git(git_repo, "tag", "a-blob", "HEAD:todo.vcontext.json")
    for tag in ("a-tree", "a-tree-too", "a-blob"):
        told = run_cli("check", tag, cwd=git_repo)
        assert told.returncode == 0, told.stdout + told.stderr
        assert f"no problems; what {tag} points at" in told.stdout.decode()
    unknown = run_cli("check", "no-such-tag", cwd=git_repo)
    assert unknown.returncode == 3
    assert unknown.stderr.decode().startswith("git-vcontext: error: unknown revision 'no-such-tag'")


def test_a_refused_tag_of_a_broken_commit_is_told_to_move_the_tag(tmp_path: Path) -> None:
    """A tag of a commit with problems: "fix those commits (git rebase -i)" moves no tag; the
    refusal (hook and guard alike) also says to point the tag at the fixed commit, and doing
    what it says gets the tag in."""
    from helpers.guard import clone_with_base, guarded_remote, push, remote_lines, sneak
    from helpers.pre_push import TODO as BASE_TODO

    remote = guarded_remote(tmp_path)
    clone = clone_with_base(remote, tmp_path / "clone")
    broken = json.loads((clone / BASE_TODO).read_text())
    broken["todoList"]["items"][0]["status"] = "doing"
    _write(clone, BASE_TODO, broken)
    run_git(clone, "commit", "-qam", "broken")
    run_git(clone, "tag", "-a", "-m", "release", "v1")
    said = "point v1 at the fixed commit (git tag -f v1 COMMIT, with -a for an annotated tag)"
    hooked = push(clone, "origin", "v1")
    assert hooked.returncode != 0
    assert said in hooked.stderr
    guarded = sneak(clone, "origin", "v1")
    assert guarded.returncode != 0
    assert any(said in line for line in remote_lines(guarded.stderr))
    broken["todoList"]["items"][0]["status"] = "inProgress"
    _write(clone, BASE_TODO, broken)
    run_git(clone, "commit", "-q", "--amend", "-am", "fixed")
    fixed = run_git(clone, "rev-parse", "HEAD").stdout.strip()
    run_git(clone, "tag", "-f", "-a", "-m", "release", "v1", fixed)
    again = push(clone, "origin", "v1")
    assert again.returncode == 0, again.stderr


def test_the_mcp_servers_refusal_of_an_uncommitted_document_quotes_its_path(
    git_repo: Path,
) -> None:
    """Deleting a document with uncommitted edits is refused naming git diff -- PATH: the
    path is quoted, so the command shows that file's changes (a space split it in two)."""
    import subprocess

    from git_vcontext.errors import Refused
    from git_vcontext.gitio import open_repo
    from git_vcontext.mcp_server.gitside import GitSide

    name = "my plans/release.vcontext.json"
    _write(git_repo, name, TODO)
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-qm", "plan")
    _write(git_repo, name, _titled("edited"))
    side = GitSide(open_repo(git_repo))
    try:
        side.refuse_uncommitted(str(git_repo / name), (git_repo / name).read_bytes(), name)
    except Refused as exc:
        said = str(exc)
    else:
        raise AssertionError("uncommitted edits must be refused")
    command = said.split("(no MCP tool can): ", 1)[1].split(", then", 1)[0]
    assert command == "git diff -- 'my plans/release.vcontext.json'"
    shown = subprocess.run(["sh", "-c", command], cwd=git_repo, capture_output=True, text=True)
    assert '"edited"' in shown.stdout


def test_m19_case_twin_outside_the_vcontext_files_is_noted_by_validate_hook_guard_check(
    tmp_path: Path,
) -> None:
    """A copy added under a name no pattern matches (``TODO.VCONTEXT.JSON`` beside the todo
    list) is one file with the document on a case-insensitive clone: validate notes it on
    the document (its tracked twins, whatever they are), and the hook, the guard and check
    say the same note on the commit that adds the copy (they looked at vContext paths only)."""
    from helpers.guard import clone_with_base, guarded_remote, push, remote_lines, sneak
    from helpers.pre_push import TODO as BASE_TODO

    remote = guarded_remote(tmp_path)
    clone = clone_with_base(remote, tmp_path / "clone")
    copy = BASE_TODO.upper()
    (clone / copy).parent.mkdir(parents=True, exist_ok=True)
    (clone / copy).write_bytes((clone / BASE_TODO).read_bytes())
    run_git(clone, "add", "-A")
    run_git(clone, "commit", "-qm", "a copy beside it, outside the patterns")
    line = f"{BASE_TODO}: {copy} differs from this path only in case"

    valid = run_cli("validate", cwd=clone)
    assert valid.returncode == 0
    notes = [ln for ln in valid.stdout.decode().splitlines() if "[case-collision]" in ln]
    assert len(notes) == 1
    assert notes[0].startswith(f"{BASE_TODO}: note: {copy} differs from this path only in case")

    checked = run_cli("check", "origin/main..HEAD", cwd=clone)
    assert checked.returncode == 0, checked.stdout
    assert f"git-vcontext: note: {line}" in checked.stdout.decode()

    hooked = push(clone, "--dry-run", "origin", "main")  # the pre-push hook runs on a dry run
    assert hooked.returncode == 0, hooked.stderr
    assert f"git-vcontext: note: {line}" in hooked.stderr

    guarded = sneak(clone, "origin", "main")
    assert guarded.returncode == 0, guarded.stderr
    assert any(line in ln for ln in remote_lines(guarded.stderr))


def test_submodule_advice_of_log_and_doctor_keeps_a_newline_in_its_name_on_one_line(
    git_repo: Path,
) -> None:
    """``log`` of a path in a submodule names the command to run there, and ``doctor`` the
    submodule not set up: a newline in the submodule's name is C-quoted in the name and
    ``$'…'`` in the command (``command_word``), never a second line."""
    sub = "a\nb"
    inner = git_repo / sub
    run_git(git_repo, "init", "-q", "-b", "main", sub)
    for key, value in (("user.name", "In"), ("user.email", "in@example.com")):
        run_git(inner, "config", key, value)
    _write(inner, "todo.vcontext.json", TODO)
    run_git(inner, "add", "-A")
    run_git(inner, "commit", "-qm", "inner")
    head = run_git(inner, "rev-parse", "HEAD").stdout.strip()
    run_git(git_repo, "update-index", "--add", "--cacheinfo", f"160000,{head},{sub}")
    run_git(git_repo, "commit", "-qm", "a submodule")
    _installed(git_repo)

    logged = run_cli("log", "--", f"{sub}/todo.vcontext.json", cwd=git_repo)
    assert logged.returncode == 3
    said = logged.stderr.decode().splitlines()
    assert len(said) == 1, said
    assert said[0].startswith('git-vcontext: error: "a\\nb/todo.vcontext.json": in submodule')
    assert "run git -C $'a\\nb' vcontext log" in said[0]

    doctor = run_cli("doctor", cwd=git_repo)
    out = (doctor.stdout + doctor.stderr).decode()
    mine = [line for line in out.splitlines() if "submodule" in line]
    assert any('submodule "a\\nb" holds 1 vContext file(s)' in line for line in mine), out
    assert any("git -C $'a\\nb' vcontext install)" in line for line in mine), out
    assert not any(line.startswith("b ") for line in out.splitlines()), out


def _plan(ident: str, sequence: int, *entries: dict[str, object]) -> dict[str, object]:
    return {
        "vContextInfo": {"version": "0.4"},
        "plan": {
            "id": ident,
            "title": f"Plan {ident}",
            "status": "draft",
            "sequence": sequence,
            "narratives": {"proposal": f"Why {ident}."},
            "items": [{"id": "i1", "title": "First", "status": "pending"}],
            "changeLog": list(entries),
        },
    }


def _compact(repo: Path, name: str, value: object) -> None:
    """One line of JSON: neither git nor libgit2 pairs two such plans by similarity."""
    (repo / name).write_text(json.dumps(value) + "\n", encoding="utf-8")


def _entry(sequence: int) -> dict[str, object]:
    return {
        "sequence": sequence,
        "timestamp": f"2026-01-0{sequence}T00:00:00Z",
        "agent": {"id": "alice", "type": "aiAgent"},
        "operation": "create" if sequence == 1 else "update",
    }


def test_history_a_plan_dropped_while_another_sharing_a_changelog_entry_starts_lands(
    tmp_path: Path,
) -> None:
    """``Vcontext-Drop:`` (the MCP server's plan deletion) lets a commit delete a plan that
    holds only changeLog entries, even when it adds another plan holding one identical entry:
    entries are matched by content, so sharing one is no rename (it was judged a rename to
    the new plan that lost entries). check, the pre-push hook and the guard accept it; a
    deleted playbook's events are still never excused by the line."""
    from helpers.guard import clone_with_base, guarded_remote, push, remote_lines, sneak
    from helpers.pre_push import PLAYBOOK

    remote = guarded_remote(tmp_path)
    clone = clone_with_base(remote, tmp_path / "clone")
    _compact(clone, "a.vcontext.json", _plan("p1", 2, _entry(1), _entry(2)))
    run_git(clone, "add", "-A")
    run_git(clone, "commit", "-qm", "plan A")
    assert push(clone, "origin", "main").returncode == 0
    run_git(clone, "rm", "-q", "a.vcontext.json")
    _compact(clone, "b.vcontext.json", _plan("p2", 1, _entry(1)))
    run_git(clone, "add", "-A")
    run_git(clone, "commit", "-qm", "drop plan A, start plan B", "-m", "Vcontext-Drop: abandoned")

    checked = run_cli("check", "--format", "json", "origin/main..HEAD", cwd=clone)
    assert checked.returncode == 0, checked.stdout
    assert json.loads(checked.stdout)["findings"] == []
    hooked = push(clone, "--dry-run", "origin", "main")  # the pre-push hook runs on a dry run
    assert hooked.returncode == 0, hooked.stderr
    guarded = sneak(clone, "origin", "main")
    assert guarded.returncode == 0, guarded.stderr

    # the same commit shape deleting the playbook (events e1, e2) is still refused
    run_git(clone, "rm", "-q", PLAYBOOK)
    _compact(clone, "c.vcontext.json", _plan("p3", 1, _entry(1)))
    run_git(clone, "add", "-A")
    run_git(clone, "commit", "-qm", "drop the playbook", "-m", "Vcontext-Drop: abandoned")
    refused = run_cli("check", "--format", "json", "origin/main..HEAD", cwd=clone)
    assert refused.returncode == 1
    rules = {(f["path"], f["rule"]) for f in json.loads(refused.stdout)["findings"]}
    assert (PLAYBOOK, "history-event-removed") in rules
    assert push(clone, "--dry-run", "origin", "main").returncode != 0
    sneaked = sneak(clone, "origin", "main")
    assert sneaked.returncode != 0
    assert any("history-event-removed" in ln for ln in remote_lines(sneaked.stderr))


def test_a_refused_push_names_the_rebase_that_reaches_its_first_bad_commit(
    tmp_path: Path,
) -> None:
    """ "Fix those commits (git rebase -i)" does not run in a branch without an upstream (the
    first push of a new repository: "There is no tracking information") and never reaches
    a root commit. The refusal names the commands that do, and doing what it says (here:
    editing the commit it names) lets the push in."""
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    repo = tmp_path / "repo"
    run_git(tmp_path, "init", "-q", "-b", "main", str(repo))
    for key, value in (("user.name", "Pat"), ("user.email", "pat@example.com")):
        run_git(repo, "config", key, value)
    _installed(repo)
    run_git(repo, "remote", "add", "origin", str(remote))
    broken = {**TODO, "todoList": {"items": [{"id": "t1", "title": "x", "status": "doing"}]}}
    _write(repo, "todo.vcontext.json", broken)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "first, broken")
    refused = run_git(repo, "push", "-u", "origin", "main", check=False)
    assert refused.returncode != 0
    assert "git commit --amend when it is your last commit, else git rebase -i --root" in (
        refused.stderr
    )
    _write(repo, "todo.vcontext.json", TODO)
    run_git(repo, "commit", "-qa", "--amend", "--no-edit")  # as said: the last commit
    run_git(repo, "push", "-q", "-u", "origin", "main")

    _write(repo, "todo.vcontext.json", broken)
    run_git(repo, "commit", "-qam", "broken again")
    bad = run_git(repo, "rev-parse", "--short=12", "HEAD").stdout.strip()
    _write(repo, "notes.txt", "later work\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "later work")
    refused = run_git(repo, "push", "origin", "main", check=False)
    assert refused.returncode != 0
    said = f"git commit --amend when it is your last commit, else git rebase -i {bad}~1)"
    assert said in refused.stderr
    env = {"GIT_SEQUENCE_EDITOR": "sed -i 1s/^pick/edit/"}  # stop at the commit it names
    subprocess.run(
        ["git", "rebase", "-q", "-i", f"{bad}~1"], cwd=repo, env={**os.environ, **env}, check=True
    )
    _write(repo, "todo.vcontext.json", _titled("fixed"))
    run_git(repo, "commit", "-qa", "--amend", "--no-edit")
    run_git(repo, "rebase", "--continue")
    assert run_git(repo, "push", "-q", "origin", "main", check=False).returncode == 0


def test_the_drivers_line_during_git_pull_names_the_command_that_lists_the_conflicts(
    tmp_path: Path,
) -> None:
    """PRODUCT.md, "Resolving conflicts": a person's ``git pull`` stops on a document both
    sides changed. The driver's line for it ended with the conflicts' pointers and named
    nothing to run: it now ends with ``git vcontext conflicts lists them``; git's own lines
    and exit code are as before, and that command, then the ``resolve`` line it prints,
    lead out."""
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    person, agent = tmp_path / "person", tmp_path / "agent"
    run_git(tmp_path, "clone", "-q", str(remote), str(person))
    run_git(person, "switch", "-q", "-c", "main")
    _installed(person)
    _write(person, "todo.vcontext.json", _titled("A"))
    run_git(person, "add", "-A")
    run_git(person, "commit", "-qm", "base")
    run_git(person, "push", "-q", "origin", "main")
    run_git(tmp_path, "clone", "-q", str(remote), str(agent))
    _installed(agent)
    _write(agent, "todo.vcontext.json", _titled("from the agent"))
    run_git(agent, "commit", "-qam", "agent")
    run_git(agent, "push", "-q", "origin", "main")
    _write(person, "todo.vcontext.json", _titled("from the person"))
    run_git(person, "commit", "-qam", "person")
    pulled = run_git(person, "pull", "--no-rebase", "origin", "main", check=False)
    assert pulled.returncode == 1, pulled.stderr
    said = pulled.stderr.splitlines()
    ours = [line for line in said if line.startswith("git-vcontext:")]
    assert ours == [
        "git-vcontext: todo.vcontext.json: 1 conflict(s): /todoList/items/0/title (modify/modify); "
        "git vcontext conflicts lists them"
    ], pulled.stderr
    git_says = pulled.stdout + pulled.stderr
    assert "CONFLICT (content): Merge conflict in todo.vcontext.json" in git_says
    assert "Automatic merge failed" in git_says
    listed = run_cli("conflicts", cwd=person)
    assert listed.returncode == 1
    last = listed.stderr.decode().splitlines()[-1]
    assert last.endswith("resolve with: git vcontext resolve todo.vcontext.json [--conflict ID] "
                         "--take <ours|theirs|base>"), last  # fmt: skip
    assert run_cli("resolve", "todo.vcontext.json", "--take", "theirs", cwd=person).returncode == 0
    run_git(person, "commit", "-q", "--no-edit")
    assert (
        json.loads((person / "todo.vcontext.json").read_text())["todoList"]["items"][0]["title"]
        == "from the agent"
    )
