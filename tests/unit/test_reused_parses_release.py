"""What a ``ReusedParses`` block remembers is released when it ends (PRODUCT.md, "MCP
server": one long-lived process serves many requests; each check or push it makes runs
its blocks, and nothing of one may stay alive after it). The history rules' walks
(``validation.history``) were kept in a module-level dict of up to 64 parsed documents
after the block ended; measured with tracemalloc."""

from __future__ import annotations

import gc
import json
import threading
import tracemalloc

from git_vcontext.codecs import ReusedParses
from git_vcontext.validation import history

PATH = "todo.vcontext.json"


def _big(n: int) -> bytes:
    items = [{"id": f"t{i}", "title": f"Item {i} " * 4, "status": "pending"} for i in range(n)]
    log = [{"sequence": i, "timestamp": "2026-01-01T00:00:00Z", "operation": "update"}
           for i in range(n)]  # fmt: skip
    data = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": items, "changeLog": log}}
    return json.dumps(data).encode()


def _held_after_a_block(raw: bytes) -> tuple[int, int]:
    """(bytes still held after the block ended, bytes the block grew by at its peak)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        with ReusedParses():
            assert history.logged_entries(raw, PATH) == 1000  # the changeLog's entries
        gc.collect()
        after, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return after - before, peak - before


def test_a_block_s_walks_are_released_when_it_ends() -> None:
    raw = _big(1000)
    history.logged_entries(raw, PATH)  # imports and caches of the first call, outside
    held, peak = _held_after_a_block(raw)
    assert peak > 1_000_000, peak  # the parsed document and its walk: megabytes
    assert held < peak // 20, (held, peak)  # was about the whole parsed document


def test_block_caches_are_per_block_and_per_thread() -> None:
    from git_vcontext.codecs import block_cache

    assert block_cache("x") is None  # outside a block
    seen: list[object] = []
    with ReusedParses():
        mine = block_cache("x")
        assert mine is not None
        assert block_cache("x") is mine
        with ReusedParses():  # an inner block uses the outer one's
            assert block_cache("x") is mine
        thread = threading.Thread(target=lambda: seen.append(block_cache("x")))
        thread.start()
        thread.join()
    assert seen == [None]  # another thread is outside any block
    assert block_cache("x") is None
