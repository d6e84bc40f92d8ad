"""Ways past the guard a new user found (issue 28 trial), each pushed with ``--no-verify``
into a real bare repository with the guard installed, and ``check`` / the pre-push hook
judging the same commits alike (PRODUCT.md "Validation", "The remote guards itself").

- A document moved out of the routed set (install's patterns, ``.gitattributes``) is
  deleted from it: its events must not leave the routed history (a move into an unrouted
  file, then edits there, got past every check).
- A routed path that is a symbolic link: git merges the link, never the document (no
  driver runs on a link), and the remote cannot follow it; it is a finding (``symlink``)
  for ``validate``, the hook, the guard and ``check``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import git_vcontext
from helpers.guard import (  # noqa: F401 (fixtures)
    clone_with_base,
    guarded,
    guarded_clone,
    guarded_remote,
    refs,
    remote_lines,
    sneak,
    this_checkout,
)
from helpers.pre_push import PLAYBOOK, TODO, commit, event, playbook, write
from helpers.run import run_cli, run_git


def _refused_by_all(repo: Path, remote: Path, rule: str) -> None:
    """The guard refuses the push (rule named, remote untouched), ``check`` over the same
    range finds it, and so does the pre-push hook (a push without ``--no-verify``)."""
    before = refs(remote)
    done = sneak(repo, "origin", "HEAD:main")
    assert done.returncode != 0, done.stderr
    assert any(line.endswith(f"[{rule}]") for line in remote_lines(done.stderr)), done.stderr
    assert refs(remote) == before
    checked = run_cli("check", "origin/main..HEAD", cwd=repo)
    assert checked.returncode == 1, checked.stdout.decode() + checked.stderr.decode()
    assert f"[{rule}]" in checked.stdout.decode()
    hooked = run_git(repo, "push", "origin", "HEAD:main", check=False)
    assert hooked.returncode != 0
    assert f"[{rule}]" in hooked.stderr
    assert refs(remote) == before


def _edit(repo: Path, rel: str) -> None:
    path = repo / rel
    data = json.loads(path.read_text())
    data["playbook"]["items"] = [event("e9", "rewritten")]
    data["playbook"]["version"] = 0
    path.write_text(json.dumps(data, indent=2) + "\n")


def test_history_a_document_moved_out_of_the_routed_set_then_edited_is_refused(
    repo: Path, remote: Path
) -> None:
    (repo / "notes").mkdir()
    run_git(repo, "mv", PLAYBOOK, "notes/playbook.json")
    commit(repo, "move")
    _edit(repo, "notes/playbook.json")
    commit(repo, "drop the events where no one looks")
    _refused_by_all(repo, remote, "history-event-removed")


def test_history_a_document_moved_out_of_the_routed_set_is_a_deletion(
    repo: Path, remote: Path
) -> None:
    (repo / "memory" / "sub").mkdir()
    run_git(repo, "mv", PLAYBOOK, "memory/sub/pb.json")
    commit(repo, "move")
    write(repo, PLAYBOOK, playbook())
    commit(repo, "an empty playbook where it was")
    _refused_by_all(repo, remote, "history-event-removed")


def test_history_a_move_within_the_routed_set_is_still_a_move(repo: Path, remote: Path) -> None:
    run_git(repo, "mv", PLAYBOOK, "memory/renamed.vcontext.json")
    commit(repo, "rename")
    done = sneak(repo, "origin", "HEAD:main")
    assert done.returncode == 0, done.stderr
    assert run_cli("check", "HEAD~1..HEAD", cwd=repo).returncode == 0


def test_symlink_a_document_replaced_by_a_link_to_an_unrouted_copy_is_refused(
    repo: Path, remote: Path
) -> None:
    (repo / "notes").mkdir()
    (repo / "notes" / "pb.json").write_bytes((repo / PLAYBOOK).read_bytes())
    (repo / PLAYBOOK).unlink()
    os.symlink("../notes/pb.json", repo / PLAYBOOK)
    commit(repo, "link")
    _refused_by_all(repo, remote, "symlink")


def test_symlink_a_routed_link_to_an_invalid_document_is_refused_as_validate_finds(
    repo: Path, remote: Path
) -> None:
    (repo / "bad").mkdir()
    write(repo, "bad/x.json", {"vContextInfo": {"version": "0.4"}, "todoList": {"items": 3}})
    (repo / TODO).unlink()
    os.symlink("../bad/x.json", repo / TODO)
    commit(repo, "link the todo list to an invalid document")
    validated = run_cli("validate", cwd=repo)
    assert validated.returncode == 1
    assert "[symlink]" in validated.stdout.decode()
    _refused_by_all(repo, remote, "symlink")


def test_symlink_a_dangling_routed_link_is_a_finding_of_validate_as_of_the_guard(
    repo: Path, remote: Path
) -> None:
    """One truth (PRODUCT.md, Validation: the same file set for validate, doctor and the
    hook): a committed link at a vContext path whose target is missing was left out of
    ``validate`` (exit 0, "no such file" when named) while doctor counted it and the hook,
    check and the guard refused it (``symlink``). validate judges it as a link: with no
    paths, named, and in a folder given."""
    os.symlink("missing.vcontext.json", repo / "gone.vcontext.json")
    commit(repo, "a dangling link at a vContext path")
    for args in ((), ("gone.vcontext.json",), (".",)):
        validated = run_cli("validate", *args, cwd=repo)
        out = validated.stdout.decode()
        assert validated.returncode == 1, (args, out, validated.stderr)
        assert "gone.vcontext.json:1:1: a symbolic link where" in out, (args, out)
        assert out.rstrip().endswith("[symlink]"), (args, out)
        assert b"no such file" not in validated.stderr
    _refused_by_all(repo, remote, "symlink")


def test_symlink_a_routed_link_to_a_folder_is_a_finding_of_validate_named_or_walked(
    repo: Path, remote: Path
) -> None:
    """One truth (PRODUCT.md, Validation: the same file set for validate and the hook): a
    committed link at a vContext path that leads to a folder is the hook's, check's and the
    guard's ``symlink`` finding; validate judged it so with no paths only: named, it walked
    the folder behind the link, and in a folder given it was skipped (a link to a folder
    is among ``os.walk``'s folders, not its files)."""
    (repo / "elsewhere").mkdir()
    write(repo, "elsewhere/x.json", {"vContextInfo": {"version": "0.4"}})
    os.symlink("elsewhere", repo / "linked.vcontext.json")
    commit(repo, "a link to a folder at a vContext path")
    for args in ((), ("linked.vcontext.json",), (".",)):
        validated = run_cli("validate", *args, cwd=repo)
        out = validated.stdout.decode()
        assert validated.returncode == 1, (args, out, validated.stderr)
        assert "linked.vcontext.json:1:1: a symbolic link where" in out, (args, out)
    _refused_by_all(repo, remote, "symlink")


def test_doctor_runs_the_guard_as_a_push_does_and_says_it_cannot_import_pygit2(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    """The guard's program loses pygit2 (``pip uninstall pygit2`` in its environment): every
    push the full check judges is refused, and doctor in the bare repository says so, with
    the reason, instead of "installed and runs" (its empty-input run imported nothing)."""
    fake = tmp_path / "no-pygit2" / "pygit2"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError(\"No module named 'pygit2'\")\n")
    here = str(Path(git_vcontext.__file__).resolve().parents[1])
    hook = remote / "hooks" / "pre-receive"
    real = program_in(hook.read_text())
    wrapper = tmp_path / "bin" / "git-vcontext"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{fake.parent}:{here}" exec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    hook.write_text(hook.read_text().replace(real, str(wrapper)))

    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    commit(repo, "drop e2")
    refused = sneak(repo, "origin", "HEAD:main")
    assert refused.returncode != 0
    assert "could not run" in refused.stderr

    done = run_cli("doctor", cwd=remote)
    said = done.stdout.decode()
    assert done.returncode == 1, said + done.stderr.decode()
    problem = [line for line in said.splitlines() if line.startswith("problem:")]
    assert any("pygit2" in line and "pre-receive" in line for line in problem), said
    assert "guard installed and runs" not in said


def program_in(text: str) -> str:
    line = next(line for line in text.splitlines() if line.startswith("PROGRAM="))
    return line.split("=", 1)[1].strip().strip("'\"")


def test_uninstall_server_removes_what_the_guard_keeps_in_the_bare_repository(
    repo: Path, remote: Path
) -> None:
    run_git(repo, "switch", "-q", "-c", "feature")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "feature")
    assert sneak(repo, "origin", "feature").returncode == 0
    assert sneak(repo, "origin", ":feature").returncode == 0  # remembered by the guard
    assert (remote / "vcontext").is_dir()

    done = run_cli("uninstall", "--server", cwd=remote)

    assert done.returncode == 0, done.stderr
    assert not (remote / "vcontext").exists()
    assert "vcontext/" in done.stdout.decode()


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_install_in_a_bare_repository_without_server_names_server(
    remote: Path, command: str
) -> None:
    done = run_cli(command, cwd=remote)
    assert done.returncode == 2
    said = done.stderr.decode()
    assert "bare repository" in said
    assert f"git vcontext {command} --server" in said
    assert said.count("\n") == 1


def test_a_finding_in_a_file_whose_name_holds_a_newline_or_a_tab_is_one_quoted_line(
    repo: Path, remote: Path
) -> None:
    name = "memory/bad\nname\there.vcontext.json"
    write(repo, name, {"vContextInfo": {"version": "0.4"}, "todoList": {"items": 3}})
    commit(repo, "an invalid document with an awkward name")
    done = sneak(repo, "origin", "HEAD:main")
    assert done.returncode != 0
    said = [line for line in remote_lines(done.stderr) if line.endswith("[schema]")]
    assert len(said) == 1, done.stderr
    assert said[0].startswith('"memory/bad\\nname\\there.vcontext.json":'), said
    checked = run_cli("check", "origin/main..HEAD", cwd=repo).stdout.decode()
    assert '"memory/bad\\nname\\there.vcontext.json":' in checked


def test_a_refused_forced_update_advises_building_on_the_remotes_tip(
    repo: Path, remote: Path
) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a third lesson")
    assert sneak(repo, "origin", "main").returncode == 0
    run_git(repo, "reset", "-q", "--hard", "HEAD~1")
    (repo / "notes.txt").write_text("unrelated\n")
    commit(repo, "an unrelated commit")
    done = sneak(repo, "--force", "origin", "main")
    assert done.returncode != 0
    said = remote_lines(done.stderr)
    assert any("forced update" in line for line in said), done.stderr
    last = said[-1] if said[-1] else said[-2]
    assert "git pull --rebase" in last, done.stderr
    assert "rebase -i" not in last, done.stderr


def test_an_annotated_tag_of_a_tree_is_named_as_a_tag_of_that_tree(
    repo: Path, remote: Path
) -> None:
    write(repo, TODO, {"vContextInfo": {"version": "0.4"}, "todoList": {"items": 3}})
    run_git(repo, "add", "-A")
    tree = run_git(repo, "write-tree").stdout.strip()
    run_git(repo, "tag", "-a", "snapshot", "-m", "a tree", tree)
    tag = run_git(repo, "rev-parse", "snapshot").stdout.strip()
    done = sneak(repo, "origin", "refs/tags/snapshot")
    assert done.returncode != 0
    said = remote_lines(done.stderr)
    assert any(f"tag {tag[:10]} of tree {tree[:10]}" in line for line in said), done.stderr
    assert not any(f"tree {tag[:10]}" in line for line in said), done.stderr
    assert "rebase -i" not in done.stderr


def test_a_document_that_does_not_parse_after_a_sync_merge_is_one_parse_finding(
    repo: Path, remote: Path
) -> None:
    """A commit on a sync merge that breaks a document's syntax: the parse finding (with
    its line and column) says it; no spurious sync-undone beside it (an unreadable file
    holds nothing to compare with what the merge brought)."""
    run_git(repo, "switch", "-q", "-c", "agents/bob")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "bob learns")
    run_git(repo, "switch", "-q", "-c", "other", "main")
    path = repo / TODO
    data = json.loads(path.read_text())
    data["todoList"]["items"].append({"id": "t2", "title": "Two", "status": "pending"})
    path.write_text(json.dumps(data, indent=2) + "\n")
    commit(repo, "another agent adds t2")
    run_git(repo, "switch", "-q", "agents/bob")
    run_git(repo, "merge", "-q", "-m", "vcontext sync: merge main\n\nVcontext-Sync: test", "other")
    path.write_text(path.read_text()[:-20])
    commit(repo, "a truncated todo list")
    done = sneak(repo, "origin", "agents/bob")
    assert done.returncode != 0
    said = remote_lines(done.stderr)
    assert any(line.endswith("[parse]") for line in said), done.stderr
    assert not any("[sync-undone]" in line for line in said), done.stderr


def test_symlink_a_tag_of_a_tree_holding_a_routed_link_is_refused(repo: Path, remote: Path) -> None:
    (repo / TODO).unlink()
    os.symlink("/etc/passwd", repo / TODO)
    run_git(repo, "add", "-A")
    tree = run_git(repo, "write-tree").stdout.strip()
    run_git(repo, "tag", "snapshot", tree)
    done = sneak(repo, "origin", "refs/tags/snapshot")
    assert done.returncode != 0
    assert any(
        line.startswith(TODO) and line.endswith("[symlink]") for line in remote_lines(done.stderr)
    ), done.stderr
