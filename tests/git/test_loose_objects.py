"""``gitio.loose``: the guard's light reading of a lease commit (issue 28, "the guard must not
slow sync --push down"). It answers only what is certain: a commit of the empty tree
without parents, or a lease commit on a commit the repository had, with its tree, read
from loose objects git wrote; anything else (a parent, files,
packed, truncated, oversized, not an object id) is "not certain", and the full check runs.
Objects are written by real git."""

from __future__ import annotations

import subprocess
import zlib
from pathlib import Path

import pytest

from git_vcontext.gitio.batch import ref_names
from git_vcontext.gitio.loose import (
    MAX_OBJECT,
    is_empty_root_commit,
    is_lease_commit,
    loose_object,
    ref_names_in_files,
    ref_tips_in_files,
)
from helpers.run import bare_repository, run_git


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    return bare_repository(tmp_path)


def _tree(bare: Path, *, empty: bool = True) -> str:
    if empty:
        return run_git(bare, "hash-object", "-t", "tree", "-w", "/dev/null").stdout.strip()
    blob = bare.parent / "blob"
    blob.write_text("{}\n")
    oid = run_git(bare, "hash-object", "-w", str(blob)).stdout.strip()
    listing = bare.parent / "listing"
    listing.write_text(f"100644 blob {oid}\ta.vcontext.json\n")
    return _mktree(bare, listing)


def _mktree(bare: Path, listing: Path) -> str:
    with listing.open("rb") as fh:
        done = subprocess.run(
            ["git", "mktree"], cwd=bare, stdin=fh, capture_output=True, check=True
        )
    return done.stdout.decode().strip()


def _commit(bare: Path, tree: str, *parents: str) -> str:
    args = [a for p in parents for a in ("-p", p)]
    return run_git(bare, "commit-tree", tree, *args, "-m", "lease").stdout.strip()


def _dirs(bare: Path) -> list[str]:
    return [str(bare / "objects")]


def test_an_empty_root_commit_is_certain(bare: Path) -> None:
    lease = _commit(bare, _tree(bare))

    assert loose_object(_dirs(bare), lease) is not None
    assert is_empty_root_commit(_dirs(bare), lease)


def test_a_commit_with_a_parent_or_files_is_not(bare: Path) -> None:
    root = _commit(bare, _tree(bare))
    child = _commit(bare, _tree(bare), root)
    files = _commit(bare, _tree(bare, empty=False))

    assert not is_empty_root_commit(_dirs(bare), child)
    assert not is_empty_root_commit(_dirs(bare), files)
    assert not is_empty_root_commit(_dirs(bare), _tree(bare))  # a tree, not a commit


def test_a_packed_object_is_not_certain_here(bare: Path) -> None:
    lease = _commit(bare, _tree(bare))
    run_git(bare, "update-ref", "refs/vcontext/lease/main", lease)
    run_git(bare, "repack", "-q", "-a", "-d")
    run_git(bare, "prune-packed")

    assert loose_object(_dirs(bare), lease) is None
    assert not is_empty_root_commit(_dirs(bare), lease)


def test_a_lease_on_a_commit_the_repository_had_with_its_tree_is_certain(
    bare: Path, tmp_path: Path
) -> None:
    """remote/refs.py's lease commit: one parent, the parent's tree (no file changed), the
    parent there before the push (in the repository's own store, not the push's
    quarantine: else the push brings a commit the guard must judge); an older version's
    root commit of the empty tree too. A lease that changes a file, has two parents or a
    parent elsewhere is not certain."""
    files = _tree(bare, empty=False)
    base = _commit(bare, files)
    lease = _commit(bare, files, base)
    other = _commit(bare, _tree(bare), base)  # the empty tree on a base with a file
    merge = _commit(bare, files, base, _commit(bare, _tree(bare)))
    own = _dirs(bare)

    assert is_lease_commit(own, lease, own)
    assert is_lease_commit(own, _commit(bare, _tree(bare)), own)  # an older version's
    assert not is_lease_commit(own, other, own)
    assert not is_lease_commit(own, merge, own)
    assert not is_lease_commit(own, base, own)  # a root commit with files
    assert not is_lease_commit(own, lease, [str(tmp_path / "elsewhere")])  # parent not before
    assert is_lease_commit(own, lease, own, on={base})  # its parent a ref's tip
    assert not is_lease_commit(own, lease, own, on={lease})  # its parent on no ref: unjudged


@pytest.mark.parametrize(
    "oid", ["", "HEAD", "../../etc/passwd", "-" * 40, "0" * 39, "A" * 40, "0" * 40 + "\n"]
)
def test_what_is_not_an_object_id_is_never_read(bare: Path, oid: str) -> None:
    assert loose_object(_dirs(bare), oid) is None


def _plant(bare: Path, oid: str, raw: bytes) -> None:
    path = bare / "objects" / oid[:2] / oid[2:]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not zlib at all",
        zlib.compress(b"commit 999\0tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nx")[:-6],
        zlib.compress(b"commit 999\0tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nx"),
        zlib.compress(b"commit\0tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nx"),
        zlib.compress(b"commit 10" + b"\0" + b"x" * (4 * MAX_OBJECT)),  # inflates past the cap
    ],
    ids=["empty", "not zlib", "truncated", "wrong size", "no size", "too big"],
)
def test_a_bad_loose_object_is_not_certain(bare: Path, raw: bytes) -> None:
    oid = "ab" + "c" * 38
    _plant(bare, oid, raw)

    assert loose_object(_dirs(bare), oid) is None
    assert not is_empty_root_commit(_dirs(bare), oid)


def _for_each_ref(bare: Path) -> set[str]:
    return set(run_git(bare, "for-each-ref", "--format=%(refname)").stdout.split())


def _refs_of_every_kind(bare: Path) -> str:
    """Branches, a tag, nested names; some packed (one packed, then deleted), some loose."""
    tip = _commit(bare, _tree(bare))
    for ref in ("refs/heads/main", "refs/heads/agents/a-1", "refs/vcontext/sync/main/agents/a-1",
                "refs/vcontext/lease/main", "refs/tags/v1", "refs/heads/gone"):  # fmt: skip
        run_git(bare, "update-ref", ref, tip)
    run_git(bare, "pack-refs", "--all")
    run_git(bare, "update-ref", "-d", "refs/heads/gone")  # out of packed-refs
    run_git(bare, "update-ref", "refs/heads/agents/b.2", tip)  # loose beside packed ones
    run_git(bare, "update-ref", "refs/heads/main", _commit(bare, _tree(bare), tip))
    return tip


def test_ref_names_in_files_are_what_for_each_ref_lists(bare: Path) -> None:
    """Issue 28 point 2: the guard reads its refs from git's files instead of starting ``git
    for-each-ref``, and finds the same names: loose and packed, nested, a packed ref deleted,
    a loose ref over a packed one."""
    _refs_of_every_kind(bare)
    (bare / "refs" / "heads" / "agents" / "c.lock").write_text("in progress\n")  # git skips

    found = ref_names_in_files(str(bare))

    assert found == _for_each_ref(bare)
    assert "refs/heads/gone" not in found
    assert {"refs/heads/agents/b.2", "refs/vcontext/lease/main"} <= found
    assert ref_names(str(bare)) == found


@pytest.mark.parametrize(
    "oddity", ["symbolic ref", "not an object id", "odd name", "another ref storage", "common dir"]
)
def test_ref_names_in_files_leave_what_is_not_plain_to_git(
    bare: Path, oddity: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the files do not say for certain is git's to answer (None), and
    ``batch.ref_names`` then asks ``git for-each-ref``."""
    _refs_of_every_kind(bare)
    if oddity == "symbolic ref":
        run_git(bare, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/heads/main")
    elif oddity == "not an object id":
        (bare / "refs" / "heads" / "broken").write_text("ref: nowhere\n")
    elif oddity == "odd name":
        (bare / "refs" / "heads" / "a b").write_text((bare / "refs" / "heads" / "main").read_text())
    elif oddity == "another ref storage":
        with (bare / "config").open("a") as fh:
            fh.write("[extensions]\n\trefStorage = reftable\n")
    else:
        monkeypatch.setenv("GIT_COMMON_DIR", str(bare))

    assert ref_names_in_files(str(bare)) is None
    if oddity in ("symbolic ref", "common dir"):
        assert ref_names(str(bare)) == _for_each_ref(bare)


def _objects_of_refs(bare: Path) -> set[str]:
    return set(run_git(bare, "for-each-ref", "--format=%(objectname)").stdout.split())


def test_ref_tips_in_files_are_what_the_refs_point_at(bare: Path) -> None:
    """Issue 28 ("the guard must not slow sync --push down"): the light path stops its walk
    of a push's new commits at what the refs hold now, read from git's files; a packed
    value a loose ref overrides is not among them (its commit may be unreachable now)."""
    _refs_of_every_kind(bare)
    old = _commit(bare, _tree(bare, empty=False))
    run_git(bare, "update-ref", "refs/heads/solo", old)
    run_git(bare, "pack-refs", "--all")
    new = _commit(bare, _tree(bare), old)
    run_git(bare, "update-ref", "refs/heads/solo", new)  # loose, over the packed line

    found = ref_tips_in_files(str(bare))

    assert found is not None
    assert set(found) == _for_each_ref(bare)
    assert set(found.values()) == _objects_of_refs(bare)
    assert found["refs/heads/solo"] == new
    assert old not in found.values()


@pytest.mark.parametrize("name", ["refs/heads/a..b", "refs/heads/x.", "refs/heads/.hidden/x"])
def test_ref_tips_in_files_leave_a_name_git_refuses_to_git(bare: Path, name: str) -> None:
    """A packed line git would not read as a ref may not stop the walk (its commit counted
    as known would let new commits past unjudged): not certain (None), git answers."""
    tip = _refs_of_every_kind(bare)
    with (bare / "packed-refs").open("a") as fh:
        fh.write(f"{tip} {name}\n")

    assert ref_tips_in_files(str(bare)) is None
