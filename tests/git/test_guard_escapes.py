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
from helpers.guard import clone_with_base, guarded_remote, refs, remote_lines, sneak
from helpers.pre_push import PLAYBOOK, TODO, commit, event, playbook, write
from helpers.run import run_cli, run_git


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return guarded_remote(tmp_path, "--guard")


@pytest.fixture
def repo(tmp_path: Path, remote: Path) -> Path:
    return clone_with_base(remote, tmp_path / "clone")


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
