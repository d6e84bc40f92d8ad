"""The verdict cache (``prepush/cache.py``) the pre-push hook, ``sync --push`` and the
server's guard share: a lookup costs the same however many verdicts are kept (issue 28:
50,000 verdicts in one pack cost every guard run ~33 ms), the cache stays bounded, and a
damaged or half-written verdict is a miss, never a wrong answer."""

from __future__ import annotations

import os
import time
from pathlib import Path

from git_vcontext.prepush import cache as cache_mod
from git_vcontext.prepush.cache import VerdictCache, blob_key, prune
from git_vcontext.validation.model import Finding
from helpers.verdicts import leftovers, verdict_files

FINDING = Finding("parse", "", "not JSON", 1, 2, "")


def _key(i: int) -> str:
    return blob_key(f"{i:040x}", "a.vcontext.json")


def test_a_verdict_saved_is_found_by_the_next_run(tmp_path: Path) -> None:
    first = VerdictCache.open(tmp_path)
    assert first.get(_key(1)) is None
    first.put(_key(1), [FINDING])
    first.put(_key(2), [])
    first.put_files("c-" + "ab" * 20, {"t.vcontext.json": [FINDING]})
    first.save()

    again = VerdictCache.open(tmp_path)
    assert again.get(_key(1)) == [FINDING]
    assert again.get(_key(2)) == []
    assert again.get_files("c-" + "ab" * 20) == {"t.vcontext.json": [FINDING]}
    assert again.get(_key(3)) is None
    assert (again.hits, again.misses) == (3, 1)
    assert not leftovers(tmp_path)


def test_a_lookup_reads_one_file_whatever_the_size_of_the_cache(tmp_path: Path) -> None:
    """Issue 28 (a): constant-cost lookups. 5,000 verdicts kept: a run that asks for three
    reads three small files, not every verdict."""
    big = VerdictCache.open(tmp_path / "big")
    for i in range(5_000):
        big.put(_key(i), [])
    big.save()

    opened: list[str] = []
    real_open = open

    def counting(path: str, *args: object, **kwargs: object) -> object:
        found = real_open(path, *args, **kwargs)  # type: ignore[call-overload]
        opened.append(os.fspath(path))
        return found

    cache_mod.open = counting  # type: ignore[attr-defined]
    try:
        run = VerdictCache.open(tmp_path / "big")
        assert [run.get(_key(i)) for i in (5, 4_999, 5_001)] == [[], [], None]
    finally:
        del cache_mod.open  # type: ignore[attr-defined]
    assert len(opened) <= 3, opened
    assert sum(os.path.getsize(path) for path in opened) < 100  # ``[]`` each


def test_the_cache_is_bounded_oldest_verdicts_pruned_first(tmp_path: Path) -> None:
    """Past MAX_PER_FOLDER verdicts in one fan-out folder, pruning keeps the newest half."""
    run = VerdictCache.open(tmp_path)
    keys = [blob_key(f"{i:038x}00", "a.vcontext.json") for i in range(40)]  # one folder
    for key in keys:
        run.put(key, [])
    run.save()
    files = verdict_files(tmp_path)
    for age, key in enumerate(keys):  # keys[0] newest
        stamp = time.time() - 1000 - age
        os.utime(files[key], (stamp, stamp))
    folder = files[keys[0]].parent

    assert prune(str(folder), keep=100) == 0  # under the bound: nothing removed
    assert prune(str(folder), keep=30) == 25  # over it: down to half the bound
    left = set(verdict_files(tmp_path))
    assert left == set(keys[:15])
    fresh = VerdictCache.open(tmp_path)
    assert fresh.get(keys[0]) == []
    assert fresh.get(keys[-1]) is None  # pruned: a miss, checked again


def test_saves_prune_now_and_then(tmp_path: Path, monkeypatch: object) -> None:
    """A save prunes the folder it wrote (here every time: PRUNE_EVERY = 1)."""
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setattr(cache_mod, "PRUNE_EVERY", 1)
    monkeypatch.setattr(cache_mod, "MAX_PER_FOLDER", 10)
    seen: list[str] = []

    def prune_seen(folder: str) -> int:
        seen.append(folder)
        return 0

    monkeypatch.setattr(cache_mod, "prune", prune_seen)
    run = VerdictCache.open(tmp_path)
    run.put(_key(1), [])
    run.save()
    assert seen
    assert seen[0].endswith("01")


def test_a_damaged_or_half_written_verdict_is_a_miss(tmp_path: Path) -> None:
    run = VerdictCache.open(tmp_path)
    for i in range(4):
        run.put(_key(i), [FINDING])
    run.save()
    files = verdict_files(tmp_path)
    files[_key(0)].write_text("")  # being written
    files[_key(1)].write_text('[["parse", ""')  # cut short
    files[_key(2)].write_text('{"not": "rows"}')  # not ours
    again = VerdictCache.open(tmp_path)
    assert [again.get(_key(i)) for i in range(4)] == [None, None, None, [FINDING]]
    again.put(_key(0), [])  # checked again: the verdict is written whole
    again.save()
    assert VerdictCache.open(tmp_path).get(_key(0)) == []


def test_a_cache_of_another_layout_is_removed_not_misread(tmp_path: Path) -> None:
    old = tmp_path / "vcontext" / "verdicts" / "0123456789abcdef"
    old.mkdir(parents=True)
    (old / "1-abc.pack.json").write_text('{"b-json-' + "0" * 40 + '": []}')
    run = VerdictCache.open(tmp_path)
    assert not old.exists()
    assert run.get(blob_key("0" * 40, "a.vcontext.json")) is None


def test_a_cache_that_cannot_be_written_costs_time_not_a_verdict(tmp_path: Path) -> None:
    (tmp_path / "vcontext").write_text("a file where the folder goes")
    run = VerdictCache.open(tmp_path)
    run.put(_key(1), [FINDING])
    run.save()
    assert run.warning
    assert "checks ran anyway" in run.warning
    assert VerdictCache.open(tmp_path).get(_key(1)) is None
