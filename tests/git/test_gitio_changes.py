"""gitio's one tree-diff walker (``FileChange`` records) and revision ranges read by libgit2."""

from __future__ import annotations

import os
from pathlib import Path

import pygit2
import pytest

from git_vcontext.errors import ExitCode, OperationalError
from git_vcontext.filechange import FileChange
from git_vcontext.gitio import revision_range
from git_vcontext.gitio.diffs import changes, tree_changes
from git_vcontext.gitio.objects import commit_at
from git_vcontext.gitio.revwalk import GitHistory
from helpers.run import run_cli, run_git

DOC = '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": [%s]}}\n'


def _commit(repo: Path, message: str, files: dict[str, str | None] | None = None) -> str:
    for name, text in (files or {}).items():
        path = repo / name
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return run_git(repo, "rev-parse", "HEAD").stdout.strip()


@pytest.fixture
def forked(git_repo: Path) -> Path:
    """main: base, m1; side (from base): s1, s2; lonely: an unrelated history."""
    _commit(git_repo, "base", {"a.vcontext.json": DOC % ""})
    run_git(git_repo, "branch", "side")
    _commit(git_repo, "m1", {"notes.txt": "main\n"})
    run_git(git_repo, "checkout", "-q", "side")
    _commit(git_repo, "s1", {"a.vcontext.json": DOC % '{"id": "t1", "title": "A"}'})
    _commit(git_repo, "s2", {"b.txt": "side\n"})
    run_git(git_repo, "checkout", "-q", "--orphan", "lonely")
    _commit(git_repo, "lonely", {"c.txt": "alone\n"})
    run_git(git_repo, "checkout", "-q", "main")
    return git_repo


@pytest.mark.parametrize(
    "spec", ["main..side", "side..main", "main...side", "..side", "side..", "main...", "HEAD"]
)
def test_revision_ranges_walk_the_commits_git_lists(forked: Path, spec: str) -> None:
    repo = pygit2.Repository(str(forked))
    expected = run_git(forked, "rev-list", spec).stdout.split()
    assert sorted(GitHistory(repo, [spec]).commits()) == sorted(expected)


def test_revision_range_reads_both_sides_and_the_merge_base_flag(forked: Path) -> None:
    repo = pygit2.Repository(str(forked))
    main, side = (repo.revparse_single(name).id for name in ("main", "side"))
    found = revision_range(repo, "main...side")
    assert found is not None
    assert (found[0].id, found[1].id, found[2]) == (main, side, True)
    found = revision_range(repo, "..side")
    assert found is not None
    assert (found[0].id, found[1].id, found[2]) == (main, side, False)
    assert revision_range(repo, "main") is None  # one revision
    assert revision_range(repo, "nope") is None  # none: resolving it says why


@pytest.mark.parametrize("spec", ["main..nope", "nope..main", "nope...main", "main...nope"])
def test_an_unknown_side_of_a_range_is_named(forked: Path, spec: str) -> None:
    repo = pygit2.Repository(str(forked))
    with pytest.raises(OperationalError, match=r"^unknown revision: nope$"):
        GitHistory(repo, [spec])
    with pytest.raises(OperationalError, match=r"^unknown revision: nope$"):
        revision_range(repo, spec)


def test_a_range_from_head_before_the_first_commit_says_so(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path), initial_head="main")
    for spec in ("HEAD..main", "..main", "HEAD"):
        with pytest.raises(OperationalError, match="the current branch has no commits yet"):
            GitHistory(repo, [spec])


def test_diff_of_a_symmetric_range_starts_at_the_merge_base(forked: Path) -> None:
    proc = run_cli("diff", "--stat", "main...side", cwd=forked)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().split("|")[0].strip() == "a.vcontext.json"
    proc = run_cli("diff", "--stat", "side...main", cwd=forked)
    assert (proc.returncode, proc.stdout) == (0, b"")  # main changed no document
    proc = run_cli("diff", "main...lonely", cwd=forked)
    assert proc.returncode == ExitCode.OPERATIONAL
    assert proc.stderr.decode().strip() == "git-vcontext: error: main...lonely: no merge base"


def test_tree_changes_are_file_changes_with_blob_ids_and_renames_when_asked(
    git_repo: Path,
) -> None:
    text = DOC % ", ".join(f'{{"id": "t{n}", "title": "Task {n}"}}' for n in range(20))
    first = _commit(git_repo, "one", {"old.vcontext.json": text, "keep.txt": "k\n"})
    second = _commit(git_repo, "two", {"old.vcontext.json": None, "moved/new.vcontext.json": text})
    repo = pygit2.Repository(str(git_repo))
    old, new = repo[first].tree, repo[second].tree
    blob = str(old["old.vcontext.json"].id)
    assert sorted(tree_changes(old, new), key=lambda c: c.path) == [
        FileChange(None, "moved/new.vcontext.json", None, blob),
        FileChange("old.vcontext.json", None, blob, None),
    ]
    renamed = tree_changes(old, new, renames=True)
    assert renamed == [
        FileChange("old.vcontext.json", "moved/new.vcontext.json", blob, blob, renamed=True)
    ]
    assert (renamed[0].path, renamed[0].status) == ("moved/new.vcontext.json", "renamed")
    assert tree_changes(old, new, wanted=lambda p: p.startswith("keep")) == []
    assert [c.status for c in tree_changes(None, old)] == ["added", "added"]


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_push_changes_leave_out_links_and_files_whose_blob_did_not_change(git_repo: Path) -> None:
    first = _commit(git_repo, "one", {"a.vcontext.json": DOC % "", "b.vcontext.json": DOC % ""})
    (git_repo / "link.vcontext.json").symlink_to("a.vcontext.json")
    (git_repo / "b.vcontext.json").chmod(0o755)
    second = _commit(git_repo, "two", {"a.vcontext.json": DOC % '{"id": "t1", "title": "A"}'})
    repo = pygit2.Repository(str(git_repo))
    parent, commit = commit_at(repo, first), commit_at(repo, second)
    every = {c.path for c in tree_changes(parent.tree, commit.tree)}
    assert every == {"a.vcontext.json", "b.vcontext.json", "link.vcontext.json"}
    found = changes(repo, parent, commit, lambda _path: True)
    assert [(c.path, c.status) for c in found] == [("a.vcontext.json", "modified")]


def test_git_in_a_folder_that_is_gone_names_the_folder_not_the_installation(
    tmp_path: Path,
) -> None:
    """Command-line contract: a one-line message that says what is wrong. A work tree that
    was removed is not "git is not installed"."""
    from git_vcontext.gitio import git

    gone = tmp_path / "removed work tree"
    with pytest.raises(OperationalError) as caught:
        git(["status"], cwd=gone)
    message = caught.value.one_line()
    assert "not installed" not in message
    assert str(gone) in message
