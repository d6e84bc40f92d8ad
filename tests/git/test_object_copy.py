"""``gitio.objectcopy``: the objects a local fetch copies (PRODUCT.md, "Sync at scale"). What it
copies must leave the receiving repository whole (git fsck finds every object the new refs
need), write only what is new, and never leave an object behind without its own objects.
Real repositories, checked with git.
"""

from __future__ import annotations

import os
from pathlib import Path

import pygit2
import pytest

from git_vcontext.gitio import objectcopy
from helpers.run import run_git


def _repo(path: Path) -> Path:
    run_git(path.parent, "init", "-q", "-b", "main", str(path))
    run_git(path, "config", "user.name", "T")
    run_git(path, "config", "user.email", "t@example.com")
    return path


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)
    return run_git(repo, "rev-parse", "HEAD").stdout.strip()


def _objects(repo: Path) -> set[str]:
    out = run_git(repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").stdout
    return set(out.split())


def _whole(repo: Path, ref: str, commit: str) -> None:
    run_git(repo, "update-ref", ref, commit)
    fsck = run_git(repo, "fsck", "--connectivity-only", "--no-dangling", check=False)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr


@pytest.fixture
def repos(tmp_path: Path) -> tuple[Path, Path]:
    """A source with one commit, and a clone of it."""
    src = _repo(tmp_path / "src")
    _commit(src, {"memory/a.json": "{}\n", "memory/b.json": "[]\n", "top.txt": "t\n"}, "one")
    run_git(tmp_path, "clone", "-q", str(src), str(tmp_path / "dst"))
    return src, tmp_path / "dst"


def test_new_commits_arrive_whole_with_only_the_new_objects(repos: tuple[Path, Path]) -> None:
    src, dst = repos
    _commit(src, {"memory/a.json": '{"x": 1}\n'}, "two")
    tip = _commit(src, {"memory/c.json": '{"y": 2}\n'}, "three")
    before = _objects(dst)

    written = objectcopy.copy_commits(
        pygit2.Repository(str(src)), pygit2.Repository(str(dst)), [pygit2.Oid(hex=tip)]
    )

    new = _objects(dst) - before
    # two commits, two root trees, two memory/ trees, two blobs: nothing unchanged again
    assert len(new) == written == 8
    assert new <= _objects(src)
    _whole(dst, "refs/copied/tip", tip)


def test_a_merge_brings_both_sides(repos: tuple[Path, Path]) -> None:
    src, dst = repos
    run_git(src, "switch", "-q", "-c", "side")
    side = _commit(src, {"memory/b.json": '["side"]\n'}, "side")
    run_git(src, "switch", "-q", "main")
    _commit(src, {"top.txt": "main\n"}, "main")
    run_git(src, "merge", "-q", "--no-edit", "side")
    tip = run_git(src, "rev-parse", "HEAD").stdout.strip()

    objectcopy.copy_commits(
        pygit2.Repository(str(src)), pygit2.Repository(str(dst)), [pygit2.Oid(hex=tip)]
    )

    _whole(dst, "refs/copied/tip", tip)
    assert run_git(dst, "merge-base", "--is-ancestor", side, tip).returncode == 0


def test_commits_the_receiver_has_behind_a_ref_are_not_copied(repos: tuple[Path, Path]) -> None:
    src, dst = repos
    tip = run_git(src, "rev-parse", "HEAD").stdout.strip()
    written = objectcopy.copy_commits(
        pygit2.Repository(str(src)), pygit2.Repository(str(dst)), [pygit2.Oid(hex=tip)]
    )
    assert written == 0


def test_a_long_history_is_left_to_git_before_anything_is_written(
    repos: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    src, dst = repos
    monkeypatch.setattr(objectcopy, "LIMIT", 3)
    for n in range(5):
        tip = _commit(src, {"top.txt": f"{n}\n"}, f"c{n}")
    before = _objects(dst)
    with pytest.raises(objectcopy.TooMany):
        objectcopy.copy_commits(
            pygit2.Repository(str(src)), pygit2.Repository(str(dst)), [pygit2.Oid(hex=tip)]
        )
    assert _objects(dst) == before


def test_a_submodule_entry_is_not_copied_as_an_object(repos: tuple[Path, Path]) -> None:
    src, dst = repos
    elsewhere = _commit(src, {"top.txt": "x\n"}, "x")  # any commit id will do for a gitlink
    run_git(src, "update-index", "--add", "--cacheinfo", f"160000,{elsewhere},sub")
    run_git(src, "commit", "-q", "-m", "sub")
    tip = run_git(src, "rev-parse", "HEAD").stdout.strip()
    objectcopy.copy_commits(
        pygit2.Repository(str(src)), pygit2.Repository(str(dst)), [pygit2.Oid(hex=tip)]
    )
    _whole(dst, "refs/copied/tip", tip)


class _Interrupted(Exception):
    pass


def test_an_interrupted_copy_leaves_no_object_without_its_own_objects(
    repos: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped after any number of writes, every object the receiver holds names only
    objects it holds (git fsck over all objects, unreachable ones included)."""
    src, dst = repos
    _commit(src, {"memory/a.json": '{"x": 1}\n', "deep/er/f.txt": "f\n"}, "two")
    tip = _commit(src, {"memory/c.json": '{"y": 2}\n', "deep/g.txt": "g\n"}, "three")
    source, target = pygit2.Repository(str(src)), pygit2.Repository(str(dst))
    put = objectcopy._Writer.put
    for stop in range(12):
        calls = [0]

        def failing(
            self: objectcopy._Writer, oid: pygit2.Oid, stop: int = stop, calls: list[int] = calls
        ) -> None:
            if calls[0] == stop:
                raise _Interrupted
            calls[0] += 1
            put(self, oid)

        monkeypatch.setattr(objectcopy._Writer, "put", failing)
        try:
            objectcopy.copy_commits(source, target, [pygit2.Oid(hex=tip)])
        except _Interrupted:
            pass
        fsck = run_git(dst, "fsck", "--no-dangling", check=False)
        assert "missing" not in fsck.stdout + fsck.stderr, (stop, fsck.stdout + fsck.stderr)
        assert "broken link" not in fsck.stdout + fsck.stderr, (stop, fsck.stdout)
    monkeypatch.setattr(objectcopy._Writer, "put", put)
    objectcopy.copy_commits(source, target, [pygit2.Oid(hex=tip)])
    _whole(dst, "refs/copied/tip", tip)


@pytest.mark.parametrize("how", ["linked", "copied", "packed"])
def test_loose_objects_are_linked_or_copied_and_packed_ones_rewritten(
    repos: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """A loose object of the source is taken as it is (a hard link, else a copy where links
    fail, e.g. across file systems); a packed one is read and written again."""
    src, dst = repos
    tip = _commit(src, {"memory/a.json": '{"x": 1}\n'}, "two")
    blob = run_git(src, "rev-parse", f"{tip}:memory/a.json").stdout.strip()
    loose = src / ".git" / "objects" / blob[:2] / blob[2:]
    if how == "packed":
        run_git(src, "repack", "-adq")
        assert not loose.exists()
    if how == "copied":

        def no_links(*_: object) -> None:
            raise PermissionError("no hard links here")

        monkeypatch.setattr(os, "link", no_links)

    objectcopy.copy_commits(
        pygit2.Repository(str(src)), pygit2.Repository(str(dst)), [pygit2.Oid(hex=tip)]
    )

    _whole(dst, "refs/copied/tip", tip)
    copied = dst / ".git" / "objects" / blob[:2] / blob[2:]
    assert copied.is_file()
    if how != "packed":
        assert copied.read_bytes() == loose.read_bytes()
        assert (copied.stat().st_ino == loose.stat().st_ino) is (how == "linked")
    assert not list((dst / ".git" / "objects" / blob[:2]).glob("tmp_obj_*"))


def test_a_commit_of_the_empty_tree_arrives_with_the_empty_tree_stored(
    repos: tuple[Path, Path],
) -> None:
    """A lease commit names the empty tree, which libgit2 answers for without storing it:
    it is written all the same, so git fsck finds it (issue 31, point 3)."""
    src, dst = repos
    lease = run_git(src, "commit-tree", "-m", "vcontext sync lease", objectcopy.EMPTY_TREE)
    tip = lease.stdout.strip()
    assert objectcopy.EMPTY_TREE not in _objects(dst)

    objectcopy.copy_commits(
        pygit2.Repository(str(src)), pygit2.Repository(str(dst)), [pygit2.Oid(hex=tip)]
    )

    assert objectcopy.EMPTY_TREE in _objects(dst)
    run_git(dst, "update-ref", "refs/vcontext/lease/main", tip)
    fsck = run_git(dst, "fsck", "--no-dangling", check=False)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    assert "missing" not in fsck.stderr
