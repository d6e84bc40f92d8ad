"""The guard's light path reads a push's objects (``gitio.batch.Objects``) from their loose
files where git's environment is a hook's in the repository, and through ``git cat-file``
otherwise (issue 28: one git process fewer per guard run). Either way it reads exactly what
git reads."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from git_vcontext.gitio.batch import Objects, Unreadable
from git_vcontext.gitio.loose import loose_dirs
from helpers.run import run_git


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    """A bare repository with a few commits of documents, their objects loose."""
    work = tmp_path / "work"
    run_git(tmp_path, "init", "-q", "-b", "main", str(work))
    for n in range(3):
        (work / "memory").mkdir(exist_ok=True)
        (work / "memory" / "todo.vcontext.json").write_text(f'{{"n": {n}}}\n')
        (work / f"file {n}.txt").write_bytes(bytes(range(256)) * (n + 1))
        run_git(work, "add", "-A")
        run_git(work, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", f"c{n}")
    bare = tmp_path / "bare.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    return bare


def _all_objects(bare: Path) -> list[str]:
    out = run_git(bare, "cat-file", "--batch-check=%(objectname)", "--batch-all-objects").stdout
    return out.split()


def _git_reads(bare: Path, oid: str) -> tuple[str, bytes]:
    kind = run_git(bare, "cat-file", "-t", oid).stdout.strip()
    data = subprocess.run(
        ["git", "cat-file", kind, oid], cwd=bare, capture_output=True, check=True
    ).stdout
    return kind, data


def _hook_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GIT_QUARANTINE_PATH", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"):
        monkeypatch.delenv(name, raising=False)


def test_loose_objects_read_without_git_exactly_as_git_reads_them(
    bare: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _hook_env(monkeypatch)
    oids = _all_objects(bare)
    expected = {oid: _git_reads(bare, oid) for oid in oids}
    assert loose_dirs(str(bare)) == [os.path.realpath(bare / "objects")]
    monkeypatch.setenv("PATH", "/nonexistent")  # no git to start: the files are read
    objects = Objects(str(bare))
    try:
        for oid in oids:
            assert objects.read(oid) == expected[oid], oid
    finally:
        objects.close()
    assert objects._proc is None


def test_packed_objects_are_read_by_git(bare: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _hook_env(monkeypatch)
    run_git(bare, "repack", "-a", "-d", "-q")
    run_git(bare, "prune-packed")
    oids = _all_objects(bare)
    expected = {oid: _git_reads(bare, oid) for oid in oids}
    objects = Objects(str(bare))
    try:
        for oid in oids:
            assert objects.read(oid) == expected[oid], oid
    finally:
        objects.close()
    monkeypatch.setenv("PATH", "/nonexistent")
    blind = Objects(str(bare))
    with pytest.raises(Unreadable):
        blind.read(oids[0])  # packed: only git reads it (none here: not read for certain)
    blind.close()


def test_objects_elsewhere_than_the_hooks_places_are_left_to_git(
    bare: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another object directory or alternate in git's environment: git's reading counts
    (the files under the repository's objects may not be the ones git reads)."""
    _hook_env(monkeypatch)
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(tmp_path))
    assert loose_dirs(str(bare)) == []
    _hook_env(monkeypatch)
    monkeypatch.setenv("GIT_ALTERNATE_OBJECT_DIRECTORIES", str(tmp_path))
    assert loose_dirs(str(bare)) == []
    _hook_env(monkeypatch)
    monkeypatch.setenv("GIT_QUARANTINE_PATH", str(tmp_path / "incoming"))
    assert loose_dirs(str(bare)) == []  # a quarantine not inside the repository's objects
    quarantine = bare / "objects" / "tmp_objdir-incoming-x"
    quarantine.mkdir()
    monkeypatch.setenv("GIT_QUARANTINE_PATH", str(quarantine))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(quarantine))
    monkeypatch.setenv("GIT_ALTERNATE_OBJECT_DIRECTORIES", str(bare / "objects"))
    assert loose_dirs(str(bare)) == [str(quarantine), os.path.realpath(bare / "objects")]


def test_a_damaged_loose_object_is_left_to_git(bare: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _hook_env(monkeypatch)
    oid = _all_objects(bare)[0]
    path = bare / "objects" / oid[:2] / oid[2:]
    path.chmod(0o644)
    path.write_bytes(b"not zlib")
    objects = Objects(str(bare))
    try:
        with pytest.raises(Unreadable):
            objects.read(oid)  # git cannot read it either
    finally:
        objects.close()
