"""An adversarial pass over the guard (issue 28 point 6): other ways past it, each pushed with
``--no-verify`` into a real bare repository with ``install --server`` (PRODUCT.md "The remote
guards itself", "Validation": the history rules, the stricter of two routings)."""

from __future__ import annotations

from pathlib import Path

import pytest

import git_vcontext
from git_vcontext.gitio.fileset import unroutes
from helpers.guard import clone_with_base, guarded_remote, refs, remote_lines, sneak
from helpers.pre_push import PLAYBOOK, commit, event, playbook, write
from helpers.run import run_cli, run_git


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return guarded_remote(tmp_path)


@pytest.fixture
def repo(tmp_path: Path, remote: Path) -> Path:
    return clone_with_base(remote, tmp_path / "clone")


def _refused(repo: Path, remote: Path, rule: str, *targets: str) -> None:
    before = refs(remote)
    done = sneak(repo, "origin", *(targets or ("HEAD:main",)))
    assert done.returncode != 0, done.stderr
    assert any(line.endswith(f"[{rule}]") for line in remote_lines(done.stderr)), done.stderr
    assert refs(remote) == before


def _routed_vbrief(repo: Path) -> None:
    attributes = repo / ".gitattributes"
    attributes.write_text(attributes.read_text() + "vbrief/**/*.json merge=vcontext\n")
    write(repo, "vbrief/deep/pb.json", playbook(event("e1", "first"), event("e2", "second")))
    commit(repo, "route vbrief/")
    assert sneak(repo, "origin", "main").returncode == 0


def test_history_a_subfolder_gitattributes_that_unroutes_then_a_damage_in_one_push(
    repo: Path, remote: Path
) -> None:
    _routed_vbrief(repo)
    write(repo, "vbrief/.gitattributes", "*.json -merge\n")
    commit(repo, "un-route vbrief/ from inside it")
    write(repo, "vbrief/deep/pb.json", playbook(event("e1", "first")))
    commit(repo, "drop an event where nothing looks now")
    _refused(repo, remote, "history-event-removed")


def test_history_a_gitattributes_unset_in_the_same_commit_as_the_damage(
    repo: Path, remote: Path
) -> None:
    _routed_vbrief(repo)
    write(repo, "vbrief/deep/.gitattributes", "pb.json merge=text\n")
    write(repo, "vbrief/deep/pb.json", playbook(event("e1", "first")))
    commit(repo, "un-route and drop in one commit")
    _refused(repo, remote, "history-event-removed")


def test_history_an_annotated_tag_of_a_commit_that_drops_an_event(repo: Path, remote: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    commit(repo, "drop e2")
    run_git(repo, "tag", "-a", "-m", "a release", "v1")
    _refused(repo, remote, "history-event-removed", "refs/tags/v1")


def test_history_a_notes_ref_whose_tree_holds_a_damaged_document(repo: Path, remote: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    commit(repo, "drop e2")
    _refused(repo, remote, "history-event-removed", "HEAD:refs/notes/commits")


def test_history_a_document_replaced_by_a_submodule_entry(repo: Path, remote: Path) -> None:
    head = run_git(repo, "rev-parse", "HEAD").stdout.strip()
    run_git(repo, "rm", "-q", "--cached", PLAYBOOK)
    run_git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},{PLAYBOOK}")
    run_git(repo, "commit", "-q", "-m", "the playbook is a submodule now")
    _refused(repo, remote, "history-event-removed")


def test_history_a_case_only_rename_that_drops_an_event(repo: Path, remote: Path) -> None:
    run_git(repo, "mv", PLAYBOOK, PLAYBOOK.replace("playbook", "Playbook"))
    commit(repo, "rename")
    write(repo, PLAYBOOK.replace("playbook", "Playbook"), playbook(event("e1", "first")))
    commit(repo, "drop e2")
    _refused(repo, remote, "history-event-removed")


def test_history_a_push_with_push_options_and_a_deletion_beside_a_damage(
    repo: Path, remote: Path
) -> None:
    run_git(remote, "config", "receive.advertisePushOptions", "true")
    assert sneak(repo, "origin", "HEAD:other").returncode == 0
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    commit(repo, "drop e2")
    _refused(repo, remote, "history-event-removed", "-o", "ci.skip", ":other", "HEAD:main")


def test_check_agrees_on_a_subfolder_unrouting(repo: Path, remote: Path) -> None:
    _routed_vbrief(repo)
    write(repo, "vbrief/.gitattributes", "*.json -merge\n")
    write(repo, "vbrief/deep/pb.json", playbook(event("e1", "first")))
    commit(repo, "un-route and drop")
    checked = run_cli("check", "origin/main..HEAD", cwd=repo)
    assert checked.returncode == 1, checked.stdout.decode()
    assert "[history-event-removed]" in checked.stdout.decode()


def test_history_a_tag_of_a_tag_of_a_commit_that_drops_an_event(repo: Path, remote: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    commit(repo, "drop e2")
    run_git(repo, "tag", "-a", "-m", "inner", "inner")
    inner = run_git(repo, "rev-parse", "inner").stdout.strip()
    run_git(repo, "tag", "-a", "-m", "outer", "outer", inner)
    _refused(repo, remote, "history-event-removed", "refs/tags/outer")


def test_history_a_document_replaced_by_a_folder_of_the_same_name(repo: Path, remote: Path) -> None:
    (repo / PLAYBOOK).unlink()
    write(repo, f"{PLAYBOOK}/note.txt", "nothing to see\n")
    commit(repo, "the playbook is a folder now")
    _refused(repo, remote, "history-event-removed")


def test_history_a_tag_moved_back_before_an_event(repo: Path, remote: Path) -> None:
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a third lesson")
    assert sneak(repo, "origin", "main", "HEAD:refs/tags/v1").returncode == 0
    _refused(repo, remote, "history-event-removed", "+HEAD~1:refs/tags/v1")


def test_history_the_default_branch_deleted_where_allowed_then_pushed_rewritten(
    repo: Path, remote: Path
) -> None:
    run_git(remote, "config", "vcontext.guard.allowDelete", "true")
    run_git(remote, "config", "receive.denyDeleteCurrent", "ignore")
    assert sneak(repo, "origin", ":main").returncode == 0
    run_git(repo, "switch", "-q", "--orphan", "fresh")
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    commit(repo, "start over")
    _refused(repo, remote, "history-event-removed", "HEAD:main")


def test_history_the_servers_own_attributes_do_not_unroute_a_document(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    """``info/attributes`` or ``core.attributesFile`` in the bare repository (another tool's,
    an admin's) saying ``-merge`` must not take a routed document out of the guard's set:
    ``check`` and the pre-push hook in a clone check it."""
    _routed_vbrief(repo)
    (remote / "info").mkdir(exist_ok=True)
    (remote / "info" / "attributes").write_text("*.json -merge\n")
    user = tmp_path / "user-attributes"
    user.write_text("*.json -merge\n")
    run_git(remote, "config", "core.attributesFile", str(user))
    write(repo, "vbrief/deep/pb.json", playbook(event("e1", "first")))
    commit(repo, "drop an event")
    _refused(repo, remote, "history-event-removed")
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text("vbrief/** binary\n")
    checked = run_cli("check", "origin/main..HEAD", cwd=repo)
    assert checked.returncode == 1, checked.stdout.decode()
    assert "[history-event-removed]" in checked.stdout.decode()


def test_unroutes_reads_what_may_take_a_file_from_the_vcontext_merge() -> None:
    assert unroutes(b"*.json -merge\n")
    assert unroutes(b"x binary\n")
    assert unroutes(b"x merge=union\n")
    assert unroutes(b"[attr]mine -merge\n")
    assert not unroutes(b"*.json merge=vcontext diff=vcontext\n# *.json -merge\n")
