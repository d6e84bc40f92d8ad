"""Temporary names that every file system takes (``fsio.temporary_name``).

PRODUCT.md "Bad input": files untouched or written whole (atomic replace). A document
whose own name is near the file-name limit (255 bytes) must still be written: the
temporary's NAME part is cut so that ``.NAME.PID-START-NS.RANDOM.tmp`` fits, at a
character's boundary, and stays one ``remove_stale_temporaries`` recognises.
"""

from __future__ import annotations

import itertools
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from git_vcontext.fsio import (
    NAME_MAX,
    TEMPORARY,
    pid_namespace,
    remove_stale_temporaries,
    started,
    temporary_name,
    write_atomic,
)
from helpers.long_names import NAMES


def test_the_names_are_the_lengths_they_claim() -> None:
    for label, name in NAMES.items():
        assert len(name.encode()) == int(label.rsplit("-", 1)[1]), label


@pytest.mark.parametrize("label", sorted(NAMES))
def test_a_temporary_of_a_long_name_fits_and_is_recognised(label: str, tmp_path: Path) -> None:
    name = NAMES[label]
    tmp = Path(temporary_name(str(tmp_path), name))
    raw = os.fsencode(tmp.name)
    assert len(raw) <= NAME_MAX
    part = tmp.name
    found = TEMPORARY().match(part)
    assert found is not None
    assert found.group("pid") == str(os.getpid())
    start = started(os.getpid())
    assert found.group("start") == (None if start is None else str(start))
    ns = pid_namespace()  # the namespace, like pid and start, is never cut
    assert found.group("ns") == (None if start is None or ns is None else str(ns))
    kept = found.group("name")
    assert name.startswith(kept)  # a prefix, cut between characters (no broken one)
    assert len(kept.encode()) >= NAME_MAX - 50  # still recognisable: only the tail is cut
    raw.decode("utf-8")  # strict: whole characters only
    tmp.write_bytes(b"x")  # the file system takes it


def test_a_short_name_is_kept_whole_and_two_temporaries_differ(tmp_path: Path) -> None:
    one = Path(temporary_name(str(tmp_path), "todo.vcontext.json"))
    two = Path(temporary_name(str(tmp_path), "todo.vcontext.json"))
    assert one.name.startswith(".todo.vcontext.json.")
    assert one != two  # the random part keeps writers (and writes) apart


def test_two_long_names_sharing_their_start_never_share_a_temporary(tmp_path: Path) -> None:
    a, b = "x" * 250 + "a.json", "x" * 250 + "b.json"
    assert Path(temporary_name(str(tmp_path), a)) != Path(temporary_name(str(tmp_path), b))


@pytest.mark.parametrize("label", sorted(NAMES))
def test_write_atomic_writes_a_long_named_file_whole(label: str, tmp_path: Path) -> None:
    target = tmp_path / NAMES[label]
    target.write_bytes(b"old\n")
    write_atomic(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]  # nothing left


def test_a_dead_writers_cut_temporary_is_removed(tmp_path: Path) -> None:
    _only_the_dead_writers_temporary_is_removed(tmp_path, NAMES["two-byte-255"])


@pytest.mark.parametrize("name", ["line one\nline two.vcontext.json", "ends with a newline\n"])
def test_a_dead_writers_temporary_of_a_name_holding_a_newline_is_removed(
    name: str, tmp_path: Path
) -> None:
    """A document's name may hold a newline (git allows it, validate and status quote it):
    its temporary is one ``remove_stale_temporaries`` knows too (before: the pattern's
    ``.+`` stopped at the newline, and a killed writer's temporary stayed for ever)."""
    _only_the_dead_writers_temporary_is_removed(tmp_path, name)


def test_a_name_that_only_ends_as_a_temporary_before_a_newline_is_not_one(tmp_path: Path) -> None:
    proc = subprocess.Popen(["true"])
    proc.wait()
    other = tmp_path / f".notes.{proc.pid}.0123abcd.tmp\n"  # not a name write_atomic makes
    other.write_text("someone's\n")
    assert remove_stale_temporaries(str(tmp_path)) == []
    assert other.exists()


def test_a_temporary_named_by_pid_0_is_no_live_writers_and_is_removed(tmp_path: Path) -> None:
    """PRODUCT.md "Bad input": files written whole, and what a killed writer left is
    cleaned up. No writer has pid 0 (``kill(0, 0)`` asks the caller's process group, which
    always answers), so a temporary named by it is left by no live writer: removed, as
    ``remote.refs.breakable`` judges a lease's pid 0 (one ``fsio.alive``)."""
    stale = tmp_path / f".todo.vcontext.json.0.{'ab' * 4}.tmp"
    stale.write_text("half\n")
    assert remove_stale_temporaries(str(tmp_path)) == [str(stale)]
    assert not stale.exists()


def _only_the_dead_writers_temporary_is_removed(folder: Path, name: str) -> None:
    """Temporaries of ``name`` by this (live) process and by a dead one: only the dead
    writer's is removed. The dead writer's pid has as many digits as ours (a name cut to
    255 bytes would not fit another digit: the child's pid may have one more)."""
    live = Path(temporary_name(str(folder), name))
    dead = live.with_name(live.name.replace(f".{os.getpid()}", f".{_dead_pid()}", 1))
    assert dead != live
    for path in (live, dead):
        path.write_text("half\n")
    assert remove_stale_temporaries(str(folder)) == [str(dead)]
    assert live.exists()


def _dead_pid() -> int:
    """A pid no process has, with as many digits as this process's: a child's once reaped
    when it has them, else the first such number nobody runs as."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    digits = len(str(os.getpid()))
    candidates: Iterator[int] = itertools.chain([proc.pid], range(10 ** (digits - 1), 10**digits))
    for pid in candidates:
        if len(str(pid)) != digits or pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except PermissionError:
            continue
    raise AssertionError("no free pid of that length")
