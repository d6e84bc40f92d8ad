"""The MCP server's parse cache and git's "racily clean" entries: a file rewritten within the
timestamps' tick of the server's read (the same size, inode, mtime and ctime: the same stat)
is read again, never served from the cache (PRODUCT.md, "MCP server": a document changed on
disk by anyone is what the next call sees; "One truth"). Pure logic: the filesystem's
coarse clock is simulated by a frozen stat."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from git_vcontext.mcp_server import files
from git_vcontext.mcp_server.files import RACY_NS, Stat
from git_vcontext.mcp_server.store import Loaded, Store


def _todo(title: str) -> bytes:
    doc = {"vBRIEFInfo": {"version": "0.5"},
           "todoList": {"items": [{"id": "t1", "title": title, "status": "pending"}]}}  # fmt: skip
    return json.dumps(doc).encode()


def _frozen(monkeypatch: pytest.MonkeyPatch, path: Path, at: int) -> None:
    """Every stat of ``path`` says the same: mtime and ctime ``at``, its size, one inode."""
    size = path.stat().st_size
    monkeypatch.setattr(files.Stat, "of", classmethod(lambda cls, p: cls(at, size, 7, at)))


def _read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: int
) -> tuple[Path, Store, Loaded]:
    """A document written ``aaaa``, its stat frozen at ``at``, and a store's first load of it."""
    doc = tmp_path / "todo.vcontext.json"
    doc.write_bytes(_todo("aaaa"))
    _frozen(monkeypatch, doc, at)
    store = Store()
    first = store.load(doc.name, str(doc))
    assert first is not None
    assert first.data["todoList"]["items"][0]["title"] == "aaaa"
    return doc, store, first


def test_a_rewrite_within_the_tick_of_the_read_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc, store, _ = _read_once(tmp_path, monkeypatch, time.time_ns())
    doc.write_bytes(_todo("bbbb"))  # same size, same (frozen) stat
    again = store.load(doc.name, str(doc))
    assert again is not None
    assert again.data["todoList"]["items"][0]["title"] == "bbbb"


def test_the_same_bytes_within_the_tick_keep_the_parsed_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc, store, first = _read_once(tmp_path, monkeypatch, time.time_ns())
    again = store.load(doc.name, str(doc))
    assert again is not None
    assert again.doc is first.doc  # compared, not parsed again


def test_a_file_settled_before_its_read_is_served_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the tick a stat tells every change (a later write has a later mtime or ctime):
    the cache is trusted, no read."""
    doc, store, first = _read_once(tmp_path, monkeypatch, time.time_ns() - RACY_NS - 1_000_000)
    reads: list[str] = []
    monkeypatch.setattr("git_vcontext.mcp_server.store.read_regular", reads.append)
    assert store.load(doc.name, str(doc)) is first
    assert reads == []


def test_a_stat_tells_a_replaced_file_by_its_ctime() -> None:
    assert Stat(1, 2, 3, 4) != Stat(1, 2, 3, 5)
    assert not Stat(10, 2, 3, 10).racy(10 + RACY_NS)
    assert Stat(10, 2, 3, 10).racy(9 + RACY_NS)
