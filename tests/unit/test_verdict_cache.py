"""The verdict cache (``prepush/cache.py``) the pre-push hook, ``sync --push`` and the
server's guard share stays bounded (issue 28: it grew without bound, and every run reads
all of it: 50,000 verdicts cost a guard run ~33 ms): past ``MAX_PACKS`` packs, the merge
keeps the newest packs' verdicts up to ``MAX_ENTRIES``, evicting the oldest."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from git_vcontext.prepush import cache as cache_mod
from git_vcontext.prepush.cache import VerdictCache, blob_key


def _key(i: int) -> str:
    return blob_key(f"{i:040x}", "a.vcontext.json")


def _run(root: Path, keys: range, when: int) -> None:
    run = VerdictCache.open(root)
    for i in keys:
        run.put(_key(i), [])
    run.save()
    folder = Path(run.folder or "")
    newest = max(folder.glob("*.pack.json"), key=lambda p: p.stat().st_mtime_ns)
    os.utime(newest, ns=(when, when))


def test_the_cache_is_bounded_the_oldest_verdicts_evicted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache_mod, "MAX_PACKS", 3)
    monkeypatch.setattr(cache_mod, "MAX_ENTRIES", 25)
    for n in range(3):  # three runs of 10 verdicts, oldest first
        _run(tmp_path, range(10 * n, 10 * n + 10), when=(n + 1) * 10**9)
    _run(tmp_path, range(30, 35), when=10 * 10**9)  # the fourth merges: 5 new + 20 newest

    after = VerdictCache.open(tmp_path)
    found = [i for i in range(35) if after.get(_key(i)) is not None]
    assert found == list(range(10, 35))  # the oldest run's verdicts evicted
    assert len(list(Path(after.folder or "").glob("*.pack.json"))) == 1


def test_under_the_bound_a_merge_keeps_every_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache_mod, "MAX_PACKS", 2)
    for n in range(3):
        _run(tmp_path, range(10 * n, 10 * n + 10), when=(n + 1) * 10**9)
    after = VerdictCache.open(tmp_path)
    assert all(after.get(_key(i)) == [] for i in range(30))


def test_a_merge_removes_a_killed_runs_temporary_and_keeps_a_live_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run killed while writing its pack (``write_atomic``) leaves ``.NAME.PID-START.
    RANDOM.tmp`` in the cache folder: the next merge removes it when its writer is gone
    (``remove_stale_temporaries``), never a live writer's."""
    import subprocess

    from git_vcontext.fsio import temporary_name

    monkeypatch.setattr(cache_mod, "MAX_PACKS", 2)
    _run(tmp_path, range(0, 5), when=10**9)
    folder = Path(VerdictCache.open(tmp_path).folder or "")
    proc = subprocess.Popen(["true"])
    proc.wait()
    dead = folder / f".1-00.pack.json.{proc.pid}-1.0123abcd.tmp"
    live = Path(temporary_name(str(folder), "2-00.pack.json"))
    for path in (dead, live):
        path.write_text("{half")
    _run(tmp_path, range(5, 10), when=2 * 10**9)  # a second pack: no merge yet
    assert dead.exists()
    _run(tmp_path, range(10, 15), when=3 * 10**9)  # past MAX_PACKS: the merge
    assert not dead.exists()
    assert live.exists()
    assert len(VerdictCache.open(tmp_path)._load()) == 15
